"""Issue 24 item 2 (replay part): under Claude Code settings, a settings rule that calls
reached but another rule always decided reads ``shadowed``, not ``dead``.

By Claude Code's documented order (deny, then ask, then allow; the first match decides)
``git push origin main`` meets the allow ``Bash(git push *)`` but the ask rule of the same
text decides it; each part of ``npm run lint && curl x`` is decided on its own, so the allow
``Bash(npm run lint)`` decides a part although the deny rule decides the call.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

import toolkit as tk
from tests.support.claude import build_project, permissions


def test_reached_but_never_deciding_reads_shadowed(tmp_path: Path) -> None:
    # .claude/settings.json lines: allow 4 npm run lint, 5 git push *, 6 make *;
    # ask 9 git push *; deny 12 curl *
    proj = build_project(tmp_path, project=permissions(
        allow=["Bash(npm run lint)", "Bash(git push *)", "Bash(make *)"],
        ask=["Bash(git push *)"], deny=["Bash(curl *)"]))
    calls = pd.DataFrame({"agent": [None, None, None], "tool": ["Bash"] * 3,
                          "args": [{"command": "git push origin main"},
                                   {"command": "git push origin dev"},
                                   {"command": "npm run lint && curl x"}]})
    rules = tk.replay(proj, calls).rules
    got = {(r["kind"], r["line"]): (r["hits"], r["decisive"], r["status"])
           for r in rules.to_dict("records")}
    assert got == {("deny", 12): (1, 1, "used"),
                   ("ask", 9): (2, 2, "used"),
                   ("allow", 4): (1, 1, "used"),        # decided a part of a compound command
                   ("allow", 5): (2, 0, "shadowed"),    # reached twice, the ask rule decided
                   ("allow", 6): (0, 0, "dead")}        # no call reached it
