# SPDX-License-Identifier: MIT
"""Xen's heap built by every CPU (patches/xen/staging-parallel): the hand-over
after SMP bring-up booted on several vCPUs and nodes (boots.py: dom0 to its
init, and the heap dumped and held to the serial series'), and counted under
-icount as a critical path (counts.py), and those counts as recorded shown
in `make xen-src`'s report (recorded.py)."""
