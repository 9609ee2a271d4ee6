# SPDX-License-Identifier: MIT
"""bootheap's host side: boots the kernel under QEMU, runs the benchmark
sweep, reads the kernel's records and writes the reports.

Run it as `python3 -m harness` from the top of the repository (see
`python3 -m harness --help`); docs/design.md lists the modules.
"""
import os

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
