"""``%tk matrix [--agents A,B] [--groups G,H ...] [--states S,T] [--presets P,Q] [--runtime R,S|*]
[--reasons]``.

The magic returns ``proj.matrix(...)`` (or ``proj.reasons(...)``) itself: a plain DataFrame
whose values are what the API promises (True/False, or the deciding step's label). What the
notebook shows of it is a view (:func:`matrix_html`): its first rows × columns as a pandas
Styler in the shared palette, each cell its effect's colour and mark, so a ``conditional``
cell (its calls' arguments decide) or an ``ask`` cell no longer reads as a plain True. The
view is bounded whatever the matrix's size, and shown only while the frame is the one the
magic returned, unchanged (a frame derived from it, or edited, shows as pandas shows it).
"""

from __future__ import annotations

import warnings
import weakref
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from IPython.core.error import UsageError

from ._parser import MagicParser, csv_list, group_sets, preset_names
from ._registry import MagicState, subcommand
from ._warnings import warning_lines

if TYPE_CHECKING:
    import pandas as pd

    from ...runtime.project import Project

PARSER = MagicParser("matrix", "The resolved tool matrix: rows tools, columns agents "
                               "(x group sets x states x presets).")
PARSER.add_argument("--agents", action="append", help="agent names, comma-separated")
PARSER.add_argument("--groups", action="append",
                    help="one group set, comma-separated ('*' = all, 'none' = no groups); "
                         "repeat, or separate sets with ';', for several sets")
PARSER.add_argument("--states", "--state", action="append", help="states, comma-separated")
PARSER.add_argument("--presets", "--preset", action="append", type=preset_names,
                    help="presets, comma-separated")
PARSER.add_argument("--runtime", "--runtimes", action="append",
                    help="runtimes side by side, comma-separated ('*' = every runtime the "
                         "project holds): a column set per runtime, the main conversation first")
PARSER.add_argument("--reasons", action="store_true",
                    help="show each cell's deciding step instead of True/False")


@subcommand("matrix", "matrix")
def run(magics: MagicState, rest: str, cell: str | None) -> pd.DataFrame:
    """``proj.matrix(...)`` (or ``proj.reasons(...)`` with ``--reasons``), shown in the
    shared palette (:func:`matrix_html`).

    A group or state no tool knows is a ``warning:`` line; the table is still built.
    """
    args = PARSER.parse(rest)
    project = magics.require_project()
    presets = None if args.presets is None else [p for ps in args.presets for p in ps]
    runtimes = csv_list(args.runtime)
    context: dict[str, Any] = {
        "agents": csv_list(args.agents), "groups": group_sets(args.groups),
        "states": csv_list(args.states), "presets": presets,
        "runtimes": "*" if runtimes and "*" in runtimes else runtimes}
    with warning_lines():  # the core warns about a group or state no tool knows
        try:
            table = (project.reasons if args.reasons else project.matrix)(**context)
        except ValueError as exc:  # a runtime without a permission engine
            raise UsageError(f"%tk matrix: {exc}") from None
    remember(table, None if args.reasons else _first_effects(project, table, context))
    return table


def _first_effects(project: Project, table: pd.DataFrame, context: dict[str, Any]
                   ) -> pd.DataFrame:
    """The effects of the cells the view shows: ``proj.effects`` in the same context (the
    core's cached codes: no second resolution), its first rows × columns."""
    from ...render.decisions import STYLED_COLUMNS, STYLED_ROWS

    with warnings.catch_warnings():  # already said once, as warning: lines
        warnings.simplefilter("ignore", UserWarning)
        effects = project.effects(**context)
    return effects.iloc[:STYLED_ROWS, :STYLED_COLUMNS]


@dataclass(frozen=True)
class _View:
    """What the rich display of one returned frame shows."""

    frame: weakref.ref[pd.DataFrame]
    #: the first cells' effects (a boolean matrix); None: the frame holds labels
    effects: pd.DataFrame | None


#: id(frame) -> its view, while the frame lives.
_VIEWS: dict[int, _View] = {}


def remember(frame: pd.DataFrame, effects: pd.DataFrame | None) -> None:
    """Show ``frame`` as :func:`matrix_html` in this IPython (``effects``: the effects of its
    first cells, for a boolean matrix; None for a frame of ``proj.reasons()`` labels)."""
    key = id(frame)
    _VIEWS[key] = _View(weakref.ref(frame), effects)
    weakref.finalize(frame, _VIEWS.pop, key, None)
    _install_formatter()


def matrix_html(frame: pd.DataFrame) -> str | None:
    """The view of a frame ``%tk matrix`` returned: the legend, then its first rows ×
    columns (:func:`~toolkit.render.decisions.matrix_styler`) with how many more; None for
    any other frame, or one changed since (pandas shows those as always)."""
    from ...core.decision import Effect, effect_of_label
    from ...render.decisions import STYLED_COLUMNS, STYLED_ROWS, legend_html, matrix_styler

    view = _VIEWS.get(id(frame))
    if view is None or view.frame() is not frame:
        return None
    first = frame.iloc[:STYLED_ROWS, :STYLED_COLUMNS]
    if view.effects is None:  # labels: each one names its effect
        try:
            effects = first.map(lambda label: effect_of_label(label).value)
        except (KeyError, TypeError):  # edited into something not a label
            return None
        text: pd.DataFrame | None = first
    else:
        effects, text = view.effects, None
        if not (effects.index.equals(first.index) and effects.columns.equals(first.columns)):
            return None
        if not all(str(t) == "bool" for t in first.dtypes) or not effects.map(
                lambda e: Effect(e).granted).equals(first):
            return None  # the values were edited: the colours would contradict them
    styler = matrix_styler(effects, text, shape=frame.shape)
    return (f"<div class='toolkit-matrix-view'>{legend_html(marks=True)}"
            f"{styler.to_html()}</div>")


#: the shells whose DataFrame formatter already goes through matrix_html
_INSTALLED: set[int] = set()


def _install_formatter() -> None:
    """Route this IPython's HTML display of DataFrames through :func:`matrix_html` (once per
    shell); every other frame goes where it went before (a printer already registered for
    DataFrame, else pandas' own ``_repr_html_``)."""
    import pandas as pd
    from IPython import get_ipython

    shell = get_ipython()
    if shell is None or id(shell) in _INSTALLED:
        return
    formatter = shell.display_formatter.formatters["text/html"]
    try:
        previous = formatter.lookup_by_type(pd.DataFrame)
    except KeyError:
        previous = None

    def printer(frame: pd.DataFrame) -> str | None:
        shown = matrix_html(frame)
        if shown is not None:
            return shown
        method = previous or getattr(type(frame), "_repr_html_", None)  # else pandas' own
        html = method(frame) if method is not None else None
        return html if isinstance(html, str) else None

    formatter.for_type(pd.DataFrame, printer)
    _INSTALLED.add(id(shell))
