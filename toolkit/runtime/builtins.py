"""Built-in tools: ``fs_read``, ``fs_write``, ``shell_exec`` and the adh-cli names.

Policies (work-agent ``builtinPolicy``):

- paths are resolved after following symlinks and must fall under one of
  ``allowedPaths`` (default: the project folder); NUL bytes are refused; writes
  open the file with ``O_NOFOLLOW`` so a symlink swapped in later is not followed;
- commands run without a shell; the executable is looked up on a fixed PATH
  (not the caller's), resolved, and must be one of ``allowedCommands``
  (by name or by resolved path); the process runs in its own process group,
  which is killed on timeout and after exit (no surviving grandchildren);
  output is capped.

Native tools of other runtimes (``google_search``, ...) resolve but are not
executable here.
"""

from __future__ import annotations

import html
import json
import os
import shlex
import shutil
import stat
import subprocess
import threading
import time
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from ..core.models import BUILTIN_KINDS, BuiltinPolicy, Tool
from .processes import kill_process_group, wait_group_gone

__all__ = ["CallResult", "ToolCallError", "run_builtin"]

SAFE_PATH = "/usr/local/bin:/usr/bin:/bin"
DEFAULT_TIMEOUT = 30.0
DEFAULT_OUTPUT_CAP = 1_000_000
MAX_READ_BYTES = 5_000_000



@dataclass
class CallResult:
    """A tool's answer: MCP-style content blocks, structured content and the error flag."""

    content: list[dict[str, Any]] = field(default_factory=list)
    structured_content: dict[str, Any] | None = None
    is_error: bool = False

    @property
    def text(self) -> str:
        """The text blocks joined."""
        return "\n".join(str(c.get("text", "")) for c in self.content if c.get("type") == "text")

    @classmethod
    def of_text(cls, text: str, structured: dict[str, Any] | None = None,
                is_error: bool = False) -> CallResult:
        """A result with one text block."""
        return cls([{"type": "text", "text": text}], structured, is_error)

    def _blocks(self) -> list[tuple[str, str]]:
        """(kind, text) per content block; non-text blocks are described, not shown."""
        out = []
        for block in self.content:
            kind = str(block.get("type", "?"))
            if kind == "text":
                out.append((kind, str(block.get("text", ""))))
            else:
                mime = block.get("mimeType") or (block.get("resource") or {}).get("mimeType")
                size = len(str(block.get("data", "")))
                out.append((kind, f"[{kind} block{f', {mime}' if mime else ''}"
                                  f"{f', {size} characters of data' if size else ''}]"))
        if self.structured_content is not None:
            out.append(("structured", json.dumps(self.structured_content, indent=2,
                                                 ensure_ascii=False, default=str)))
        return out

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> dict[str, str]:
        # A server wrote this content: it is shown as escaped text, never as markup.
        label = "error" if self.is_error else "ok"
        blocks = self._blocks()
        plain = "\n".join([f"CallResult ({label})", *(t for _, t in blocks)])
        color = "#cf222e" if self.is_error else "#1a7f37"
        parts = "".join(f"<div><small>{html.escape(kind)}</small><pre>{html.escape(text)}</pre>"
                        "</div>" for kind, text in blocks)
        return {"text/plain": plain,
                "text/html": f"<div class='toolkit-call-result'><b style='color:{color}'>"
                             f"{label}</b>{parts}</div>"}


class ToolCallError(Exception):
    """A built-in refused or failed a call (reported as an ``is_error`` result)."""


def _roots(policy: BuiltinPolicy | None, base: Path) -> list[Path]:
    paths = policy.allowed_paths if policy and policy.allowed_paths else (".",)
    return [(base / p).resolve() for p in paths]


def _checked_path(raw: Any, policy: BuiltinPolicy | None, base: Path, *,
                  must_exist: bool = True) -> Path:
    if not isinstance(raw, str) or not raw:
        raise ToolCallError("'path' must be a non-empty string")
    if "\x00" in raw:
        raise ToolCallError("path contains a NUL byte")
    if len(raw) > 4096:
        raise ToolCallError("path is too long")
    candidate = base / raw
    try:
        if must_exist:
            resolved = candidate.resolve(strict=True)
        else:
            parent = candidate.parent.resolve(strict=True)
            resolved = parent / candidate.name
            if resolved.is_symlink():
                resolved = resolved.resolve(strict=True)
    except (OSError, RuntimeError) as exc:
        raise ToolCallError(f"cannot resolve path {raw!r}: {exc}") from None
    roots = _roots(policy, base)
    if not any(resolved == r or resolved.is_relative_to(r) for r in roots):
        allowed = ", ".join(str(r) for r in roots)
        raise ToolCallError(f"path {raw!r} resolves to {resolved}, outside the allowed paths "
                            f"({allowed})")
    return resolved


def _fs_read(name: str, args: dict[str, Any], policy: BuiltinPolicy | None,
             base: Path) -> CallResult:
    path = _checked_path(args.get("path", "."), policy, base)
    if name == "list_directory":
        if not path.is_dir():
            raise ToolCallError(f"{args.get('path')!r} is not a directory")
        entries = sorted(p.name + ("/" if p.is_dir() else "") for p in path.iterdir())
        return CallResult.of_text("\n".join(entries), {"entries": entries})
    if name == "get_file_info":
        st = path.stat()
        info = {"path": str(path), "size": st.st_size,
                "type": "directory" if stat.S_ISDIR(st.st_mode) else "file",
                "modified": datetime.fromtimestamp(st.st_mtime, UTC).isoformat()}
        return CallResult.of_text(", ".join(f"{k}: {v}" for k, v in info.items()), info)
    if not path.is_file():
        raise ToolCallError(f"{args.get('path')!r} is not a regular file")
    with path.open("rb") as fh:
        data = fh.read(MAX_READ_BYTES + 1)
    if len(data) > MAX_READ_BYTES:
        raise ToolCallError(f"file is larger than {MAX_READ_BYTES:,} bytes")
    return CallResult.of_text(data.decode("utf-8", errors="replace"))


def _fs_write(args: dict[str, Any], policy: BuiltinPolicy | None, base: Path) -> CallResult:
    content = args.get("content", "")
    if not isinstance(content, str):
        raise ToolCallError("'content' must be a string")
    path = _checked_path(args.get("path"), policy, base, must_exist=False)
    flags = os.O_WRONLY | os.O_CREAT | os.O_TRUNC | getattr(os, "O_NOFOLLOW", 0)
    try:
        fd = os.open(path, flags, 0o644)
    except OSError as exc:
        raise ToolCallError(f"cannot write {args.get('path')!r}: {exc.strerror}") from None
    with os.fdopen(fd, "w", encoding="utf-8") as fh:
        fh.write(content)
    return CallResult.of_text(f"wrote {len(content.encode())} bytes to {path}",
                              {"path": str(path), "bytes": len(content.encode())})


def _resolve_command(argv: list[str], policy: BuiltinPolicy | None) -> str:
    allowed = policy.allowed_commands if policy else ()
    if not allowed:
        raise ToolCallError("no commands are allowed: the tool's policy has no allowedCommands")
    exe = argv[0]
    found = shutil.which(exe, path=SAFE_PATH) if "/" not in exe else exe
    if found is None or not os.path.isfile(found):
        raise ToolCallError(f"command {exe!r} not found on {SAFE_PATH}")
    real = os.path.realpath(found)
    for entry in allowed:
        target = shutil.which(entry, path=SAFE_PATH) if "/" not in entry else entry
        if target is not None and os.path.realpath(target) == real and (
                "/" in exe or exe == os.path.basename(entry)):
            return real
    raise ToolCallError(f"command {exe!r} is not allowed; allowed: {', '.join(allowed)}")


def _shell_exec(args: dict[str, Any], policy: BuiltinPolicy | None, base: Path) -> CallResult:
    command = args.get("command")
    argv: list[str]
    if isinstance(command, str):
        try:
            argv = shlex.split(command)
        except ValueError as exc:
            raise ToolCallError(f"cannot parse command: {exc}") from None
    elif isinstance(command, list) and all(isinstance(a, str) for a in command):
        argv = list(command)
    else:
        raise ToolCallError("'command' must be a string or a list of strings")
    extra = args.get("args")
    if isinstance(extra, list) and all(isinstance(a, str) for a in extra):
        argv += extra
    if not argv:
        raise ToolCallError("empty command")
    if any("\x00" in a for a in argv):
        raise ToolCallError("command contains a NUL byte")
    executable = _resolve_command(argv, policy)
    timeout = policy.timeout if policy and policy.timeout else DEFAULT_TIMEOUT
    cap = policy.max_output_bytes if policy and policy.max_output_bytes else DEFAULT_OUTPUT_CAP
    return run_capped([executable, *argv[1:]], cwd=base, timeout=timeout, cap=cap)


def run_capped(argv: list[str], cwd: Path, timeout: float, cap: int) -> CallResult:
    """Run ``argv`` (no shell) in its own process group with a timeout and an output cap."""
    env = {"PATH": SAFE_PATH, "LANG": os.environ.get("LANG", "C.UTF-8")}
    proc = subprocess.Popen(argv, cwd=cwd, env=env, stdin=subprocess.DEVNULL,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            start_new_session=True)
    chunks: list[bytes] = []
    size = 0
    truncated = False

    def reader() -> None:
        nonlocal size, truncated
        assert proc.stdout is not None
        while True:
            chunk = os.read(proc.stdout.fileno(), 65536)
            if not chunk:
                return
            if size < cap:
                chunks.append(chunk[: cap - size])
            size += len(chunk)
            if size > cap:
                truncated = True
                kill_process_group(proc.pid)  # the command leads its own group
                return

    thread = threading.Thread(target=reader, daemon=True)
    thread.start()
    timed_out = False
    try:
        proc.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        timed_out = True
    kill_process_group(proc.pid)  # also ends grandchildren that outlived the command
    proc.wait()
    wait_group_gone(proc.pid)  # SIGKILL lands asynchronously: return once they are gone
    thread.join(timeout=5)
    if proc.stdout is not None:
        proc.stdout.close()
    output = b"".join(chunks).decode("utf-8", errors="replace")
    info = {"exit_code": proc.returncode, "timed_out": timed_out, "truncated": truncated,
            "output_bytes": size}
    if timed_out:
        return CallResult.of_text(output + f"\n[killed after {timeout:g} s timeout]", info, True)
    if truncated:
        return CallResult.of_text(output + f"\n[output over {cap:,} bytes; process killed]",
                                  info, True)
    return CallResult.of_text(output, info, proc.returncode != 0)


def run_builtin(tool: Tool, args: dict[str, Any], base: Path) -> CallResult:
    """Execute a built-in or native tool; refusals come back as ``is_error`` results."""
    if tool.source == "native":
        return CallResult.of_text(f"{tool.name} is a native tool of another runtime: not "
                                  "executable here", {"executable": False}, True)
    policy = tool.builtin_policy
    kind = policy.name if policy is not None else BUILTIN_KINDS.get(tool.name)
    name = tool.name if tool.name in BUILTIN_KINDS else str(kind)
    if policy is not None and tool.name not in BUILTIN_KINDS:
        name = {"fs_read": "read_file"}.get(str(kind), str(kind))
    started = time.monotonic()
    try:
        if kind == "fs_read":
            result = _fs_read(name, args, policy, base)
        elif kind == "fs_write":
            result = _fs_write(args, policy, base)
        elif kind == "shell_exec":
            result = _shell_exec(args, policy, base)
        else:
            return CallResult.of_text(f"{tool.name} has no implementation here", None, True)
    except ToolCallError as exc:
        return CallResult.of_text(f"refused: {exc}", {"refused": str(exc)}, True)
    if result.structured_content is not None:
        result.structured_content.setdefault("elapsed_s", round(time.monotonic() - started, 6))
    return result
