# SPDX-License-Identifier: MIT
"""`make run CPUS= NODES=`: the QEMU arguments harness/qemu/guest.py builds, and
the guests it refuses."""
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
