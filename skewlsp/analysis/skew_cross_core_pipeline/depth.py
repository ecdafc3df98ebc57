"""Trip count and skew depth, computed the way the pass computes them.

Depth selection is computed from the divisors of the trip count rather than
by counting down from the requested depth, so ``stage=10**9`` or a trip of
``10**18`` costs microseconds, not a loop of a billion steps.

Models: ``src/ir/transforms/skew_cross_core_pipeline_pass.cpp`` (the depth it picks).
"""

from __future__ import annotations

import math


def requested_depth(stage: int) -> int:
    """D = max(2, stage - 1): cross-core skews default to depth 2."""
    return max(2, stage - 1)


def effective_depth(trip: int, requested: int) -> int:
    """The largest d <= requested with trip % d == 0 and trip >= 2*d (1 once trip >= 2)."""
    bound = min(requested, trip // 2)
    if bound < 1:
        return 1
    best = 1
    for divisor in _divisors(trip):
        if best < divisor <= bound:
            best = divisor
    return best


def clones_per_half(depth: int) -> int:
    """How many times a skew at effective depth D writes each half of the loop body: 2·D.

    ``LowerSkewed`` emits D produce clones in the prologue, a kept steady loop whose body
    holds D produce and then D consume clones, and D consume clones in the epilogue. So
    every top-level statement of the body (a statement belongs to one half; an address
    scalar recomputed in the consumer half is an assignment, never a loop) is written D +
    D times, whatever the trip beyond the D it allows: the steady loop is kept, not
    unrolled, so its trip/D - 1 iterations run the same D clones. A pipeline loop nested in
    the body is thus lowered by LowerPipelineLoops 2·D times.
    """
    return 2 * depth


def _divisors(n: int) -> list[int]:
    factors = _factorize(n)
    divisors = [1]
    for prime, power in factors.items():
        divisors = [d * prime**k for d in divisors for k in range(power + 1)]
    return divisors


def _factorize(n: int) -> dict[int, int]:
    factors: dict[int, int] = {}
    for prime in (2, 3, 5, 7, 11, 13):
        while n % prime == 0:
            factors[prime] = factors.get(prime, 0) + 1
            n //= prime
    stack = [n] if n > 1 else []
    while stack:
        m = stack.pop()
        if m == 1:
            continue
        if _is_probable_prime(m):
            factors[m] = factors.get(m, 0) + 1
            continue
        d = _pollard_rho(m)
        stack.extend((d, m // d))
    return factors


def _is_probable_prime(n: int) -> bool:
    if n < 2:
        return False
    small = (2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37)
    for p in small:
        if n % p == 0:
            return n == p
    d, r = n - 1, 0
    while d % 2 == 0:
        d //= 2
        r += 1
    for a in small:  # deterministic for n < 3.3e24
        x = pow(a, d, n)
        if x in (1, n - 1):
            continue
        for _ in range(r - 1):
            x = pow(x, 2, n)
            if x == n - 1:
                break
        else:
            return False
    return True


def _pollard_rho(n: int) -> int:
    if n % 2 == 0:
        return 2
    c = 1
    while True:
        x = y = 2
        d = 1
        while d == 1:
            x = (x * x + c) % n
            y = (y * y + c) % n
            y = (y * y + c) % n
            d = math.gcd(abs(x - y), n)
        if d != n:
            return d
        c += 1
