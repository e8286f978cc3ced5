"""Malformed input of every kind: a located ``DefinitionError``, never a third-party traceback.

Each case writes a small project, loads it and checks that ``tk.load`` raises
``DefinitionError`` whose first problem names the offending file (as shown,
relative to the project folder), the exact 1-based line, and what is wrong.
No other exception type may escape, and nothing in the input is executed:
payloads that would run a command try to create a marker file, which must
not exist afterwards.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

import toolkit as tk

Write = Callable[..., Path]

#: Replaced by the marker file's path in every text file a case writes.
MARKER = "@MARKER@"

REGISTRY = """
tool:
  read: {}
  write: {}
  search: {}
"""

ALIAS_BOMB = "\n".join([
    "tool:",
    "  read: {}",
    'lol1: &a ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]',
    "lol2: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]",
    "lol3: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b, *b]",
    "lol4: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c, *c]",
    "lol5: &e [*d, *d, *d, *d, *d, *d, *d, *d, *d, *d]",
    "lol6: &f [*e, *e, *e, *e, *e, *e, *e, *e, *e, *e]",
    "lol7: &g [*f, *f, *f, *f, *f, *f, *f, *f, *f, *f]",
    "lol8: &h [*g, *g, *g, *g, *g, *g, *g, *g, *g, *g]",
    "lol9: &i [*h, *h, *h, *h, *h, *h, *h, *h, *h, *h]",
    "",
])


def _merge_bomb(levels: int) -> str:
    """Nested ``<<`` merge keys: each level merges the one below ten times."""
    node = "&m0 {a: 1, b: 2, c: 3, d: 4, e: 5, f: 6, g: 7, h: 8, i: 9, j: 10}"
    for k in range(1, levels):
        node = f"&m{k} {{<<: [{node}" + f", *m{k - 1}" * 9 + "]}"
    return "tool:\n  read: {}\nbomb: " + node + "\n"


def case(case_id: str, files: dict[str, str | bytes], file: str | None, line: int | None,
         says: str | tuple[str, ...], *, target: str = ".", preset: str | None = None
         ) -> object:
    """One malformed project: what to write, what to load, and the problem expected first."""
    expected = (says,) if isinstance(says, str) else says
    return pytest.param(files, target, preset, file, line, expected, id=case_id)


CASES = [
    # -- front matter --------------------------------------------------------------------------
    case("frontmatter-never-closed",
         {"agents/a.md": "---\nname: a\ntools: [read]\n\nBody text.\n"},
         "agents/a.md", 1, "never closed"),
    case("frontmatter-is-a-list",
         {"agents/a.md": "---\n- read\n- write\n---\nBody.\n"},
         "agents/a.md", 2, "front matter must be a YAML mapping"),
    case("frontmatter-is-a-string",
         {"agents/a/agent.md": "---\njust some words\n---\nBody.\n"},
         "agents/a/agent.md", 2, "front matter must be a YAML mapping"),
    case("frontmatter-bad-indentation",
         {"agents/a.md": "---\nname: a\ntools:\n  - read\n - write\n---\n"},
         "agents/a.md", 5, "YAML syntax error"),
    case("frontmatter-mapping-value-inside-scalar",
         {"agents/a.md": "---\nname: a\n  tools: [read]\n---\n"},
         "agents/a.md", 3, "YAML syntax error"),
    case("frontmatter-tab-indentation",
         {"agents/a.md": "---\nname: a\ntools:\n\t- read\n---\n"},
         "agents/a.md", 4, "YAML syntax error"),
    case("frontmatter-duplicate-key",
         {"tools.yaml": REGISTRY,
          "agents/a.md": "---\nname: a\ntools: [read]\ntools: [write]\n---\n"},
         "agents/a.md", 4, "duplicate key 'tools'"),
    # -- YAML tags: rejected, never constructed ------------------------------------------------
    case("tag-python-object-apply-os-system",
         {"agents/a.md": f'---\nname: a\ntools: !!python/object/apply:os.system ["touch {MARKER}"]'
                         "\n---\n"},
         "agents/a.md", 3, ("!!python/object/apply:os.system", "not allowed")),
    case("tag-python-object-apply-in-registry",
         {"tools.yaml": f"tool:\n  read: {{}}\n  write: !!python/object/apply:os.system "
                        f"['touch {MARKER}']\n"},
         "tools.yaml", 3, "not allowed"),
    case("tag-python-object-apply-on-a-key",
         {"agents/a.md": f"---\nname: a\n? !!python/object/apply:os.system ['touch {MARKER}']\n"
                         ": x\n---\n"},
         "agents/a.md", 3, "not allowed"),
    case("tag-python-object-apply-in-manifest",
         {"toolkit.yaml": f"preset: strict\nmax_depth: !!python/object/apply:os.system "
                          f"['touch {MARKER}']\n"},
         "toolkit.yaml", 2, "not allowed"),
    case("tag-python-name",
         {"agents/a.md": "---\nname: a\nmodel: !!python/name:os.system\n---\n"},
         "agents/a.md", 3, ("python/name:os.system", "not allowed")),
    case("tag-custom-foo",
         {"agents/a.md": "---\nname: a\ndescription: !foo bar\n---\n"},
         "agents/a.md", 3, ("'!foo'", "not allowed")),
    case("yaml-alias-bomb",
         {"tools.yaml": ALIAS_BOMB},
         "tools.yaml", 8, "anchor/alias bomb"),
    case("yaml-merge-key-bomb",
         {"tools.yaml": _merge_bomb(12)},
         "tools.yaml", 3, "anchor/alias bomb"),
    case("yaml-recursive-anchor",
         {"tools.yaml": "tool:\n  read:\n    group: &g\n      - read-only\n      - *g\n"},
         "tools.yaml", 5, "recursive anchor"),
    case("yaml-merge-into-itself",
         {"tools.yaml": "tool:\n  read: &r\n    description: x\n    <<: *r\n"},
         "tools.yaml", 4, "recursive anchor"),
    case("yaml-undefined-alias",
         {"tools.yaml": "tool:\n  read: {}\n  write: *nope\n"},
         "tools.yaml", 3, "undefined alias 'nope'"),
    # -- wrong types in agent files ------------------------------------------------------------
    case("tools-is-a-number",
         {"agents/a.md": "---\nname: a\ntools: 42\n---\n"},
         "agents/a.md", 3, "tools must be a list of tool names or a comma-separated string"),
    case("tools-list-holds-a-number",
         {"tools.yaml": REGISTRY, "agents/a.md": "---\nname: a\ntools:\n  - read\n  - 42\n---\n"},
         "agents/a.md", 5, "tools[1] must be a tool name"),
    case("tools-comma-string-with-empty-name",
         {"agents/a.md": '---\nname: a\ntools: "read,,write"\n---\n'},
         "agents/a.md", 3, "empty name in comma-separated list"),
    case("tools-entry-with-unknown-key",
         {"agents/a.md": "---\nname: a\ntools:\n  - name: read\n    descr: reads\n---\n"},
         "agents/a.md", 5, ("unknown keys ['descr']", "only 'name' and 'description'")),
    case("description-is-a-list",
         {"agents/a.md": "---\nname: a\ndescription:\n  - one\n  - two\n---\n"},
         "agents/a.md", 3, "description must be a string, not list"),
    case("name-is-a-list",
         {"agents/a.md": "---\ndescription: x\nname: [a, b]\n---\n"},
         "agents/a.md", 3, "name must be a non-empty string"),
    case("max-depth-negative",
         {"agents/a.md": "---\nname: a\nmax_depth: -1\n---\n"},
         "agents/a.md", 3, "max_depth must be a whole number >= 0, not -1"),
    case("max-depth-is-a-word",
         {"agents/a.md": '---\nname: a\nmaxDepth: "two"\n---\n'},
         "agents/a.md", 3, "maxDepth must be a whole number >= 0, not 'two'"),
    case("variables-is-a-string",
         {"agents/a.md": "---\nname: a\nvariables: topic\n---\n"},
         "agents/a.md", 3, "variables must be a list of names"),
    case("aliases-is-a-list",
         {"agents/a.md": "---\nname: a\naliases: [a, b]\n---\n"},
         "agents/a.md", 3, "aliases must be a mapping"),
    case("timestamp-out-of-range",
         {"agents/a.md": "---\nname: a\ndescription: 2020-13-45\n---\n"},
         "agents/a.md", 3, ("invalid value", "month")),
    case("agent-tool-name-with-space",
         {"tools.yaml": REGISTRY,
          "agents/a.md": "---\nname: a\ntools:\n  - read\n  - my tool\n---\n"},
         "agents/a.md", 5, "'my tool' is not a valid tool name"),
    case("deny-name-with-space",
         {"tools.yaml": REGISTRY,
          "agents/a.md": "---\nname: a\ntools: [read]\ndisallowedTools:\n  - rm rf\n---\n"},
         "agents/a.md", 5, "'rm rf' is not a valid tool name"),
    case("duplicate-agent-name-across-files",
         {"agents/a.md": "---\nname: same\n---\n",
          "agents/b.md": "---\ndescription: x\nname: same\n---\n"},
         "agents/b.md", 3, ("duplicate agent name 'same'", "agents/a.md:2")),
    # -- TrustGraph tool registry and group maps -----------------------------------------------
    case("registry-tool-entry-is-a-list",
         {"tools.yaml": "tool:\n  read: {}\n  search:\n    - a\n    - b\n"},
         "tools.yaml", 3, "tool 'search' must be a mapping (or {}), not list"),
    case("registry-tool-name-with-space",
         {"tools.yaml": "tool:\n  read: {}\n  my tool: {}\n"},
         "tools.yaml", 3, "'my tool' is not a valid tool name"),
    case("registry-tool-name-is-a-number",
         {"tools.yaml": "tool:\n  read: {}\n  42: {}\n"},
         "tools.yaml", 3, "tool names must be non-empty strings"),
    case("registry-group-holds-a-number",
         {"tools.yaml": "tool:\n  read:\n    description: reads\n    group:\n      - read-only\n"
                        "      - 1\n"},
         "tools.yaml", 6, "group"),
    case("registry-available-in-states-is-a-number",
         {"tools.yaml": "tool:\n  read:\n    available_in_states: 5\n"},
         "tools.yaml", 3, "available_in_states must be a list of strings, not 5"),
    case("registry-both-state-spellings",
         {"tools.yaml": "tool:\n  read:\n    available_in_states: [a]\n"
                        "    applicable-states: [a]\n"},
         "tools.yaml", 4, "keep one spelling"),
    case("registry-state-is-a-list",
         {"tools.yaml": "tool:\n  read:\n    state: [a, b]\n"},
         "tools.yaml", 3, "state must be a string"),
    case("registry-invalid-builtin-policy-name",
         {"tools.yaml": "tool:\n  grep:\n    builtinPolicy:\n      name: rm_rf\n"},
         "tools.yaml", 4, ("builtinPolicy.name", "'fs_read', 'fs_write' or 'shell_exec'")),
    case("registry-yaml-syntax-error",
         {"tools.yaml": "tool:\n  read: {}\n  write: [a, b\n  search: {}\n"},
         "tools.yaml", 4, "YAML syntax error"),
    case("registry-invalid-merge-key",
         {"tools.yaml": "tool:\n  read:\n    <<: 5\n"},
         "tools.yaml", 3, "invalid merge key"),
    case("registry-key-is-a-list",
         {"tools.yaml": "tool:\n  read: {}\n  ? [a, b]\n  : {}\n"},
         "tools.yaml", 3, "mapping keys must be plain scalars"),
    case("group-map-member-not-a-string",
         {"tools.yaml": REGISTRY, "groups.yaml": "read-only:\n  - read\n  - [write]\n"},
         "groups.yaml", 3, "group 'read-only'"),
    # -- mux -----------------------------------------------------------------------------------
    case("mux-allowed-tools-is-a-mapping",
         {"agents/m.yaml": "name: m\nallowed_tools:\n  a: 1\n"},
         "agents/m.yaml", 2, "allowed_tools must be a list of tool names"),
    case("mux-unknown-key-AllowedTool",
         {"agents/m.yaml": "Name: m\nSystemPrompt: Be brief.\nAllowedTool: [read]\n"},
         "agents/m.yaml", 3, ("unknown key 'AllowedTool'", "did you mean 'AllowedTools'")),
    case("mux-both-spellings",
         {"agents/m.yaml": "name: m\nallowed_tools: [read]\nAllowedTools: [read]\n"},
         "agents/m.yaml", 3, "two spellings of one field"),
    case("mux-system-prompt-is-a-number",
         {"agents/m.json": '{\n  "Name": "m",\n  "SystemPrompt": 7\n}\n'},
         "agents/m.json", 3, "SystemPrompt must be a string, not int"),
    # -- work-agent ----------------------------------------------------------------------------
    case("work-agent-tools-allow-instead-of-allowed",
         {"agents/w/agent.json": '{\n  "name": "w",\n  "tools": {\n    "allow": ["read"]\n'
                                 "  }\n}\n"},
         "agents/w/agent.json", 4, "unknown key 'tools.allow'"),
    case("work-agent-allowed-and-available",
         {"agents/w/agent.json": '{\n  "name": "w",\n  "tools": {\n    "allowed": ["read"],\n'
                                 '    "available": ["read"]\n  }\n}\n'},
         "agents/w/agent.json", 5, "two spellings of one list"),
    case("work-agent-alias-cycle",
         {"tools.yaml": REGISTRY,
          "agents/w/agent.json": '{\n  "name": "w",\n  "tools": {\n    "allowed": ["a"],\n'
                                 '    "aliases": {\n      "a": "b",\n      "b": "a"\n    }\n'
                                 "  }\n}\n"},
         "agents/w/agent.json", 6, "alias cycle a -> b -> a"),
    case("duplicate-json-key",
         {"agents/w/agent.json": '{\n  "name": "w",\n  "tools": {"allowed": ["read"]},\n'
                                 '  "name": "v"\n}\n'},
         "agents/w/agent.json", 4, "duplicate key 'name'"),
    case("catalog-entry-key-comand",
         {"tools.json": '{\n  "tools": [\n    {\n      "id": "files",\n      "kind": "mcp",\n'
                        '      "comand": "files-server"\n    }\n  ]\n}\n'},
         "tools.json", 6, "unknown key 'tools.0.comand'"),
    case("catalog-builtin-without-policy",
         {"tools.json": '{\n  "tools": [\n    {"id": "fs_read", "kind": "builtin",\n'
                        '     "builtinPolicy": {"name": "fs_read"}},\n'
                        '    {"id": "grep", "kind": "builtin"}\n  ]\n}\n'},
         "tools.json", 5, "builtin tool 'grep' needs a builtinPolicy"),
    case("catalog-invalid-builtin-policy-name",
         {"tools.json": '{\n  "tools": [\n    {\n      "id": "grep",\n      "kind": "builtin",\n'
                        '      "builtinPolicy": {\n        "name": "rm_rf"\n      }\n    }\n'
                        "  ]\n}\n"},
         "tools.json", 7, ("builtinPolicy.name", "'fs_read', 'fs_write' or 'shell_exec'")),
    case("catalog-stdio-without-command",
         {"tools.json": '{"tools": [\n  {"id": "a", "kind": "mcp", "command": "x"},\n'
                        '  {"id": "b", "kind": "mcp", "transport": "stdio"}\n]}\n'},
         "tools.json", 3, "mcp tool 'b' with transport stdio needs a command"),
    # -- MCP server configs --------------------------------------------------------------------
    case("json-syntax-error-missing-comma",
         {".mcp.json": '{\n  "mcpServers": {\n    "a": {"command": "x"}\n'
                       '    "b": {"command": "y"}\n  }\n}\n'},
         ".mcp.json", 4, ("JSON syntax error", "Expecting ',' delimiter")),
    case("json-syntax-error-trailing-comma",
         {".mcp.json": '{\n  "mcpServers": {\n    "a": {"command": "x"},\n  }\n}\n'},
         ".mcp.json", 4, "JSON syntax error"),
    case("mcp-unknown-type",
         {".mcp.json": '{\n  "mcpServers": {\n    "files": {\n      "type": "carrier-pigeon",\n'
                       '      "command": "files"\n    }\n  }\n}\n'},
         ".mcp.json", 4, "unknown transport 'carrier-pigeon'"),
    case("mcp-stdio-without-command",
         {".mcp.json": '{\n  "mcpServers": {\n    "ok": {"command": "x"},\n'
                       '    "files": {"type": "stdio", "args": ["--root", "."]}\n  }\n}\n'},
         ".mcp.json", 4, "server 'files': a stdio server needs a 'command'"),
    case("vscode-http-without-url",
         {".vscode/mcp.json": '{\n  "servers": {\n    "web": {"type": "http"}\n  }\n}\n'},
         ".vscode/mcp.json", 3, "server 'web': a streamable-http server needs a 'url'"),
    case("mcp-tab-indented-stdio-without-command",
         {".mcp.json": b'{\n\t"mcpServers": {\n\t\t"files": {"args": ["x"], "type": "stdio"}'
                       b"\n\t}\n}\n"},
         ".mcp.json", 3, "needs a 'command'"),
    case("mcp-server-is-a-string",
         {".mcp.json": '{\n  "mcpServers": {\n    "files": "npx files-server"\n  }\n}\n'},
         ".mcp.json", 3, "server 'files' must be a mapping, not str"),
    case("mcp-servers-is-a-list",
         {".mcp.json": '{\n  "name": "x",\n  "mcpServers": ["files"]\n}\n'},
         ".mcp.json", 3, "'mcpServers' or 'servers' mapping"),
    case("mcp-env-value-is-a-list",
         {".mcp.json": '{\n  "mcpServers": {\n    "files": {\n      "command": "x",\n'
                       '      "env": {"A": ["b"]}\n    }\n  }\n}\n'},
         ".mcp.json", 5, "env must map names to strings"),
    case("mcp-server-name-with-double-underscore",
         {".mcp.json": '{\n  "mcpServers": {\n    "my__files": {"command": "x"}\n  }\n}\n'},
         ".mcp.json", 3, "without '/' or '__'"),
    # -- toolkit.yaml manifest -----------------------------------------------------------------
    case("manifest-unknown-key-presett",
         {"toolkit.yaml": "description: demo\npresett: strict\n"},
         "toolkit.yaml", 2, "unknown key 'presett'"),
    case("manifest-unknown-preset",
         {"toolkit.yaml": "description: demo\npreset: strictest\n"},
         "toolkit.yaml", 2, ("unknown preset 'strictest'", "claude-code")),
    case("manifest-max-depth-negative",
         {"toolkit.yaml": "preset: strict\nmax_depth: -1\n"},
         "toolkit.yaml", 2, ("max_depth", "greater than or equal to 0")),
    case("manifest-users-not-lists",
         {"toolkit.yaml": "preset: strict\nusers:\n  alice: read-only\n"},
         "toolkit.yaml", 3, "users.alice"),
    case("manifest-unknown-builtin",
         {"toolkit.yaml": "builtins:\n  - read_file\n  - rm_rf\n"},
         "toolkit.yaml", 3, "'rm_rf' is not a built-in tool"),
    case("manifest-unknown-override",
         {"toolkit.yaml": "preset: strict\noverrides:\n  strictness: high\n"},
         "toolkit.yaml", 3, "unknown override 'strictness'"),
    case("manifest-override-bad-value",
         {"toolkit.yaml": "preset: strict\noverrides:\n  child_extra: explode\n"},
         "toolkit.yaml", 3, ("child_extra", "'error' or 'drop-warn'")),
    case("manifest-alias-cycle",
         {"toolkit.yaml": "preset: strict\naliases:\n  x: y\n  y: x\n", "tools.yaml": REGISTRY,
          "agents/a.md": "---\nname: a\ntools: [read]\n---\n"},
         "toolkit.yaml", 3, "alias cycle x -> y -> x"),
    case("manifest-pattern-matches-nothing",
         {"toolkit.yaml": "agents:\n  - agents/\n  - nowhere/\n",
          "agents/a.md": "---\nname: a\n---\n"},
         "toolkit.yaml", 3, "'nowhere/' matches no file"),
    # -- rules checked at load time ------------------------------------------------------------
    case("strict-unknown-tool",
         {"tools.yaml": REGISTRY, "agents/a.md": "---\nname: a\ntools:\n  - read\n  - nope\n---\n"},
         "agents/a.md", 5, "names tool 'nope', which is not in the tool pool", preset="strict"),
    # Files Claude Code skips (sub-agents docs, "Subagent files Claude Code skips"): given on
    # their own, an error saying what Claude Code would (in a folder, a warning: see
    # tests/core/test_claude_code_layout.py)
    case("claude-code-no-description",
         {".claude/agents/a.md": "---\nname: a\ntools: Read\n---\n"},
         "a.md", 2, "missing required 'description'", target=".claude/agents/a.md"),
    case("claude-code-colon-in-name",
         {".claude/agents/a.md": "---\nname: team:a\ndescription: x\n---\n"},
         "a.md", 2, "contains ':'", target=".claude/agents/a.md"),
    case("claude-code-front-matter-unparseable-after-retry",  # wshobson/agents' stack9 shape
         {".claude/agents/a.md": "---\nname: a\ndescription: Use this agent when:\n\n"
                                 "<example>\nuser: \"build a page\"\n</example>\n---\n"},
         "a.md", 3, ("does not parse, even after quoting", "YAML syntax error"),
         target=".claude/agents/a.md"),
    case("adh-cli-unknown-tool",
         {"registry.yaml": REGISTRY,
          "agents/a/agent.md": "---\nname: a\ntools:\n  - read\n  - nope\n---\n"},
         "agents/a/agent.md", 5, ("Tool 'nope' not found in registry", "Available tools: read"),
         preset="adh-cli"),
    # -- files that cannot be read -------------------------------------------------------------
    case("oversized-markdown",
         {"agents/big.md": "---\nname: big\n---\n" + "x" * 1_000_001},
         "agents/big.md", 1, "over the 1,000,000-byte limit"),
    case("oversized-json",
         {"tools.json": '{"tool": {"a": {"description": "' + "y" * 1_000_001 + '"}}}'},
         "tools.json", 1, "over the 1,000,000-byte limit"),
    case("non-utf8-byte",
         {"agents/a.md": b"---\nname: a\ndescription: caf\xe9\n---\n"},
         "agents/a.md", 3, ("not UTF-8", "0xe9")),
    case("non-utf8-byte-after-bom",
         {"tools.yaml": b"\xef\xbb\xbftool:\n\xff: {}\n"},
         "tools.yaml", 2, ("not UTF-8", "0xff")),
    case("deeply-nested-yaml",
         {"tools.yaml": "tool:\n  read: " + "[" * 20_000 + "]" * 20_000 + "\n"},
         "tools.yaml", 2, "nested"),
    case("nested-150-levels",
         {"tools.yaml": "tool:\n  read:\n    description: " + "[" * 150 + "]" * 150 + "\n"},
         "tools.yaml", 3, "nested more than 100 levels deep"),
    case("json-integer-too-long",
         {"tools.json": '{\n  "tool": {\n    "read": {"timeout": 1' + "0" * 5000 + "}\n  }\n}\n"},
         "tools.json", 3, ("invalid JSON", "integer")),
    case("deeply-nested-json",
         {"tools.json": '{\n"tool": ' + "[" * 600 + "]" * 600 + "\n}\n"},
         "tools.json", 2, "nested"),
    # -- what load() is pointed at -------------------------------------------------------------
    case("single-unsupported-file",
         {"notes.txt": "hello\n"},
         "notes.txt", None, "unsupported file type", target="notes.txt"),
    case("single-markdown-without-front-matter",
         {"README.md": "# Notes\n\nNo front matter here.\n"},
         "README.md", 1, "must start with YAML front matter", target="README.md"),
    case("single-unrecognised-json",
         {"data.json": '{"hello": "world"}\n'},
         "data.json", 1, "not a recognised definition file", target="data.json"),
]


def load_error(path: Path, preset: str | None = None) -> tk.DefinitionError:
    """The ``DefinitionError`` loading ``path`` raises; any other outcome fails the test."""
    try:
        tk.load(path, preset=preset)
    except tk.DefinitionError as exc:
        return exc
    except Exception as exc:  # any other type is a leak: fail with its name
        pytest.fail(f"{type(exc).__module__}.{type(exc).__name__} escaped instead of "
                    f"DefinitionError: {exc}")
    pytest.fail(f"loading {path} raised no DefinitionError")


@pytest.mark.parametrize(("files", "target", "preset", "file", "line", "says"), CASES)
def test_malformed_input_is_a_located_definition_error(
        write: Write, tmp_path: Path, files: dict[str, str | bytes], target: str,
        preset: str | None, file: str, line: int | None, says: tuple[str, ...]) -> None:
    marker = tmp_path / "executed.marker"
    root = write({name: content.replace(MARKER, str(marker)) if isinstance(content, str)
                  else content for name, content in files.items()})
    exc = load_error(root / target, preset)
    first = exc.problems[0]
    assert (first.file, first.line) == (file, line), str(exc)
    for text in says:
        assert text in first.message, str(exc)
    assert exc.file == first.file and exc.line == first.line
    assert all(p.severity == "error" for p in exc.problems)
    message = str(exc)
    assert "Traceback" not in message and "errors.pydantic.dev" not in message
    assert not marker.exists(), "a YAML tag was executed"


def test_nonexistent_path(tmp_path: Path) -> None:
    missing = tmp_path / "missing"
    exc = load_error(missing)
    assert exc.problems[0].file == str(missing)
    assert exc.problems[0].line is None
    assert "no such file or folder" in exc.problems[0].message


def test_group_as_a_string_is_rejected_as_trustgraph_rejects_it(write: Write) -> None:
    """``group: "x"`` is not a one-group list: TrustGraph's validator rejects it (SPEC 3)."""
    with pytest.raises(tk.DefinitionError, match="Tool 'group' field must be a list") as exc:
        tk.load(write({"tools.yaml": 'tool:\n  read:\n    group: "x"\n'}))
    assert (exc.value.problems[0].file, exc.value.problems[0].line) == ("tools.yaml", 3)


def test_merge_key_overrides_are_not_duplicates(write: Write) -> None:
    """``<<: *defaults`` then a key of its own: the own key wins (no duplicate-key error)."""
    proj = tk.load(write({"tools.yaml": """
        x-defaults: &defaults {group: [read-only], description: from defaults}
        tool:
          read:
            <<: *defaults
            group: [write]
    """}))
    assert proj.tools["read"].groups == ("write",)
    assert proj.tools["read"].description == "from defaults"


def test_problems_in_several_files_are_reported_together(write: Write) -> None:
    root = write({
        "tools.yaml": "tool:\n  read: {}\n  bad name: {}\n",
        "agents/a.md": "---\nname: a\ntools: 42\n---\n",
        "agents/b.md": "---\nname: b\nmax_depth: two\n---\n",
        ".mcp.json": '{\n  "mcpServers": {\n    "files": {"type": "stdio"}\n  }\n}\n',
    })
    exc = load_error(root)
    assert len(exc.problems) >= 2
    located = {(p.file, p.line) for p in exc.problems}
    assert {("tools.yaml", 3), ("agents/a.md", 3), ("agents/b.md", 3), (".mcp.json", 3)} <= located


def test_bad_manifest_does_not_hide_other_files_problems(write: Write) -> None:
    root = write({
        "toolkit.yaml": "preset: strict\npresett: strict\n",
        "agents/a.md": "---\nname: a\ntools: 42\n---\n",
    })
    exc = load_error(root)
    located = {(p.file, p.line) for p in exc.problems}
    assert {("toolkit.yaml", 2), ("agents/a.md", 3)} <= located


def test_python_tags_are_not_executed_anywhere(write: Write, tmp_path: Path) -> None:
    """Every spelling of a code-running tag, in every YAML file kind, leaves no marker behind."""
    marker = tmp_path / "executed.marker"
    payloads = [
        f"!!python/object/apply:os.system ['touch {marker}']",
        f"!!python/object/apply:subprocess.check_call [['touch', '{marker}']]",
        f"!!python/object/new:subprocess.Popen [['touch', '{marker}']]",
        f"!!python/object:subprocess.Popen {{args: ['touch', '{marker}']}}",
    ]
    for i, payload in enumerate(payloads):
        root = write({f"p{i}/agents/a.md": f"---\nname: a\ndescription: {payload}\n---\n",
                      f"p{i}/tools.yaml": f"tool:\n  read:\n    description: {payload}\n"})
        exc = load_error(root / f"p{i}")
        assert {(p.file, p.line) for p in exc.problems} == {("agents/a.md", 3), ("tools.yaml", 3)}
        assert not marker.exists(), payload


# -- alias cycles in the manifest ---------------------------------------------------------------

def test_manifest_alias_cycle_without_agents_is_an_error(write: Write) -> None:
    """A cycle is bad input whether or not an agent happens to be defined."""
    exc = load_error(write({"toolkit.yaml": "preset: strict\naliases:\n  x: y\n  y: x\n",
                            "tools.yaml": REGISTRY}))
    assert (exc.problems[0].file, exc.problems[0].line) == ("toolkit.yaml", 3)
    assert "alias cycle x -> y -> x" in exc.problems[0].message


def test_manifest_alias_cycle_is_reported_once(write: Write) -> None:
    """One cycle in the manifest is one problem, however many agents the project has."""
    exc = load_error(write({
        "toolkit.yaml": "preset: strict\naliases:\n  x: y\n  y: x\n",
        "tools.yaml": REGISTRY,
        "agents/a.md": "---\nname: a\ntools: [read]\n---\n",
        "agents/b.md": "---\nname: b\ntools: [read]\n---\n",
    }))
    cycles = [p for p in exc.problems if p.line == 3 and "alias cycle" in p.message]
    assert len(cycles) == 1, str(exc)
