"""What ``make mutate MODULES=toolkit/systems/claude_code/permissions/rules.py`` found
untested (issue 25): the rule grammar and each matcher, one documented sentence at a time.

Quotes are from code.claude.com/docs/en/permissions (the sections named beside them);
expected values are worked out by hand from those sentences.
"""

from __future__ import annotations

import pytest

from tests.support.caches import clear_caches
from toolkit.systems.claude_code.permissions.rules import (
    Anchors,
    call_arguments,
    canonical_tool,
    command_alternation,
    parse_rule,
    split_rule,
)


@pytest.fixture(autouse=True)
def _uncached() -> None:
    """Each test runs the code under the caches (see tests/support/caches.py)."""
    clear_caches()


# -- "Tool" or "Tool(specifier)" -----------------------------------------------------------------


@pytest.mark.parametrize(("text", "expected"), [
    ("Bash", ("Bash", None)),
    ("  Read  ", ("Read", None)),
    ("Bash(npm test)", ("Bash", "npm test")),
    ("Bash (npm test)", ("Bash", "npm test")),
    # "Bash(*) is equivalent to Bash"; an empty specifier is the bare tool too
    ("Bash(*)", ("Bash", None)), ("Bash()", ("Bash", None)), ("Bash( * )", ("Bash", None)),
    ("Bash(echo \\(a\\))", ("Bash", "echo (a)")),  # escaped parentheses are literal
    ("Bash(a (b) c)", ("Bash", "a (b) c")),
    ("Bash(npm test", None), ("Bash(x\\)", None), ("Bash)", None), ("(x)", None), ("", None),
    ("Bash\\(x)", None), ("\\(x)", None), ("(x", None),
])
def test_split_rule(text: str, expected: tuple[str, str | None] | None) -> None:
    assert split_rule(text) == expected


def test_a_parsed_rule_keeps_its_text_place_and_spelling() -> None:
    r = parse_rule("Bash(*)", "deny", layer="project", file="s.json", line=3, agent="a")
    assert (r.form, r.tool, r.kind, r.text, r.spec) == ("tool", "Bash", "deny", "Bash(*)", None)
    assert (r.rule.layer, r.rule.file, r.rule.line, r.rule.agent) == ("project", "s.json", 3, "a")
    assert parse_rule("Bash()", "allow").text == "Bash()"
    assert parse_rule(" Read ", "allow").text == "Read"
    r = parse_rule("Task(Explore)", "deny")  # "the Task tool was renamed to Agent"
    assert (r.form, r.tool, r.spec, r.text) == ("agent", "Agent", "Explore", "Task(Explore)")


@pytest.mark.parametrize(("text", "kind", "skipped"), [
    ("Bash(npm test", "allow", "cannot parse 'Bash(npm test' as Tool or Tool(specifier)"),
    ("Ba sh", "deny", "'Ba sh' is not a tool name"),
    ("mcp__github__get(x)", "deny",
     "MCP rules take no parentheses: write mcp__<server>__<tool> or mcp__<server>__*"),
    ("B*(x)", "deny", "a tool-name glob takes no specifier"),
    ("Write(docs/**)", "allow",
     "Claude Code accepts a path rule for Write but never consults it; write Edit(docs/**)"),
    ("Glob(src/**)", "deny",
     "Claude Code accepts a path rule for Glob but never consults it; write Read(src/**)"),
    ("WebSearch(python)", "allow", "WebSearch accepts only the bare tool name, no specifier"),
    ("TodoWrite(x)", "allow", "TodoWrite accepts only the bare tool name, no specifier"),
    ("MyTool(x)", "deny", "no specifier syntax is known for 'MyTool'"),
    ("WebFetch(example.com)", "allow", "WebFetch rules take domain:<host>"),
    ("Bash(command:rm *)", "deny", "command is Bash's primary field, which parameter rules "
                                   "cannot match (a compound command would bypass it)"),
    ("Write(file_path:x)", "deny", "file_path is Write's primary field, which parameter rules "
                                   "cannot match (a compound command would bypass it)"),
    ("Agent(model:opus)", "allow", "parameter rules (Tool(param:value)) work in deny and ask "
                                   "rules only; an allow rule never matches this way"),
    ("*", "allow", "an unanchored allow glob is skipped and approves nothing; write "
                   "mcp__<server>__* or name the tool"),
    ("mcp__*", "allow", "an unanchored allow glob is skipped and approves nothing; write "
                        "mcp__<server>__* or name the tool"),
    ("mcp__gh*__x", "allow", "an unanchored allow glob is skipped and approves nothing; write "
                             "mcp__<server>__* or name the tool"),
])
def test_every_skipped_rule_says_why(text: str, kind: str, skipped: str) -> None:
    """permissions: rules Claude Code accepts but never consults, or cannot read."""
    r = parse_rule(text, kind)  # type: ignore[arg-type]
    assert (r.form, r.skipped, r.text) == ("skipped", skipped, text)
    assert r.tool == (text if "cannot parse" in skipped else text.split("(")[0])
    assert not r.names(r.tool)


def test_a_rule_that_is_not_a_string_is_skipped() -> None:
    r = parse_rule(42, "allow", layer="user", file="s.json", line=2, agent="a")
    assert (r.form, r.tool, r.text, r.skipped) == (
        "skipped", "42", "42", "a rule must be a string, not int")
    assert (r.rule.layer, r.rule.file, r.rule.line, r.rule.agent) == ("user", "s.json", 2, "a")


@pytest.mark.parametrize(("text", "kind", "form", "tool", "spec"), [
    ("mcp__github", "allow", "mcp-server", "mcp__github", None),
    ("mcp__github__get_issue", "allow", "tool", "mcp__github__get_issue", None),
    # "Allow rules accept tool-name globs only after a literal mcp__<server>__ prefix"
    ("mcp__github__*", "allow", "name-glob", "mcp__github__*", None),
    ("mcp__a__*", "allow", "name-glob", "mcp__a__*", None),
    ("B*", "deny", "name-glob", "B*", None), ("*", "ask", "name-glob", "*", None),
    ("Bash(git:*)", "allow", "command", "Bash", "git:*"),  # a command, not a parameter rule
    ("Bash(run_in_background:true)", "deny", "param", "Bash", "run_in_background:true"),
    ("Write(content:*key*)", "deny", "param", "Write", "content:*key*"),
    ("MyTool(domain:x)", "deny", "param", "MyTool", "domain:x"),
    ("WebFetch(prompt:*key*)", "ask", "param", "WebFetch", "prompt:*key*"),
    ("Read(c:/x)", "deny", "path", "Read", "c:/x"),  # the tool's own specifier
    ("WebFetch(domain:x.com)", "allow", "domain", "WebFetch", "domain:x.com"),
    ("Agent(Explore)", "allow", "agent", "Agent", "Explore"),
    ("Skill(lint *)", "allow", "command", "Skill", "lint *"),
    ("Monitor(tail *)", "allow", "command", "Monitor", "tail *"),
])
def test_each_rule_form(text: str, kind: str, form: str, tool: str, spec: str | None) -> None:
    r = parse_rule(text, kind)  # type: ignore[arg-type]
    assert (r.form, r.tool, r.spec, r.skipped) == (form, tool, spec, None)


def test_a_deny_or_ask_rule_naming_no_known_tool_warns() -> None:
    """permissions#tool-name-wildcards: "A deny or ask rule whose tool name matches no known
    tool produces a startup warning ... names containing _ or * are exempt"."""
    assert parse_rule("Wrtie", "deny").warning == "'Wrtie' matches no known tool (a typo?)"
    assert parse_rule("Wrtie", "ask").warning == "'Wrtie' matches no known tool (a typo?)"
    assert parse_rule("Wrtie", "allow").warning is None
    assert parse_rule("my_tool", "deny").warning is None
    assert parse_rule("Bash", "deny").warning is None


# -- matchers ----------------------------------------------------------------------------------

def test_names() -> None:
    assert parse_rule("B*", "deny").names("Bash")
    assert not parse_rule("B*", "deny").names("Read")
    assert not parse_rule("B*", "deny").names("aBash")
    server = parse_rule("mcp__github", "deny")
    assert server.names("mcp__github__get_issue")
    assert not server.names("mcp__githubx__get") and not server.names("mcp__github")
    assert parse_rule("Bash", "deny").names("Bash") and not parse_rule("Bash", "deny").names("Ba")
    assert parse_rule("Bash(timeout:5)", "deny").names("Bash")
    assert not parse_rule("Bash(ls)", "deny").names("Bash")  # a command rule looks at arguments


@pytest.mark.parametrize(("spec", "command", "matches"), [
    # permissions#bash: "Bash(npm run *) ... matches npm run build"; "the space before * matters"
    ("npm run *", "npm run build", True), ("npm run *", "npm run", True),
    ("npm run *", "npm runner", False), ("ls *", "lsof", False),
    # "The legacy :* suffix syntax is equivalent to  *"
    ("git:*", "git status", True), ("git:*", "git", True), ("git:*", "gitk", False),
    ("ls", "ls", True), ("ls", "ls -la", False),  # no wildcard: the exact command
    ("git * main", "git push origin main", True), ("git * main", "git push origin dev", False),
    ("echo *", "echo a\nb", True), ("npm run", "NPM RUN", False),
])
def test_command_patterns(spec: str, command: str, matches: bool) -> None:
    assert parse_rule(f"Bash({spec})", "allow").command_matches(command) is matches


def test_powershell_patterns_ignore_case_and_other_forms_match_no_command() -> None:
    assert parse_rule("PowerShell(Get-Item *)", "allow").command_matches("get-item x")
    assert not parse_rule("Read(./x)", "allow").command_matches("./x")
    assert parse_rule("Bash(ls)", "allow").exact_command
    assert not parse_rule("Bash(ls *)", "allow").exact_command
    assert not parse_rule("Read(ls)", "allow").exact_command


@pytest.mark.parametrize(("spec", "host", "matches"), [
    ("domain:example.com", "example.com", True), ("domain:example.com", "EXAMPLE.com.", True),
    ("domain:example.com", "api.example.com", False),
    # permissions#webfetch: "*.example.com" matches subdomains at any depth, not the apex
    ("domain:*.example.com", "api.example.com", True),
    ("domain:*.example.com", "a.b.example.com", True),
    ("domain:*.example.com", "example.com", False),
    ("domain:*", "anything.at.all", True),
    ("domain:api*.example.com", "api2.example.com", True),
    ("domain:api*.example.com", "api.x.example.com", False),
])
def test_domain_patterns(spec: str, host: str, matches: bool) -> None:
    assert parse_rule(f"WebFetch({spec})", "allow").domain_matches(host) is matches


def test_agent_patterns() -> None:
    r = parse_rule("Agent(Explore, Plan)", "deny")
    assert r.agent_matches("Plan") and r.agent_matches("Explore")
    assert not r.agent_matches("general-purpose") and not r.agent_matches("Plan2")
    assert parse_rule("Agent(Exp*)", "deny").agent_matches("Explore")
    assert not parse_rule("Bash(Explore)", "deny").agent_matches("Explore")


def test_parameter_patterns() -> None:
    """permissions#match-by-input-parameter: "A parameter the model omits is never matched"."""
    r = parse_rule("Bash(run_in_background:true)", "deny")
    assert r.param_matches({"run_in_background": True})
    assert not r.param_matches({"run_in_background": False})
    assert parse_rule("Bash(run_in_background:false)", "deny").param_matches(
        {"run_in_background": False})
    anything = parse_rule("Bash(run_in_background:*)", "deny")
    assert not anything.param_matches({}) and not anything.param_matches(
        {"run_in_background": None})
    assert not anything.param_matches({"run_in_background": ["true"]})
    assert not anything.param_matches({"run_in_background": {"a": "true"}})
    assert parse_rule("Bash(timeout:6*)", "deny").param_matches({"timeout": 600})
    assert parse_rule("Bash(timeout: 600 )", "deny").param_matches({"timeout": 600})
    assert not parse_rule("Bash(timeout)", "deny").param_matches({"timeout": 1})


def test_path_patterns_need_a_path_rule_with_anchors() -> None:
    anchors = Anchors("/proj", "/home/ann")
    assert not parse_rule("Bash(ls)", "deny", anchors=anchors).path_matches("/proj/ls", "/proj")
    assert not parse_rule("Read(./x)", "deny").path_matches("/proj/x", "/proj")
    assert parse_rule("Read(./x)", "deny", anchors=anchors).path_matches("/proj/x", "/proj")


@pytest.mark.parametrize(("spec", "kind", "path", "matches"), [
    # permissions#read-and-edit: "//path: Absolute path from filesystem root"
    ("//etc/passwd", "deny", "/etc/passwd", True),
    ("///etc/passwd", "deny", "/etc/passwd", True),
    # "~/path: Path from home directory"
    ("~/.ssh/**", "deny", "/home/ann/.ssh/id_rsa", True),
    ("~/.ssh/**", "deny", "/cwd/~/.ssh/id_rsa", False),
    # "/path: Path relative to project root" (the settings source)
    ("/src/**", "deny", "/proj/src/a.py", True), ("/src/**", "deny", "/cwd/src/a.py", False),
    # "path or ./path: Path relative to current directory"
    ("./src/**", "deny", "/cwd/src/a.py", True), ("src/*.py", "allow", "/cwd/src/a.py", True),
    ("./src/**", "allow", "/proj/src/a.py", False),
    # a one-segment directory pattern in a deny or ask rule matches at any depth
    ("src/**", "deny", "/cwd/lib/src/a.py", True), ("src/**", "ask", "/cwd/lib/src/a.py", True),
    ("src/**", "allow", "/cwd/lib/src/a.py", False),
    ("s*/**", "deny", "/cwd/lib/src/a.py", False),
    ("a/b/**", "deny", "/cwd/x/a/b/c", False),
    ("src/x", "deny", "/cwd/lib/src/x", False),
])
def test_anchored_path_patterns(spec: str, kind: str, path: str, matches: bool) -> None:
    r = parse_rule(f"Read({spec})", kind, anchors=Anchors("/proj", "/home/ann"))  # type: ignore[arg-type]
    assert r.path_matches(path, "/cwd") is matches


def test_a_source_free_rule_anchors_slash_paths_at_the_working_directory() -> None:
    """CLI and local rules have no settings folder of their own ("" = the working directory);
    without a home, ``~/`` is an ordinary relative name."""
    r = parse_rule("Read(/src/**)", "deny", anchors=Anchors("", None))
    assert r.path_matches("/cwd/src/a", "/cwd")
    assert parse_rule("Read(~/x)", "deny", anchors=Anchors("", None)).path_matches(
        "/cwd/~/x", "/cwd")


def test_a_windows_drive_pattern_uses_forward_slashes() -> None:
    r = parse_rule("Read(C:\\Users\\x)", "deny", anchors=Anchors("/proj", None))
    assert r.path_matches("/cwd/C:/Users/x", "/cwd")


# -- names and arguments -------------------------------------------------------------------------

def test_canonical_tool_names() -> None:
    assert canonical_tool("@github/get_issue") == "mcp__github__get_issue"
    assert canonical_tool("@github") == "@github"
    assert canonical_tool("github/x") == "github/x"
    assert [canonical_tool(n) for n in ("Task", "KillShell", "AgentOutputTool",
                                        "BashOutputTool", "Bash")] == [
        "Agent", "TaskStop", "TaskOutput", "TaskOutput", "Bash"]


def test_call_arguments() -> None:
    assert call_arguments("Bash", " npm test ") == {"command": " npm test "}
    assert call_arguments("Read", '  {"file_path": "a"} ') == {"file_path": "a"}
    assert call_arguments("Agent", "Explore") == {"subagent_type": "Explore"}
    assert call_arguments("Skill", "lint") == {"skill": "lint"}
    assert call_arguments("WebFetch", "https://x") == {"url": "https://x"}
    assert call_arguments("@srv/tool", "") == {}
    with pytest.raises(ValueError) as raised:
        call_arguments("Read", '{"file_path": ')
    assert str(raised.value) == "arguments are not valid JSON: Expecting value (column 14)"
    with pytest.raises(ValueError) as raised:
        call_arguments("TodoWrite", "x")
    assert str(raised.value) == (
        "give TodoWrite's arguments as a JSON object, e.g. '{\"field\": \"value\"}'")


def test_command_alternation_names_the_first_matching_rule() -> None:
    assert command_alternation([]) is None
    rules = [(4, parse_rule("Bash(git *)", "allow")), (7, parse_rule("Bash(git push *)", "allow")),
             (9, parse_rule("Bash(ls)", "allow"))]
    regex = command_alternation(rules)
    assert regex is not None
    assert [m.lastgroup if (m := regex.fullmatch(t)) else None
            for t in ("git push x", "ls", "ls -la", "GIT push")] == ["r4", "r9", None, None]
    ps = command_alternation([(0, parse_rule("PowerShell(Get-Item *)", "allow"))])
    assert ps is not None and ps.fullmatch("GET-ITEM x") is not None
