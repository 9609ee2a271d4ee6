# SPDX-License-Identifier: MIT
"""`run --repeat` (`make bench-host MODE=repeat`): the same run over sizes twice,
back to back, into FOLDER/1 and FOLDER/2, then FOLDER/repeat.md with every
strategy-size's two headline figures and their difference
(harness/report/repeat.py); and `repeat A B` for two folders already made."""
import copy
import os

from harness.common import say, warn
from harness.report.repeat import repeat_text
from harness.results.records import load_folder
from harness.sizes import run as sizes_run


def write_repeat(a, b, path):
    """repeat.md from folders a and b at path; prints it -> 0."""
    text = repeat_text(load_folder(a), load_folder(b))
    with open(path, "w", encoding="utf-8") as f:
        f.write(text + "\n")
    print(text)
    say(f"bench: the two runs side by side: {path}")
    return 0


def cmd_run_twice(args):
    """Both runs, then the comparison -> the worse of their exit statuses."""
    out = sizes_run.make_out_dir(args.out)
    statuses = []
    for k in (1, 2):
        one = copy.copy(args)
        one.out = os.path.join(out, str(k))
        say(f"bench: run {k} of 2, into {one.out}")
        statuses.append(sizes_run.cmd_run(one))
        if statuses[-1] == 130:
            warn("bench: interrupted: no comparison")
            return 130
    write_repeat(os.path.join(out, "1"), os.path.join(out, "2"), os.path.join(out, "repeat.md"))
    return max(statuses)


def cmd_repeat(args):
    """`repeat A B`: repeat.md beside B (or at --out) -> 0."""
    return write_repeat(args.a, args.b, args.out or os.path.join(args.b, "repeat.md"))
