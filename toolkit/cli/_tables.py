"""Tables on the command line: markdown (no optional dependency), CSV or JSON."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, TextIO

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["FORMATS", "write_frame", "write_sections"]

FORMATS = ("markdown", "csv", "json")


def _missing(value: Any) -> bool:
    """None, NaN or pandas' NA (a missing cell of any column type)."""
    if value is None or (isinstance(value, float) and value != value):
        return True
    return type(value).__name__ in ("NAType", "NaTType")


def _text(value: Any) -> str:
    if _missing(value):
        return ""
    if isinstance(value, dict):
        return json.dumps(value, ensure_ascii=False, default=str)
    return str(value)


def write_frame(frame: pd.DataFrame, fmt: str, out: TextIO,
                columns: Sequence[str] | None = None) -> None:
    """``frame`` (optionally only ``columns``) as markdown, CSV or JSON records."""
    shown = frame[[c for c in columns if c in frame.columns]] if columns else frame
    if fmt == "csv":
        shown.to_csv(out, index=False)
    elif fmt == "json":
        records = [{k: (None if _missing(v) else v) for k, v in row.items()}
                   for row in shown.astype(object).to_dict("records")]
        out.write(json.dumps(records, indent=2, ensure_ascii=False, default=str) + "\n")
    else:
        names = [str(c) for c in shown.columns]
        lines = ["| " + " | ".join(names) + " |", "|" + "|".join("---" for _ in names) + "|"]
        for row in shown.itertuples(index=False, name=None):
            cells = [_text(v).replace("|", "\\|").replace("\n", " ") for v in row]
            lines.append("| " + " | ".join(cells) + " |")
        out.write("\n".join(lines) + "\n")


def write_sections(sections: Sequence[tuple[str | None, pd.DataFrame, Sequence[str] | None]],
                   fmt: str, out: TextIO) -> None:
    """Each non-empty ``(title, frame, columns)`` as a table, under ``title:`` when given."""
    for title, frame, columns in sections:
        if len(frame):
            if title is not None:
                print(f"\n{title}:", file=out)
            write_frame(frame, fmt, out, columns)
