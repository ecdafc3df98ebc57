"""The one exception the transform layer raises.

Adapters (CLI, language server) show its message to the user as is, so every
raise site says *why* no preview exists in words a kernel author understands.
"""

from __future__ import annotations


class PreviewUnavailable(Exception):
    """No rewritten loop can be shown for this report; ``str(err)`` says why."""
