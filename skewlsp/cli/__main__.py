"""``python -m skewlsp.cli`` is ``skewlint``."""

from skewlsp.cli import main

if __name__ == "__main__":
    main()
