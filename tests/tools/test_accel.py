# SPDX-License-Identifier: MIT
"""The accelerator chosen by measurement (harness/qemu/accel.py), with fake probe
results: a fast KVM, a KVM 1000x slower on memory than TCG, a KVM that
fails to start, no /dev/kvm, and a cache that has gone stale; and the boot
tests' [kvm] variants, which run only where that verdict says KVM (a fake
/dev/kvm, fake probe results)."""
import json
import os

import pytest

import bootlib
from harness.qemu import accel
from harness.qemu import command, runner

GIB = 1 << 30
MIB = 1 << 20

# Figures of the shape probe_figures() returns. TCG's are rounded from a
# probe boot on this machine (512 MiB guest): first line 0.17 s, 6 MiB of
# frame table in 36 ms, 64 MiB written in 101 ms, 4096 PIT reads in 0.4 ms.
TCG = {"start_s": 0.17, "frametable_s": 0.036, "frametable_bytes": 6 * MIB, "write_s": 0.101,
       "write_bytes": 64 * MIB, "pit_reads": 4096, "pit_s": 0.0004, "total_s": 0.33, "tsc_khz": 2096000}


def scaled(fig, start=1.0, memory=1.0, pit=1.0):
    out = dict(fig)
    out["start_s"] *= start
    out["frametable_s"] *= memory
    out["write_s"] *= memory
    out["pit_s"] *= pit
    out["total_s"] = out["start_s"] + out["frametable_s"] + out["write_s"] + out["pit_s"]
    return out


FAST_KVM = scaled(TCG, start=0.5, memory=0.1, pit=20)          # real hardware: memory at full speed
SLOW_KVM = scaled(TCG, start=0.5, memory=1000, pit=100)        # a software hypervisor


class Prober:
    """Stands in for run_probe: answers from a table and counts the boots;
    tcg may be a list of figures, one for each TCG probe in turn."""

    def __init__(self, kvm, tcg=TCG, kvm_why="probe ended qemu-error after 0.1 s (no figures)"):
        self.kvm = (kvm, None if kvm else kvm_why)
        self.tcg = list(tcg) if isinstance(tcg, list) else [tcg]
        self.calls = []

    def __call__(self, name, timeout=accel.PROBE_TIMEOUT):
        self.calls.append((name, timeout))
        if name == "kvm":
            return self.kvm
        return self.tcg[min(sum(c == "tcg" for c, _ in self.calls), len(self.tcg)) - 1], None


def choose(tmp_path, prober, kvm_ok=True, work=None, requested="auto", mode="pvh", key="key A"):
    said = []
    acc = accel.choose(requested, mode, said.append, work or accel.Work.for_boot(8 * GIB),
                       cache_path=str(tmp_path / "accel-cache.json"), probe=prober,
                       kvm_check=lambda: (kvm_ok, "/dev/kvm is usable" if kvm_ok else "/dev/kvm does not exist"),
                       key=key)
    return acc, "\n".join(said)


def test_fast_kvm_is_chosen(tmp_path):
    acc, said = choose(tmp_path, Prober(FAST_KVM))
    assert acc == "kvm"
    assert "accelerator KVM, chosen by measurement (probed just now)" in said
    assert "probe under KVM:" in said and "probe under TCG:" in said
    assert "timings are emulated" not in said


def test_kvm_slow_on_memory_loses_to_tcg(tmp_path):
    acc, said = choose(tmp_path, Prober(SLOW_KVM))
    assert acc == "tcg"
    line = said.splitlines()[0]
    assert "accelerator TCG, chosen by measurement" in line and "timings are emulated" in line
    # The estimates behind the choice are shown, KVM's the larger.
    kvm_s = float(line.split("about ")[1].split(" s under KVM")[0])
    tcg_s = float(line.split("against ")[1].split(" s under TCG")[0])
    assert kvm_s > 100 * tcg_s


def test_the_work_at_hand_decides(tmp_path):
    # A KVM that starts twenty times faster than TCG but is slow on memory:
    # without memory work its start-up wins; with a benchmark's, its memory loses.
    quick_start = scaled(TCG, start=0.05, memory=1000, pit=1)
    assert choose(tmp_path, Prober(quick_start), work=accel.Work(0, 0, "nothing"))[0] == "kvm"
    assert choose(tmp_path, Prober(quick_start), work=accel.Work.for_boot(GIB))[0] == "tcg"


@pytest.mark.parametrize("memory,want", [(0.6, "tcg"), (0.4, "kvm")])
def test_kvm_needs_a_clear_edge(tmp_path, memory, want):
    # KVM is taken only at twice TCG's speed or more for the work at hand:
    # a KVM a little faster than TCG in one short probe is not worth a stall.
    kvm = scaled(TCG, start=memory, memory=memory, pit=memory)
    acc, said = choose(tmp_path, Prober(kvm))
    assert acc == want, said
    assert ("KVM's edge under the 2x it needs" in said) == (want == "tcg"), said


def test_kvm_is_judged_against_tcg_at_its_best(tmp_path):
    # The first TCG probe ran while the host was busy (three times slower);
    # the one after KVM's did not: KVM beat only the slow one.
    p = Prober(scaled(TCG, memory=0.7), tcg=[scaled(TCG, start=3, memory=3, pit=3), TCG])
    acc, said = choose(tmp_path, p)
    assert [c for c, _ in p.calls] == ["tcg", "kvm", "tcg"]
    assert acc == "tcg" and "KVM's edge under the 2x it needs" in said, said


def test_a_software_kvm_that_ran_well_in_its_probe_is_not_chosen(tmp_path):
    # Figures of a real probe on this machine, of a /dev/kvm that runs guests
    # under TCG at a throttled speed, which it failed to throttle during the
    # probe: KVM's first line after 3.3 s, its 64 MiB written in 0.41 s
    # against TCG's 0.62 s. Chosen for a 16 GiB self-test boot, that KVM
    # stalled; TCG is now.
    kvm = {"start_s": 3.336, "frametable_s": 0.00143, "frametable_bytes": 6 * MIB, "write_s": 0.4126,
           "write_bytes": 64 * MIB, "pit_reads": 4096, "pit_s": 0.00032, "total_s": 4.199, "tsc_khz": 2591814}
    tcg = {"start_s": 0.630, "frametable_s": 0.0619, "frametable_bytes": 6 * MIB, "write_s": 0.6192,
           "write_bytes": 64 * MIB, "pit_reads": 4096, "pit_s": 0.00033, "total_s": 1.264, "tsc_khz": 2596102}
    acc, said = choose(tmp_path, Prober(kvm, tcg), work=accel.Work.for_boot(16 * GIB, "selftest"))
    assert acc == "tcg", said


def test_kvm_that_fails_to_start(tmp_path):
    acc, said = choose(tmp_path, Prober(None))
    assert acc == "tcg"
    assert "KVM did not finish the probe (probe ended qemu-error" in said


def test_kvm_probe_gets_a_deadline_from_tcgs(tmp_path):
    p = Prober(None, kvm_why="probe ended timeout after 5.0 s (frametable)")
    _, said = choose(tmp_path, p)
    assert [c[0] for c in p.calls] == ["tcg", "kvm"]
    assert p.calls[1][1] == max(accel.KVM_PATIENCE * TCG["total_s"], 5.0)
    assert "stopped at its deadline of 5.0 s" in said


def test_no_dev_kvm_means_tcg_without_probing(tmp_path):
    p = Prober(FAST_KVM)
    acc, said = choose(tmp_path, p, kvm_ok=False)
    assert acc == "tcg" and p.calls == []
    assert said == "harness: accelerator TCG because /dev/kvm does not exist; timings are emulated"


def test_requests_and_modes_need_no_probe(tmp_path):
    p = Prober(SLOW_KVM)
    assert choose(tmp_path, p, requested="kvm")[0] == "kvm"
    assert choose(tmp_path, p, requested="tcg")[0] == "tcg"
    assert choose(tmp_path, p, requested="kvm", kvm_ok=False)[0] == "tcg"
    assert choose(tmp_path, p, mode="iso-uefi")[0] == "tcg"
    assert choose(tmp_path, p, mode="iso-bios")[0] == "tcg"
    assert p.calls == []
    with pytest.raises(ValueError, match="use auto, kvm or tcg"):
        choose(tmp_path, p, requested="fast")


def test_the_verdict_is_cached_per_key(tmp_path):
    p = Prober(FAST_KVM)
    assert choose(tmp_path, p)[0] == "kvm"
    acc, said = choose(tmp_path, p)
    assert acc == "kvm" and len(p.calls) == 3          # TCG, KVM, TCG again: once
    assert "(cached in " in said
    with open(tmp_path / "accel-cache.json") as f:
        cache = json.load(f)
    assert cache["key"] == "key A" and cache["kvm"] == FAST_KVM and cache["tcg"] == TCG


def test_a_stale_cache_is_probed_again(tmp_path):
    assert choose(tmp_path, Prober(FAST_KVM), key="kernel 1")[0] == "kvm"
    # A new kernel (or QEMU, or CPU): the old verdict does not hold.
    p = Prober(SLOW_KVM)
    acc, said = choose(tmp_path, p, key="kernel 2")
    assert acc == "tcg" and len(p.calls) == 3 and "probed just now" in said
    # A cache from an older harness, or a damaged one, is probed again too.
    for text in ('{"version": 0, "key": "kernel 2"}', "{not json"):
        (tmp_path / "accel-cache.json").write_text(text)
        p = Prober(SLOW_KVM)
        assert choose(tmp_path, p, key="kernel 2")[0] == "tcg" and len(p.calls) == 3


def test_cache_key_follows_the_kernel(tmp_path, monkeypatch):
    elf = tmp_path / "bootheap.elf"
    elf.write_bytes(b"one kernel")
    monkeypatch.setattr(command, "ELF", str(elf))
    a = accel.cache_key()
    elf.write_bytes(b"another kernel")
    b = accel.cache_key()
    assert a != b and "QEMU emulator version" in a and a.split("; ", 1)[1] == b.split("; ", 1)[1]


def probe_result(lines, status="ok", elapsed=0.5):
    return runner.Result(status, 33 if status == "ok" else 2, "\n".join(text for _, text in lines),
                       elapsed, "tcg", [], lines)


def test_probe_figures_take_the_rate_from_arrival_times():
    # 2 GHz ticks; the records arrive 0.2 s apart for 400M ticks.
    lines = [(0.10, "probe: frame-table setup, a 64 MiB write, 4096 PIT port reads"),
             (0.15, '{"type":"probe","item":"start","ticks":0,"tsc":1000000000}'),
             (0.16, '{"type":"probe","item":"frametable","bytes":6291456,"ticks":40000000,"tsc":1010000000}'),
             (0.34, '{"type":"probe","item":"write","bytes":67108864,"ticks":300000000,"tsc":1380000000}'),
             (0.35, '{"type":"probe","item":"pit_reads","reads":4096,"ticks":2000000,"tsc":1400000000}'),
             (0.36, '{"type":"done","status":"ok"}')]
    fig, why = accel.probe_figures(probe_result(lines))
    assert why is None
    assert fig["tsc_khz"] == 2000000
    assert fig["start_s"] == 0.15 and fig["total_s"] == 0.5
    assert fig["frametable_s"] == pytest.approx(0.02) and fig["write_s"] == pytest.approx(0.15)
    assert fig["pit_s"] == pytest.approx(0.001) and fig["pit_reads"] == 4096
    # A probe cut short says how far it got.
    fig, why = accel.probe_figures(probe_result(lines[:3], status="timeout", elapsed=5.0))
    assert fig is None and why == "probe ended timeout after 5.0 s (frametable)"


@pytest.mark.parametrize("append,passes,what", [
    ("", 2 * 6 * 5, "benchmark, 5 runs"),
    ("runs=3 strategies=page,chunk", 2 * 4 * 3, "benchmark, 3 runs"),
    ("selftest", 4, "self-tests"),
    ("memonly", 0, "memory summary"),
])
def test_work_from_the_command_line(append, passes, what):
    w = accel.Work.for_boot(8 * GIB, append)
    assert (w.mem_bytes, w.passes, w.what) == (8 * GIB, passes, what)


# ---- the verdict, for any caller: make run, make bench, the boot tests ------

def test_verdict_prints_nothing_and_is_what_choose_says(tmp_path, capsys):
    args = dict(cache_path=str(tmp_path / "accel-cache.json"), probe=Prober(SLOW_KVM),
                kvm_check=lambda: (True, "/dev/kvm is usable"), key="key A")
    acc, why, probes = accel.verdict("auto", "pvh", accel.Work.for_boot(8 * GIB), **args)
    assert capsys.readouterr() == ("", "")
    assert acc == "tcg" and why.startswith("accelerator TCG, chosen by measurement (probed just now)")
    assert probes["kvm"] == SLOW_KVM and probes["tcg"] == TCG
    said = []
    assert accel.choose("auto", "pvh", said.append, accel.Work.for_boot(8 * GIB), **args) == "tcg"
    cached = "cached in " + os.path.relpath(args["cache_path"], accel.ROOT)
    assert said[0] == "harness: " + why.replace("probed just now", cached)
    assert len(said) == 3 and said[1].startswith("harness:   probe under KVM:")


def test_kvm_usable_on_a_fake_dev_kvm(tmp_path):
    fake = tmp_path / "kvm"
    assert command.kvm_usable(str(fake)) == (False, f"{fake} does not exist")
    fake.write_bytes(b"")
    assert command.kvm_usable(str(fake)) == (True, f"{fake} is usable")
    fake.unlink()
    fake.mkdir()
    ok, why = command.kvm_usable(str(fake))
    assert not ok and why.startswith(f"{fake} cannot be opened")


def test_cache_key_tells_one_dev_kvm_from_another(tmp_path, monkeypatch):
    monkeypatch.setattr(command, "KVM_DEV", str(tmp_path / "kvm"))
    assert accel.cache_key().endswith(f"no {tmp_path / 'kvm'}")
    (tmp_path / "kvm").write_bytes(b"")
    assert accel.cache_key().endswith(f"{tmp_path / 'kvm'} is not a device")
    assert accel.kvm_identity("/dev/null") == "/dev/null device 1:3"


@pytest.fixture
def fake_host(tmp_path, monkeypatch):
    """A host with a fake /dev/kvm that opens, the probe answered by a
    Prober the test sets, and ACCEL unset: what bootlib.kvm_or_skip sees."""
    fake = tmp_path / "kvm"
    fake.write_bytes(b"")
    monkeypatch.setattr(command, "KVM_DEV", str(fake))
    monkeypatch.setattr(accel, "CACHE", str(tmp_path / "accel-cache.json"))
    monkeypatch.setattr(accel, "cache_key", lambda: "key A")
    monkeypatch.delenv("BOOTHEAP_ACCEL", raising=False)
    host = {"dev": fake}

    def prober(p):
        monkeypatch.setattr(accel, "run_probe", p)
        return p
    host["prober"] = prober
    return host


def test_kvm_variant_is_skipped_where_the_verdict_is_tcg(fake_host):
    p = fake_host["prober"](Prober(SLOW_KVM))
    with pytest.raises(pytest.skip.Exception) as e:
        bootlib.kvm_or_skip("256M")
    msg = str(e.value)
    assert msg.startswith("the accelerator verdict for this boot is TCG: accelerator TCG, chosen by "
                          "measurement (probed just now): for 0.25 GiB, benchmark, 5 runs: about"), msg
    assert "under KVM against" in msg and len(p.calls) == 3


def test_kvm_variant_runs_where_the_verdict_is_kvm(fake_host):
    fake_host["prober"](Prober(FAST_KVM))
    assert bootlib.kvm_or_skip("256M") is None


def test_kvm_variant_is_skipped_without_dev_kvm(fake_host, monkeypatch):
    # ACCEL unset and no /dev/kvm at all: no probe, the reason quoted.
    p = fake_host["prober"](Prober(FAST_KVM))
    fake_host["dev"].unlink()
    with pytest.raises(pytest.skip.Exception) as e:
        bootlib.kvm_or_skip("256M", "selftest")
    assert str(e.value) == (f"the accelerator verdict for this boot is TCG: accelerator TCG because "
                            f"{fake_host['dev']} does not exist; timings are emulated")
    assert p.calls == []
    # The same where kvm_usable() itself says no.
    monkeypatch.setattr(command, "kvm_usable", lambda: (False, "/dev/kvm does not exist"))
    with pytest.raises(pytest.skip.Exception, match="because /dev/kvm does not exist"):
        bootlib.kvm_or_skip("256M")


def test_kvm_variant_follows_accel_as_make_test_was_given_it(fake_host, monkeypatch):
    p = fake_host["prober"](Prober(FAST_KVM))
    monkeypatch.setenv("BOOTHEAP_ACCEL", "tcg")
    with pytest.raises(pytest.skip.Exception, match=r"accelerator TCG \(requested\)"):
        bootlib.kvm_or_skip("256M")
    monkeypatch.setenv("BOOTHEAP_ACCEL", "kvm")
    assert bootlib.kvm_or_skip("256M") is None
    assert p.calls == []
