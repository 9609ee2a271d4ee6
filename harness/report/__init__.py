# SPDX-License-Identifier: MIT
"""A results folder's outputs: summary.csv and report.md (`outputs`, the
Markdown in `markdown`), their sections on hosted runs (`hosted`) and on
CPUs and nodes (`cpus`), plot.png (`plot`), and `compare`."""
