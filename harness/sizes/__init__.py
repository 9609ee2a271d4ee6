# SPDX-License-Identifier: MIT
"""`run` (`make bench`, `make bench-host`): the run over memory sizes,
planned (sizes, runs and the accelerator, decided once: `plan`), then
booted or run size by size into a results folder (`run`); and `make
bench-qr` (`qrtime`). Not to be confused with the strategy `sweep`, the
single pass over the pages (mm/strategies/init_sweep.c)."""
