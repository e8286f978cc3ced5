"""OpenCode's wildcard matcher (``Wildcard.match``), the one every permission rule uses.

Ported from ``packages/core/src/util/wildcard.ts`` (anomalyco/opencode @0b05698; the same
function as ``packages/opencode/src/util/wildcard.ts`` of the 1.x releases):

- backslashes become ``/`` on both sides;
- regex metacharacters are escaped, then ``*`` is ``.*`` (it crosses ``/``) and ``?`` is ``.``;
- a pattern ending in ``" *"`` also matches without the trailing part (``ls *`` matches ``ls``);
- the regex is anchored and dot-all; case-sensitive (OpenCode ignores case on Windows only).
"""

from __future__ import annotations

import re
from functools import lru_cache

__all__ = ["match"]

_SPECIAL = re.compile(r"[.+^${}()|\[\]\\]")


@lru_cache(maxsize=4096)
def _compile(pattern: str) -> re.Pattern[str]:
    escaped = _SPECIAL.sub(lambda m: "\\" + m.group(), pattern.replace("\\", "/"))
    escaped = escaped.replace("*", ".*").replace("?", ".")
    if escaped.endswith(" .*"):
        escaped = escaped[:-3] + "( .*)?"
    # fullmatch, not "$": Python's "$" also matches before a final newline, JavaScript's not
    return re.compile(escaped, re.DOTALL)


def match(text: str, pattern: str) -> bool:
    """Whether ``text`` matches the OpenCode wildcard ``pattern``.

    >>> match("git status", "git *"), match("git", "git *"), match("gitk", "git *")
    (True, True, False)
    >>> match("src/a/b.ts", "src/*")  # '*' crosses '/'
    True
    """
    return _compile(pattern).fullmatch(text.replace("\\", "/")) is not None
