# SPDX-License-Identifier: MIT
"""A real kernel booted under -icount with exact brackets round its
hand-over (`boot`), its own log lines read (`logs`), a phase function by
function (`profile`), and the busybox initramfs a boot ends in
(`initramfs`)."""
