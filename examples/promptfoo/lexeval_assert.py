"""promptfoo's Python assertion file: promptfoo calls get_assert(output, context)."""

from lexeval.integrations.promptfoo import get_assert

__all__ = ["get_assert"]
