"""Console entry point ``skewlint``; all logic lives in :mod:`skewlsp.lint`."""

from __future__ import annotations

import sys

from skewlsp.lint.app import main as _main


def main() -> None:
    sys.exit(_main())


if __name__ == "__main__":
    main()
