# SPDX-License-Identifier: MIT
"""Linux built from Debian's source: `make linux-src` (run.py), the builds and
their cache (source.py), the minimal config that keeps Debian's memory-init
options (config.py), the memory map's dump (dump.py), its comparison
(dumpdiff.py) and its boots (dumpboot.py, dumprun.py), the boots to
busybox's /init (initboot.py), report.md (report.py)."""
