"""Loader fuzzing: random byte- and structure-level mutations of every shipped example file
(front-matter agents, tool registries, manifests, JSON catalogs, agent.json, mux YAML/JSON).
Whatever the input, ``tk.load`` either loads or raises ``DefinitionError`` naming a file;
nothing else may escape (no bare yaml/pydantic/KeyError/RecursionError tracebacks).
"""

from __future__ import annotations

import copy
import json
import random
import shutil
import tempfile
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import toolkit as tk

EXAMPLES = Path(tk.__file__).parent / "examples"
PROJECTS = sorted(p for p in EXAMPLES.iterdir() if p.is_dir() and not p.name.startswith("_"))
FILES = [(proj, f.relative_to(proj)) for proj in PROJECTS for f in sorted(proj.rglob("*"))
         if f.is_file() and f.suffix in (".md", ".yaml", ".yml", ".json")]
FIGURES = {"mutations": 0, "loaded": 0, "definition_errors": 0}

NASTY_SCALARS: list[Any] = [None, True, 0, -1, 10**30, 1.5e308, "", "*", "x" * 100_000, [], {},
                            [[[]]], {"": None}, "\x00", "\u202e", "!!python/object:os.system",
                            "${HOME}", "../" * 50, ["*", None, 3], {"name": {"name": {}}}]
#: Bytes a flip may write: any, including the C0 control characters YAML refuses.
FLIP_BYTES = list(range(0x100))
NASTY_SNIPPETS = ["\n---\n", "&a [*a, *a]\n", "*undefined_alias", "!!python/name:os.system",
                  "!custom {}", "\t", "{{{{{{{{", "[" * 200, "]]]", ": : :", "- - -",
                  "\"unterminated", "\xff\xfe", "<<: *a\n", "%YAML 9.9\n", "? complex\n",
                  "\u2028", "key: value\nkey: value\n", "tools: *", "name:\n  - [x]"]


def mutate_bytes(data: bytes, rng: random.Random) -> bytes:
    out = bytearray(data)
    for _ in range(rng.randint(1, 6)):
        op = rng.randrange(6)
        pos = rng.randint(0, len(out))
        if op == 0 and out:  # flip a byte
            i = rng.randrange(len(out))
            out[i] = rng.choice(FLIP_BYTES)
        elif op == 1:  # delete a span
            del out[pos:pos + rng.randint(1, 40)]
        elif op == 2:  # insert a nasty snippet
            out[pos:pos] = rng.choice(NASTY_SNIPPETS).encode("utf-8", "surrogatepass")
        elif op == 3:  # duplicate a span
            out[pos:pos] = out[pos:pos + rng.randint(1, 200)]
        elif op == 4:  # truncate
            del out[pos:]
        else:  # swap two lines
            lines = bytes(out).split(b"\n")
            if len(lines) > 1:
                i, j = rng.randrange(len(lines)), rng.randrange(len(lines))
                lines[i], lines[j] = lines[j], lines[i]
                out = bytearray(b"\n".join(lines))
    return bytes(out)


def _nodes(tree: Any, path: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    out = [path]
    if isinstance(tree, dict):
        for k, v in tree.items():
            out += _nodes(v, (*path, k))
    elif isinstance(tree, list):
        for i, v in enumerate(tree):
            out += _nodes(v, (*path, i))
    return out


def mutate_tree(tree: Any, rng: random.Random) -> Any:
    for _ in range(rng.randint(1, 4)):
        path = rng.choice(_nodes(tree))
        if not path:
            tree = copy.deepcopy(rng.choice([tree, *NASTY_SCALARS]))
            continue
        parent = tree
        for key in path[:-1]:
            parent = parent[key]
        key = path[-1]
        op = rng.randrange(4)
        if op == 0:
            parent[key] = copy.deepcopy(rng.choice(NASTY_SCALARS))
        elif op == 1:
            del parent[key]
        elif op == 2 and isinstance(parent, dict):
            parent[f"{key}_unknown" if rng.random() < 0.5 else str(key).upper()] = parent.pop(key)
        else:
            value = parent[key]
            parent[key] = [value, copy.deepcopy(value)] if rng.random() < 0.5 else {
                "nested": value}
    return tree


def mutate_structure(text: str, suffix: str, rng: random.Random) -> str | None:
    """Parse, mutate the tree, dump back; None when the file has no tree to mutate."""
    if suffix == ".json":
        try:
            tree = json.loads(text)
        except ValueError:
            return None  # JSON with comments (Gemini CLI's settings.json): byte mutations only
        return json.dumps(mutate_tree(tree, rng))
    if suffix == ".md":
        if not text.startswith("---"):
            return None
        _, front, body = text.split("---", 2)
        tree = yaml.safe_load(front)
        return "---\n" + yaml.safe_dump(mutate_tree(tree, rng), allow_unicode=True) + "---" + body
    tree = yaml.safe_load(text)
    return yaml.safe_dump(mutate_tree(tree, rng), allow_unicode=True)


def _check_load(path: Path) -> None:
    FIGURES["mutations"] += 1
    try:
        proj = tk.load(path)
        for agent in proj.agents:
            proj.resolve(agent)
        FIGURES["loaded"] += 1
    except tk.DefinitionError as exc:
        FIGURES["definition_errors"] += 1
        assert exc.problems, exc
        assert all(p.file for p in exc.problems), [str(p) for p in exc.problems]
        assert str(exc).strip()


@pytest.mark.slow
@settings(max_examples=1500, deadline=None, database=None, derandomize=True,
          suppress_health_check=list(HealthCheck))
@given(which=st.integers(0, len(FILES) - 1), seed=st.integers(0, 2**32 - 1),
       structural=st.booleans(), single=st.booleans())
def test_mutated_example_files_raise_only_definition_error(which: int, seed: int,
                                                           structural: bool,
                                                           single: bool) -> None:
    project, rel = FILES[which]
    rng = random.Random(seed)
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / project.name
        shutil.copytree(project, root)
        target = root / rel
        original = target.read_bytes()
        mutated: bytes | None = None
        if structural:
            text = mutate_structure(original.decode(), target.suffix, rng)
            mutated = text.encode() if text is not None else None
        if mutated is None:
            mutated = mutate_bytes(original, rng)
        target.write_bytes(mutated)
        _check_load(target if single else root)


def test_every_supported_format_is_in_the_fuzz_corpus() -> None:
    suffixes = {rel.suffix for _, rel in FILES}
    assert {".md", ".yaml", ".json"} <= suffixes
    assert {p.name for p in PROJECTS} >= {"adh-cli", "claude-code", "emergent", "mux",
                                           "trustgraph", "work-agent"}
    if FIGURES["mutations"]:
        assert FIGURES["mutations"] >= 1500
        print(f"\nloader fuzz: {FIGURES}")


@pytest.mark.parametrize("name", ["tools.yaml", "agent.md"])
def test_control_character_in_yaml_is_a_definition_error(name: str, tmp_path: Path) -> None:
    text = ("tool:\n  t: {description: \"bell\x07\"}\n" if name == "tools.yaml"
            else "---\nname: a\ntools: [x\x05]\n---\n")
    (tmp_path / name).write_text(text)
    with pytest.raises(tk.DefinitionError) as exc:
        tk.load(tmp_path)
    problem = exc.value.problems[0]
    assert (problem.file, problem.line) == (name, 2 if name == "tools.yaml" else 3)
    assert "is not allowed in YAML" in problem.message
