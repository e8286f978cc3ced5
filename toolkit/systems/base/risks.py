"""The risk classes a tool can carry (the lethal trifecta and destruction), as sets.

Systems name their built-in tools' risks with these; ``toolkit.analysis.risk`` reads them.
"""

from __future__ import annotations

__all__ = ["ALL", "LEGS", "READ", "RISKS", "WEB", "WRITE"]

RISKS = ("reads_private", "untrusted_input", "sends_out", "destructive")
#: The three legs of the lethal trifecta.
LEGS = ("reads_private", "untrusted_input", "sends_out")
ALL = frozenset(RISKS)
WEB = frozenset({"untrusted_input", "sends_out"})
READ = frozenset({"reads_private"})
WRITE = frozenset({"destructive"})
