# SPDX-License-Identifier: MIT
"""Statistics recomputed on the host from the kernel's `result` records
(docs/records.md, "Statistics"), the checks that say whether a boot can be
trusted, and the cross-check against the kernel's own summary records."""
import statistics

from harness.results.records import passes_of

OLD, NEW, FLOOR = "page", "chunk", "floor"   # Xen before 4.17, Xen 4.17, memset of the eager metadata
SWEEP = "sweep"                               # one pass over the pages (mm/strategies/init_sweep.c)
INIT, FIRST_TOUCH = "init", "first_touch"
# The peers (mm/peers/peer.h): each one's floor, the memset of its own page array, and the floors in report order.
# "freebsd" is freebsd_lazy0's name in runs kept from before it was named after its tunable.
PEER_FLOOR = {"linux": "floor_linux", "linux_deferred": "floor_linux", "linux612": "floor_linux",
              "freebsd": "floor_freebsd", "freebsd_lazy": "floor_freebsd", "freebsd_lazy0": "floor_freebsd"}
FLOORS = (FLOOR, "floor_linux", "floor_freebsd")
LATER = ("deferred", "drain")                # a peer's part after its boot part
# The kernel prints ns_per_page with 3 decimals and ratios and cv_pct with 2.
# Rounding or truncating there moves a value by up to one unit of the last
# place; the speedup is a median of already-rounded ratios, which can add
# one more unit. Anything beyond that is a real disagreement.
TOLERANCE_UNITS = {"ns_per_page": (3, 1), "cv_pct": (2, 1), "x_floor": (2, 1), "x_xen_floor": (2, 1),
                   "speedup_vs_page": (2, 2)}


def median(values):
    """Middle value; for even n the mean of the two middle values, rounded
    down when both are integers (as the kernel does), exact for ratios."""
    s = sorted(values)
    n = len(s)
    if n == 0:
        raise ValueError("median of no values")
    if n % 2:
        return s[n // 2]
    a, b = s[n // 2 - 1], s[n // 2]
    if isinstance(a, int) and isinstance(b, int):
        return (a + b) // 2
    return (a + b) / 2


def cv_pct(values):
    """Sample standard deviation (n - 1) over the mean, in percent; 0 for
    one run (and for a zero mean, where it means nothing)."""
    if len(values) < 2:
        return 0.0
    mean = statistics.fmean(values)
    if mean == 0:
        return 0.0
    return statistics.stdev(values) / mean * 100


def paired_speedup(ref_by_run, ns_by_run):
    """Median over runs of ref[i] / ns[i], paired by run index; None when no
    run index is in both."""
    ratios = [ref_by_run[i] / ns_by_run[i] for i in sorted(ref_by_run)
              if i in ns_by_run and ns_by_run[i] > 0]
    return median(ratios) if ratios else None


class Stat:
    """One strategy and phase at one size, from its `result` records."""

    def __init__(self, strategy, phase):
        self.strategy, self.phase = strategy, phase
        self.by_run = {}            # run index -> ns
        self.pages = None
        self.first_alloc = []       # first_alloc_ns of init results
        self.notes = []

    def add(self, rec):
        run = rec.get("run")
        if run in self.by_run:
            self.notes.append(f"run {run} reported twice")
        self.by_run[run] = int(rec["ns"])
        pages = rec.get("pages")
        if self.pages is None:
            self.pages = pages
        elif pages != self.pages:
            self.notes.append(f"pages differ between runs ({self.pages} vs {pages})")
        if "first_alloc_ns" in rec:
            self.first_alloc.append(int(rec["first_alloc_ns"]))

    @property
    def values(self):
        return list(self.by_run.values())

    @property
    def runs(self):
        return len(self.by_run)

    @property
    def median(self):
        return median(self.values)

    @property
    def min(self):
        return min(self.values)

    @property
    def max(self):
        return max(self.values)

    @property
    def cv(self):
        return cv_pct(self.values)

    def per_page(self, ns=None):
        ns = self.median if ns is None else ns
        return ns / self.pages if self.pages else None


class SummaryStat(Stat):
    """One strategy at one size known only by the kernel's summary: a run
    read back from its QR code carries medians, not single runs."""

    def __init__(self, rec, pages):
        super().__init__(rec["strategy"], rec.get("phase", INIT))
        self._median, self._runs, self.pages = rec["median_ns"], rec.get("runs"), pages

    values = property(lambda self: [])
    runs = property(lambda self: self._runs)
    median = property(lambda self: self._median)
    min = max = cv = property(lambda self: None)


class SizeStats:
    """Everything the outputs show for one size, computed from the records
    (from the kernel's summaries for a run read back from a QR code)."""

    def __init__(self, run):
        self.run = run
        self.stats = {}             # (strategy, phase) -> Stat
        order = list((run.first("bench") or {}).get("strategies") or [])
        self.medians_only = not run.of("result") and bool(run.of("summary"))
        if self.medians_only:
            pages = (run.first("bench") or {}).get("pages")
            for rec in run.of("summary"):
                if rec.get("median_ns") is not None:
                    self.stats[(rec["strategy"], rec.get("phase", INIT))] = SummaryStat(rec, pages)
        for rec in run.of("result"):
            key = (rec.get("strategy"), rec.get("phase", INIT))
            if key not in self.stats:
                self.stats[key] = Stat(*key)
            if rec.get("strategy") not in order:
                order.append(rec.get("strategy"))
            self.stats[key].add(rec)
        # Run order from the bench record, then any strays, the floors last.
        present = {s for s, _ in self.stats}
        self.strategies = [s for s in order if s in present and s not in FLOORS]
        self.strategies += [f for f in FLOORS if f in present]

    def get(self, strategy, phase=INIT):
        return self.stats.get((strategy, phase))

    def phases(self, strategy):
        return [p for p in (INIT, FIRST_TOUCH) if (strategy, p) in self.stats] + \
            sorted(p for s, p in self.stats if s == strategy and p not in (INIT, FIRST_TOUCH))

    @property
    def heap_strategies(self):
        return [s for s in self.strategies if s not in FLOORS]

    def later(self, strategy):
        """A peer's part after boot ("deferred", "drain"), or None."""
        return next((p for p in LATER if (strategy, p) in self.stats), None)

    def own_floor(self, strategy):
        return PEER_FLOOR.get(strategy, FLOOR) if strategy not in FLOORS else strategy

    @property
    def pages(self):
        bench = self.run.first("bench")
        if bench and bench.get("pages"):
            return bench["pages"]
        st = self.get(OLD) or next(iter(self.stats.values()), None)
        return st.pages if st else None

    def comparison(self, strategy):
        return next((c for c in self.run.of("comparison") if c.get("strategy") == strategy), {})

    def speedup(self, strategy):
        if self.medians_only:
            return self.comparison(strategy).get("speedup_vs_page")
        ref, st = self.get(OLD), self.get(strategy)
        if not ref or not st:
            return None
        return paired_speedup(ref.by_run, st.by_run)

    def x_floor(self, strategy, phase=INIT, floor=None):
        """Over the strategy's own floor (a peer's: its page array's), or over floor when given."""
        if self.medians_only and phase == INIT and strategy not in FLOORS and floor is None:
            return self.comparison(strategy).get("x_floor")
        st, fl = self.get(strategy, phase), self.get(floor or self.own_floor(strategy))
        if not st or not fl or fl.median == 0:
            return None
        return st.median / fl.median

    def x_xen_floor(self, strategy):
        return self.x_floor(strategy, floor=FLOOR)

    def end_to_end(self, strategy):
        """Init median + first-touch median, or + a peer's later part (docs/records.md: end_to_end_median_ns)."""
        a = self.get(strategy, INIT)
        b = self.get(strategy, FIRST_TOUCH) or self.get(strategy, self.later(strategy) or "")
        if a and not b and strategy in PEER_FLOOR:
            return a.median
        return a.median + b.median if a and b else None

    def first_alloc(self, strategy):
        st = self.get(strategy, INIT)
        return median(st.first_alloc) if st and st.first_alloc else None

    def digests(self):
        """The block digests of Xen's heaps (a peer's blocks are its own)."""
        return {a.get("digest") for a in self.run.of("audit") if a.get("strategy") not in PEER_FLOOR}

    def page_digests(self):
        """The page digests of every strategy: one when all hand over the same pages."""
        return {a.get("page_digest") for a in self.run.of("audit") if "page_digest" in a}


def failures(run):
    """Why one size of a run over sizes cannot be trusted, boot by boot (a
    hosted run's passes each); empty when it can."""
    boots = passes_of(run)
    if len(boots) > 1:
        return [f"pass {k}: {m}" for k, one in zip(sorted(run.passes), boots) for m in failures(one)]
    out = []
    h = run.harness
    if h and h.get("status") != "ok":
        how = f"runner exit {h['runner_rc']}" if "runner_rc" in h else f"qemu exit {h.get('qemu_rc')}"
        out.append(f"boot ended {h.get('status')} ({how})")
    done = run.first("done")
    if done is None:
        out.append("no done record: the log ends before the kernel finished")
    elif done.get("status") != "ok":
        out.append(f"kernel reported failure: {done.get('reason') or 'no reason given'}")
    if run.first("bench") is None or not (run.of("result") or run.of("summary")):
        out.append("no benchmark records (bench/result): does the kernel run the benchmark?")
    for a in run.of("audit"):
        if a.get("ok") is not True:
            errs = "; ".join(a.get("errors") or []) or "no errors listed"
            out.append(f"audit failed: {a.get('strategy')} run {a.get('run')}: {errs}")
    for c in run.of("comparison"):
        if c.get("digest_equal") is False:
            out.append(f"{c.get('strategy')} built a different heap (digest_equal=false)")
        if c.get("pages_equal") is False:
            out.append(f"{c.get('strategy')} handed over other pages (pages_equal=false)")
    return out


def request_mismatch(run):
    """Where the kernel's bench record differs from what the harness asked
    for on the command line (an option the kernel ignored, say)."""
    out = []
    bench = run.first("bench")
    append = (run.harness or {}).get("append", "")
    if not bench or not append:
        return out
    opts = dict(kv.split("=", 1) for kv in append.split() if "=" in kv)
    if "runs" in opts and str(bench.get("runs")) != opts["runs"]:
        out.append(f"asked for runs={opts['runs']}, the kernel ran {bench.get('runs')}")
    if "strategies" in opts and [s for s in bench.get("strategies") or [] if s != FLOOR] != \
            opts["strategies"].split(","):
        out.append(f"asked for strategies={opts['strategies']}, the kernel ran "
                   f"{','.join(bench.get('strategies') or [])}")
    return out


def _beyond_rounding(key, kernel, host):
    decimals, units = TOLERANCE_UNITS[key]
    return abs(float(kernel) - host) > units * 10 ** -decimals + 1e-9


def cross_check(ss):
    """The kernel's summary/comparison records against the host's own
    statistics -> {(strategy, phase): [disagreement, ...]}; a missing
    kernel record shows as 'absent'. A run read back from its QR code has
    only the kernel's medians: nothing to recompute. A size run in passes
    is checked boot by boot, each against its own records."""
    boots = passes_of(ss.run)
    if len(boots) > 1:
        out = {key: [] for key in ss.stats}
        for one in boots:
            for key, probs in cross_check(SizeStats(one)).items():
                out.setdefault(key, []).extend(p for p in probs if p not in out.get(key, []))
        return out
    if ss.medians_only:
        return {key: [MEDIANS_ONLY] for key in ss.stats}
    out = {key: [] for key in ss.stats}
    seen = set()
    for rec in ss.run.of("summary"):
        key = (rec.get("strategy"), rec.get("phase", INIT))
        st = ss.stats.get(key)
        if st is None:
            out.setdefault(key, []).append("kernel summary without result records")
            continue
        seen.add(key)
        bad = out[key]
        for k, host in (("runs", st.runs), ("median_ns", st.median), ("min_ns", st.min),
                        ("max_ns", st.max)):
            if k in rec and rec[k] != host:
                bad.append(f"{k} kernel {rec[k]} vs host {host}")
        if "ns_per_page" in rec and st.pages and _beyond_rounding("ns_per_page", rec["ns_per_page"], st.per_page()):
            bad.append(f"ns_per_page kernel {rec['ns_per_page']} vs host {st.per_page():.4f}")
        if "cv_pct" in rec and _beyond_rounding("cv_pct", rec["cv_pct"], st.cv):
            bad.append(f"cv_pct kernel {rec['cv_pct']} vs host {st.cv:.3f}")
    for key in ss.stats:
        if key not in seen:
            out[key].append("absent")
    digests = ss.digests()
    for rec in ss.run.of("comparison"):
        s = rec.get("strategy")
        key = (s, INIT)
        if key not in ss.stats:
            out.setdefault(key, []).append("kernel comparison without result records")
            continue
        bad = out[key]
        for k, host in (("speedup_vs_page", ss.speedup(s)), ("x_floor", ss.x_floor(s)),
                        ("x_xen_floor", ss.x_xen_floor(s))):
            if k in rec and host is not None and _beyond_rounding(k, rec[k], host):
                bad.append(f"{k} kernel {rec[k]} vs host {host:.3f}")
        ft, later = ss.get(s, FIRST_TOUCH), ss.get(s, ss.later(s) or "")
        for k, host in (("init_median_ns", ss.get(s).median),
                        ("first_touch_median_ns", ft.median if ft else None),
                        ("later_median_ns", later.median if later else None),
                        ("end_to_end_median_ns", ss.end_to_end(s)),
                        ("first_alloc_median_ns", ss.first_alloc(s))):
            if k in rec and host is not None and rec[k] != host:
                bad.append(f"{k} kernel {rec[k]} vs host {host}")
        if "digest_equal" in rec and digests and rec["digest_equal"] != (len(digests) == 1):
            bad.append(f"digest_equal kernel {rec['digest_equal']} but audits show "
                       f"{len(digests)} distinct digest(s)")
    # Each result's own ns_per_page against ns / pages.
    for rec in ss.run.of("result"):
        if rec.get("pages") and "ns_per_page" in rec and \
                _beyond_rounding("ns_per_page", rec["ns_per_page"], rec["ns"] / rec["pages"]):
            key = (rec.get("strategy"), rec.get("phase", INIT))
            out[key].append(f"run {rec.get('run')} ns_per_page kernel {rec['ns_per_page']} "
                            f"vs host {rec['ns'] / rec['pages']:.4f}")
    for key, st in ss.stats.items():
        out[key].extend(st.notes)
    return out


MEDIANS_ONLY = "medians only"


def check_text(problems):
    """CSV/Markdown cell for one cross-check result."""
    if not problems:
        return "agrees"
    if problems == [MEDIANS_ONLY]:
        return "kernel's medians (QR code)"
    if problems == ["absent"]:
        return "no kernel summary"
    return "DISAGREES: " + "; ".join(p for p in problems if p != "absent")


def disagreements(ss):
    return {k: v for k, v in cross_check(ss).items() if v and v not in (["absent"], [MEDIANS_ONLY])}


