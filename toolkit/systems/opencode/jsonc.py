"""JSON with comments, read as OpenCode reads ``opencode.json`` / ``opencode.jsonc``.

OpenCode parses its config with Microsoft's ``jsonc-parser`` (``parse(text, errors,
{ allowTrailingComma: true })``, ``packages/opencode/src/config/parse.ts``) and refuses
the file when any error is reported, naming each by ``printParseErrorCode`` with its line
and column. This is a small recursive-descent reader of the same language: ``//`` and
``/* */`` comments, trailing commas in objects and arrays, a duplicate key keeping its
first place with the last value (as a JavaScript object does), JSON strings and numbers.
It reports the first error under jsonc-parser's name for it, and remembers the line of
every value (the ``Located`` of ``systems.base.source``) so rules can cite file:line.
"""

from __future__ import annotations

import re
from typing import Any

from ..base.source import Located

__all__ = ["JsoncError", "parse"]

_NUMBER = re.compile(r"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][-+]?[0-9]+)?")
_ESCAPES = {'"': '"', "\\": "\\", "/": "/", "b": "\b", "f": "\f", "n": "\n", "r": "\r",
            "t": "\t"}
_LITERALS = {"true": True, "false": False, "null": None}
_MAX_DEPTH = 200
_HEX4 = re.compile(r"[0-9a-fA-F]{4}")


class JsoncError(ValueError):
    """A syntax error: jsonc-parser's error code, and its 1-based line and column."""

    def __init__(self, code: str, line: int, column: int, text: str) -> None:
        self.code, self.line, self.column = code, line, column
        lines = text.split("\n")
        problem = lines[line - 1] if 0 < line <= len(lines) else ""
        shown = f"{code} at line {line}, column {column}"
        if problem:
            shown += f"\n   Line {line}: {problem}\n{'':>{column + 9}}^"
        super().__init__(shown)


class _Reader:
    def __init__(self, text: str, file: str) -> None:
        self.text = text
        self.pos = 0
        self.lines: dict[tuple[Any, ...], int] = {}
        self.file = file

    # -- positions ----------------------------------------------------------------------------

    def line_at(self, pos: int) -> int:
        return self.text.count("\n", 0, pos) + 1

    def fail(self, code: str, pos: int | None = None) -> JsoncError:
        at = self.pos if pos is None else pos
        before = self.text[:at].split("\n")
        return JsoncError(code, len(before), len(before[-1]) + 1, self.text)

    # -- tokens -------------------------------------------------------------------------------

    def skip(self) -> None:
        """Whitespace and comments."""
        text, n = self.text, len(self.text)
        while self.pos < n:
            ch = text[self.pos]
            if ch in " \t\r\n\ufeff\u00a0\u2028\u2029\v\f":
                self.pos += 1
            elif text.startswith("//", self.pos):
                end = text.find("\n", self.pos)
                self.pos = n if end < 0 else end
            elif text.startswith("/*", self.pos):
                end = text.find("*/", self.pos + 2)
                if end < 0:
                    self.pos = n
                    raise self.fail("UnexpectedEndOfComment")
                self.pos = end + 2
            else:
                return

    def value(self, path: tuple[Any, ...], depth: int) -> Any:
        if depth > _MAX_DEPTH:
            raise self.fail("InvalidSymbol")
        self.skip()
        if self.pos >= len(self.text):
            raise self.fail("ValueExpected")
        self.lines[path] = self.line_at(self.pos)
        ch = self.text[self.pos]
        if ch == "{":
            return self.obj(path, depth)
        if ch == "[":
            return self.array(path, depth)
        if ch == '"':
            return self.string()
        found = _NUMBER.match(self.text, self.pos)
        if found is not None and ch in "-0123456789":
            self.pos = found.end()
            number = found.group()
            return float(number) if any(c in number for c in ".eE") else int(number)
        for word, literal in _LITERALS.items():
            if self.text.startswith(word, self.pos):
                self.pos += len(word)
                return literal
        raise self.fail("InvalidNumberFormat" if ch == "-" else "ValueExpected")

    def string(self) -> str:
        text, start = self.text, self.pos
        self.pos += 1
        out: list[str] = []
        while True:
            if self.pos >= len(text):
                raise self.fail("UnexpectedEndOfString", start)
            ch = text[self.pos]
            if ch == '"':
                self.pos += 1
                return "".join(out)
            if ch == "\\":
                esc = text[self.pos + 1:self.pos + 2]
                if esc in _ESCAPES:
                    out.append(_ESCAPES[esc])
                    self.pos += 2
                elif esc == "u" and _HEX4.fullmatch(hexa := text[self.pos + 2:self.pos + 6]):
                    out.append(chr(int(hexa, 16)))
                    self.pos += 6
                else:
                    raise self.fail("InvalidEscapeCharacter" if esc != "u" else "InvalidUnicode")
                continue
            if ch in "\r\n":
                raise self.fail("UnexpectedEndOfString", start)
            if ord(ch) < 0x20:
                raise self.fail("InvalidCharacter")
            out.append(ch)
            self.pos += 1

    def obj(self, path: tuple[Any, ...], depth: int) -> dict[str, Any]:
        self.pos += 1
        out: dict[str, Any] = {}
        first = True
        while True:
            self.skip()
            if self.pos >= len(self.text):
                raise self.fail("CloseBraceExpected")
            ch = self.text[self.pos]
            if ch == "}":
                self.pos += 1
                return out
            if not first:
                if ch != ",":
                    raise self.fail("CommaExpected")
                self.pos += 1
                self.skip()
                if self.text[self.pos:self.pos + 1] == "}":  # a trailing comma
                    self.pos += 1
                    return out
            if self.text[self.pos:self.pos + 1] != '"':
                raise self.fail("PropertyNameExpected")
            key_line = self.line_at(self.pos)
            key = self.string()
            self.skip()
            if self.text[self.pos:self.pos + 1] != ":":
                raise self.fail("ColonExpected")
            self.pos += 1
            out[key] = self.value((*path, key), depth + 1)
            self.lines.setdefault((*path, key), key_line)
            first = False

    def array(self, path: tuple[Any, ...], depth: int) -> list[Any]:
        self.pos += 1
        out: list[Any] = []
        while True:
            self.skip()
            if self.pos >= len(self.text):
                raise self.fail("CloseBracketExpected")
            ch = self.text[self.pos]
            if ch == "]":
                self.pos += 1
                return out
            if out:
                if ch != ",":
                    raise self.fail("CommaExpected")
                self.pos += 1
                self.skip()
                if self.text[self.pos:self.pos + 1] == "]":
                    self.pos += 1
                    return out
            out.append(self.value((*path, len(out)), depth + 1))


def parse(text: str, file: str) -> Located:
    """The value of a JSONC text with the line of each value; ``JsoncError`` on a syntax error.

    >>> src = parse('{\\n  // comment\\n  "permission": {"bash": "ask",},\\n}', "opencode.json")
    >>> src.data, src.line(("permission", "bash"))
    ({'permission': {'bash': 'ask'}}, 3)
    """
    reader = _Reader(text, file)
    value = reader.value((), 0)
    reader.skip()
    if reader.pos < len(text):
        raise reader.fail("EndOfFileExpected")
    return Located(value, file, reader.lines)
