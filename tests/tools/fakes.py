# SPDX-License-Identifier: MIT
"""Stand-ins for the harness's loaded sizes and results folders (harness/results/records.py),
holding given records, for the report tests."""


class Run:
    emulated, harness = False, {}

    def __init__(self, nbytes, recs):
        self.nbytes, self.recs = nbytes, recs

    def of(self, kind):
        return [r for r in self.recs if r["type"] == kind]

    def first(self, kind):
        found = self.of(kind)
        return found[0] if found else None


class Results:
    def __init__(self, *runs):
        self.sizes = list(runs)
