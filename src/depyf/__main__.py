"""``python -m depyf``: the same as the ``depyf`` command."""
import sys

from depyf.cli import main

if __name__ == "__main__":
    sys.exit(main())
