"""argparse for magics: a bad argument is a one-line ``UsageError``, ``--help`` prints and stops.

Also the conversions the subcommands share: group sets (``toolkit.core.models``'
``parse_groups`` / ``parse_group_sets``, so ``none`` means no groups everywhere),
preset names and positive numbers, each failing as a one-line argparse error.
"""

from __future__ import annotations

import argparse
import shlex
from collections.abc import Callable
from typing import NoReturn, TypeVar

from IPython.core.error import UsageError

T = TypeVar("T")


class HelpShownError(Exception):
    """``--help`` was printed; the magic returns nothing."""


class MagicParser(argparse.ArgumentParser):
    """An ``ArgumentParser`` that never exits the kernel."""

    def __init__(self, prog: str, description: str) -> None:
        super().__init__(prog=f"%tk {prog}", description=description, exit_on_error=False)

    def error(self, message: str) -> NoReturn:
        usage = " ".join(self.format_usage().split())
        raise UsageError(f"{self.prog}: {message} ({usage})")

    def exit(self, status: int = 0, message: str | None = None) -> NoReturn:
        if status:
            raise UsageError(f"{self.prog}: {message or 'invalid arguments'}")
        raise HelpShownError

    def parse(self, rest: str) -> argparse.Namespace:
        """Parse the rest of the magic's line (argparse errors become usage errors)."""
        try:
            return self.parse_args(words(rest))
        except argparse.ArgumentError as exc:
            self.error(str(exc))


def words(rest: str) -> list[str]:
    """Shell-like words of an argument string (a usage error on unbalanced quotes)."""
    try:
        return shlex.split(rest)
    except ValueError as exc:
        raise UsageError(f"cannot parse arguments {rest!r}: {exc}") from None


def csv_list(values: list[str] | None) -> list[str] | None:
    """``["a,b", "c"]`` -> ``["a", "b", "c"]``; ``None`` stays ``None``."""
    if values is None:
        return None
    return [v.strip() for value in values for v in value.split(",") if v.strip()]


def group_set(value: str | None) -> tuple[str, ...] | None:
    """``"read-only,knowledge"`` -> one group set (``"none"`` -> no groups); ``None`` stays."""
    from ...core.models import parse_groups  # on first use: %load_ext stays cheap

    return None if value is None else parse_groups(value)


def group_sets(values: list[str] | None) -> list[tuple[str, ...]] | None:
    """Repeated ``--groups``, each one set or several separated by ``;``; ``None`` stays.

    >>> group_sets(["read-only,knowledge", "*; none"])
    [('read-only', 'knowledge'), ('*',), ()]
    """
    from ...core.models import parse_group_sets

    if values is None:
        return None
    # parse_group_sets("") is no set at all; a lone --groups '' still means "no groups".
    return [s for value in values for s in (parse_group_sets(value) or [()])]


def preset_name(value: str) -> str:
    """An argparse ``type``: a known preset's name (else the known ones, as a usage error)."""
    from ...core.presets import get_preset  # on first use: %load_ext stays cheap

    try:
        return get_preset(value.strip()).name
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def preset_names(value: str) -> list[str]:
    """An argparse ``type``: comma-separated preset names, each known."""
    return [preset_name(v) for v in value.split(",") if v.strip()]


def positive_seconds(value: str) -> float:
    """An argparse ``type``: a positive number of seconds."""
    try:
        seconds = float(value)
    except ValueError:
        seconds = 0.0
    if not seconds > 0:
        raise argparse.ArgumentTypeError(f"must be a positive number of seconds, not {value!r}")
    return seconds


def non_negative_int(value: str) -> int:
    """An argparse ``type``: a count, 0 or more."""
    try:
        count = int(value)
    except ValueError:
        count = -1
    if count < 0:
        raise argparse.ArgumentTypeError(f"must be a whole number, 0 or more, not {value!r}")
    return count


def configured(trait: str, value: object, convert: Callable[[str], T]) -> T:
    """A ``%config ToolkitMagics.<trait>`` value through ``convert`` (an argparse ``type``).

    A bad one is a usage error that names the setting, since no argument of
    the failing line is to blame.
    """
    try:
        return convert(str(value))
    except argparse.ArgumentTypeError as exc:
        raise UsageError(f"%config ToolkitMagics.{trait}: {exc}; set another value with "
                         f"%config ToolkitMagics.{trait} = ...") from None
