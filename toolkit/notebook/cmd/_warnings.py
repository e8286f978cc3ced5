"""Warnings as one ``warning: ...`` line each on stderr (a notebook shows them under the cell).

The core reports a request's oddities (a group or state no tool knows) in
``Decision.warnings`` and, for tables, as a ``UserWarning``; Python would print
the latter with a file:line prefix, and only the first time. Here every one
is a plain line, every time; the command still returns its result.
"""

from __future__ import annotations

import sys
import warnings
from collections.abc import Iterable, Iterator
from contextlib import contextmanager


def warn(messages: Iterable[str]) -> None:
    """Print each distinct message as one ``warning:`` line on stderr."""
    for message in dict.fromkeys(messages):
        print(f"warning: {message}", file=sys.stderr)


@contextmanager
def warning_lines() -> Iterator[None]:
    """Warnings raised inside the block, each printed as one ``warning:`` line afterwards."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", UserWarning)
        yield
    warn(str(w.message) for w in caught)
