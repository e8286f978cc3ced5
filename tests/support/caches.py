"""Empty the permission engine's memo caches, so a test exercises the code under them.

``make mutate`` forks one worker per mutant from a process that has already run the tests
once; a cached ``parse`` (or ``forms``, or a compiled rule pattern) answers from that run and
the mutated code beneath it never executes. The mutation tests clear these before each test.
"""

from __future__ import annotations

from toolkit.systems.base import shell
from toolkit.systems.claude_code.permissions import bash, evaluate, rules


def clear_caches() -> None:
    for cached in (shell.parse, bash.forms, evaluate._pure_part, rules._glob,
                   rules._command_regex, rules._domain_regex, rules._anchored,
                   rules._literal_words, rules._full_segment):
        cached.cache_clear()
