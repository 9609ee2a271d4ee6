# SPDX-License-Identifier: MIT
"""What `make mutants` (tools/mutants.py) concludes from its verdicts: the
problems that fail it, its summary line, and the generated part of
PAGE (docs/testing-mutants.md), between the two marker lines there."""
import datetime
import os
import re
import subprocess

# The page whose generated part a whole run rewrites, from the top of the tree.
PAGE = os.path.join("docs", "testing-mutants.md")
BEGIN = "<!-- make mutants writes from here: do not edit by hand -->"
END = "<!-- make mutants writes up to here -->"


def problems(mutants, targets):
    """Sentences, each a reason the run fails; empty when it passes."""
    out = []
    for m in mutants:
        if m.verdict == "stale":
            out.append(f"tests/mutants/{m.name}.patch {m.detail}")
        elif m.verdict == "survived" and not m.equivalent:
            out.append(f"{m.name} survived: {m.what}; no fast stage catches it (or list it as "
                       f"equivalent, saying why)")
        elif m.verdict == "killed" and m.equivalent:
            out.append(f"{m.name} is listed as equivalent, but {m.by} killed it ({m.detail}): "
                       f"its reason is wrong")
    killers = set(by_fuzzer(mutants))
    if mutants and _whole(mutants):
        out += [f"fuzz_{t} killed no mutant of the code it fuzzes" for t in targets
                if f"fuzz_{t}" not in killers]
    return out


def _whole(mutants):
    """The full set ran (a run of a few names cannot judge the fuzzers)."""
    here = os.path.dirname(mutants[0].path)
    return len(mutants) == len([f for f in os.listdir(here) if f.endswith(".patch")])


def score(mutants):
    """(killed, mutants that change behaviour): the equivalent ones do not count."""
    live = [m for m in mutants if not m.equivalent and m.verdict != "not run"]
    return sum(m.verdict == "killed" for m in live), len(live)


def by_fuzzer(mutants):
    """{fuzz_T: [mutant names]} of the mutants each fuzz target killed."""
    out = {}
    for m in mutants:
        if m.by.startswith("fuzz_"):
            out.setdefault(m.by, []).append(m.name)
    return out


def summary(mutants, wall, lo, hi, jobs):
    k, n = score(mutants)
    eq = sum(bool(m.equivalent) for m in mutants)
    fuzz = "; ".join(f"{t} killed {len(v)}" for t, v in sorted(by_fuzzer(mutants).items())) or "no fuzz kills"
    return (f"mutation score: {k} of {n} mutants that change behaviour killed"
            f" ({100 * k / n if n else 0:.0f}%), {eq} equivalent; {fuzz}; {wall:.0f} s with {jobs} at a time,"
            f" load average {lo:.1f} to {hi:.1f}")


def _machine():
    model = "unknown CPU"
    try:
        with open("/proc/cpuinfo") as f:
            model = next((line.split(":", 1)[1].strip() for line in f if line.startswith("model name")), model)
    except OSError:
        pass
    return f"{os.cpu_count()} CPUs ({model})"


def commit(root):
    """The commit the tree stands at, and whether files differ from it."""
    def git(*args):
        return subprocess.run(["git", *args], cwd=root, capture_output=True, text=True).stdout.strip()
    rev = git("rev-parse", "--short", "HEAD") or "no commit"
    return rev + (" with uncommitted changes" if git("status", "--porcelain", "--untracked-files=no") else "")


def _cell(text):
    return text.replace("|", "\\|")


def killed_by(m):
    """The stage, and the test or check that failed where the log names it."""
    d = m.detail
    invariant = re.search(r"(tests/fuzz/[\w.]+:\d+): invariant broken: (.*)", d)
    if invariant:
        return f"{m.by}: {invariant.group(1)} `{invariant.group(2)}`"
    test = re.match(r"(test_\w+): ", d) or re.search(r"^(?:FAILED|ERROR) (\S+)", d)
    check = re.search(r"(tests/fuzz/[\w.]+:\d+)", d) or re.search(r"ERROR: (\w+: [\w-]+)", d)
    if test:
        path, sep, name = test.group(1).partition("::")      # a parametrized name may hold a "/"
        return f"{m.by}: `{path.split('/')[-1]}{sep}{name}`" + (f" ({check.group(1)})" if check else "")
    return f"{m.by}: {check.group(1)}" if check else m.by


def section(mutants, targets, wall, lo, hi, jobs, tested):
    k, n = score(mutants)
    when = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    lines = [
        f"Last run: {when}, at {tested}, on {_machine()}, {jobs} mutants at a time: "
        f"{wall:.0f} s in all, the unmutated tree's run first; load average {lo:.1f} to {hi:.1f} "
        f"(the one-minute figure, sampled every 10 s).",
        "",
        f"**Mutation score: {k} of {n}** mutants that change behaviour killed "
        f"({100 * k / n if n else 0:.0f}%); {sum(bool(m.equivalent) for m in mutants)} more are equivalent"
        + (f"; not run, for want of the tree they need: {sum(m.verdict == 'not run' for m in mutants)}"
           if any(m.verdict == "not run" for m in mutants) else "") + ".",
        "",
        "| mutant | what it breaks | verdict |",
        "|---|---|---|",
    ]
    for m in mutants:
        verdict = (killed_by(m) if m.verdict == "killed" else
                   "survives: equivalent" if m.equivalent and m.verdict == "survived" else
                   f"not run: {m.detail}" if m.verdict == "not run" else m.verdict)
        lines.append(f"| `{m.name}` | {_cell(m.what)} | {_cell(verdict)} |")
    lines += ["", "Each fuzz target's kills (it ran first on the mutants of the code it builds):", ""]
    fuzz = by_fuzzer(mutants)
    for t in targets:
        names = fuzz.get(f"fuzz_{t}", [])
        lines.append(f"- `fuzz_{t}`: " + (", ".join(f"`{x}`" for x in names) if names else "none"))
    lines += ["", "Equivalent mutants, each with why no test can tell it from the tree:", ""]
    lines += [f"- `{m.name}`: {m.equivalent}." for m in mutants if m.equivalent] or ["- none"]
    left = [m for m in mutants if m.verdict == "survived" and not m.equivalent]
    lines += ["", "Survivors that change behaviour: " +
              (", ".join(f"`{m.name}`" for m in left) if left else "none") + "."]
    return "\n".join(lines)


def write(path, mutants, targets, wall, lo, hi, jobs, tested):
    """Replaces the text between the markers of path with this run's section."""
    text = open(path).read()
    if BEGIN not in text or END not in text:
        raise SystemExit(f"{path}: the markers of the generated part are missing")
    head, rest = text.split(BEGIN, 1)
    _, tail = rest.split(END, 1)
    body = section(mutants, targets, wall, lo, hi, jobs, tested)
    with open(path, "w") as f:
        f.write(f"{head}{BEGIN}\n{body}\n{END}{tail}")
