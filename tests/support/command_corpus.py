"""A generated corpus of shell commands for the speed-equivalence tests.

The permission engines keep fast paths (an index of rules by a command's first word, a
sub-command's parse derived from its command's parse); the equivalence tests decide every
command of this corpus on the fast path and on the plain one and compare. The commands mix
what the fast paths depend on: the bench's programs and sub-commands (figure 9's rules), the
words ``--force``, paths the bench's Read / Edit rules name, ``&&`` ``||`` ``;`` ``|`` ``&``
and line breaks, redirections, ``$(...)``, backticks, ``bash -c``, ``eval``, here-documents,
subshells, groups, assignments, quotes, escapes, Unicode, an unbalanced quote, ``if`` / ``for``.
"""

from __future__ import annotations

import random

from bench.runtimes import SUBCOMMANDS, TOOLS

PROGRAMS = [*TOOLS, "tee", "cat", "rm", "ls", "echo", "sed", "find", "grep", "cd", "sudo", "env",
            "timeout", "xargs", "curl", "watch", "head", "base64", "rg", "chmod", "cp", "mv",
            "tool3", "/usr/bin/git", "./gradlew", "gitx", "np", "Git", "te", "nohup", "time"]
FIRST_ARGUMENTS = [*SUBCOMMANDS, "-rf", "-n", "1p", "--force", "-c", "x", "secret1/a",
                   "./secret2/b", "/conf3/c", "out.txt", "~/x", "/etc/passwd", "..", "/tmp",
                   "-lc", "status", "push", "statusx", "'status'", "st\\atus", "\"test\""]
ARGUMENTS = ["--force", "-f", "x", "out.txt", "'a b'", '"q $HOME"', "$X", "*.py", "s1", "--",
             "--shard=3", "secret0/k", "./conf1/y", "src/a.py", '\\"', "a\\ b", "-o", "y.txt",
             "--output=z", "-exec", "{}", "\\;", "gen2/f", "${PWD@P}", "main", "origin",
             "--force-with-lease", "é", "日本", "'--force'", "a\"b", "--x=\"y z\"", "#c"]
OPERATORS = [" && ", " || ", " ; ", " | ", " |& ", " & ", "\n", "&&", ";"]
REDIRECTIONS = [" > o.txt", " >> log", " 2>&1", " < in.txt", " > /dev/null", " > ~/f", " > $F",
                " 2> err", " >| x", " &> all"]
ASSIGNMENTS = ["FOO=1", "LANG=C", "PATH=/x", "A='b c'"]


def commands(n: int, seed: int = 21) -> list[str]:
    """``n`` shell commands, the same ones for the same ``seed``."""
    rnd = random.Random(seed)

    def simple() -> str:
        words = [rnd.choice(PROGRAMS)]
        if rnd.random() < 0.15:
            words.insert(0, rnd.choice(ASSIGNMENTS))
        for _ in range(rnd.randint(0, 3)):
            words.append(rnd.choice(FIRST_ARGUMENTS) if len(words) < 3 else rnd.choice(ARGUMENTS))
        text = " ".join(words)
        pick = rnd.random()
        if pick < 0.06:
            text += f" $({rnd.choice(PROGRAMS)} {rnd.choice(FIRST_ARGUMENTS)})"
        elif pick < 0.09:
            text += f" `{rnd.choice(PROGRAMS)}`"
        elif pick < 0.12:
            text = f"bash -c '{text}'"
        elif pick < 0.14:
            text = f'sh -c "{text}"'
        elif pick < 0.16:
            text = f"({text})"
        elif pick < 0.17:
            text = f"eval {text}"
        elif pick < 0.18:
            text = f"cat <<EOF\n{text}\nEOF"
        elif pick < 0.19:
            text = f"{{ {text}; }}"
        elif pick < 0.20:
            text = f"! {text}"
        elif pick < 0.21:
            text = f"diff <({text}) x"
        if rnd.random() < 0.15:
            text += rnd.choice(REDIRECTIONS)
        return text

    out = []
    for _ in range(n):
        text = simple()
        for _ in range(rnd.choice([1, 1, 2, 2, 3, 3, 3, 4, 5]) - 1):
            text += rnd.choice(OPERATORS) + simple()
        pick = rnd.random()
        if pick < 0.02:
            text += " '"
        elif pick < 0.04:
            text = f"if true; then {text}; fi"
        elif pick < 0.05:
            text = f"for f in *; do {text}; done"
        elif pick < 0.06:
            text = f"  {text}  "
        elif pick < 0.07:
            text = f"{text} # done"
        out.append(text)
    return out
