# SPDX-License-Identifier: MIT
"""Linux built from Debian's source: the command `linux-src` (cli.py), the
builds and their cache (source.py), the minimal config that keeps Debian's
memory-init options (config.py) and each patch built with and without
each option (configs.py), the phases measured (measure.py) and reported
(report.py), the memory map's dump (dump.py), its comparison (dumpdiff.py)
and its boots (dumpboot.py, dumprun.py), the boots to busybox's /init
(initboot.py)."""
