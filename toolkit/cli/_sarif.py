"""SARIF 2.1.0 output for the analysis verbs (``lint``, ``test``, ``probe``): one writer.

GitHub code scanning (``github/codeql-action/upload-sarif``) and other CI viewers read a
``runs[].results[]`` list of findings, each with a rule id, a level, a message and a file
location; ``runs[].tool.driver.rules`` describes the rule ids.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

__all__ = ["SCHEMA", "Finding", "sarif"]

SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"


@dataclass(frozen=True)
class Finding:
    """One result: which rule id, how severe (``error`` | ``warning`` | ``note``), what to
    say, and where (a file relative to the project, a 1-based line or None)."""

    rule_id: str
    level: str
    message: str
    file: str | None
    line: int | None = None


def sarif(tool: str, rules: Mapping[str, str], findings: Iterable[Finding]) -> dict[str, Any]:
    """The SARIF log of one run of ``tool`` (``rules``: id -> short description).

    >>> log = sarif("toolmatrix lint", {"dead": "dead permission rule"},
    ...             [Finding("dead", "error", "matches nothing", ".claude/settings.json", 3)])
    >>> result = log["runs"][0]["results"][0]
    >>> result["ruleId"], result["locations"][0]["physicalLocation"]["region"]
    ('dead', {'startLine': 3})
    """
    results = []
    for found in findings:
        location: dict[str, Any] = {"artifactLocation": {"uri": found.file or ""}}
        if found.line is not None:
            location["region"] = {"startLine": int(found.line)}
        results.append({"ruleId": found.rule_id, "level": found.level,
                        "message": {"text": found.message},
                        "locations": [{"physicalLocation": location}]})
    driver = {"name": tool, "rules": [{"id": rule_id, "shortDescription": {"text": text}}
                                      for rule_id, text in rules.items()]}
    return {"$schema": SCHEMA, "version": "2.1.0",
            "runs": [{"tool": {"driver": driver}, "results": results}]}
