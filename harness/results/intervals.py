# SPDX-License-Identifier: MIT
"""The 95 % interval of a headline median: the distribution-free interval
between two order statistics (docs/hosted-windows.md, "Which interval", says why
this and not a bootstrap). For n runs sorted x(1) <= ... <= x(n), the pair
x(k), x(n + 1 - k) holds the true median with probability
1 - 2 P(B <= k - 1), B binomial(n, 1/2), whatever the runs' distribution
(continuous, the runs independent); the narrowest such pair of at least
CONFIDENCE is the interval. Under six runs no pair reaches 95 %: the figure
then has no interval, which the reports say in words, never as a zero
width. A ratio (page/chunk, sweep/floor) is taken within each run first,
then given the same interval over its runs.

Whether the intervals of two runs over sizes are honest is asked of their
runs pooled (`exchanged`): were both draws of one host, every split of the
pooled runs into two sets of their sizes would be as likely as the one
measured. The splits say how often honest intervals would hold each
other's medians (about 83 % for six runs each, not 95 %: each median
moves too) and how often two medians would differ as much as the
measured ones do (a permutation test's p-value)."""
import itertools
import math
import random

from harness.results.stats import median

CONFIDENCE = 0.95
NO_INTERVAL = "no interval"


def binomial_cdf(k, n):
    """P(B <= k) for B binomial(n, 1/2), exactly."""
    return sum(math.comb(n, i) for i in range(k + 1)) / 2 ** n if k >= 0 else 0.0


def coverage(n, k):
    """The chance that [x(k), x(n + 1 - k)] of n runs holds the median."""
    return 1 - 2 * binomial_cdf(k - 1, n)


def median_ranks(n, confidence=CONFIDENCE):
    """(k, n + 1 - k), 1-based, of the narrowest pair of order statistics
    whose coverage is at least confidence; None when not even the
    extremes reach it (n under 6 at 95 %)."""
    best = None
    for k in range(1, n // 2 + 1):
        if coverage(n, k) < confidence:
            break
        best = k
    return (best, n + 1 - best) if best else None


def order_bounds(s, ranks):
    """The order statistics (lo, hi) of the sorted runs s at the 1-based
    ranks median_ranks() gave; None without ranks."""
    return (s[ranks[0] - 1], s[ranks[1] - 1]) if ranks else None


class Interval:
    """A median over runs and its interval [lo, hi] (None when too few runs)."""

    def __init__(self, values, confidence=CONFIDENCE):
        s = sorted(values)
        self.values = s
        self.n, self.median = len(s), median(s) if s else None
        ranks = median_ranks(len(s), confidence)
        self.lo, self.hi = order_bounds(s, ranks) or (None, None)
        self.coverage = coverage(len(s), ranks[0]) if ranks else None

    @property
    def known(self):
        return self.lo is not None

    @property
    def half_width(self):
        """Half the interval's width over the median (0.05 is 5 %); None without one."""
        if not self.known or not self.median:
            return None
        return (self.hi - self.lo) / 2 / self.median

    def holds(self, x):
        """Whether x lies inside the interval; None without one."""
        return self.lo <= x <= self.hi if self.known else None

    def scaled(self, d):
        """The same interval with every figure divided by d (ns a page from ns)."""
        out = Interval([])
        out.n, out.coverage = self.n, self.coverage
        out.values = [v / d for v in self.values]
        out.median = self.median / d if self.median is not None else None
        out.lo, out.hi = (self.lo / d, self.hi / d) if self.known else (None, None)
        return out

    def text(self, digits=3):
        """`lo-hi`, or "no interval" (with the runs it had)."""
        if not self.known:
            return f"{NO_INTERVAL}: {self.n} run{'' if self.n == 1 else 's'}"
        return f"{self.lo:.{digits}f}-{self.hi:.{digits}f}"


def ratio_interval(num_by_run, den_by_run, confidence=CONFIDENCE):
    """The ratio num/den taken within each run both have (by run index),
    then its median and interval over those runs."""
    return Interval([num_by_run[r] / den_by_run[r] for r in sorted(num_by_run)
                     if r in den_by_run and den_by_run[r] > 0], confidence)


# Above this many ways to split two runs over sizes' pooled runs, exchanged() takes
# this many splits drawn with a fixed seed, so a report regenerates to the
# same text.
SPLITS_MAX = 5000


def splits(n, k, cap=SPLITS_MAX):
    """The ways to choose k of n runs, as index tuples: every one when there
    are at most cap of them, else cap of them drawn with a fixed seed."""
    if math.comb(n, k) <= cap:
        return itertools.combinations(range(n), k)
    rng = random.Random(n * 1000 + k)
    return (tuple(sorted(rng.sample(range(n), k))) for _ in range(cap))


def exchanged(a, b, confidence=CONFIDENCE):
    """Two Intervals' runs pooled and split every way into sets of a.n and
    b.n runs, as if both runs over sizes drew from one host -> (the share of splits
    whose medians lie inside each other's interval, the share whose medians
    differ by at least as much as a's and b's do: the p-value, never 0, as
    the measured split is one of them), or None where a or b has no
    interval. The medians are taken of the values themselves, as every
    split's are, not of the Intervals' (rounded down for whole ns)."""
    if not (a.known and b.known):
        return None
    pool, ra, rb = a.values + b.values, median_ranks(a.n, confidence), median_ranks(b.n, confidence)
    seen = abs(median(a.values) - median(b.values)) * (1 - 1e-9)
    inside = wider = total = 0
    for pick in splits(len(pool), a.n):
        chosen = set(pick)
        x = sorted(pool[i] for i in pick)
        y = sorted(pool[i] for i in range(len(pool)) if i not in chosen)
        mx, my = median(x), median(y)
        (xlo, xhi), (ylo, yhi) = order_bounds(x, ra), order_bounds(y, rb)
        inside += xlo <= my <= xhi and ylo <= mx <= yhi
        wider += abs(mx - my) >= seen
        total += 1
    if math.comb(len(pool), a.n) > SPLITS_MAX:
        # A drawn set of splits may miss the measured one: it is counted once more.
        return inside / total, (wider + 1) / (total + 1)
    return inside / total, wider / total


def binomial_upper(n, p, confidence=CONFIDENCE):
    """The smallest u with P(B <= u) >= confidence, B binomial(n, p): how
    many of n independent tests at level p can come out positive by chance."""
    acc = 0.0
    for u in range(n + 1):
        acc += math.comb(n, u) * p ** u * (1 - p) ** (n - u)
        if acc >= confidence:
            return u
    return n
