# SPDX-License-Identifier: MIT
"""`run` (`make bench`, `make bench-host`): a sweep planned (sizes, runs and
the accelerator, decided once: `plan`), then booted or run size by size
into a results folder (`run`); and `make bench-qr` (`qrtime`)."""
