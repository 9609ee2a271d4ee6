# SPDX-License-Identifier: MIT
"""bootheap's host side: boots the kernel under QEMU, runs the benchmark
over memory sizes, reads the kernel's records and writes the reports.

Run it as `python3 -m harness` from the top of the repository (see
`python3 -m harness --help`). One subject a room, and data that flows one
way (docs/design.md, "The rooms of the code"):

  cli, common   the command line, and what every room shares
  sizes/        `run`: the plan (sizes, runs, the accelerator), then the boots
  qemu/         booting under QEMU: command line, runner, accelerator, gdbstub
  hosted/       the hosted runner's runs
  results/      records, statistics, memory maps, the oracle
  report/       summary.csv, report.md, plot.png, compare
  counts/       exact counts under callgrind, the ablation, the machine code
  real/         the real Xen and Linux beside the models: Debian's binaries
                (`binaries`), and Xen and Linux built from Debian's source
                with the patch series (`xen-src`, `linux-src`)
"""
import os

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
