# SPDX-License-Identifier: MIT
"""Linux built from Debian's source: `make linux-src` (run.py), the builds and
their cache (source.py), the minimal config that keeps Debian's memory-init
options (config.py), report.md (report.py)."""
