"""argparse for magics: a bad argument is a one-line ``UsageError``, ``--help`` prints and stops."""

from __future__ import annotations

import argparse
from typing import NoReturn

from IPython.core.error import UsageError


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

    def parse(self, words: list[str]) -> argparse.Namespace:
        """Parse ``words`` (argparse errors become usage errors)."""
        try:
            return self.parse_args(words)
        except argparse.ArgumentError as exc:
            self.error(str(exc))


def csv_list(values: list[str] | None) -> list[str] | None:
    """``["a,b", "c"]`` -> ``["a", "b", "c"]``; ``None`` stays ``None``."""
    if values is None:
        return None
    return [v.strip() for value in values for v in value.split(",") if v.strip()]


def group_set(value: str | None) -> list[str] | None:
    """``"read-only,knowledge"`` -> a group set; ``"none"`` or ``""`` -> no groups."""
    if value is None:
        return None
    if value.strip().lower() in ("", "none", "[]"):
        return []
    return [g.strip() for g in value.split(",") if g.strip()]
