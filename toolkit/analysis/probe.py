"""Bypass probes (SPEC section 14, issue 24 item 4): ``proj.probe()``, ``toolmatrix probe``.

For every shell-command rule of every runtime the project holds, the probe takes the command
the rule speaks of (its *seed*: ``git push`` for ``Bash(git push *)``). Which commands a rule
speaks of is its system's knowledge: each system answers through ``System.probe``
(:mod:`toolkit.systems.base.probe`: the shell tool, and per rule a seed or a regular
expression whose shortest string is taken); nothing here reads a runtime's rule text. The rules
of a runtime whose system has no such hook are listed as skipped ("not probed"). The probe
respells each seed with the named templates of :mod:`toolkit.analysis.probe_templates`, and asks
the project's own engine (``proj.check_call``, nothing else: no matching is done here)
what each variant does. Two kinds of finding:

``allow-escape``  an allow rule lets a dangerous payload run unasked: the variant runs
                  without a prompt, the rule is among those that decided it (the whole call
                  or one of its parts), and the payload on its own (the template's
                  ``control``) would not run unasked. ``git show > ~/.ssh/id_rsa`` under a
                  prefix allow of ``git show``; ``python -c "..."`` under ``Bash(python:*)``.
``deny-bypass``   the command a deny (or ask) rule stops runs unasked in another form:
                  ``env git push`` past ``Bash(git push *)`` where ``env`` is allowed, or
                  ``taskset 1 git push`` in ``bypassPermissions`` mode, where only rules stop
                  a call.

The seed itself is checked first: an allow rule must allow it, a deny rule deny it, an ask
rule ask for it. A rule whose own command it does not decide (shadowed by a stronger rule,
or a pattern that never matches, as Gemini CLI's ``commandRegex = "^sudo"``) is listed in
the run's ``rules`` table as ``skipped`` with the decision its seed got.

Everything is decided in one permission mode: ``mode=None`` is the project's own (its
settings' ``defaultMode``, Gemini CLI's ``default``, Codex's ``approval_policy``). In an
asking mode a variant that no rule matches asks, which is safe, so deny bypasses show where
an allow rule, a read-only built-in or the mode lets the variant run; pass
``mode="bypassPermissions"`` (Claude Code) or ``"yolo"`` (Gemini CLI) to see what the deny
rules alone stop.
"""

from __future__ import annotations

import base64
import itertools
import re
import shlex
import string
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from ..core.decision import Decision, Effect
from ..core.models import Rule
from .probe_templates import PAYLOADS, TARGETS, TEMPLATES, Template

if TYPE_CHECKING:
    import pandas as pd

    from ..policy import Policy
    from ..systems.base.probe import ProbeRule, ShellProbe

__all__ = ["FINDING_COLUMNS", "KINDS", "RULE_COLUMNS", "ProbeRun", "probe", "run_probe",
           "seed_fields", "variants"]

KINDS = ("allow-escape", "deny-bypass")
FINDING_COLUMNS = ("kind", "rule", "command", "effect", "deciding_rule", "template", "runtime",
                   "rule_kind", "file", "line", "family", "reason", "deciding_where", "message")
RULE_COLUMNS = ("runtime", "rule", "kind", "file", "line", "seed", "status", "variants",
                "findings", "note")


# -- the rules to probe: each system says which commands its rules speak of ------------------

@dataclass(frozen=True)
class _Target:
    """One rule to probe: where it is written and the command it speaks of."""

    runtime: str
    text: str
    kind: str
    file: str
    line: int | None
    seed: str | None
    open_ended: bool = False  # a prefix rule: the seed may be followed by more words
    rule: Rule | None = None  # the Rule the engine names when this rule decides
    agent: str | None = None  # the agent check_call is asked as (None: the main agent)
    note: str = ""  # why there is no seed, or why the rule is not probed

    @property
    def where(self) -> str:
        return self.file if self.line is None else f"{self.file}:{self.line}"

    def decided(self, d: Decision) -> bool:
        """Whether this rule decided ``d`` or one of its parts."""
        return self.rule is not None and any(self._is(r) for r in _deciders(d))

    def _is(self, rule: Rule) -> bool:
        mine = self.rule
        assert mine is not None
        return (rule.file == mine.file and rule.line == mine.line and rule.kind == mine.kind
                and rule.text == mine.text)


def _deciders(d: Decision) -> list[Rule]:
    return [r for r in (d.rule, *(p.rule for p in d.parts)) if r.kind != "none"]


@lru_cache(maxsize=1024)
def _regex_example(regex: str) -> str | None:
    """A shortest readable string of ``regex`` (matched in full), or None when interegular
    cannot read the regex (a look-around, a back-reference, ``\\b``)."""
    from interegular.patterns import InvalidSyntax, Unsupported

    from .lint import _fsm, _witness

    try:
        text = _witness(_fsm(regex))
    except (Unsupported, InvalidSyntax):
        return None  # the rule is listed as skipped: "no command to start from"
    if not text or not text.strip():
        return None
    # ``^rm\\s`` is ``rm `` at its shortest: a command that goes on (``rm x``)
    return text.strip() + " x" if text[-1].isspace() else text.strip()


def _target(runtime: str, rule: ProbeRule) -> _Target:
    seed, note = rule.seed, rule.note
    if seed is None and rule.regex is not None:
        seed = _regex_example(rule.regex)
        if seed is None:
            note = note or (f"no command to start from: toolkit cannot read the regular "
                            f"expression {rule.regex!r}")
    if seed is None and not note:
        note = "no command to start from (the pattern names none)"
    return _Target(runtime, rule.text, rule.kind, rule.file, rule.line, seed, rule.open_ended,
                   rule.rule, rule.agent, note)


def _unprobed(proj: Policy, runtime: str, engine: Any) -> list[_Target]:
    """The rules of a runtime whose system gives no ``probe`` hook: each listed as skipped
    (never silence: a CI run must not read "nothing to worry about")."""
    import pandas as pd

    frame = engine.frame(list(proj.definitions.agents.values()))
    note = (f"runtime {runtime} is not probed: its system does not say which commands its "
            "rules speak of (System.probe)")
    found = []
    for row in frame.to_dict("records"):
        file, kind, line = row.get("file"), row.get("kind"), row.get("line")
        if not isinstance(file, str) or file.startswith("<") or kind not in ("allow", "ask",
                                                                            "deny"):
            continue
        found.append(_Target(runtime, str(row.get("text")), str(kind), file,
                             None if line is None or pd.isna(line) else int(line), None,
                             note=note))
    return found


def _shells(proj: Policy, runtime: str | None
            ) -> list[tuple[str, ShellProbe | None, list[_Target]]]:
    """Per runtime of the project (``runtime``: that one only): its shell probe (None: the
    system has no hook) and the rules to probe, in the engine's order."""
    from ..systems import registry

    out: list[tuple[str, ShellProbe | None, list[_Target]]] = []
    for name, engine in proj.engines.items():
        if runtime is not None and name != runtime:
            continue
        hook = registry.by_name(name).probe
        if hook is None:
            out.append((name, None, _unprobed(proj, name, engine)))
            continue
        shell = hook(engine)
        out.append((name, shell, [_target(name, r) for r in shell.rules]))
    return out


# -- seeds and their respellings ---------------------------------------------------------------

_COMBINED = re.compile(r"-[A-Za-z]{2,}")
_SHORT = re.compile(r"-[A-Za-z]")
#: Long spellings of short flags, per program (for the "flags-long" template).
_LONG = {
    "rm": {"r": "--recursive", "R": "--recursive", "f": "--force", "v": "--verbose",
           "i": "--interactive", "d": "--dir"},
    "git": {"f": "--force", "A": "--all", "a": "--all", "n": "--dry-run", "u": "--set-upstream",
            "m": "--message", "q": "--quiet", "v": "--verbose", "d": "--delete",
            "D": "--delete --force"},
    "cp": {"r": "--recursive", "R": "--recursive", "f": "--force", "a": "--archive"},
    "mv": {"f": "--force", "i": "--interactive", "v": "--verbose"},
    "chmod": {"R": "--recursive", "v": "--verbose"},
    "chown": {"R": "--recursive", "v": "--verbose"},
    "npm": {"g": "--global", "f": "--force", "D": "--save-dev"},
    "docker": {"f": "--force", "a": "--all", "v": "--volumes"},
    "kubectl": {"f": "--filename", "n": "--namespace", "A": "--all-namespaces"},
    "curl": {"o": "--output", "X": "--request", "d": "--data", "s": "--silent",
             "L": "--location"},
}


def _sq(text: str) -> str:
    return text.replace("'", "'\\''")


def _dq(text: str) -> str:
    return re.sub(r'([\\"$`])', r"\\\1", text)


def seed_fields(seed: str) -> dict[str, str | None] | None:
    """The fields templates are written over (see :mod:`.probe_templates`), or None when
    ``seed`` is not a command line (unbalanced quotes, nothing in it).

    >>> f = seed_fields("rm -rf build")
    >>> f["head"], f["args"], f["permuted"], f["split"], f["flags_last"], f["long"]
    ('rm', ' -rf build', 'rm -fr build', 'rm -r -f build', 'rm build -rf', \
'rm --recursive --force build')
    """
    try:
        words = shlex.split(seed)
    except ValueError:
        return None
    if not words:
        return None
    head, rest = words[0], words[1:]
    quoted = [shlex.quote(w) for w in words]
    cmd = " ".join(quoted)
    args = "".join(f" {w}" for w in quoted[1:])
    name = head.rsplit("/", 1)[-1]
    fields: dict[str, str | None] = {
        "cmd": cmd, "head": head, "args": args, "sq": _sq(cmd), "dq": _dq(cmd),
        "args_sq": _sq(args.strip()) if rest else None,
        "sub": quoted[1] if rest else None,
        "subargs": "".join(f" {w}" for w in quoted[2:]),
        "subargs_words": " ".join(quoted[2:]) if len(rest) > 1 else None,
        "s0": quoted[1][:1] if rest and len(rest[0]) > 1 and quoted[1] == rest[0] else None,
        "s1": quoted[1][1:] if rest and len(rest[0]) > 1 and quoted[1] == rest[0] else None,
        "h0": head[:1] if len(head) > 1 and "/" not in head else None,
        "h1": head[1:] if len(head) > 1 and "/" not in head else None,
        "hex": "".join(f"\\x{ord(c):02x}" for c in head),
        "rev": shlex.quote(head[::-1]),
        "b64": base64.b64encode(head.encode()).decode(),
        "glob": f"/usr/bin/{name[:-1]}?" if len(name) > 1 else None,
        "glob_bracket": f"/usr/bin/{name[:-1]}[{name[-1]}]" if len(name) > 1 else None,
        "commas": ",".join(words) if all(re.fullmatch(r"[A-Za-z0-9_./:=+-]+", w)
                                         for w in words) and rest else None,
        "args_tabbed": "\t".join(quoted[1:]) if rest else None,
        "args_spaced": "  ".join(quoted[1:]) if rest else None,
    }
    fields.update(_flag_fields(name, quoted))
    return fields


def _flag_fields(name: str, quoted: list[str]) -> dict[str, str | None]:
    head, rest = quoted[0], quoted[1:]
    combined = [i for i, w in enumerate(rest) if _COMBINED.fullmatch(w)]
    flags = [w for w in rest if w.startswith("-") and w != "-"]

    def line(words: Iterable[str]) -> str:
        return " ".join([head, *words])

    permuted = split = added = last = None
    if combined:
        i = combined[0]
        letters = rest[i][1:]
        if len(set(letters)) > 1:
            permuted = line([*rest[:i], "-" + letters[::-1], *rest[i + 1:]])
        split = line([*rest[:i], *(f"-{c}" for c in letters), *rest[i + 1:]])
        added = line([*rest[:i], rest[i] + ("v" if "v" not in letters else "q"),
                      *rest[i + 1:]])
    elif flags:
        i = rest.index(flags[0])
        added = line([*rest[:i + 1], "-v" if flags[0] != "-v" else "-q", *rest[i + 1:]])
    spelt = _long_flags(_LONG.get(name, {}), rest)
    long = line(spelt) if spelt != rest else None
    if flags:
        positional = [w for w in rest if w not in flags]
        moved = [*positional, *flags]
        if moved != rest:
            last = line(moved)
    return {"permuted": permuted, "split": split, "flags_last": last, "long": long,
            "added_flag": added}


def _long_flags(table: Mapping[str, str], words: list[str]) -> list[str]:
    """``-rf`` -> ``--recursive --force`` where every letter has a long spelling."""
    out: list[str] = []
    for word in words:
        if _COMBINED.fullmatch(word) or _SHORT.fullmatch(word):
            spelt = [table.get(c) for c in word[1:]]
            if all(spelt):
                out.extend(" ".join(s for s in spelt if s).split())
                continue
        out.append(word)
    return out


@lru_cache(maxsize=512)
def _names(form: str) -> tuple[str, ...]:
    return tuple(name for _, name, _, _ in string.Formatter().parse(form) if name)


def _applies(template: Template, fields: Mapping[str, str | None]) -> bool:
    head = fields["head"] or ""
    name = head.rsplit("/", 1)[-1]
    if template.heads and name not in template.heads:
        return False
    if template.bare and fields.get("sub") is not None:
        return False
    return not (template.subs and (fields.get("sub") or "") not in template.subs)


def _fill(form: str, fields: Mapping[str, str | None]) -> str | None:
    if any(fields.get(n) is None for n in _names(form)):
        return None
    return form.format(**fields)


def variants(seed: str, purpose: str, payload: str | None = None
             ) -> list[tuple[Template, str, str | None]]:
    """``(template, command, control)`` for every template of ``purpose`` (``"escape"`` or
    ``"bypass"``) that applies to ``seed``; the control is the escape's payload alone
    (``payload``: a name of ``PAYLOADS`` to use instead of each template's own).

    >>> [(t.name, c) for t, c, _ in variants("git push", "bypass")][:2]
    [('env', 'env git push'), ('env-assignment', 'env FOO=1 git push')]
    """
    fields = seed_fields(seed)
    if fields is None:
        return []
    out = []
    for template in TEMPLATES:
        if template.purpose != purpose or not _applies(template, fields):
            continue
        made = _make(template, fields, payload or template.payload)
        if made is not None:
            out.append((template, *made))
    return out


def _make(template: Template, fields: Mapping[str, str | None], payload: str
          ) -> tuple[str, str | None] | None:
    text = PAYLOADS[payload]
    filled = {**fields, "payload": text, "psq": _sq(text), "target": TARGETS[template.target]}
    command = _fill(template.form, filled)
    if command is None or command == fields["cmd"]:
        return None
    return command, _fill(template.control, filled) if template.purpose == "escape" else None


def _uses_payload(template: Template) -> bool:
    return "payload" in _names(template.form) or "psq" in _names(template.form)


#: template families whose payload is a command of the line itself (in a list, a pipeline,
#: a subshell or group, a loop or function body, a command substitution), as opposed to text
#: an interpreter runs (``python -c``) or a here-document's body (a parser may keep it text)
_COMMAND_FAMILIES = frozenset({"chain", "substitution"})


def _payload_runs(template: Template) -> bool:
    """Whether ``template`` puts its payload into the line as a command of its own (its
    control is the payload alone)."""
    return template.family in _COMMAND_FAMILIES and template.control == "{payload}"


# -- the run -----------------------------------------------------------------------------------

@dataclass
class ProbeRun:
    """What ``toolmatrix probe`` reports: the findings and, per rule, what was tried."""

    findings: pd.DataFrame
    rules: pd.DataFrame
    mode: str | None = None
    variants: int = 0
    problems: list[str] = field(default_factory=list)
    #: runtimes of the project whose rules are listed as skipped: not probed (no hook)
    unprobed: tuple[str, ...] = ()
    #: variants decided without asking the engine: an escape whose payload a deny rule
    #: refuses, in a runtime that refuses a line any command of which is refused
    not_asked: int = 0

    def summary(self) -> str:
        probed = int((self.rules["status"] == "probed").sum()) if len(self.rules) else 0
        counts = {k: int((self.findings["kind"] == k).sum()) for k in KINDS}
        skipped = len(self.rules) - probed
        return (f"{probed} rule(s) probed with {self.variants} variant(s)"
                + (f", {skipped} skipped" if skipped else "")
                + f": {counts['allow-escape']} allow-escape, {counts['deny-bypass']} "
                  "deny-bypass finding(s)")


class _Checker:
    """``proj.check_call`` for one runtime's shell tool, each command asked once per agent."""

    def __init__(self, proj: Policy, runtime: str, shell: ShellProbe, mode: str | None,
                 agent: str | None = None, exhaustive: bool = False) -> None:
        self.proj, self.runtime, self.mode, self.agent = proj, runtime, mode, agent
        self.tool, self.args = shell.tool, shell.arguments
        self.compound_deny = shell.compound_deny and not exhaustive
        self.seen: dict[str, Decision] = {}
        #: variants decided without asking the engine (see ``_escape``)
        self.not_asked = 0

    def __call__(self, command: str) -> Decision:
        d = self.seen.get(command)
        if d is None:
            d = self.proj.check_call(self.tool, self.args(command), agent=self.agent,
                                     mode=self.mode, runtime=self.runtime)
            self.seen[command] = d
        return d


def _expected(kind: str) -> tuple[Effect, ...]:
    return {"allow": (Effect.ALLOW,), "ask": (Effect.ASK,),
            "deny": (Effect.DENY, Effect.IMPLICIT_DENY)}[kind]


def run_probe(proj: Policy, rules: Sequence[str] | str | None = None, mode: str | None = None,
              runtime: str | None = None, *, exhaustive: bool = False) -> ProbeRun:
    """Probe the shell-command rules of the project (``rules``: only those whose text is
    listed; ``runtime``: only that runtime's) in ``mode`` (None: the project's own).

    Each runtime's system says which commands its rules speak of (``System.probe``); the
    rules of a runtime whose system does not are listed in ``rules`` as skipped. Where the
    system says a deny rule refusing any command of a line refuses the line
    (``ShellProbe.compound_deny``), an escape whose smuggled payload a deny rule refuses on
    its own is not asked: it cannot run unasked. ``exhaustive=True`` asks every variant."""
    import pandas as pd

    wanted = {rules} if isinstance(rules, str) else set(rules) if rules is not None else None
    findings: list[dict[str, Any]] = []
    table: list[dict[str, Any]] = []
    tried = not_asked = 0
    shells = _shells(proj, runtime)
    for name, shell, targets in shells:
        checks: dict[str | None, _Checker] = {}
        for target in targets:
            if wanted is not None and target.text not in wanted:
                continue
            if shell is None:
                table.append(_row(target))
                continue
            check = checks.get(target.agent)
            if check is None:
                check = checks[target.agent] = _Checker(proj, name, shell, mode, target.agent,
                                                        exhaustive)
            row, found, count = _probe_rule(target, check)
            tried += count
            findings.extend(found)
            table.append(row)
        not_asked += sum(c.not_asked for c in checks.values())
    if wanted is not None:
        missing = sorted(wanted - {r["rule"] for r in table})
        if missing:
            raise ValueError(f"no shell-command rule {missing[0]!r} in the project; rules: "
                             + ", ".join(sorted({t.text for _, _, ts in shells
                                                 for t in ts})[:20]))
    frame = pd.DataFrame(findings, columns=list(FINDING_COLUMNS)).astype({"line": "Int64"})
    rules_frame = pd.DataFrame(table, columns=list(RULE_COLUMNS)).astype({"line": "Int64"})
    unprobed = tuple(name for name, shell, _ in shells if shell is None)
    return ProbeRun(frame, rules_frame, mode, tried, unprobed=unprobed, not_asked=not_asked)


def _row(target: _Target) -> dict[str, Any]:
    """The rules-table row of ``target``, as skipped with its note (until probed)."""
    return {"runtime": target.runtime, "rule": target.text, "kind": target.kind,
            "file": target.file, "line": target.line, "seed": target.seed, "status": "skipped",
            "variants": 0, "findings": 0, "note": target.note}


def _probe_rule(target: _Target, check: _Checker
                ) -> tuple[dict[str, Any], list[dict[str, Any]], int]:
    row = _row(target)
    if target.seed is None:
        return row, [], 0
    first = check(target.seed)
    if first.effect not in _expected(target.kind) or not target.decided(first):
        by = _deciders(first)
        row["note"] = (f"its own command {target.seed!r} is decided otherwise: "
                       f"{first.effect.value} by {by[0].text if by else first.reason.value}")
        return row, [], 0
    purpose = "escape" if target.kind == "allow" else "bypass"
    seed = target.seed
    if purpose == "bypass" and target.open_ended and seed.rsplit(" ", 1)[-1].startswith("-"):
        # an operand after the flags, so that reordering has something to move past
        # (``rm -rf x`` for ``Bash(rm -rf:*)``): still the rule's command
        filled = check(f"{seed} x")
        if filled.effect in _expected(target.kind) and target.decided(filled):
            seed = f"{seed} x"
    found = []
    tried = variants(seed, purpose)
    fields = seed_fields(seed) or {}
    for template, command, control in tried:
        if purpose == "escape":
            hit = _escape(target, check, template, fields, command, control)
            if hit is not None:
                found.append(_finding("allow-escape", target, template, *hit))
            continue
        d = check(command)
        if d.effect is Effect.ALLOW:
            found.append(_finding("deny-bypass", target, template, command, d))
    row.update(seed=seed, status="probed", variants=len(tried), findings=len(found), note="")
    return row, found, len(tried)


def _escape(target: _Target, check: _Checker, template: Template,
            fields: Mapping[str, str | None], command: str, control: str | None
            ) -> tuple[str, Decision] | None:
    """The variant (and its decision) through which ``target`` lets a payload run unasked
    that alone would not: the template's own payload first, then, when the policy already
    runs that one unasked (``Bash(curl:*)`` beside ``Bash(python3:*)``), each other one."""
    tries: Iterable[tuple[str, str | None]] = [(command, control)]
    if _uses_payload(template):  # made only when needed (the first payload mostly decides)
        tries = itertools.chain(tries, (
            made for name in PAYLOADS if name != template.payload
            if (made := _make(template, fields, name)) is not None))
    for variant, alone in tries:
        if alone is None:
            continue
        alone_decided = check(alone)
        if alone_decided.effect is Effect.ALLOW:
            continue  # the payload runs unasked anyway: nothing is smuggled
        if check.compound_deny and alone_decided.effect is Effect.DENY \
                and alone_decided.rule.kind == "deny" and _payload_runs(template):
            # a deny rule refuses the payload, and this runtime refuses a line any command
            # of which a deny rule refuses (ShellProbe.compound_deny): the variant cannot run
            # unasked, so it is not asked (run_probe(exhaustive=True) asks it all the same)
            check.not_asked += 1
            return None
        d = check(variant)
        if d.effect is Effect.ALLOW and target.decided(d):
            return variant, d
        return None  # decided as a payload the policy stops: the template does not escape
    return None


def _finding(kind: str, target: _Target, template: Template, command: str, d: Decision
             ) -> dict[str, Any]:
    deciders = list(dict.fromkeys((r.text, r.where if r.file else "") for r in _deciders(d)))
    return {"kind": kind, "rule": target.text, "command": command, "effect": d.effect.value,
            "deciding_rule": "; ".join(t for t, _ in deciders),
            "template": template.name, "runtime": target.runtime, "rule_kind": target.kind,
            "file": target.file, "line": target.line, "family": template.family,
            "reason": d.reason.value,
            "deciding_where": "; ".join(w for _, w in deciders if w), "message": d.message}


def probe(proj: Policy, rules: Sequence[str] | str | None = None, mode: str | None = None,
          runtime: str | None = None) -> pd.DataFrame:
    """``proj.probe()``: the findings of :func:`run_probe` (one row per variant that escapes
    or bypasses; see the module docstring)."""
    return run_probe(proj, rules, mode, runtime).findings
