"""The table of ``toolmatrix`` verbs: each verb module registers itself here with :func:`verb`."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from dataclasses import dataclass
from typing import TextIO

__all__ = ["VERBS", "Verb", "verb"]

Run = Callable[[argparse.Namespace, TextIO, TextIO], int]


@dataclass(frozen=True)
class Verb:
    """One ``toolmatrix`` verb: its help line, how it adds its arguments, and what it runs."""

    name: str
    help: str
    add_arguments: Callable[[argparse.ArgumentParser], None]
    run: Run


#: Every verb, in the order ``toolmatrix --help`` lists them (filled by the verb modules).
VERBS: dict[str, Verb] = {}


def verb(name: str, help: str, add_arguments: Callable[[argparse.ArgumentParser], None]
         ) -> Callable[[Run], Run]:
    """Register the decorated function as verb ``name`` of ``toolmatrix``."""

    def register(run: Run) -> Run:
        VERBS[name] = Verb(name, help, add_arguments, run)
        return run

    return register
