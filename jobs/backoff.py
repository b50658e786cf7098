"""How long to wait before trying a transient failure again: the one rule every retry in the project follows.

Exponential backoff with full jitter: retry n (0 for the first) waits a random time between 0 and
min(cap, base·2ⁿ), so callers that failed together (a server restart, a rate limit) come back spread
out instead of together. A server's Retry-After is a floor: the wait is never shorter than the server
asked, even when the draw is low or the asked wait is above the cap (the cap bounds our own guess,
not the server's word). Callers pick base and cap for their kind of work; nothing else varies.
"""

import random

# Past this many doublings any base is far above any cap; stops 2.0**n overflowing for unlimited retries.
MAX_DOUBLINGS = 64


def backoff_seconds(retries: int, *, base: float, cap: float, retry_after: float | None = None) -> float:
    """Seconds to wait before retry number `retries` (0 the first): full jitter under the cap, Retry-After a floor."""
    ceiling = min(cap, base * 2.0 ** min(retries, MAX_DOUBLINGS))
    return max(random.uniform(0, ceiling), retry_after or 0)
