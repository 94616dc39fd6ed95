"""Rate limits: a token bucket, and one bucket per key (an address, a session)."""

from __future__ import annotations

import time
from collections.abc import Callable, Hashable


class TokenBucket:
    """``rate`` tokens a second, at most ``burst`` saved up."""

    def __init__(self, rate: float, burst: int, clock: Callable[[], float] = time.monotonic) -> None:
        self.rate = rate
        self.burst = burst
        self.clock = clock
        self.tokens = float(burst)
        self.stamp = clock()

    def _refill(self) -> None:
        now = self.clock()
        self.tokens = min(self.burst, self.tokens + (now - self.stamp) * self.rate)
        self.stamp = now

    def take(self) -> bool:
        """Spend a token if there is one; False (and nothing spent) when the bucket is empty."""
        self._refill()
        if self.tokens >= 1:
            self.tokens -= 1
            return True
        return False

    @property
    def empty(self) -> bool:
        self._refill()
        return self.tokens < 1

    @property
    def full(self) -> bool:
        self._refill()
        return self.tokens >= self.burst


class BucketsByKey:
    """A token bucket for each key that has spent tokens lately.

    A bucket that has filled up again is the same as a new one, so it is forgotten: the
    memory held is bounded by the keys that spent tokens within the time a bucket takes
    to fill (``burst / rate``).
    """

    def __init__(self, rate: float, burst: int, clock: Callable[[], float] = time.monotonic) -> None:
        self.rate = rate
        self.burst = burst
        self.clock = clock
        self._buckets: dict[Hashable, TokenBucket] = {}
        self._next_sweep = clock()

    def empty(self, key: Hashable) -> bool:
        bucket = self._buckets.get(key)
        return bucket is not None and bucket.empty

    def take(self, key: Hashable) -> None:
        """Spend a token of ``key``'s bucket (if it has one left)."""
        self._sweep()
        bucket = self._buckets.get(key)
        if bucket is None:
            bucket = self._buckets[key] = TokenBucket(self.rate, self.burst, self.clock)
        bucket.take()

    def __len__(self) -> int:
        return len(self._buckets)

    def _sweep(self) -> None:
        """Forget the full buckets, at most once per refill time (so amortised O(1) a call)."""
        now = self.clock()
        if now < self._next_sweep:
            return
        self._next_sweep = now + self.burst / self.rate
        self._buckets = {key: bucket for key, bucket in self._buckets.items() if not bucket.full}
