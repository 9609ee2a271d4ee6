# SPDX-License-Identifier: MIT
"""The command line the real kernels' commands share (`binaries`,
`xen-src`, `linux-src`): each a command whose modes are subcommands
(`measure`, the default when none is named, `report FOLDER`, ...), the
flags they have in common under one name and one default, results folders
made by harness/results/records.new_folder(), and, for a flag or mode-flag
that was removed, one line naming what replaced it (exit 2).

A flag that does not belong to the chosen subcommand ends in that
subcommand's usage, as argparse says it."""
import argparse
import sys

from harness.common import BenchError, parse_sizes
from harness.results.records import new_folder

HELP_FLAGS = ("-h", "--help")
# --nodes, the same everywhere: each size on one node and on two.
NODES = "1,2"
# --profile-size: where a profile is taken unless told.
PROFILE_SIZE = "1"
# Commands that were renamed: the old name -> the command line now.
RETIRED = {"peers": "binaries", "xen-heap-test": "xen-src heap-test"}


class Command(argparse.ArgumentParser):
    """A command whose first word names its mode (`measure` when it names
    none); a removed flag anywhere on the line prints the line that names
    its replacement and exits 2. Set up by command()."""
    modes, retired, default_mode = (), {}, "measure"

    def parse_known_args(self, args=None, namespace=None):
        args = list(sys.argv[1:] if args is None else args)
        for i, word in enumerate(args):
            name = word.split("=", 1)[0]
            if name in self.retired:
                value = word.split("=", 1)[1] if "=" in word else (args[i + 1] if i + 1 < len(args) else "")
                said = self.retired[name]
                said = said(value) if callable(said) else f"{name} is gone: use {said}"
                if said:
                    self.exit(2, f"{self.prog}: {said}\n")
        if not args or (args[0] not in self.modes and args[0] not in HELP_FLAGS):
            args.insert(0, self.default_mode)
        return super().parse_known_args(args, namespace)


class Mode(argparse.ArgumentParser):
    """One mode of a command: an argument it does not know is an error
    with this mode's usage."""

    def parse_known_args(self, args=None, namespace=None):
        namespace, extra = super().parse_known_args(args, namespace)
        if extra:
            self.error(f"unrecognized arguments: {' '.join(extra)}")
        return namespace, extra


def command(sub, name, help, description, retired=None):
    """The command `name` on the harness's subparsers -> a function that
    adds one of its modes: mode(name, help, run, description=None) -> its
    parser. `retired`: {flag: what the command line says instead, or a
    function of the flag's value -> the line to print, or None where the
    flag as given still holds}."""
    p = sub.add_parser(name, help=help, description=description + " With no mode named, the mode is measure.",
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    p.__class__ = Command           # the command's own parsing: the default mode, the retired flags
    p.retired = dict(retired or {})
    modes = p.add_subparsers(dest="mode", metavar="MODE", parser_class=Mode)
    p.modes = []

    def mode(mode_name, mode_help, run, description=None):
        m = modes.add_parser(mode_name, help=mode_help, description=description or mode_help, allow_abbrev=False)
        m.set_defaults(run=run)
        p.modes.append(mode_name)
        return m
    return mode


def retired_command(name):
    """A renamed command typed as before: the line naming the new one -> 2."""
    print(f"harness: `{name}` is now `{RETIRED[name]}` (python3 -m harness {RETIRED[name]} --help)",
          file=sys.stderr)
    return 2


def run(args):
    """The chosen mode's function -> its exit status."""
    return args.run(args)


def add_releases(p, releases, default="", one=False):
    """--releases: a comma list (one release with `one`); default None:
    each release whose source apt can get, the others named and left out."""
    default = ",".join(releases) if default == "" else default
    p.add_argument("--releases", default=default, help=f"{'one of' if one else 'a comma list of'} "
                   f"{', '.join(releases)} (default " + (default or "each whose source apt can get, each left out "
                   "named; a release named here that cannot be had fails the run") + ")")


def add_sizes(p, default):
    p.add_argument("--sizes", default=default, help=f"GiB list (default {default}; units like 512M also work)")


def add_nodes(p, layout):
    p.add_argument("--nodes", default=NODES, help=f"1, 2 or 1,2: each size on one node, on two ({layout}), or "
                   f"both (default {NODES})")


def add_series(p, choices, default):
    """--series: the builds booted, with the series, without it (the
    source as Debian ships it), or both side by side."""
    words = {"with": "with the series applied", "without": "without it, the source as Debian ships it",
             "both": "both, side by side"}
    p.add_argument("--series", choices=choices, default=default,
                   help="the builds booted: " + "; ".join(f"{c}: {words[c]}" for c in choices) +
                        f" (default {default})")


def add_profile(p, phases, default, where):
    """--profile PHASES and --profile-size SIZE: the phases profiled
    function by function, at one size."""
    p.add_argument("--profile", default=default, metavar="PHASES",
                   help=f"profile these phases function by function ({', '.join(phases)}) {where} "
                        f"(default {repr(default) if default else 'none'}; '' profiles none)")
    p.add_argument("--profile-size", default=PROFILE_SIZE, metavar="SIZE",
                   help=f"the size each profile boots at (GiB, default {PROFILE_SIZE})")


def add_out(p, prefix):
    p.add_argument("--out", help=f"results folder, new or empty (default results/{prefix}<date-time>)")


def add_refresh(p):
    p.add_argument("--refresh", action="store_true", help="ask the mirror again though a source or package "
                   "is downloaded")


def profiles(args, phases):
    """--profile's phases, checked -> [phase]; and --profile-size in bytes
    as args.profile_size."""
    chosen = [x.strip() for x in (args.profile or "").split(",") if x.strip()]
    bad = [x for x in chosen if x not in phases]
    if bad:
        raise BenchError(f"--profile {','.join(bad)}: a comma list of {', '.join(phases)}")
    args.profile_size = parse_sizes(args.profile_size)[0]
    return chosen


def nodes(text):
    """--nodes -> [1], [2] or [1, 2]."""
    try:
        out = sorted({int(n) for n in text.split(",") if n.strip()})
    except ValueError:
        out = []
    if not out or any(n not in (1, 2) for n in out):
        raise BenchError(f"--nodes {text}: takes 1, 2 or 1,2")
    return out


def counts(text, option, most, what):
    """A comma list of counts from 1 to `most` (--cpus, --threads) -> the
    counts in the order given; BenchError "OPTION TEXT: WHAT" otherwise."""
    try:
        out = [int(x) for x in text.split(",") if x.strip()]
    except ValueError:
        out = []
    if not out or any(c < 1 or c > most for c in out):
        raise BenchError(f"{option} {text}: {what}")
    return out


def listed(text, allowed, what):
    """A comma list of names, each one of `allowed` -> [name]."""
    items = list(dict.fromkeys(x.strip() for x in text.split(",") if x.strip()))
    bad = [x for x in items if x not in allowed]
    if bad or not items:
        raise BenchError(f"{what} {', '.join(bad) or repr(text)}: choose from {', '.join(allowed)}")
    return items


def results_folder(args, prefix):
    """The mode's results folder: --out (new or empty), or
    results/<prefix><date-time>."""
    return new_folder(args.out, prefix)
