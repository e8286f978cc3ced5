"""Spawn tree: spawn children anywhere; see each node's tools, what was stripped and why.

A node at ``max_depth`` (under a preset that strips coordination tools) is marked
"cannot spawn"; spawning from it shows the ``SpawnError`` in one line, unless
"force" simulates a host that spawns anyway (a warning line then).
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import ipywidgets as w

from ..views import HTMLView
from .base import View, esc, first_names, show

if TYPE_CHECKING:
    from ...runtime.session import Session

__all__ = ["SpawnTree"]


class SpawnTree(View):
    """The spawn tree under a root session.

    >>> import toolkit as tk
    >>> tree = SpawnTree(tk.load("toolkit/examples/emergent").start("orchestrator"))
    >>> child = tree.spawn("orchestrator", "graph-researcher"); tree.select(child.id)
    >>> [node.id for node in tree.nodes()]
    ['orchestrator', 'orchestrator.graph-researcher']
    """

    def __init__(self, root: Session) -> None:
        self.root = root
        project = root.project
        self.node_picker = w.Dropdown(description="node")
        self.agent_picker = w.Dropdown(options=list(project.agents), description="agent")
        self.groups_box = w.Text(description="groups", placeholder="blank: inherit the parent's")
        self.spawn_button = w.Button(description="spawn child", button_style="primary")
        self.spawn_button.add_class("toolkit-spawn-button")
        self.force_box = w.Checkbox(value=False, description="force (a host that ignores "
                                                             "max_depth)", indent=False)
        self.tree_view = w.HTML()
        self.details = w.Output()
        self.messages = w.Output()
        self.banner = w.HTML()
        self.spawn_button.on_click(self.reporting(lambda _b: self._spawn_clicked()))
        self.node_picker.observe(self.reporting(self._picked), names="value")
        controls = w.HBox([self.node_picker, self.agent_picker, self.groups_box,
                           self.spawn_button, self.force_box])
        self.widget = w.VBox([self.banner, controls, self.messages, self.tree_view,
                              self.details])
        self.widget.add_class("toolkit-spawn-tree")
        self.render()
        self.select(root.id)
        self.watch(project)

    def controls(self) -> Sequence[w.Widget]:
        """Spawning needs an open project."""
        return (self.spawn_button, self.agent_picker, self.groups_box, self.force_box)

    def follows(self, entry: dict[str, Any]) -> bool:
        """Spawns and teardowns under the root (from code too) change the tree."""
        agent_id = str(entry.get("agent_id") or "")
        return entry.get("event") in ("spawn", "teardown") and (
            agent_id == self.root.id or agent_id.startswith(self.root.id + "."))

    def refresh(self) -> None:
        """Redraw the tree (closed sessions are marked)."""
        self.render()

    def nodes(self) -> list[Session]:
        """Every session of the tree, depth first."""
        out: list[Session] = []
        stack = [self.root]
        while stack:
            node = stack.pop()
            out.append(node)
            stack.extend(reversed(node.children))
        return out

    def node(self, node_id: str) -> Session:
        """The session ``node_id`` of the tree."""
        for n in self.nodes():
            if n.id == node_id:
                return n
        raise KeyError(f"no node {node_id!r} in the tree")

    def spawn(self, parent_id: str, agent: str, groups: Any = None, force: bool = False
              ) -> Session:
        """Spawn ``agent`` under node ``parent_id`` (what the button does) and select it.

        A refused spawn raises ``SpawnError`` (the button shows it in one line);
        ``force=True`` spawns anyway and shows the warning.
        """
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", UserWarning)
            child = self.node(parent_id).spawn(agent, groups=groups, force=force)
        self.render()
        self.select(child.id)
        self.messages.outputs = tuple(
            {"output_type": "stream", "name": "stderr", "text": f"warning: {m}\n"}
            for m in dict.fromkeys(str(c.message) for c in caught))
        return child

    def _spawn_clicked(self) -> None:
        text = self.groups_box.value.strip()
        groups = [g.strip() for g in text.split(",") if g.strip()] if text else None
        self.spawn(self.node_picker.value, self.agent_picker.value, groups,
                   force=self.force_box.value)

    def select(self, node_id: str) -> None:
        """Show node ``node_id``'s tools, what was stripped or filtered and why."""
        self.node_picker.value = node_id
        self._show(node_id)

    def _picked(self, change: dict[str, Any]) -> None:
        if change["new"]:
            self._show(change["new"])

    def _show(self, node_id: str) -> None:
        node = self.node(node_id)
        r = node.resolution
        stripped = "".join(f"<li><code>{esc(t)}</code>: {esc(why)}</li>"
                           for t, why in sorted(r.stripped.items()))
        refusal = node.spawn_refusal()
        html = (f"<p><b>{esc(node.id)}</b> (agent {esc(node.agent)}, depth {node.depth})</p>"
                + (f"<p>Stripped:</p><ul>{stripped}</ul>" if stripped else "<p>Nothing stripped."
                                                                          "</p>")
                + (f"<p class='toolkit-spawn-refused' style='color:#cf222e'><b>Cannot spawn:"
                   f"</b> {esc(refusal)}</p>" if refusal else ""))
        text = "\n".join([*(f"stripped {t}: {why}" for t, why in sorted(r.stripped.items())),
                          *([f"cannot spawn: {refusal}"] if refusal else [])])
        show(self.details, node, HTMLView(html, text or "nothing stripped"))

    def render(self) -> None:
        """Redraw the tree and the node picker."""
        nodes = self.nodes()
        self.node_picker.options = [n.id for n in nodes]
        self.tree_view.value = self.static_html()

    def _line(self, node: Session) -> str:
        r = node.resolution
        tools = first_names(sorted(r.allowed))
        extra = f"; stripped: {first_names(sorted(r.stripped))}" if r.stripped else ""
        if node.spawn_refusal() is not None:
            extra += f"; cannot spawn (max_depth {node.grant.max_depth})"
        return f"{node.id} (depth {node.depth}): {tools}{extra}"

    def static_html(self) -> str:
        items = "".join(
            f"<li style='margin-left:{1.5 * n.depth}em'><code>{esc(n.id)}</code> "
            f"<small>depth {n.depth}{', closed' if n.closed else ''}</small>: "
            f"{esc(first_names(sorted(n.allowed)))}"
            + (" <small style='color:#cf222e'>stripped: "
               f"{esc(first_names(sorted(n.resolution.stripped)))}</small>"
               if n.resolution.stripped else "")
            + (" <small class='toolkit-spawn-refused' style='color:#cf222e'>cannot spawn "
               f"(max_depth {n.grant.max_depth})</small>" if n.spawn_refusal() else "")
            + "</li>"
            for n in self.nodes())
        return f"<div class='toolkit-spawn-tree'><ul style='list-style:none'>{items}</ul></div>"

    def static_text(self) -> str:
        return "\n".join("  " * n.depth + self._line(n) for n in self.nodes())
