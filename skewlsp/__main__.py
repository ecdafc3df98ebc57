"""``python -m skewlsp`` starts the language server (the same as the ``skewlsp`` script)."""

import sys

from skewlsp.server.__main__ import main

if __name__ == "__main__":
    sys.exit(main())
