"""``python -m toolkit.examples.demo_server [options]``: see :mod:`.cli`."""

import sys

from .cli import main

if __name__ == "__main__":
    sys.exit(main())
