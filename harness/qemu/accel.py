# SPDX-License-Identifier: MIT
"""The accelerator, chosen by measurement. An openable /dev/kvm proves
nothing (a software hypervisor can run memory-heavy work 1000x slower than
TCG), so when KVM is offered the kernel's `probe` mode boots under both, and
the faster for the work at hand wins. The verdict is cached per host, keyed
by the kernel, the QEMU version, the CPU and the /dev/kvm device.

The probe's figures are TSC ticks taken before calibration; the host
time-stamps each serial line as it arrives and takes the ticks' rate from
the first and last probe records, so no figure rests on the guest's clock.
"""
import contextlib
import fcntl
import hashlib
import json
import os
import stat
import subprocess

from harness import ROOT
from harness.qemu import command, runner

CACHE = os.path.join(ROOT, "build", "accel-cache.json")
CACHE_VERSION = 1
PROBE_MEM = "512M"
PROBE_TIMEOUT = 60.0
# A KVM probe still running after this many times TCG's whole probe has lost.
KVM_PATIENCE = 3.0
# KVM is chosen only when its estimate is at most this share of TCG's. A
# fast KVM runs memory work about ten times faster than TCG; a software
# hypervisor is never faster than TCG for long, but one short probe may
# catch it at a good moment, or TCG's at a bad one, and a wrong KVM stalls
# a large boot where a wrong TCG only makes it a little slower.
KVM_EDGE = 2.0
PAGE_META_BYTES = 40        # page_info (32) and M2P (8) per page: what init writes


class Work:
    """What a boot will do, as multiples of the probe's items."""

    def __init__(self, mem_bytes, passes, what):
        self.mem_bytes, self.passes, self.what = mem_bytes, passes, what

    @classmethod
    def for_boot(cls, mem_bytes, append=""):
        """The work of one boot from its guest size and kernel command line:
        the benchmark writes every page's metadata on each init and first
        touch of each strategy and of the floor, on every run and the warm-up;
        self-tests build a few heaps; memonly writes the frame table only."""
        words = dict(w.split("=", 1) if "=" in w else (w, "") for w in append.split())
        if "probe" in words or "memonly" in words:
            return cls(mem_bytes, 0, "memory summary")
        if "selftest" in words:
            return cls(mem_bytes, 4, "self-tests")
        runs = int(words["runs"]) if words.get("runs", "").isdigit() else 5
        strategies = len(words["strategies"].split(",")) if words.get("strategies") else 4
        return cls(mem_bytes, 2 * (runs + 1) * (strategies + 1), f"benchmark, {runs} runs")

    def describe(self):
        return f"{self.mem_bytes / (1 << 30):g} GiB, {self.what}"


def probe_figures(result):
    """A probe boot's Result -> {start_s, frametable_s, frametable_bytes, write_s,
    write_bytes, pit_reads, pit_s, total_s, tsc_khz}, or (None, why)."""
    timed = [(t, r) for t, r in result.timed_records() if r.get("type") == "probe"]
    items = {r.get("item"): (t, r) for t, r in timed}
    missing = [k for k in ("start", "frametable", "write", "pit_reads") if k not in items]
    if result.status != "ok" or missing:
        got = ", ".join(k for k in ("frametable", "write", "pit_reads") if k in items) or "no figures"
        return None, f"probe ended {result.status} after {result.elapsed:.1f} s ({got})"
    (t0, first), (t1, last) = timed[0], timed[-1]
    if t1 - t0 <= 0 or last["tsc"] <= first["tsc"]:
        return None, "probe records came too close together to time"
    khz = (last["tsc"] - first["tsc"]) / (t1 - t0) / 1000

    def secs(item):
        return items[item][1]["ticks"] / (khz * 1000)
    return {"start_s": t0, "frametable_s": secs("frametable"),
            "frametable_bytes": items["frametable"][1]["bytes"],
            "write_s": secs("write"), "write_bytes": items["write"][1]["bytes"],
            "pit_reads": items["pit_reads"][1]["reads"], "pit_s": secs("pit_reads"),
            "total_s": result.elapsed, "tsc_khz": round(khz)}, None


def estimate(fig, work):
    """Seconds the work would take where the probe saw `fig`: start-up, the
    frame table scaled to the guest, the metadata writes scaled from the
    64 MiB write, and calibration's PIT polling (about the probe's reads)."""
    meta = work.mem_bytes // 4096 * PAGE_META_BYTES
    return (fig["start_s"] + fig["frametable_s"] * meta / max(fig["frametable_bytes"], 1)
            + fig["write_s"] * meta * work.passes / fig["write_bytes"] + fig["pit_s"])


def figures_text(name, fig):
    return (f"{name}: first line after {fig['start_s']:.2f} s, frame table "
            f"({fig['frametable_bytes'] >> 20} MiB) {fig['frametable_s'] * 1e3:.1f} ms, "
            f"{fig['write_bytes'] >> 20} MiB written in {fig['write_s'] * 1e3:.1f} ms, "
            f"{fig['pit_reads']} PIT reads in {fig['pit_s'] * 1e3:.1f} ms "
            f"({fig['pit_s'] / fig['pit_reads'] * 1e6:.2f} us each)")


def decide(kvm, tcg, work):
    """(accel, reason) from the two probes' figures (None where a probe
    failed, with its reason in kvm_why) for the work at hand."""
    if tcg is None and kvm is None:
        return "tcg", "neither probe finished; TCG is the one that runs everywhere"
    if kvm is None:
        return "tcg", "KVM did not finish the probe"
    if tcg is None:
        return "kvm", "TCG did not run the probe"
    ek, et = estimate(kvm, work), estimate(tcg, work)
    faster = "kvm" if ek * KVM_EDGE <= et else "tcg"
    ratio = max(ek, et) / max(min(ek, et), 1e-9)
    why = f"for {work.describe()}: about {ek:.1f} s under KVM against {et:.1f} s under TCG ({ratio:.1f}x)"
    if faster == "tcg" and ek < et:
        why += f", KVM's edge under the {KVM_EDGE:g}x it needs"
    return faster, why


def run_probe(accel, timeout=PROBE_TIMEOUT):
    """Boots the probe once under `accel` -> (figures or None, why or None).
    A KVM that cannot be opened falls back to TCG, as in any boot."""
    acc, _, _ = verdict(accel, "pvh")
    r = runner.run(mode="pvh", mem=PROBE_MEM, append="probe", acc=acc, timeout=timeout,
                 quiet=True, stall=min(timeout, 20.0))
    if r.accel != accel:
        return None, f"QEMU would not run {accel.upper()}"
    return probe_figures(r)


def cache_key():
    """Kernel, QEMU version, CPU and /dev/kvm: a verdict holds while all four do."""
    with open(command.ELF, "rb") as f:
        kernel = hashlib.sha256(f.read()).hexdigest()[:16]
    try:
        out = subprocess.run(["qemu-system-x86_64", "--version"], capture_output=True, text=True).stdout
        version = out.splitlines()[0] if out else "unknown"
    except OSError:
        version = "unknown"
    cpu = "unknown"
    with open("/proc/cpuinfo") as f:
        for line in f:
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    return f"kernel {kernel}; {version}; {cpu}; {kvm_identity()}"


def kvm_identity(path=None):
    """Which /dev/kvm this is: another one (a device node in place of a
    plain file, another device number) may run at another speed."""
    path = path or command.KVM_DEV
    try:
        st = os.stat(path)
    except OSError:
        return f"no {path}"
    if stat.S_ISCHR(st.st_mode):
        return f"{path} device {os.major(st.st_rdev)}:{os.minor(st.st_rdev)}"
    return f"{path} is not a device"


def load_cache(path):
    try:
        with open(path) as f:
            data = json.load(f)
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) and data.get("version") == CACHE_VERSION else {}


@contextlib.contextmanager
def _locked(path):
    """One probe at a time per host, however many test workers ask."""
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path + ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        yield


def probe_both(key, cache_path=CACHE, probe=run_probe):
    """The cached probe figures for this key, probing when the cache has none
    -> ({"kvm": fig or None, "tcg": fig or None, "why": ...}, cached?)."""
    with _locked(cache_path):
        data = load_cache(cache_path)
        if data.get("key") == key:
            return data, True
        tcg, tcg_why = probe("tcg")
        patience = max(KVM_PATIENCE * tcg["total_s"], 5.0) if tcg else PROBE_TIMEOUT
        kvm, kvm_why = probe("kvm", timeout=patience)
        if kvm is None and kvm_why and "timeout" in kvm_why:
            kvm_why = f"stopped at its deadline of {patience:.1f} s, {KVM_PATIENCE:g}x TCG's probe: {kvm_why}"
        if kvm:
            # TCG once more: KVM is judged against TCG at its best, not at a
            # moment the host's other work slowed it.
            again, _ = probe("tcg")
            if again and (tcg is None or again["total_s"] < tcg["total_s"]):
                tcg = again
        data = {"version": CACHE_VERSION, "key": key, "kvm": kvm, "tcg": tcg,
                "kvm_why": kvm_why, "tcg_why": tcg_why}
        tmp = cache_path + ".tmp"
        with open(tmp, "w") as f:
            json.dump(data, f, indent=1)
        os.replace(tmp, cache_path)
        return data, False


def verdict(requested, mode, work=None, cache_path=None, probe=None, kvm_check=None, key=None):
    """The accelerator for one boot's work, and why, printing nothing ->
    (accel, why, probes): 'kvm' or 'tcg'; a sentence that says which and
    why; and the probe figures it rests on ({"kvm": fig, "tcg": fig}, None
    when no probe was needed). It probes when KVM is offered and the cache
    has no verdict for this kernel, QEMU and CPU. The arguments after work
    are for tests: the cache file, the prober, the /dev/kvm check and the
    cache key (defaults: CACHE, run_probe, command.kvm_usable, cache_key())."""
    if requested not in command.ACCELS:
        raise ValueError(f"accelerator {requested!r}: use auto, kvm or tcg")
    if mode == "iso-uefi":
        return "tcg", ("OVMF does not run under KVM on these machines; using TCG" if requested == "kvm"
                       else "iso-uefi runs under TCG (OVMF stops under KVM here)"), None
    if requested == "tcg":
        return "tcg", "accelerator TCG (requested); timings are emulated", None
    ok, why = (kvm_check or command.kvm_usable)()
    if requested == "kvm":
        if ok:
            return "kvm", f"accelerator KVM (requested; {why})", None
        return "tcg", f"KVM requested but {why}; falling back to TCG; timings are emulated", None
    if not ok:
        return "tcg", f"accelerator TCG because {why}; timings are emulated", None
    if mode == "iso-bios":
        return "tcg", ("iso-bios runs under TCG unless --accel kvm asks: SeaBIOS and GRUB take "
                       "tens of seconds under nested KVM on these machines"), None
    cache_path = cache_path or CACHE
    work = work or Work(1 << 30, 4, "self-tests")
    data, cached = probe_both(key or cache_key(), cache_path, probe or run_probe)
    acc, reason = decide(data["kvm"], data["tcg"], work)
    if data["kvm"] is None:
        reason += f" ({data['kvm_why']})"
    return acc, (f"accelerator {acc.upper()}, chosen by measurement "
                 f"({'cached in ' + os.path.relpath(cache_path, ROOT) if cached else 'probed just now'}): "
                 f"{reason}" + ("; timings are emulated" if acc == "tcg" else "")), data


def choose(requested, mode, say=print, work=None, cache_path=None, probe=None, kvm_check=None,
           key=None):
    """'kvm' or 'tcg' for one boot: verdict(), said with the probe figures
    behind it."""
    acc, why, data = verdict(requested, mode, work, cache_path, probe, kvm_check, key)
    say("harness: " + why)
    for name in ("kvm", "tcg"):
        if data and data[name]:
            say("harness:   probe under " + figures_text(name.upper(), data[name]))
    return acc
