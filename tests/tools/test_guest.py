# SPDX-License-Identifier: MIT
"""`make run CPUS= NODES=`: the QEMU arguments harness/qemu/guest.py builds, and
the guests it refuses."""
import os

import pytest

from harness.qemu import guest
from harness.qemu import command

GIB = 1 << 30


def numa(args):
    return [a for i, a in enumerate(args) if i and args[i - 1] == "-numa"]


def test_one_node_is_just_smp():
    assert guest.args(1, 1, 8 * GIB, False) == []
    assert guest.args(4, 1, 8 * GIB, False) == ["-smp", "4"]


def test_nodes_split_memory_and_cpus():
    a = guest.args(3, 2, 3 * GIB + (1 << 20), False)
    assert a[:2] == ["-smp", "3"]
    assert "memory-backend-ram,id=node0,size=1537M" in a and "memory-backend-ram,id=node1,size=1536M" in a
    assert numa(a) == ["node,nodeid=0,memdev=node0,cpus=0-1", "node,nodeid=1,memdev=node1,cpus=2-2"]


def test_more_nodes_than_cpus_leaves_cpuless_nodes():
    a = guest.args(2, 4, 4 * GIB, True)
    assert all(x.endswith(",reserve=off") for x in a if x.startswith("memory-backend-ram"))
    assert numa(a)[2:] == ["node,nodeid=2,memdev=node2", "node,nodeid=3,memdev=node3"]


@pytest.mark.parametrize("cpus,nodes,mem", [(0, 1, GIB), (65, 1, GIB), (2, 9, GIB), (2, 3, 2 << 20)])
def test_bad_guests_are_refused(cpus, nodes, mem):
    with pytest.raises(ValueError, match="CPUS|NODES"):
        guest.args(cpus, nodes, mem, False)


def test_multi_threaded_tcg_with_more_than_one_cpu():
    cmd = command.qemu_command("pvh", "tcg", 2 * GIB, cpus=2, nodes=2, say=lambda *a: None)
    assert cmd[cmd.index("-accel") + 1] == "tcg,thread=multi"
    assert "memory-backend=ram0" not in " ".join(cmd)
    one = command.qemu_command("pvh", "tcg", 2 * GIB, say=lambda *a: None)
    assert one[one.index("-accel") + 1] == "tcg" and "-smp" not in one


def test_unequal_nodes_take_the_sizes_named():
    """The source-built Xen's two-node guests: a third and two thirds."""
    a = guest.args(1, (341, 683), 1024 << 20, False)
    assert a == ["-object", "memory-backend-ram,id=node0,size=341M", "-numa", "node,nodeid=0,memdev=node0,cpus=0-0",
                 "-object", "memory-backend-ram,id=node1,size=683M", "-numa", "node,nodeid=1,memdev=node1"]
    assert guest.check(1, (341, 600), 1024 << 20) == "nodes of 341+600 MiB: not the guest's 1024 MiB"
    assert guest.check(1, (1024, 0), 1024 << 20) is not None
    assert guest.node_mib(3, 1024 << 20) == [342, 341, 341]


def test_guest_ram_on_a_pattern_is_a_private_file_mapping(monkeypatch, tmp_path):
    from harness.qemu import pattern
    monkeypatch.setattr(pattern, "FOLDER", str(tmp_path))
    cmd = command.qemu_command("pvh", "tcg", 2 * (1 << 20), kernel="vmlinux", say=lambda *a: None,
                               extra=["-icount", "shift=0"], cpus=2, pattern=True)
    path = str(tmp_path / "pattern-2M.bin")
    assert f"memory-backend-file,id=ram0,size=2M,mem-path={path},share=off" in cmd
    assert "q35,memory-backend=ram0" in cmd and cmd[cmd.index("-accel") + 1] == "tcg"   # -icount: one thread
    with open(path, "rb") as f:
        body = f.read()
    assert len(body) == 2 << 20 and body == pattern.LINE * (len(body) // 64) and len(set(body[:64])) > 32
    # Each node on its own mapping of the file of its size; one file a size, reused.
    a = guest.args(2, 2, 4 * (1 << 20), False, pattern=True)
    assert [x for x in a if x.startswith("memory-backend")] == [
        f"memory-backend-file,id=node{i},size=2M,mem-path={path},share=off" for i in (0, 1)]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["pattern-2M.bin"]


def test_a_pattern_file_with_no_room_is_one_line_naming_its_size(monkeypatch, tmp_path):
    from harness.qemu import pattern
    with pytest.raises(pattern.PatternError) as e:
        pattern.ensure(4096, str(tmp_path), free=100 << 20)
    assert str(e.value).endswith("needs a 4096 MiB file in " + os.path.relpath(str(tmp_path), pattern.ROOT) +
                                 ": 100 MiB free there") and "\n" not in str(e.value)
    assert list(tmp_path.iterdir()) == []
    # A write that runs out of room leaves nothing half-made.
    import builtins
    real_open = builtins.open

    class Full:
        def __init__(self, f):
            self.f = f

        def __enter__(self):
            return self

        def __exit__(self, *a):
            self.f.close()

        def write(self, b):
            raise OSError(28, "No space left on device")
    monkeypatch.setattr(builtins, "open", lambda p, m="r", *a, **k: Full(real_open(p, m, *a, **k))
                        if str(p).endswith(".tmp") else real_open(p, m, *a, **k))
    with pytest.raises(pattern.PatternError, match="needs a 1 MiB file in .*: No space left on device"):
        pattern.ensure(1, str(tmp_path))
    assert list(tmp_path.iterdir()) == []


def test_linux_src_dump_exits_2_with_the_pattern_file_s_one_line(monkeypatch, capsys):
    from harness.real.linux import cli
    from harness.qemu import pattern

    def no_room(args):
        raise pattern.PatternError("guest RAM on a pattern needs a 1024 MiB file in build/guest-ram: 5 MiB free there")
    assert cli._failing(no_room)(None) == 2
    assert "needs a 1024 MiB file" in capsys.readouterr().err
