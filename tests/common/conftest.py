"""The shared layer is exercised through the real CLI as well: reuse its ``run`` fixture."""

from tests.cli.conftest import run, user_cache

__all__ = ["run", "user_cache"]
