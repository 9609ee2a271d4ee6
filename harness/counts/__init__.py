# SPDX-License-Identifier: MIT
"""Exact counts on the hosted runner: instructions and cache misses under
callgrind (`callgrind`), the page/chunk ratio under each model of Xen's
costs (`ablation`), and the machine code against the kernel's (`codegen`)."""
