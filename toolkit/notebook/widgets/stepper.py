"""Workflow stepper: the tools available now as buttons; a click calls, transitions, re-renders."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import ipywidgets as w

from ...render.decisions import PALETTE
from .base import View, esc, first_names, show

if TYPE_CHECKING:
    from ...core.models import Tool
    from ...runtime.builtins import CallResult
    from ...runtime.session import Session

__all__ = ["WorkflowStepper", "args_box", "example_args"]

#: At most this many tool buttons at once (the filter finds the others).
MAX_BUTTONS = 40
#: Arguments up to this many characters stay on one line; longer ones are laid out as
#: indented JSON in a box of as many lines (at most ARGS_LINES, then it scrolls).
ARGS_WIDTH, ARGS_LINES = 60, 12
_PLACEHOLDER = {"string": "", "integer": 0, "number": 0, "boolean": False, "array": [],
                "object": {}}


def example_args(tool: Tool) -> dict[str, Any]:
    """Arguments to prefill: each property's default, and a placeholder for required ones."""
    schema = tool.input_schema or {}
    props = schema.get("properties") or {}
    required = set(schema.get("required") or ())
    out: dict[str, Any] = {}
    for name, prop in props.items():
        if not isinstance(prop, dict):
            continue
        if prop.get("default") is not None:
            out[name] = prop["default"]
        elif name in required:
            kind = prop.get("type")
            if isinstance(kind, list):
                kind = next((k for k in kind if k != "null"), "string")
            if prop.get("enum"):
                out[name] = prop["enum"][0]
            else:
                out[name] = _PLACEHOLDER.get(str(kind), "")
    return out


def args_box(args: Mapping[str, Any]) -> w.Text | w.Textarea:
    """The arguments box of one tool, sized to its JSON so none of it is cut off: one line as
    wide as the text when short, else indented JSON with one row per line."""
    value = json.dumps(args)
    style = {"description_width": "initial"}
    if len(value) <= ARGS_WIDTH:
        return w.Text(value=value, description="args", tooltip="JSON object of arguments",
                      style=style,
                      layout=w.Layout(width=f"calc({max(len(value), 16) + 4}ch + 4em)"))
    lines = json.dumps(args, indent=2).splitlines()
    longest = max(len(line) for line in lines)
    return w.Textarea(value="\n".join(lines), description="args", rows=min(len(lines), ARGS_LINES),
                      tooltip="JSON object of arguments", style=style,
                      layout=w.Layout(width=f"calc({longest + 4}ch + 4em)"))


class WorkflowStepper(View):
    """Step a session through its workflow: one button per tool it may call now.

    A click calls the tool with the JSON arguments next to it, shows the
    result, applies the tool's state transition and re-renders the buttons;
    every step is listed in the history below.

    >>> import toolkit as tk
    >>> session = tk.load("toolkit/examples/trustgraph").start("react-agent", groups=["*"])
    >>> st = WorkflowStepper(session, args={"knowledge-query": {"query": "Acme"}})
    >>> list(st.buttons), st.arg_boxes["knowledge-query"].value, st.session.state
    (['knowledge-query', 'text-completion'], '{"query": "Acme"}', 'undefined')

    With the project's servers connected, ``st.click("knowledge-query")`` calls
    the tool and the session moves to state ``analysis``.
    """

    def __init__(self, session: Session, args: Mapping[str, Mapping[str, Any]] | None = None
                 ) -> None:
        self.session = session
        self.preset_args = {k: dict(v) for k, v in (args or {}).items()}
        self.state_label = w.Label()
        self.state_label.add_class("toolkit-stepper-state")
        self.tools_box = w.VBox()
        self.filter = w.Text(placeholder="filter the tools by name", description="tools",
                             continuous_update=False)
        self.filter.observe(self.reporting(lambda _c: self.render()), names="value")
        self.result = w.Output(layout=w.Layout(max_height="14em", overflow="auto",
                                               border="1px solid #d0d7de"))
        self.result.add_class("toolkit-stepper-result")
        self.history_view = w.HTML()
        self.messages = w.Output()
        self.banner = w.HTML()
        self.buttons: dict[str, w.Button] = {}
        self.arg_boxes: dict[str, w.Text | w.Textarea] = {}
        self.history: list[dict[str, Any]] = []
        self.last: CallResult | None = None
        self._shown: tuple[str, bool] | None = None
        self.widget = w.VBox([self.banner, self.state_label, self.filter, self.tools_box,
                              self.messages,
                              self.result, w.Label("History"), self.history_view])
        self.widget.add_class("toolkit-stepper")
        self.render()
        self.watch(session.project)

    def controls(self) -> Sequence[w.Widget]:
        """The tool buttons: calls need an open project."""
        return tuple(self.buttons.values())

    def follows(self, entry: dict[str, Any]) -> bool:
        """This session's transitions and teardown (a call from code moves it on too)."""
        return entry.get("agent_id") == self.session.id and entry.get("event") in (
            "transition", "teardown")

    def refresh(self) -> None:
        """Re-render if the session moved on since the buttons were drawn."""
        if self._shown != (self.session.state, self.session.closed):
            self.render()

    def render(self) -> None:
        """Show the session's state and one row (button + JSON arguments) per allowed tool."""
        s = self.session
        self._shown = (s.state, s.closed)
        self.state_label.value = (f"{s.id}: state {s.state} · groups {', '.join(s.groups)} · "
                                  f"{len(s.allowed)} tool(s) available")
        rows: list[w.Widget] = []
        self.buttons, self.arg_boxes = {}, {}
        wanted = self.filter.value.strip().lower()
        names = [n for n in sorted(s.allowed) if wanted in n.lower()]
        self.filter.layout.display = None if len(s.allowed) > MAX_BUTTONS else "none"
        for name in names[:MAX_BUTTONS]:
            effect = s.resolution.effect(name)
            button = w.Button(description=name, tooltip=f"{effect}: "
                              f"{s.pool[name].description or name}",
                              layout=w.Layout(width="220px"))
            button.style.button_color = PALETTE[effect]
            button.style.text_color = "white"
            button.add_class("toolkit-stepper-tool")
            button.on_click(self.reporting(lambda _b, t=name: self.click(t)))
            box = args_box(self.preset_args.get(name, example_args(s.pool[name])))
            self.buttons[name], self.arg_boxes[name] = button, box
            rows.append(w.HBox([button, box]))
        closed = bool(getattr(s.project, "closed", False)) or s.closed
        for button in self.buttons.values():
            button.disabled = closed
        if len(names) > MAX_BUTTONS:  # a fleet agent may hold thousands: never a wall of buttons
            rows.append(w.Label(f"… and {len(names) - MAX_BUTTONS} more: type in the filter "
                                "above to find one"))
        if not rows:
            rows.append(w.Label("No tool is available in this state." if not s.allowed
                                else "No available tool matches the filter."))
        self.tools_box.children = tuple(rows)
        self.history_view.value = self._history_html()

    def click(self, tool: str) -> CallResult:
        """Call ``tool`` (what its button does); an error is shown and raised.

        The previous call's result is cleared first: an error never sits below a result
        that is no longer the answer.
        """
        self.result.outputs = ()
        raw = self.arg_boxes[tool].value if tool in self.arg_boxes else "{}"
        try:
            args = json.loads(raw or "{}")
        except json.JSONDecodeError as exc:
            raise ValueError(f"arguments for {tool} are not JSON: {exc}") from None
        if not isinstance(args, dict):
            raise ValueError(f"arguments for {tool} must be a JSON object")
        before = self.session.state
        step: dict[str, Any] = {"tool": tool, "args": args, "from": before}
        try:
            result = self.session.call(tool, args)
        except Exception as exc:  # recorded in the history, then re-raised
            step.update(to=self.session.state, outcome=f"{type(exc).__name__}: {exc}")
            self.history.append(step)
            self.render()
            raise
        self.last = result
        step.update(to=self.session.state, outcome="error" if result.is_error else "ok")
        self.history.append(step)
        self.preset_args[tool] = args  # keep what the user typed for the next time
        show(self.result, f"{tool} → {'error' if result.is_error else 'ok'}\n{result.text}")
        self.render()
        return result

    def _history_html(self) -> str:
        if not self.history:
            return "<p><small>No calls yet.</small></p>"
        rows = "".join(
            f"<tr><td>{i}</td><td><code>{esc(h['tool'])}</code></td>"
            f"<td><code>{esc(json.dumps(h['args']))}</code></td><td>{esc(h['outcome'])}</td>"
            f"<td>{esc(h['from'])} → {esc(h['to'])}</td></tr>"
            for i, h in enumerate(self.history, 1))
        return ("<table class='toolkit-stepper-history'><thead><tr><th>#</th><th>tool</th>"
                "<th>args</th><th>outcome</th><th>state</th></tr></thead>"
                f"<tbody>{rows}</tbody></table>")

    def static_html(self) -> str:
        s = self.session
        tools = first_names(sorted(s.allowed), code=True)
        return (f"<div class='toolkit-stepper'><p><b>{esc(s.id)}</b>: state "
                f"<b>{esc(s.state)}</b>; available now: {tools}</p>{self._history_html()}</div>")

    def static_text(self) -> str:
        s = self.session
        lines = [f"{s.id}: state {s.state}; available now: {first_names(sorted(s.allowed))}"]
        lines += [f"{i}. {h['tool']} {json.dumps(h['args'])}: {h['outcome']} "
                  f"({h['from']} -> {h['to']})" for i, h in enumerate(self.history, 1)]
        return "\n".join(lines)
