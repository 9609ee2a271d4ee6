# SPDX-License-Identifier: MIT
"""plot.png: ns per page against guest memory, drawn by gnuplot from a
script this module writes beside it (plot.gp)."""
import io
import os
import re
import shutil
import subprocess

from harness.common import GIB, TCG_LABEL, BenchError
from harness.results.xen import XEN_ARM, XEN_X86, xen_ns_per_page
from harness.report.cputime import cpu_times
from harness.report.hosted import cpu_medians
from harness.results.intervals import Interval
from harness.results.stats import FLOOR, FLOORS, INIT, SizeStats


def gnuplot_terminal():
    """'pngcairo' when gnuplot has it, else 'png'. Fails naming the package."""
    exe = shutil.which("gnuplot")
    if not exe:
        raise BenchError("gnuplot is not installed: install the Debian package gnuplot-nox "
                         "(`make setup` does)")
    r = subprocess.run([exe, "-e", "set terminal"], capture_output=True, text=True)
    listing = r.stdout + r.stderr
    if re.search(r"^\s*pngcairo\s", listing, re.M):
        return "pngcairo"
    if re.search(r"^\s*png\s", listing, re.M):
        return "png"
    raise BenchError("this gnuplot has no PNG terminal: install the Debian package gnuplot-nox")


def gp_str(s):
    """A gnuplot double-quoted string."""
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


def plot_script(results, terminal="pngcairo", output="plot.png"):
    """The gnuplot script for plot.png: ns/page (init) against GiB, log-log,
    one line per strategy and the floor, Xen's published points marked."""
    emulated = results.emulated
    series = {}                 # strategy -> [(gib, ns_per_page)]
    bars = {}                   # strategy -> [(gib, ns_per_page, interval low, high)]
    titles = {}
    by_cpu = False
    for run in results.sizes:
        ss = SizeStats(run)
        cpu = cpu_medians(run)          # the hosted runner's CPU time: free of other processes' time
        by_cpu |= bool(cpu)
        for s in ss.strategies:
            st = ss.get(s)
            if st and st.pages:
                # A peer with a part after boot counts both: what it takes to hand over every page.
                later = ss.later(s)
                ns = cpu.get((s, INIT), st.median) + (cpu.get((s, later), ss.get(s, later).median)
                                                      if later else 0)
                titles[s] = f"{s} (boot + {later})" if later else s
                series.setdefault(s, []).append((run.nbytes / GIB, ns / st.pages))
                iv = run_interval(run, s, later)
                if iv is not None and iv.known and ns / st.pages > 0 and iv.lo > 0:
                    bars.setdefault(s, []).append((run.nbytes / GIB, ns / st.pages, iv.lo, iv.hi))
    # The floors last so they draw above the others, strategies in run order.
    names = [s for s in series if s not in FLOORS] + [f for f in FLOORS if f in series]
    xen = {"v1 before": [], "v1 after": [], "v2 before": [], "v2 after": []}
    for gb, b1, a1, b2, a2 in XEN_X86:
        for key, ms in zip(xen, (b1, a1, b2, a2)):
            xen[key].append((gb, xen_ns_per_page(gb, ms)))
    gb, b, a = XEN_ARM
    xen["Arm64 N1 before -> after"] = [(gb, xen_ns_per_page(gb, b)), (gb, xen_ns_per_page(gb, a))]

    xs = [x for pts in list(series.values()) + list(xen.values()) for x, _ in pts]
    title = "bootheap: boot memory to buddy heap, ns per page (init phase)"
    if by_cpu:
        title += "\nhosted sizes by the runner's CPU time" + (", bars the median's 95% interval" if bars else "")
    if emulated:
        title += "\n" + TCG_LABEL + "\n(Xen's points: real hardware under KVM, for reference only)"
    out = io.StringIO()
    w = out.write
    w("# SPDX-License-Identifier: MIT\n# Written by harness/report/plot.py; rerun with: gnuplot plot.gp\n")
    font = ' font "Sans,10"' if terminal == "pngcairo" else ""
    w("set encoding utf8\n")
    w(f"set terminal {terminal} size 1100,700{font}\n")
    w(f"set output {gp_str(output)}\n")
    w(f"set title {gp_str(title)} noenhanced\n")
    w('set xlabel "guest memory (GiB, log scale)"\nset ylabel "ns per page (log scale)"\n')
    w("set logscale x 2\nset logscale y 10\nset grid xtics ytics mytics\n")
    w(f"set xrange [{min(xs) / 1.4:g}:{max(xs) * 1.4:g}]\n")
    ticks = sorted({x for x in xs})
    w("set xtics (" + ", ".join(f'"{t:g}" {t:g}' for t in ticks) + ")\n")
    w("set key below maxcols 3 noenhanced\n")
    plots = []
    for i, s in enumerate(names):
        pts = [(x, y) for x, y in series[s] if y and y > 0]     # log axis: drop zeros
        if not pts:
            continue
        w(f"$s{i} << EOD\n" + "".join(f"{x:g} {y:.6g}\n" for x, y in pts) + "EOD\n")
        if s in FLOORS:
            what = {FLOOR: "Xen's page_info", "floor_linux": "Linux's struct page",
                    "floor_freebsd": "FreeBSD's vm_page"}[s]
            colour = {FLOOR: "black", "floor_linux": "#555555", "floor_freebsd": "#999999"}[s]
            plots.append(f'$s{i} using 1:2 with linespoints lw 2 dt 2 lc rgb "{colour}" pt 1 '
                         f'title {gp_str(f"{s} (memset of {what})")}')
        else:
            plots.append(f"$s{i} using 1:2 with linespoints lw 2 pt 7 title {gp_str(titles[s])}")
    # Each line's 95 % intervals as bars in its colour, after every line so
    # the lines keep their colours; a point without an interval has none.
    colours = {s: k + 1 for k, s in enumerate(s for s in names if s in series and s not in FLOORS)}
    err = []
    for i, s in enumerate(names):
        if s not in bars:
            continue
        w(f"$e{i} << EOD\n" + "".join(f"{x:g} {y:.6g} {lo:.6g} {hi:.6g}\n" for x, y, lo, hi in bars[s]) + "EOD\n")
        colour = f'lc rgb "{ {FLOOR: "black", "floor_linux": "#555555", "floor_freebsd": "#999999"}[s]}"' \
            if s in FLOORS else f"lt {colours[s]}"
        err.append(f"$e{i} using 1:2:3:4 with yerrorbars {colour} pt 0 notitle")
    # Xen's points in grey: reference marks, not another curve of this run.
    styles = {"v1 before": "pt 8", "v1 after": "pt 10", "v2 before": "pt 9", "v2 after": "pt 11",
              "Arm64 N1 before -> after": "pt 12"}
    for j, (key, pts) in enumerate(xen.items()):
        w(f"$x{j} << EOD\n" + "".join(f"{x:g} {y:.6g}\n" for x, y in pts) + "EOD\n")
        plots.append(f'$x{j} using 1:2 with points {styles[key]} ps 1.6 lc rgb "#666666" '
                     f'title {gp_str("Xen " + key + " (published)")}')
    w("plot " + ", \\\n     ".join(plots + err) + "\n")
    return out.getvalue()


def run_interval(run, s, later):
    """The 95 % interval of a strategy's CPU time a page at one size, a
    peer's later part added run by run; None where the size has no CPU time."""
    cpu = cpu_times(run)
    pages = (run.first("bench") or {}).get("pages")
    if (s, INIT) not in cpu or not pages:
        return None
    by = cpu[(s, INIT)]
    if later:
        other = cpu.get((s, later), {})
        by = {r: ns + other[r] for r, ns in by.items() if r in other}
    return Interval(by.values()).scaled(pages)


def write_plot(results, folder):
    """Writes plot.gp and runs gnuplot on it -> path of plot.png."""
    return render(plot_script(results, gnuplot_terminal()), folder)


def per_page_script(title, series, sizes, terminal, where):
    """The gnuplot script of a plot.png of instructions a page against guest
    memory, log-log: series [(title, figure(mem bytes) or None, style)] at
    sizes (bytes), a line each, the exact-counts label under the title.
    BenchError naming `where` when no series has a point."""
    out = io.StringIO()
    w = out.write
    font = ' font "Sans,10"' if terminal == "pngcairo" else ""
    w(f"set encoding utf8\nset terminal {terminal} size 1100,700{font}\nset output \"plot.png\"\n")
    w(f"set title {gp_str(title)} noenhanced\n")
    w('set xlabel "guest memory (GiB, log scale)"\nset ylabel "instructions a page (log scale)"\n')
    w("set logscale x 2\nset logscale y 10\nset grid\nset key below maxcols 4 noenhanced\n")
    gibs = [m / GIB for m in sizes]
    if not gibs:
        raise BenchError(f"{where}: nothing to plot")
    w(f"set xrange [{min(gibs) / 1.4:g}:{max(gibs) * 1.4:g}]\n")
    plots = []
    for i, (name, f, style) in enumerate(series):
        pts = [(m / GIB, f(m)) for m in sizes if f(m)]
        if pts:
            w(f"$d{i} << EOD\n" + "".join(f"{x:g} {y:.6g}\n" for x, y in pts) + "EOD\n")
            plots.append(f"$d{i} using 1:2 with linespoints {style} title {gp_str(name)}")
    if not plots:
        raise BenchError(f"{where}: nothing to plot")
    w("plot " + ", \\\n     ".join(plots) + "\n")
    return out.getvalue()


def render(script, folder):
    """Writes `script` (made for gnuplot_terminal()) as plot.gp in folder and
    runs gnuplot on it -> path of the plot.png it draws."""
    gp = os.path.join(folder, "plot.gp")
    with open(gp, "w", encoding="utf-8") as f:
        f.write(script)
    png = os.path.join(folder, "plot.png")
    if os.path.exists(png):
        os.remove(png)
    r = subprocess.run(["gnuplot", "plot.gp"], cwd=folder, capture_output=True, text=True)
    if r.returncode != 0 or not os.path.exists(png) or os.path.getsize(png) == 0:
        raise BenchError(f"gnuplot failed on {gp}:\n{r.stderr.strip()}")
    return png




def write_report(folder, text, plot_script_for):
    """A results folder's report.md as `text`, and its plot drawn from
    plot_script_for(terminal) -> 0."""
    with open(os.path.join(folder, "report.md"), "w", encoding="utf-8") as f:
        f.write(text)
    render(plot_script_for(gnuplot_terminal()), folder)
    return 0
