# SPDX-License-Identifier: MIT
"""`guest`: the CPUs and NUMA nodes of a QEMU guest (`make run CPUS= NODES=`):
-smp, and for more than one node one memory-backend-ram and one -numa node
each, memory and CPUs split as evenly as they go, or memory in the sizes a
caller names (unequal nodes: the source-built Xen's runs)."""
import os

from harness.qemu.pattern import backend as pattern_backend

MIB = 1 << 20


def host_cores():
    """Cores this process may run on: the guest's vCPUs by default."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:
        return os.cpu_count() or 1


def split(total, parts):
    """total split into parts whole shares, the larger ones first."""
    base, extra = divmod(total, parts)
    return [base + (i < extra) for i in range(parts)]


def node_mib(nodes, mem_bytes):
    """Each node's MiB: `nodes` is a count (memory split evenly) or the
    sizes themselves, [MiB, ...]."""
    if isinstance(nodes, int):
        return split(mem_bytes // MIB, nodes) if nodes > 0 else []
    return [int(n) for n in nodes]


def check(cpus, nodes, mem_bytes):
    """None, or why this guest cannot be built."""
    sizes = node_mib(nodes, mem_bytes)
    if cpus < 1 or cpus > 64:
        return f"CPUS={cpus}: the kernel takes 1 to 64 CPUs"
    if len(sizes) < 1 or len(sizes) > 8:
        return f"NODES={nodes}: the kernel takes 1 to 8 nodes"
    if len(sizes) > 1 and min(sizes) < 1:
        return f"NODES={nodes}: {mem_bytes // MIB} MiB cannot give every node a MiB"
    if not isinstance(nodes, int) and sum(sizes) != mem_bytes // MIB:
        return f"nodes of {'+'.join(map(str, sizes))} MiB: not the guest's {mem_bytes // MIB} MiB"
    return None


def args(cpus, nodes, mem_bytes, large, pattern=False):
    """QEMU arguments for cpus vCPUs on nodes nodes of mem_bytes in all; large:
    the guest is bigger than the host's free RAM (reserve=off on each backend);
    pattern: each node's RAM starts on harness/qemu/pattern.py's file.
    With one node, none but -smp: the caller keeps its single memory backend."""
    why = check(cpus, nodes, mem_bytes)
    if why:
        raise ValueError(why)
    out = ["-smp", str(cpus)] if cpus > 1 else []
    mems = node_mib(nodes, mem_bytes)
    if len(mems) == 1:
        return out
    per = split(cpus, len(mems))
    first = 0
    for i in range(len(mems)):
        backend = pattern_backend(f"node{i}", mems[i]) if pattern else \
            f"memory-backend-ram,id=node{i},size={mems[i]}M" + (",reserve=off" if large else "")
        opt = f"node,nodeid={i},memdev=node{i}"
        if per[i]:
            opt += f",cpus={first}-{first + per[i] - 1}"
        first += per[i]
        out += ["-object", backend, "-numa", opt]
    return out
