"""Argument-level permissions: "does this call run unasked, and why?" (SPEC section 11).

Runtime-independent pieces, each usable by any runtime's rule language:

- :mod:`.shell` — a command string as the simple commands it runs (tree-sitter-bash);
- :mod:`.paths` — gitignore patterns anchored at a folder, working-directory checks;
- :mod:`.layers` — settings files stacked in layers (scalars from the top, lists merged);
- the decision record and its precedence live in :mod:`toolkit.core.decision`
  (``CallFacts``, ``decide_call``, ``combine_parts``, ``Decision``).

One runtime so far: Claude Code (:mod:`.claude`: its settings loader, rule matcher and
evaluation). Gemini CLI's policy engine and Codex's execpolicy would each be one more
loader plus rule matcher beside it.
"""

from __future__ import annotations

__all__: list[str] = []
