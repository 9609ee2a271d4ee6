# SPDX-License-Identifier: MIT
"""Booting under QEMU: its command line (`command`), one boot run and read
(`runner`), the guest's CPUs and nodes (`guest`), the accelerator chosen by
measurement (`accel`), one boot as a command asks for it (`boot`), and exact
instruction brackets through QEMU's gdbstub (`gdbstub`, `brackets`)."""
