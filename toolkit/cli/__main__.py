"""``python -m toolkit.cli``: the toolmatrix command."""

from . import main_entry

main_entry()
