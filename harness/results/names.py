# SPDX-License-Identifier: MIT
"""Names changed since records were first kept, and how every reader of
kept records takes an old record under today's names. Records are never
rewritten (they are what was measured): a folder read back goes through
these, so that one written before a rename reads as one written after it.

- The strategy of one pass over the pages, `once` in the kernel until
  issue 47, is `sweep`, as in the Xen and Linux series; Xen's chunked init
  as its cover letter timed it, `chunk_72b02bc`, is `chunk-72b02bc`, as in
  Xen's heap-init=. The kernel's record of sweep's stores followed:
  `once_stores` is `sweep_stores`.
- The harness's record of a run over memory sizes (the first line of a
  results folder's records.jsonl) was `sweep`, when "sweep" also named
  that run; it is `run`.
- The records of `binaries` (the real kernels) were `peers.jsonl`, a
  `peers` header and a `peer` record per binary and phase naming it in
  `peer`; they are `binaries.jsonl`, `binaries`, and `binary` in `binary`.
  Their kept folders moved with them, docs/results/peers* to
  docs/results/binaries*, and a record naming the old folder (linux-src's
  `debian`) finds the new. "Peer" is left to the kernel's own models of
  Linux and FreeBSD."""

STRATEGIES = {"once": "sweep", "chunk_72b02bc": "chunk-72b02bc"}
KERNEL_TYPES = {"once_stores": "sweep_stores"}
HARNESS_TYPES = {"sweep": "run"}
BINARIES_TYPES = {"peers": "binaries", "peer": "binary"}
# The records file of a `binaries` folder: today's, then the name it had.
BINARIES_FILES = ("binaries.jsonl", "peers.jsonl")
# Kept folders, relative to the tree, that moved.
KEPT_FOLDERS = {"docs/results/peers": "docs/results/binaries",
                "docs/results/peers-linux": "docs/results/binaries-linux"}


def strategy(name):
    """A strategy's name today (any other name, or anything not a name, as it is)."""
    return STRATEGIES.get(name, name) if isinstance(name, str) else name


def kernel_record(rec):
    """A kernel record (or the hosted runner's, or one made from a QR
    payload) under today's names: rec itself when no name in it changed,
    else a copy."""
    out = rec
    if rec.get("type") in KERNEL_TYPES:
        out = dict(out, type=KERNEL_TYPES[rec["type"]])
    for key in ("strategy", "shared_from"):
        if isinstance(rec.get(key), str) and rec[key] in STRATEGIES:
            out = dict(out, **{key: STRATEGIES[rec[key]]})
    if isinstance(rec.get("strategies"), list) and any(strategy(s) != s for s in rec["strategies"]):
        out = dict(out, strategies=[strategy(s) for s in rec["strategies"]])
    return out


def harness_record(rec):
    """A record the harness wrote beside the kernel's in records.jsonl,
    under today's names."""
    if rec.get("type") in HARNESS_TYPES:
        return dict(rec, type=HARNESS_TYPES[rec["type"]])
    return rec


def binaries_record(rec):
    """A record of `binaries` (and of `peers-icount`, which joins them)
    under today's names: the header and the real binaries' records, and the
    strategy of bootheap's models beside them."""
    out = kernel_record(rec)
    if rec.get("type") in BINARIES_TYPES:
        out = dict(out, type=BINARIES_TYPES[rec["type"]])
        if "peer" in out:
            out["binary"] = out.pop("peer")
    return out


def kept_folder(path):
    """A kept folder's path today, from the one a record names (relative to
    the tree, as records name them); any other path as it is."""
    return KEPT_FOLDERS.get(path.rstrip("/"), path) if isinstance(path, str) else path
