"""Static rule analysis (SPEC section 14, issue 24 item 2): ``proj.lint()``.

Every permission rule gets one status, decided from the rules alone (no call is sampled):

``dead``      it can match no call: no tool of the pool is the one it names (a misspelt
              tool, an MCP server that is not configured) or the runtime skips it.
``shadowed``  every call it matches is decided first by a stronger rule (deny beats ask
              beats allow, whatever the order), or it repeats an earlier rule of its kind
              (the same language: the earlier one always decides first).
``redundant`` removing it changes no effect: what it matches and no stronger rule takes,
              other rules of its kind match too (an allow inside a broader allow).
``conflict``  an allow rule that a deny or ask rule overlaps without covering it: the
              witness is a call both match, decided by the stronger rule.
``ok``        none of these.

Statuses are given greedily in reverse layer order, so that removing every rule marked
``shadowed`` or ``redundant`` together changes no decision's effect (of two duplicates the
later one goes).

How it is exact. The engine describes each rule (``engine.rule_languages(tools,
servers)``, an optional method; Claude Code's is in its package) as *channels*: a tool the
rule is consulted on, the argument it reads and a regular expression over that argument's
value (a shell-command pattern, a gitignore glob turned into a path regex, a domain, a
subagent type), or the whole tool. Inclusion, intersection and emptiness of these regular
languages are decided on finite automata (``interegular``), so ``shadowed``, ``redundant``
and ``conflict`` are proofs over the languages, and each witness is a shortest string of
the right difference or intersection (a readable one when there is one: words of
``[A-Za-z0-9._/:=@+,~-]`` separated by single spaces). Each witness is then run through
``proj.check_call``; ``verified`` says whether the rule named in ``by`` (or the rule itself
for a redundant one) really decided it.

Other runtimes. Codex's engine describes its ``prefix_rule`` patterns the same way (an argv
spelt as one string, each token ended by U+001F; a channel's ``call`` turns a witness value
back into arguments), and strictest-wins is Claude Code's order, so they are read alike.
Runtimes where one rule decides by rank give each entry a ``rank`` (the smaller decides
first: OpenCode's last match) and each channel the ``default`` kind of an unmatched call;
there ``shadowed`` means every call it matches is matched by rules ranked before it,
``redundant`` that without it the rules ranked after it (or the default) decide each of
its calls the same way, ``conflict`` an allow and a deny or ask overlapping with the other
ranked first (a ``catch_all`` channel, such as ``"*": "ask"`` under its exceptions, is not
shown). A channel marked ``opaque`` is a rule not analysed; no rule above it on its tool is
called redundant. Entries with ``listed`` False (built-in rules) take part, unlisted.

What is not exact: the languages are those of the rule patterns over one argument's text;
what the engine does before matching (Claude Code's splitting of compound commands,
stripping of wrappers such as ``timeout``, symlink resolution, Read / Edit rules meeting
the paths of ``cat`` or ``sed`` inside Bash) is not modelled, so a witness can fail to
verify (``verified`` False) and a rule that only such steps make matter reads as it would
without them. Rules of different arguments (a ``Bash(timeout:*)`` parameter rule and a
command pattern) are compared only with whole-tool rules and rules of the same argument.
A subagent's own front-matter rules are not linted (settings rules only).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import TYPE_CHECKING, Any, TypeVar

from ..core.models import Rule

if TYPE_CHECKING:
    import pandas as pd

    from ..policy import Policy

__all__ = ["LINT_COLUMNS", "STATUSES", "lint", "lint_findings"]

STATUSES = ("dead", "shadowed", "redundant", "conflict", "ok")
LINT_COLUMNS = ("runtime", "rule", "kind", "layer", "file", "line", "status", "by", "by_where",
                "witness", "verified", "note")
_T = TypeVar("_T")
_RANK = {"deny": 2, "ask": 1, "allow": 0}
_EFFECT = {"deny": ("explicit-deny",), "ask": ("ask",), "allow": ("allow",)}
#: Readable witnesses, most readable first: words separated by single spaces.
_WORDS = (r"[a-z/]+", r"[a-z0-9/._-]+", r"[A-Za-z0-9._/:=@+,~-]+")
_NICE = tuple(rf"{w}(?: {w})*" for w in _WORDS)
#: The characters each readable form is made of.
_NICE_CHARS = tuple(re.compile(rf"[ {w[1:-2]}]*") for w in _WORDS)
_FILLERS = "xyzqjkwvAB0123456789"


# -- automata ----------------------------------------------------------------------------------

@lru_cache(maxsize=8192)
def _fsm(regex: str) -> Any:
    from interegular import parse_pattern

    return parse_pattern(regex).to_fsm()


def _quotient(fsm: Any, suffixes: Sequence[str]) -> Any:
    """The values ``v`` with ``v + s`` in ``fsm``'s language for some ``s`` of ``suffixes``
    (a right quotient: the same automaton, more final states)."""
    if tuple(suffixes) == ("",):
        return fsm
    from interegular.fsm import FSM

    finals = set(fsm.finals)
    for state in fsm.states:
        for suffix in suffixes:
            at = state
            for char in suffix:
                at = fsm.map.get(at, {}).get(fsm.alphabet[char])
                if at is None:
                    break
            if at is not None and at in fsm.finals:
                finals.add(state)
    return FSM(alphabet=fsm.alphabet, states=fsm.states, initial=fsm.initial,
               finals=frozenset(finals), map=fsm.map)


def _literal_prefix(regex: str) -> str:
    """The literal text every string of ``regex`` starts with (conservative: stops at the
    first construct that is not a plain or escaped punctuation character, or the opening of
    a non-capturing group without alternation that no quantifier follows)."""
    out = []
    entered = 0  # plain groups entered and not yet closed
    i = 4 if regex.startswith("(?s)") else 0
    while i < len(regex):
        c = regex[i]
        if c == "\\" and i + 1 < len(regex) and not regex[i + 1].isalnum():
            out.append(regex[i + 1])
            i += 2
            continue
        if regex.startswith("(?:", i) and _plain_group(regex, i):
            entered += 1
            i += 3  # its first literals are the regex's too
            continue
        if c == ")" and entered:
            entered -= 1
            i += 1
            continue
        if c in ".^$*+?{}[]()|\\":
            break
        out.append(c)
        i += 1
    # a quantifier after the last literal makes it optional
    if i < len(regex) and regex[i] in "*?{" and out:
        out.pop()
    return "".join(out)


def _plain_group(regex: str, start: int) -> bool:
    """Whether the group opening at ``start`` has no ``|`` of its own and no quantifier
    after its closing parenthesis (so every string of the regex begins with the group's)."""
    depth, i, in_class = 0, start, False
    while i < len(regex):
        c = regex[i]
        if c == "\\":
            i += 2
            continue
        if in_class:
            in_class = c != "]"
        elif c == "[":
            in_class = True
        elif c == "(":
            depth += 1
        elif c == ")":
            depth -= 1
            if depth == 0:
                return not (i + 1 < len(regex) and regex[i + 1] in "*?{+")
        elif c == "|" and depth == 1:
            return False
        i += 1
    return False


class _Lang:
    """One rule's language on one channel: the values ``v`` with ``v + s`` matching
    ``regex`` in full for a suffix ``s`` of ``suffixes`` and ``v`` matching ``universe``.

    Membership is asked of Python's ``re`` (fast); the automaton (``fsm``) is built only
    when a question cannot be settled by a string (see :func:`_exists`)."""

    __slots__ = ("_fsm", "_samples", "regex", "suffixes", "universe")

    def __init__(self, regex: str, universe: str | None, suffixes: tuple[str, ...]) -> None:
        self.regex, self.universe, self.suffixes = regex, universe, suffixes
        self._fsm: Any = None
        self._samples: tuple[str, ...] | None = None

    @property
    def fsm(self) -> Any:
        if self._fsm is None:
            self._fsm = _language(self.regex, self.universe, self.suffixes)
        return self._fsm

    def accepts(self, value: str) -> bool:
        if self.universe is not None and _re(self.universe).fullmatch(value) is None:
            return False
        pattern = _re(self.regex)
        return any(pattern.fullmatch(value + suffix) is not None for suffix in self.suffixes)

    @property
    def samples(self) -> tuple[str, ...]:
        """A few strings of the language (none when the regex's syntax is not read here)."""
        if self._samples is None:
            found = []
            for example in _examples(self.regex):
                for suffix in self.suffixes:
                    if example.endswith(suffix):
                        value = example[:len(example) - len(suffix)]
                        if value not in found and self.accepts(value):
                            found.append(value)
            self._samples = tuple(found)
        return self._samples


@lru_cache(maxsize=8192)
def _re(regex: str) -> re.Pattern[str]:
    return re.compile(regex)


def _automaton(language: Any) -> Any:
    """The automaton of a :class:`_Lang` (built once), or ``language`` when it is one."""
    return language.fsm if isinstance(language, _Lang) else language


_SAMPLE_CHARS = "a/.-_ x0"
_MAX_SAMPLES = 8


@lru_cache(maxsize=8192)
def _examples(regex: str) -> tuple[str, ...]:
    """A few strings of ``regex`` read off its syntax (each repetition its fewest and one
    more times, each alternative), short ones first; () when a construct is not read here.
    Only candidates: every use checks them by matching (see :func:`_exists`)."""
    from re import _parser  # type: ignore[attr-defined]

    try:
        parsed = _parser.parse(regex)
    except re.error:
        return ()
    try:
        found = _sequence(list(parsed))
    except _UnreadError:
        return ()
    return tuple(sorted(dict.fromkeys(found), key=len)[:_MAX_SAMPLES])


class _UnreadError(Exception):
    """A regex construct :func:`_examples` does not read."""


def _sequence(items: list[Any]) -> list[str]:
    out = [""]
    for op, arg in items:
        options = _node(str(op), arg)
        out = [a + b for a in out for b in options][:_MAX_SAMPLES]
        if not out:
            return []
    return out


def _node(op: str, arg: Any) -> list[str]:
    if op == "LITERAL":
        return [chr(arg)]
    if op == "NOT_LITERAL":
        return [next(c for c in _SAMPLE_CHARS if ord(c) != arg)]
    if op == "ANY":
        return ["a"]
    if op == "IN":
        char = next((c for c in _SAMPLE_CHARS + _PREFERRED if _in_class(c, arg)), None)
        return [] if char is None else [char]
    if op in ("MAX_REPEAT", "MIN_REPEAT", "POSSESSIVE_REPEAT"):
        low, high, sub = arg
        body = _sequence(list(sub))
        if not body:
            return [""] if low == 0 else []
        counts = [low] + ([low + 1] if high is None or high > low or str(high) == "MAXREPEAT"
                          else [])
        return [b * n for n in counts for b in body[:2]]
    if op == "SUBPATTERN":
        return _sequence(list(arg[-1]))
    if op == "BRANCH":
        return [x for alternative in arg[1] for x in _sequence(list(alternative))]
    if op == "AT":
        return [""]
    raise _UnreadError(op)


def _in_class(char: str, items: Any) -> bool:
    code, hit, negate = ord(char), False, False
    for op, arg in items:
        name = str(op)
        if name == "NEGATE":
            negate = True
        elif name == "LITERAL":
            hit = hit or code == arg
        elif name == "RANGE":
            hit = hit or arg[0] <= code <= arg[1]
        elif name == "CATEGORY":
            hit = hit or _category(str(arg), char)
        else:
            raise _UnreadError(name)
    return hit != negate


def _category(name: str, char: str) -> bool:
    kinds = {"DIGIT": char.isdigit(), "SPACE": char.isspace(),
             "WORD": char.isalnum() or char == "_"}
    for kind, value in kinds.items():
        if name == f"CATEGORY_{kind}":
            return value
        if name == f"CATEGORY_NOT_{kind}":
            return not value
    raise _UnreadError(name)


def _shared(a: str, b: str) -> int:
    """The length of the text ``a`` and ``b`` start with."""
    n = min(len(a), len(b))
    return next((i for i in range(n) if a[i] != b[i]), n)


def _candidates(keep: Sequence[Any]) -> list[str]:
    """Strings every language of ``keep`` accepts, built from their samples (each one's own,
    one spliced after another where they part, or after a ``/`` or a space): a cheap proof
    that the languages meet. Empty when none was found (which proves nothing)."""
    if not keep or not all(isinstance(k, _Lang) for k in keep):
        return []
    pool = list(keep[0].samples)
    for i, lang in enumerate(keep[1:], 1):
        before = keep[:i]
        found = [c for c in pool if lang.accepts(c)]
        found += [s for s in lang.samples if all(k.accepts(s) for k in before)]
        if len(found) < 2:
            for c in pool:
                for sample in lang.samples:
                    shared = _shared(c, sample)
                    cut = max(sample.rfind("/", 0, shared), sample.rfind(" ", 0, shared)) + 1
                    for tail in dict.fromkeys((sample[shared:], sample[cut:])):
                        for joined in (c + tail, c[:-1] + tail, c + "/" + tail, c + " " + tail):
                            if lang.accepts(joined) and all(k.accepts(joined) for k in before):
                                found.append(joined)
        pool = list(dict.fromkeys(found))[:_MAX_SAMPLES]
        if not pool:
            return []
    return pool


def _witness(language: Any) -> str | None:
    """A shortest readable string of ``language`` (an automaton or a :class:`_Rest`), else a
    shortest one; None if it is empty."""
    keep, drop = _parts(language)
    if not _exists(keep, drop):
        return None
    # every string of a kept regex starts with its literal prefix: a readable form whose
    # characters cannot spell that prefix has no string in common with it (no walk needed)
    starts = [_literal_prefix(k.regex) for k in keep
              if isinstance(k, _Lang) and k.suffixes == ("",)]
    for readable, chars in zip(_NICE, _NICE_CHARS, strict=True):
        if any(chars.fullmatch(start) is None for start in starts):
            continue
        nice = _lang(readable, None, ("",))
        if _exists((*keep, nice), drop):
            return _search((*keep, nice), drop)
    return _search(keep, drop)


_PREFERRED = "abcdefghijklmnopqrstuvwxyz0123456789/._- ABCDEFGHIJKLMNOPQRSTUVWXYZ"


def _rank(char: str) -> int:
    return _PREFERRED.find(char) if char in _PREFERRED else 1000 + ord(char)


@dataclass(frozen=True, eq=False)
class _Rest:
    """The strings every automaton of ``keep`` accepts and no automaton of ``drop`` does: an
    intersection or a difference left unbuilt (building and minimising products of path-glob
    automata is what made lint slow), searched on the fly by :func:`_search`."""

    keep: tuple[Any, ...]
    drop: tuple[Any, ...] = ()

    def accepts(self, value: str) -> bool:
        return all(f.accepts(value) for f in self.keep) and not any(
            f.accepts(value) for f in self.drop)


def _parts(language: Any) -> tuple[tuple[Any, ...], tuple[Any, ...]]:
    if isinstance(language, _Rest):
        return language.keep, language.drop
    return (language,), ()


def _search(keep: Sequence[Any], drop: Sequence[Any] = ()) -> str | None:
    """The first string, shortest first and then by :data:`_PREFERRED`, that every automaton
    of ``keep`` accepts and none of ``drop`` does (None: there is none).

    Over tuples of the automata's states, built only as far as reached (a product
    automaton, never materialised); the characters are those of the automata's joint
    alphabet, one per class of characters every automaton treats alike (its most readable,
    or a filler none of them names): the string interegular's product would spell, found
    without building it. (interegular's own ``strings()`` enumerates every string level by
    level, far too slow here.) The order is breadth first's (length, then the characters'
    ranks), walked as A*: a tuple's distance to acceptance is at least the largest of its
    kept automata's own, so tuples that cannot lead to a shortest string are not expanded,
    and each tuple is closed the first time it is taken, by its shortest, most readable
    string, as breadth first would reach it."""
    from heapq import heappop, heappush

    fsms = tuple(_automaton(f) for f in (*keep, *drop))
    moves = _moves(fsms)
    n = len(keep)
    # per automaton: state -> {key: next state}, pruned to states that can still accept
    steps = [_steps(f) for f in fsms]
    finals = [f.finals for f in fsms]
    start = _start(fsms, n)
    if start is None:
        return None
    sinks = _sinks(fsms[n:])
    far = [_distance(f) for f in fsms[:n]]
    heap: list[tuple[int, tuple[int, ...], tuple[Any, ...], str]] = [
        (max((d[s] for d, s in zip(far, start, strict=False)), default=0), (), start, "")]
    closed: set[tuple[Any, ...]] = set()
    while heap:
        _, key, states, text = heappop(heap)
        if states in closed:
            continue
        closed.add(states)
        if all(states[i] in finals[i] for i in range(n)) and not any(
                state is not None and state in finals[i]
                for i, state in enumerate(states) if i >= n):
            return text
        for index, (char, keys) in enumerate(moves):
            target = _step(states, keys, steps, n, sinks)
            if target is not None and target not in closed:
                rest = max((d[s] for d, s in zip(far, target, strict=False)), default=0)
                heappush(heap, (len(text) + 1 + rest, (*key, index), target, text + char))
    return None


def _distance(fsm: Any) -> dict[Any, int]:
    """Per live state of ``fsm``: the length of the shortest string from it to a final one."""
    def make() -> dict[Any, int]:
        back: dict[Any, set[Any]] = {}
        for state, moves in fsm.map.items():
            for target in moves.values():
                back.setdefault(target, set()).add(state)
        found = dict.fromkeys(fsm.finals, 0)
        level = list(found)
        while level:
            following = []
            for state in level:
                for source in back.get(state, ()):
                    if source not in found:
                        found[source] = found[state] + 1
                        following.append(source)
            level = following
        return found

    return _memo(("distance", id(fsm)), fsm, make)


def _exists(keep: Sequence[Any], drop: Sequence[Any] = ()) -> bool:
    """Whether some string is accepted by every automaton of ``keep`` and by none of
    ``drop``: :func:`_search` without its order.

    Cheap proofs first: a language both kept and dropped leaves nothing; a candidate string
    (:func:`_candidates`, built from the languages' own samples) that matches every kept
    regex and no dropped one is a witness, and no automaton need be built (most questions
    lint asks are answered yes this way). Otherwise, on the automata, a breadth-first and a
    depth-first walk take turns, one state each, and the first to know answers: breadth
    first meets a short string soon, depth first a long one that breadth first would reach
    only after every shorter string (with many automata in the tuple, a great many); a
    tuple in which a dropped automaton accepts whatever follows is not walked on."""
    if any(d is k for d in drop for k in keep):  # the same language kept and dropped
        return False
    for candidate in _candidates(keep):
        if not any(d.accepts(candidate) for d in drop):
            return True
    drop = tuple({id(d): d for d in drop}.values())
    fsms = tuple(_automaton(f) for f in (*keep, *drop))
    walks = [_walk(fsms, len(keep), depth_first) for depth_first in (False, True)]
    while True:
        for walk in walks:
            found = next(walk)
            if found is not None:
                return found


def _walk(fsms: Sequence[Any], n: int, depth_first: bool) -> Iterator[bool | None]:
    """Visit the reachable tuples of states one at a time (yielding None), then yield
    whether an accepting one was met."""
    from collections import deque

    moves = _moves(fsms)
    if depth_first:
        moves = moves[::-1]  # popped last pushed: the most readable character first
    steps = [_steps(f) for f in fsms]
    finals = [f.finals for f in fsms]
    start = _start(fsms, n)
    if start is None:
        yield False
        return
    sinks = _sinks(fsms[n:])
    seen = {start}
    todo = deque([start])
    while todo:
        states = todo.pop() if depth_first else todo.popleft()
        if all(states[i] in finals[i] for i in range(n)) and not any(
                state is not None and state in finals[i]
                for i, state in enumerate(states) if i >= n):
            yield True
            return
        for _, keys in moves:
            target = _step(states, keys, steps, n, sinks)
            if target is not None and target not in seen:
                seen.add(target)
                todo.append(target)
        yield None
    yield False


def _step(states: tuple[Any, ...], keys: tuple[Any, ...], steps: list[dict[Any, Any]], n: int,
          sinks: Sequence[frozenset[Any]]) -> tuple[Any, ...] | None:
    """The states after one character: None when a kept automaton dies or a dropped one
    reaches a state that accepts every continuation (nothing from there is kept); a dropped
    one that dies is forgotten (None in its place). (The hot loop of lint: kept small.)"""
    out = [table.get(state, _NOWHERE).get(key) for state, key, table in
           zip(states, keys, steps, strict=True)]
    if None in out[:n]:
        return None
    if any(state in sink for state, sink in zip(out[n:], sinks, strict=True)):
        return None
    return tuple(out)


def _start(fsms: Sequence[Any], n: int) -> tuple[Any, ...] | None:
    """The initial tuple of states (a dead dropped automaton as None); None when nothing can
    be kept (a kept language is empty, or a dropped one holds every string)."""
    start = tuple(f.initial if f.initial in _live(f) else None for f in fsms)
    if None in start[:n] or any(state in _sink(f)
                                for state, f in zip(start[n:], fsms[n:], strict=True)):
        return None
    return start


def _sinks(drop: Sequence[Any]) -> list[frozenset[Any]]:
    return [_sink(f) for f in drop]


def _sink(fsm: Any) -> frozenset[Any]:
    """The states of ``fsm`` from which every string is accepted."""
    return _memo(("sink", id(fsm)), fsm, lambda: _sink_states(fsm))


def _sink_states(fsm: Any) -> frozenset[Any]:
    classes = len(set(fsm.alphabet.values()))  # every class of characters has a move
    found = {state for state in fsm.finals if len(fsm.map.get(state, {})) == classes}
    changed = True
    while changed:  # the greatest set of final states whose every move stays inside it
        changed = False
        for state in list(found):
            if any(to not in found for to in fsm.map[state].values()):
                found.discard(state)
                changed = True
    return frozenset(found)


_NOWHERE: dict[Any, Any] = {}


def _steps(fsm: Any) -> dict[Any, dict[Any, Any]]:
    """``fsm``'s transitions into states that can still reach a final state."""
    def make() -> dict[Any, dict[Any, Any]]:
        live = _live(fsm)
        return {state: {key: to for key, to in moves.items() if to in live}
                for state, moves in fsm.map.items() if state in live}

    return _memo(("steps", id(fsm)), fsm, make)


#: Per automaton (by identity; the entry keeps it alive, so the id is not reused): its live
#: states; per tuple of automata: their joint moves. Cleared when large.
_BY_ID: dict[Any, tuple[Any, Any]] = {}


def _memo(key: Any, keep: Any, make: Callable[[], _T]) -> _T:
    found = _BY_ID.get(key)
    if found is None:
        if len(_BY_ID) > 65536:
            _BY_ID.clear()
        found = _BY_ID[key] = (keep, make())
    made: _T = found[1]
    return made


def _moves(fsms: Sequence[Any]) -> list[tuple[str, tuple[Any, ...]]]:
    """One (character, each automaton's transition key) per class of the joint alphabet,
    most readable first: the class's most readable character, or a filler none names."""
    return _memo(("moves", *map(id, fsms)), tuple(fsms), lambda: _joint_moves(fsms))


def _joint_moves(fsms: Sequence[Any]) -> list[tuple[str, tuple[Any, ...]]]:
    from interegular.fsm import anything_else

    symbols: set[Any] = set()
    for f in fsms:
        symbols.update(f.alphabet)
    groups: dict[tuple[Any, ...], list[Any]] = {}
    for symbol in symbols:
        groups.setdefault(tuple(f.alphabet[symbol] for f in fsms), []).append(symbol)
    filler = next((c for c in _FILLERS if c not in symbols), "\x00")
    return sorted(((min((c for c in found if c is not anything_else), key=_rank,
                        default=filler), keys) for keys, found in groups.items()),
                  key=lambda move: _rank(move[0]))


def _live(fsm: Any) -> frozenset[Any]:
    """The states of ``fsm`` from which a final state can be reached."""
    return _memo(("live", id(fsm)), fsm, lambda: _live_states(fsm))


def _live_states(fsm: Any) -> frozenset[Any]:
    back: dict[Any, set[Any]] = {}
    for state, moves in fsm.map.items():
        for target in moves.values():
            back.setdefault(target, set()).add(state)
    found = set(fsm.finals)
    todo = list(found)
    while todo:
        for source in back.get(todo.pop(), ()):
            if source not in found:
                found.add(source)
                todo.append(source)
    return frozenset(found)


# -- the rules, per channel -------------------------------------------------------------------

@dataclass(eq=False)
class _Entry:
    rule: Rule
    kind: str
    order: int
    channels: list[dict[str, Any]]
    dead: str | None
    note: str | None
    languages: dict[int, Any] = field(default_factory=dict)  # channel index -> FSM (or None)
    status: str = "ok"
    removed: bool = False
    rank: tuple[Any, ...] | None = None  # ranked runtimes: the smaller decides first
    listed: bool = True  # a row of the table (False: a built-in rule that takes part)


@dataclass(eq=False)
class _Spot:
    """One entry on one channel: its language (None: every call of the tool)."""

    entry: _Entry
    channel: dict[str, Any]
    language: Any
    prefix: str | None
    key: tuple[Any, ...] = ()  # (regex, universe, suffixes): what _language was built from
    origin: tuple[Any, ...] = ()  # a remainder's: the key of the language it is part of
    field: str | None = field(init=False)  # the argument it reads (None: the whole tool)

    def __post_init__(self) -> None:
        self.field = self.channel["field"]


def _spot(entry: _Entry, channel: dict[str, Any]) -> _Spot:
    regex, universe = channel.get("regex"), channel.get("universe")
    if regex is None:
        return _Spot(entry, channel, None, None)
    key = (regex, universe, tuple(channel.get("suffixes") or ("",)))
    prefix = _literal_prefix(regex) if key[2] == ("",) else ""
    return _Spot(entry, channel, _lang(*key), prefix, key)


@lru_cache(maxsize=4096)
def _lang(regex: str, universe: str | None, suffixes: tuple[str, ...]) -> _Lang:
    """The (lazy) language of a channel, one object per key."""
    return _Lang(regex, universe, suffixes)


@lru_cache(maxsize=4096)
def _language(regex: str, universe: str | None, suffixes: tuple[str, ...]) -> Any:
    language = _quotient(_fsm(regex), suffixes)
    return language if universe is None else language.intersection(_fsm(universe))


def _compatible(a: _Spot, b: _Spot) -> bool:
    """Whether two spots can share a call (fields, then literal prefixes, then automata)."""
    if a.field is None or b.field is None:
        return True
    if a.field != b.field:
        return False
    x, y = a.prefix, b.prefix
    if x is not None and y is not None and x[:len(y)] != y[:len(x)]:
        return False  # neither starts the other
    if not a.key or not b.key:  # a remainder, not a rule's own language
        if a.origin and b.key and not _overlap(a.origin, b.key):
            return False  # not even the whole language it is part of meets b's
        keep_a, drop_a = _parts(a.language)
        keep_b, drop_b = _parts(b.language)
        return _exists((*keep_a, *keep_b), (*drop_a, *drop_b))
    return _overlap(a.key, b.key)


@lru_cache(maxsize=65536)
def _overlap(a: tuple[Any, ...], b: tuple[Any, ...]) -> bool:
    # (interegular's isdisjoint takes state 0 for no state: intersect instead)
    return _exists((_lang(*a), _lang(*b)))


def _left(spot: _Spot, others: Iterable[_Spot]) -> Any:
    """What of ``spot``'s language no spot of ``others`` covers: an FSM, None when all is
    covered, ``...`` when ``spot`` is a whole tool no whole-tool spot covers."""
    others = [o for o in others if _compatible(spot, o)]
    if any(o.language is None for o in others):
        return None
    if spot.language is None:
        return ...
    same = [o for o in others if o.field == spot.field]
    if spot.key and all(o.key for o in same):
        # one rule's channels over several tools (Bash and Monitor, Edit and Write ...) ask
        # the same question: worked out once
        return _difference(spot.key, tuple(dict.fromkeys(o.key for o in same)))
    return _subtract(spot.language, [o.language for o in same])


def _subtract(language: Any, others: Iterable[Any]) -> Any:
    """``language`` minus every one of ``others`` (a :class:`_Rest`), None when empty."""
    keep, drop = _parts(language)
    rest = _Rest(keep, (*drop, *others))
    return rest if _exists(rest.keep, rest.drop) else None


@lru_cache(maxsize=16384)
def _difference(key: tuple[Any, ...], others: tuple[tuple[Any, ...], ...]) -> Any:
    return _subtract(_lang(*key), [_lang(*o) for o in others])


def _decider(spots: Sequence[_Spot], at: _Spot, value: str | None, skip: _Entry | None = None
             ) -> _Entry | None:
    """The rule deciding a call whose ``at.field`` has ``value`` (None: a call the field rules
    do not match): the first deny in layer order, else the first ask, else the first allow."""
    matching = [s.entry for s in spots if s.entry is not skip and not s.entry.removed and (
        s.language is None or (value is not None and s.field == at.field
                               and s.language.accepts(value)))]
    if not matching:
        return None
    return min(matching, key=lambda e: (-_RANK[e.kind], e.order))


@dataclass
class _Finding:
    status: str
    by: _Entry | None = None
    witness: dict[str, Any] | None = None
    note: str = ""
    check: tuple[str, ...] = ()  # the effects the witness must have


def _call(channel: dict[str, Any], value: str | None) -> dict[str, Any]:
    spell = channel.get("call")  # the engine's own way to make arguments of a value
    if spell is not None and value is not None:
        return {"tool": channel["tool"], "args": spell(value)}
    args: dict[str, Any] = {}
    name = channel["field"]
    if name is not None and value is not None:
        args[name.removeprefix("param:")] = value
    return {"tool": channel["tool"], "args": args}


class _Near:
    """The spots of each tool that can share a call with a given spot as far as literal
    prefixes tell (one starts the other: same first :data:`_KEY` characters, or a shorter
    prefix, or none), in their original order: what every pairwise check would keep of the
    whole list, found without scanning it (most rules of a large file share no prefix)."""

    def __init__(self, by_tool: Mapping[str, list[_Spot]]) -> None:
        self.by_tool = by_tool
        self.open: dict[str, list[tuple[int, _Spot]]] = {}
        self.keyed: dict[tuple[str, str], list[tuple[int, _Spot]]] = {}
        self.memo: dict[tuple[str, str], list[_Spot]] = {}
        for tool, spots in by_tool.items():
            for i, spot in enumerate(spots):
                if spot.prefix is None or len(spot.prefix) < _KEY:
                    self.open.setdefault(tool, []).append((i, spot))
                else:
                    self.keyed.setdefault((tool, spot.prefix[:_KEY]), []).append((i, spot))

    def __call__(self, spot: _Spot) -> list[_Spot]:
        tool = spot.channel["tool"]
        if spot.prefix is None or len(spot.prefix) < _KEY:
            return self.by_tool[tool]
        key = (tool, spot.prefix[:_KEY])
        found = self.memo.get(key)
        if found is None:
            pairs = sorted((*self.open.get(tool, ()), *self.keyed.get(key, ())),
                           key=lambda pair: pair[0])
            found = self.memo[key] = [o for _, o in pairs]
        return found


_KEY = 3


def _analyse(entries: list[_Entry]) -> dict[int, _Finding]:
    by_tool: dict[str, list[_Spot]] = {}
    spots: dict[int, list[_Spot]] = {}
    for entry in entries:
        for channel in entry.channels:
            spot = _spot(entry, channel)
            by_tool.setdefault(channel["tool"], []).append(spot)
            spots.setdefault(id(entry), []).append(spot)
    findings: dict[int, _Finding] = {}
    near = _Near(by_tool)
    for entry in sorted(entries, key=lambda e: -e.order):  # later rules go first
        if entry.dead is not None:
            findings[id(entry)] = _Finding("dead", note=entry.dead)
            entry.removed = True
            continue
        mine = spots.get(id(entry), [])
        if not mine:
            findings[id(entry)] = _Finding("ok", note=f"not analysed: {entry.note}"
                                           if entry.note else "not analysed")
            continue
        finding = _one(entry, mine, by_tool, near)
        findings[id(entry)] = finding
        if finding.status in ("shadowed", "redundant"):
            entry.removed = True
    return findings


def _one(entry: _Entry, mine: list[_Spot], by_tool: Mapping[str, list[_Spot]], near: _Near
         ) -> _Finding:
    rank = _RANK[entry.kind]
    left = [(spot, _left(spot, [o for o in near(spot)
                                if _RANK[o.entry.kind] > rank and not o.entry.removed]))
            for spot in mine]
    if all(rest is None for _, rest in left):
        spot = mine[0]
        value = _witness(spot.language) if spot.language is not None else None
        by = _decider(by_tool[spot.channel["tool"]], spot, value, skip=entry)
        kinds = "deny" if by is not None and by.kind == "deny" else "deny or ask"
        return _Finding("shadowed", by, _call(spot.channel, value),
                        f"every call it matches is decided first by a {kinds} rule",
                        _EFFECT[by.kind] if by is not None else ())
    duplicate = _duplicate(entry, mine, by_tool)
    if duplicate is not None:
        value = _witness(mine[0].language) if mine[0].language is not None else None
        return _Finding("shadowed", duplicate, _call(mine[0].channel, value),
                        f"repeats {duplicate.rule.text} ({_where(duplicate.rule)}), which is "
                        "met first", _EFFECT[entry.kind])
    return _redundant(entry, left, by_tool, near) or (
        _conflict(entry, mine, by_tool, near) if entry.kind == "allow" else None
    ) or _Finding("ok")


def _redundant(entry: _Entry, left: list[tuple[_Spot, Any]],
               by_tool: Mapping[str, list[_Spot]], near: _Near) -> _Finding | None:
    """Whether what no stronger rule takes, other rules of its kind match (on every channel)."""
    witness: tuple[_Spot, str | None] | None = None
    for spot, rest in left:
        if rest is None:
            continue
        same = [o for o in near(spot) if o.entry.kind == entry.kind
                and o.entry is not entry and not o.entry.removed]
        remaining = None if rest is ... else rest
        if _left(_Spot(entry, spot.channel, remaining, spot.prefix, origin=spot.key),
                 same) is not None:
            return None
        if witness is None:
            witness = (spot, _witness(remaining) if remaining is not None else None)
    if witness is None:
        return None
    spot, value = witness
    by = _decider(by_tool[spot.channel["tool"]], spot, value, skip=entry)
    return _Finding("redundant", by, _call(spot.channel, value),
                    "removing it changes no effect: other rules of its kind match every call "
                    "it decides", _EFFECT[entry.kind])


def _conflict(entry: _Entry, mine: list[_Spot], by_tool: Mapping[str, list[_Spot]],
              near: _Near) -> _Finding | None:
    """An allow rule a deny or ask rule overlaps: a call both match, decided by the latter."""
    for spot in mine:
        peers = by_tool[spot.channel["tool"]]
        for other in near(spot):
            if other.entry.kind == "allow" or other.entry.removed or other.field != spot.field \
                    or not _compatible(spot, other):
                continue
            value = _witness(_Rest((spot.language, other.language)))
            by = _decider(peers, spot, value, skip=entry)
            winner = by or other.entry
            return _Finding("conflict", by, _call(spot.channel, value),
                            f"overlaps the {winner.kind} rule {winner.rule.text} "
                            f"({_where(winner.rule)}), which wins where both match",
                            _EFFECT[winner.kind])
    return None


def _duplicate(entry: _Entry, mine: list[_Spot], by_tool: Mapping[str, list[_Spot]]
               ) -> _Entry | None:
    """An earlier rule of the same kind with the same language on every channel."""
    candidates: dict[int, _Entry] | None = None
    for spot in mine:
        found: dict[int, _Entry] = {}
        for other in by_tool[spot.channel["tool"]]:
            o = other.entry
            if o is entry or o.kind != entry.kind or o.order > entry.order or o.removed:
                continue
            if other.field != spot.field:
                continue
            if (spot.language is None and other.language is None) or (
                    spot.language is not None and other.language is not None
                    and _same_language(spot, other)):
                found[id(o)] = o
        candidates = found if candidates is None else {k: v for k, v in candidates.items()
                                                       if k in found}
        if not candidates:
            return None
    if not candidates:
        return None
    return min(candidates.values(), key=lambda e: e.order)


def _same_language(a: _Spot, b: _Spot) -> bool:
    """Whether two spots' languages are equal (the same regex is; languages that cannot
    share a string are not, unless both are empty)."""
    apart = a.prefix is not None and b.prefix is not None and not (
        a.prefix.startswith(b.prefix) or b.prefix.startswith(a.prefix))
    if a.key and b.key:
        if a.key == b.key:
            return True
        if apart:  # no string starts both ways: equal only when both are empty
            return _empty(a.key) and _empty(b.key)
        return _equivalent(*sorted((a.key, b.key), key=repr))
    first, second = a.language, b.language
    return _included(first, second) and _included(second, first)


@lru_cache(maxsize=16384)
def _empty(key: tuple[Any, ...]) -> bool:
    return not _exists((_lang(*key),))


def _included(a: Any, b: Any) -> bool:
    keep_a, drop_a = _parts(a)
    keep_b, drop_b = _parts(b)
    if drop_b:  # a within keep_b minus drop_b: within every keep_b and meeting no drop_b
        return all(_included(a, k) for k in keep_b) and not any(
            _exists((*keep_a, d), drop_a) for d in drop_b)
    return not any(_exists(keep_a, (*drop_a, k)) for k in keep_b)


@lru_cache(maxsize=65536)
def _equivalent(a: tuple[Any, ...], b: tuple[Any, ...]) -> bool:
    first, second = _lang(*a), _lang(*b)
    return _included(first, second) and _included(second, first)


# -- ranked runtimes: the first rule by rank decides (priority, last match wins) -------------

def _analyse_ranked(entries: list[_Entry]) -> dict[int, _Finding]:
    """Statuses where one rule decides a call: the first by ``rank`` among those matching it
    (Gemini CLI's priorities, OpenCode's last match). ``shadowed``: every call it matches is
    matched by rules ranked before it; ``redundant``: every call it decides would, without
    it, be decided with the same effect by the rules ranked after it (or the tool's default,
    the channel's ``default`` kind); ``conflict``: an allow and a deny or ask rule ranked
    before the other overlap, and where both match the earlier one decides. Rules are
    judged from the last-ranked up, so that removing every rule marked shadowed or
    redundant together changes no effect."""
    by_tool: dict[str, list[_Spot]] = {}
    spots: dict[int, list[_Spot]] = {}
    opaque: dict[str, list[_Entry]] = {}
    for entry in entries:
        for channel in entry.channels:
            if channel.get("opaque"):
                opaque.setdefault(channel["tool"], []).append(entry)
                continue
            spot = _spot(entry, channel)
            by_tool.setdefault(channel["tool"], []).append(spot)
            spots.setdefault(id(entry), []).append(spot)
    findings: dict[int, _Finding] = {}
    for entry in sorted(entries, key=lambda e: e.rank or (), reverse=True):
        if entry.dead is not None:
            findings[id(entry)] = _Finding("dead", note=entry.dead)
            entry.removed = True
            continue
        mine = spots.get(id(entry), [])
        if not mine or entry.note:
            findings[id(entry)] = _Finding("ok", note=f"not analysed: {entry.note}"
                                           if entry.note else "not analysed")
            continue
        finding = _one_ranked(entry, mine, by_tool, opaque)
        findings[id(entry)] = finding
        if finding.status in ("shadowed", "redundant", "dead"):
            entry.removed = True
    return findings


def _before(a: _Entry, b: _Entry) -> bool:
    return (a.rank or ()) < (b.rank or ())


def _one_ranked(entry: _Entry, mine: list[_Spot], by_tool: Mapping[str, list[_Spot]],
                opaque: Mapping[str, list[_Entry]]) -> _Finding:
    def above(spot: _Spot) -> list[_Spot]:
        return [o for o in by_tool[spot.channel["tool"]]
                if _before(o.entry, entry) and not o.entry.removed]

    if all(spot.key and _empty(spot.key) for spot in mine):
        return _Finding("dead", note="its pattern matches no call (an empty language)")
    left = [(spot, _left(spot, above(spot))) for spot in mine]
    if all(rest is None for _, rest in left):
        spot = mine[0]
        value = _witness(spot.language) if spot.language is not None else None
        by = _decider_ranked(by_tool[spot.channel["tool"]], spot, value, skip=entry)
        return _Finding("shadowed", by, _call(spot.channel, value),
                        "every call it matches is matched by rules that decide before it",
                        _EFFECT[by.kind] if by is not None else ())
    return (_redundant_ranked(entry, left, by_tool, opaque)
            or _conflict_ranked(entry, mine, by_tool) or _Finding("ok"))


def _decider_ranked(spots: Sequence[_Spot], at: _Spot, value: str | None,
                    skip: _Entry | None = None) -> _Entry | None:
    """The first rule by rank matching a call whose ``at.field`` has ``value``."""
    matching = [s.entry for s in spots if s.entry is not skip and not s.entry.removed and (
        s.language is None or (value is not None and s.field == at.field
                               and s.language.accepts(value)))]
    return min(matching, key=lambda e: e.rank or ()) if matching else None


def _some(keep: Sequence[Any], drop: Sequence[Any], universe: Any) -> bool:
    """Whether a value is in every language of ``keep`` (None: any value; none: the
    ``universe``) and in none of ``drop`` (None: every value)."""
    if any(d is None for d in drop):
        return False
    kept = [k for k in keep if k is not None] or [universe]
    parts = [_parts(k) for k in kept]
    return _exists([x for k, _ in parts for x in k],
                   [*(x for _, d in parts for x in d), *drop])


def _redundant_ranked(entry: _Entry, left: list[tuple[_Spot, Any]],
                      by_tool: Mapping[str, list[_Spot]], opaque: Mapping[str, list[_Entry]]
                      ) -> _Finding | None:
    witness: tuple[_Spot, str | None] | None = None
    for spot, rest in left:
        if rest is None:
            continue
        tool = spot.channel["tool"]
        if any(_before(entry, o) and not o.removed for o in opaque.get(tool, ())):
            return None  # a rule below it that is not analysed could decide otherwise
        universe = _lang(spot.channel.get("universe") or r"(?s).*", None, ("",))
        mine = None if rest is ... else rest
        higher = [o.language for o in by_tool[tool] if _before(o.entry, entry)
                  and not o.entry.removed and o.field == spot.field] if rest is ... else []
        below = sorted((o for o in by_tool[tool] if _before(entry, o.entry)
                        and not o.entry.removed and (o.field is None or spot.field is None
                                                     or o.field == spot.field)),
                       key=lambda o: o.entry.rank or ())
        taken: list[Any] = []  # the languages of the rules below met so far
        for other in below:
            if other.entry.kind != entry.kind and _some(
                    [mine, other.language], [*higher, *taken],
                    _lang(other.channel.get("universe") or r"(?s).*", None, ("",))):
                return None
            taken.append(other.language)
            if other.language is None:
                break
        else:
            if spot.channel.get("default") != entry.kind and _some([mine], [*higher, *taken],
                                                                    universe):
                return None
        if witness is None:
            witness = (spot, _witness(mine) if mine is not None else None)
    if witness is None:
        return None
    spot, value = witness
    rest_spots = [o for o in by_tool[spot.channel["tool"]] if o.entry is not entry]
    by = _decider_ranked(rest_spots, spot, value)
    return _Finding("redundant", by, _call(spot.channel, value),
                    "removing it changes no effect: the rules after it (or the default) "
                    "decide every call it decides the same way", _EFFECT[entry.kind])


def _conflict_ranked(entry: _Entry, mine: list[_Spot], by_tool: Mapping[str, list[_Spot]]
                     ) -> _Finding | None:
    """An allow and a deny or ask rule ranked before it (or the other way round) overlap:
    a call both match, decided by the earlier. A rule of a whole tool (a catch-all such as
    OpenCode's ``"*": "ask"`` under its exceptions) is not shown: that is its purpose."""
    for spot in mine:
        if spot.language is None or spot.channel.get("catch_all"):
            continue
        peers = by_tool[spot.channel["tool"]]
        for other in peers:
            if not _before(other.entry, entry) or other.entry.removed or (
                    (other.entry.kind == "allow") == (entry.kind == "allow")):
                continue
            if other.language is not None and (other.field != spot.field
                                               or not _compatible(spot, other)):
                continue
            if spot.language is None:
                value = _witness(other.language) if other.language is not None else None
            else:
                both = spot.language if other.language is None else _Rest(
                    (spot.language, other.language))
                value = _witness(both)
            by = _decider_ranked(peers, spot, value, skip=entry)
            if by is None or (by.kind == "allow") == (entry.kind == "allow"):
                continue
            return _Finding("conflict", by, _call(spot.channel, value),
                            f"overlaps the {by.kind} rule {by.rule.text} ({_where(by.rule)}), "
                            "which decides first where both match", _EFFECT[by.kind])
    return None


def _where(rule: Rule) -> str:
    return rule.where if rule.file is not None else ""


# -- the table -------------------------------------------------------------------------------

def lint_findings(proj: Policy) -> list[dict[str, Any]]:
    """Every settings rule of every engine that can describe its rules as languages, with
    its status, the rule deciding instead (``by``), a witness call and whether
    ``check_call`` confirms it (``verified``)."""
    rows: list[dict[str, Any]] = []
    tools = list(proj.tools)
    servers = list(proj.server_configs)
    for runtime, engine in proj.engines.items():
        describe = getattr(engine, "rule_languages", None)
        if not callable(describe):
            continue
        entries = [_Entry(d["rule"], d["kind"], d["order"], list(d["channels"]), d.get("dead"),
                          d.get("note"), rank=d.get("rank"), listed=d.get("listed", True))
                   for d in describe(tools, servers)]
        ranked = any(e.rank is not None for e in entries)
        findings = _analyse_ranked(entries) if ranked else _analyse(entries)
        for entry in entries:
            if entry.listed:
                rows.append(_row(proj, runtime, entry, findings[id(entry)]))
    return rows


def _row(proj: Policy, runtime: str, entry: _Entry, finding: _Finding) -> dict[str, Any]:
    rule = entry.rule
    by = finding.by.rule if finding.by is not None else None
    verified = None
    if finding.witness is not None and finding.status != "dead":
        verified = _verify(proj, runtime, finding, by if finding.status != "redundant"
                           else None, rule)
    return {"runtime": runtime, "rule": rule.text, "kind": rule.kind, "layer": rule.layer,
            "file": rule.file, "line": rule.line, "status": finding.status,
            "by": by.text if by is not None else None,
            "by_where": _where(by) if by is not None else None,
            "witness": finding.witness, "verified": verified, "note": finding.note}


def _same(a: Rule, b: Rule) -> bool:
    return (a.file, a.line, a.kind, a.text) == (b.file, b.line, b.kind, b.text)


def _verify(proj: Policy, runtime: str, finding: _Finding, by: Rule | None, rule: Rule
            ) -> bool:
    """Whether ``check_call`` decides the witness as the finding says: by ``by`` (shadowed,
    conflict) or, for a redundant rule, by it or the rule named with the same effect."""
    witness = finding.witness or {}
    try:
        d = proj.check_call(witness["tool"], witness["args"], runtime=runtime)
    except (ValueError, TypeError):
        return False
    deciders = [d.rule, *(p.rule for p in d.parts)]
    if d.effect.value not in finding.check:
        return False
    if by is not None:
        return any(_same(r, by) for r in deciders)
    named = finding.by.rule if finding.by is not None else None
    return any(_same(r, rule) or (named is not None and _same(r, named)) for r in deciders)


def lint(proj: Policy) -> pd.DataFrame:
    """``proj.lint()``: one row per rule (see the module docstring)."""
    import pandas as pd

    frame = pd.DataFrame(lint_findings(proj), columns=list(LINT_COLUMNS))
    return frame.astype({"line": "Int64"})


def describe_witness(witness: Mapping[str, Any] | None) -> str:
    """``Bash 'git push'`` — a witness call on one line."""
    if not witness:
        return ""
    args = witness.get("args") or {}
    if len(args) == 1:
        return f"{witness['tool']} {next(iter(args.values()))!r}"
    return f"{witness['tool']} {dict(args)!r}" if args else str(witness["tool"])

