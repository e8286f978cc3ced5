"""Claude Code's fast paths decide exactly as the plain evaluation does (issue 21's speed target).

A command's spellings meet the ``Bash(...)`` rules through one regex per first word
(``RuleSet.command``: only the rules whose pattern spells out the command's first word, and
those that spell out none). A file command (``tee``, ``cat``, ``rm`` ...) meets the Read and
Edit deny / ask rules with its paths: ``RuleSet.first_path`` tries only the path rules whose
pattern's whole literal segment (``secret0`` of ``Read(./secret0/**)``) is a segment of one
of the paths, and ``PermissionRule.path_matches`` turns a path down at once when it lacks a
word the pattern spells out. The reference is the same evaluation with every command rule
matched on its own in order, ``first_path`` replaced by ``first(kind, {"path": match})``
over every path rule, and no word test. Both decide a generated corpus of Bash calls
(figure 9's 250 rules plus command and path rules of every shape) in every mode, from the
project folder and from a subfolder, and must give equal decisions (effect, reason,
message, rule, trace, parts).
"""

from __future__ import annotations

import itertools
import json
import random
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest

from bench.runtimes import claude_settings
from tests.support.caches import clear_caches
from tests.support.command_corpus import commands
from toolkit.core.decision import Effect
from toolkit.core.models import Rule
from toolkit.systems.claude_code.permissions import rules
from toolkit.systems.claude_code.permissions.evaluate import (
    Match,
    RuleSet,
    check_call,
    context_for,
)
from toolkit.systems.claude_code.permissions.rules import Anchors, parse_rule
from toolkit.systems.claude_code.permissions.settings import Settings, project_settings

MODES = ("default", "acceptEdits", "plan", "bypassPermissions", "dontAsk")
#: path rules of every anchor (//, ~/, /, ./, bare) and shape (a whole segment, a glob in a
#: segment, a class, an escape, a negation, . and ..)
PATH_RULES = {
    "deny": ["Read(//etc/**)", "Read(~/.ssh/**)", "Read(*.env)", "Read(src/**)",
             "Read(**/secret*/**)", "Read([ab]/**)", "Read(a\\*b)", "Edit(!gen2/**)",
             "Read(./..)", "Edit(.)", "Read(/conf0/*.yml)", "Edit(x/**/y.txt)"],
    "ask": ["Edit(/conf0/*.yml)", "Edit(out.txt)", "Edit(//tmp/**)", "Read(~/x)",
            "Edit(sub/**)", "Edit(**/o.txt)", "Read(in.txt)", "Edit(y.txt)", "Edit(*.txt)"],
}
#: command rules of every shape: a first word spelled out or not, legacy ``:*``, exact
COMMAND_RULES = {
    "allow": ["Bash(git*)", "Bash(* --help *)", "Bash(npm:*)", "Bash(ls)", "Bash(git * main)",
              "Bash(echo *)", "Bash(cat)", "Bash(tool3 *)", "Bash(te*)", "Bash(git status)"],
    "ask": ["Bash(*--force*)", "Bash(rm:*)", "Bash(cp *)", "Bash(LANG=C *)"],
    "deny": ["Bash(git push --force *)", "Bash(*secret0*)", "Bash(curl*)", "Bash(sudo *)"],
}
PATHS = ["secret0/k", "./conf0/a.yml", "/conf0/b.yml", "out.txt", "~/x", "~/.ssh/id", "/etc/hosts",
         ".env", "a/.env", "src/a.py", "b/c", "a*b", "gen2/f", "..", ".", "x/q/y.txt", "y.txt",
         "/tmp/z", "sub/o.txt", "secretive/k", "../up/secret1/k", "in.txt"]


class PlainRuleSet(RuleSet):
    """``first_path`` as ``first`` over every path rule (no segment index), and ``command``
    as a loop over the command rules in order, each matched on its own."""

    def first_path(self, kind: str, match: Match, paths: Sequence[str], cwd: str
                   ) -> Rule | None:
        return self.first(kind, {"path": match})

    def command(self, kind: str, tool: str, texts: Iterable[str], *, exact_only: bool = False
                ) -> tuple[int, rules.PermissionRule] | None:
        texts = list(texts)
        for position, rule in self._by.get((kind, "command"), ()):
            if rule.tool == tool and (not exact_only or rule.exact_command) and any(
                    rule.command_matches(t) for t in texts):
                return position, rule
        return None


@pytest.fixture(scope="module")
def settings(tmp_path_factory: pytest.TempPathFactory) -> Settings:
    base = tmp_path_factory.mktemp("claude-speed")
    root, home = base / "repo", base / "home"
    (root / ".claude").mkdir(parents=True)
    (root / "sub").mkdir()
    home.mkdir()
    data = claude_settings()
    for kind in ("allow", "ask", "deny"):
        added = [*PATH_RULES.get(kind, ()), *COMMAND_RULES[kind]]
        data["permissions"][kind] = [*added, *data["permissions"][kind]]
    (root / ".claude" / "settings.json").write_text(json.dumps(data))
    found = project_settings(root, home=home, managed=False)
    assert found is not None
    return found


def _calls(n: int) -> Iterator[str]:
    rnd = random.Random(5)
    programs = ["tee", "cat", "rm", "cp", "mv", "sed -i s/a/b/", "head", "touch", "git add"]
    for i, command in enumerate(commands(n, seed=3)):
        yield command
        if i % 2 == 0:  # a file command over two of the paths
            yield f"{rnd.choice(programs)} {rnd.choice(PATHS)} {rnd.choice(PATHS)}"


def _decisions(settings: Settings, ruleset: RuleSet, mode: str, cwd: str,
               corpus: Sequence[str]) -> list[Any]:
    ctx = context_for(settings, ruleset, agent=None, mode=mode, cwd=cwd, hook=None)
    return [check_call(ctx, "Bash", {"command": c}) for c in corpus]


@pytest.mark.parametrize(("mode", "where"), list(itertools.product(MODES, ("root", "sub"))))
def test_fast_path_decides_as_the_plain_evaluation(settings: Settings, mode: str, where: str,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    clear_caches()
    cwd = settings.root if where == "root" else str(Path(settings.root) / "sub")
    corpus = list(_calls(300))
    fast = _decisions(settings, RuleSet(settings.rules), mode, cwd, corpus)
    monkeypatch.setattr(rules, "_literal_words", lambda pattern: ())
    plain = _decisions(settings, PlainRuleSet(settings.rules), mode, cwd, corpus)
    differ = [(c, f, p) for c, f, p in zip(corpus, fast, plain, strict=True) if f != p]
    assert not differ, f"{len(differ)} of {len(corpus)} differ; first: {differ[0]}"
    assert sum(d.effect is Effect.DENY for d in plain) > 10  # path denies were met


def _patterns(rnd: random.Random) -> Iterator[str]:
    pieces = ["a", "b", "secret0", "src", ".env", "*", "**", "*.py", "x?", "[ab]", "c\\*d",
              "..", ".", "conf0", "a.b-c_d"]
    for _ in range(600):
        text = "/".join(rnd.choice(pieces) for _ in range(rnd.randint(1, 4)))
        yield rnd.choice(["", "/", "./", "//", "~/", "!"]) + text + rnd.choice(["", "", "/"])


def _paths(rnd: random.Random) -> Iterator[str]:
    parts = ["a", "b", "secret0", "secret01", "src", ".env", "x.py", "xy", "a", "c*d", "conf0",
             "a.b-c_d", "p", "q", "home", "ann"]
    for _ in range(60):
        yield "/" + "/".join(rnd.choice(parts) for _ in range(rnd.randint(1, 6)))


def test_a_matching_path_holds_the_pattern_segment_and_words() -> None:
    """What the two shortcuts claim, on random patterns and paths: a path a rule matches holds
    the rule's whole segment as a segment, and every word the pattern spells out."""
    clear_caches()
    rnd = random.Random(11)
    anchors = Anchors(source="/p", home="/home/ann")
    paths = list(_paths(rnd))
    matched = 0
    for pattern, kind, cwd in itertools.product(_patterns(rnd), ("deny", "allow"),
                                                ("/p", "/p/q")):
        rule = parse_rule(f"Read({pattern})", kind, anchors=anchors)
        if rule.form != "path":
            continue
        segment = rule.path_segment(cwd)
        anchored = rules._anchored(str(rule.spec), kind, anchors, cwd)
        for path in paths:
            if anchored.matches(path):
                matched += 1
                assert segment is None or segment in path.split("/"), (pattern, cwd, path)
                assert all(w in path for w in rules._literal_words(anchored.pattern)), (
                    pattern, cwd, path)
                assert rule.path_matches(path, cwd)
    assert matched > 500


def test_a_matching_command_starts_with_the_pattern_first_word() -> None:
    """What the command index claims, on random patterns and commands: a command a pattern
    matches has the pattern's first word (when it spells one out) as its own first word."""
    rnd = random.Random(13)
    words = ["git", "g", "gi", "status", "s", "", "-", "main", "a b", "x"]
    specs = []
    for _ in range(400):
        spec = ""
        for _ in range(rnd.randint(1, 4)):
            spec += rnd.choice(words) + rnd.choice(["", " ", "*", " *", "* "])
        specs.append(spec + rnd.choice(["", ":*", " *"]))
    texts = [" ".join(rnd.choice(words) for _ in range(rnd.randint(1, 4))) for _ in range(300)]
    matched = 0
    for spec in specs:
        word = rules.command_first_word(spec)
        regex = rules._command_regex(spec, False)
        for text in texts:
            if regex.fullmatch(text):
                matched += 1
                assert word is None or text.split(" ", 1)[0] == word, (spec, text)
    assert matched > 2000


def test_first_path_tries_fewer_rules(settings: Settings) -> None:
    """Not a vacuous comparison: a path holding no rule's segment is met by the unindexed
    rules only."""
    ruleset = RuleSet(settings.rules)
    tried: list[str] = []

    def match(rule: rules.PermissionRule) -> bool:
        tried.append(rule.text)
        return False

    assert ruleset.first_path("deny", match, ["/elsewhere/f"], settings.root) is None
    every = [r for r in settings.rules if r.kind == "deny" and r.form == "path"]
    assert 0 < len(tried) < len(every)
    assert "Read(./secret0/**)" not in tried
    tried.clear()
    ruleset.first_path("deny", match, [f"{settings.root}/secret0/k"], settings.root)
    assert "Read(./secret0/**)" in tried


def test_powershell_command_rules_ignore_case_through_the_index() -> None:
    """permissions#powershell: PowerShell command patterns match case-insensitively, so the
    first-word index (case-sensitive) is not used for them: ``Get-Item *`` matches
    ``get-item x`` as when matched on its own."""
    chosen = [parse_rule("PowerShell(Get-Item *)", "allow"), parse_rule("Bash(git *)", "allow"),
              parse_rule("PowerShell(Remove-Item x)", "allow")]
    ruleset = RuleSet(chosen)
    found = ruleset.command("allow", "PowerShell", ["get-item x"])
    assert found is not None and found[1].text == "PowerShell(Get-Item *)"
    assert chosen[0].command_matches("get-item x")
    found = ruleset.command("allow", "PowerShell", ["REMOVE-ITEM x"])
    assert found is not None and found[1].text == "PowerShell(Remove-Item x)"
    assert ruleset.command("allow", "Bash", ["GIT status"]) is None
    assert ruleset.command("allow", "Bash", ["git status"]) == (1, chosen[1])
