# SPDX-License-Identifier: MIT
"""The build's helpers written in Python, importable as a package: `python3 -m
tools.mutants` (make mutants) uses its neighbour tools.mutants_doc."""
