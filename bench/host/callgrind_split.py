#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Instructions per packet from two callgrind runs of the host microbenchmark.

    callgrind_split.py N1 OUT1 N2 OUT2 [--top K]

OUT1/OUT2: callgrind output files of runs with N1 < N2 packets, recorded with
--compress-strings=no --compress-pos=no. Everything is reported as
(X(N2) - X(N1)) / (N2 - N1), so setup and teardown cancel out.

Layers: every function is put in a layer by the source file it is defined in
(src/hw -> hw, src/en -> en, src/prm -> prm, tests/host/os_host.cpp and
bench/host/os_*.cpp -> os, the rest of bench/host -> bench). Functions from
libc/libstdc++ and from system headers (std::map, memcpy, malloc, pthread)
are charged to the layer that called them (inclusive cost of the call).
"""
import re
import sys
from collections import defaultdict


def layer_of(fl):
    if "/src/hw/" in fl:
        return "hw"
    if "/src/en/" in fl:
        return "en"
    if "/src/prm/" in fl:
        return "prm"
    if "/include/softcx/" in fl:
        return "abi"
    if "/tests/host/os_host" in fl or re.search(r"/bench/host/(os_lean|glue_os_host)", fl):
        return "os"
    if "/bench/host/" in fl:
        return "bench"
    return "lib"


def parse(path):
    """Returns (total Ir, {fn: self Ir}, {fn: layer}, [(caller, callee, incl Ir)])."""
    self_cost = defaultdict(int)
    fn_file = {}
    calls = []
    total = None
    fl = fn = cfn = None
    pending_call = False
    with open(path) as f:
        for line in f:
            line = line.rstrip("\n")
            if not line:
                continue
            c = line[0]
            if c.isdigit() or c in "+-*":
                parts = line.split()
                cost = int(parts[1]) if len(parts) > 1 else 0
                if pending_call:
                    calls.append((fn, cfn, cost))
                    pending_call = False
                else:
                    self_cost[fn] += cost
                continue
            key, _, val = line.partition("=")
            if key == "fl":
                fl = val
            elif key == "fn":
                fn = val
                fn_file.setdefault(fn, fl)
            elif key == "cfn":
                cfn = val
            elif key == "calls":
                pending_call = True
            elif line.startswith("totals:") or line.startswith("summary:"):
                total = int(line.split()[1])
    layers = {f: layer_of(p or "") for f, p in fn_file.items()}
    return total, self_cost, layers, calls


def split(path):
    total, self_cost, layers, calls = parse(path)
    by_layer = defaultdict(int)
    for f, c in self_cost.items():
        l = layers.get(f, "lib")
        if l != "lib":
            by_layer[l] += c
    for caller, callee, c in calls:
        lc = layers.get(caller, "lib")
        if lc != "lib" and layers.get(callee, "lib") == "lib":
            by_layer[lc] += c
    by_layer["other (startup, libc outside any layer)"] = total - sum(by_layer.values())
    # Per-function self cost, with lib callees folded into the calling function.
    by_fn = defaultdict(int)
    for f, c in self_cost.items():
        if layers.get(f, "lib") != "lib":
            by_fn[f] += c
    for caller, callee, c in calls:
        if layers.get(caller, "lib") != "lib" and layers.get(callee, "lib") == "lib":
            by_fn[caller] += c
    return total, by_layer, by_fn, layers


def main():
    args = sys.argv[1:]
    top = 15
    if "--top" in args:
        i = args.index("--top")
        top = int(args[i + 1])
        del args[i:i + 2]
    if len(args) != 4:
        sys.exit(__doc__)
    n1, out1, n2, out2 = int(args[0]), args[1], int(args[2]), args[3]
    t1, l1, f1, _ = split(out1)
    t2, l2, f2, layers = split(out2)
    dn = n2 - n1
    ipp = (t2 - t1) / dn
    print(f"Ir({n1}) = {t1}  Ir({n2}) = {t2}")
    print(f"RESULT instructions_per_packet={ipp:.1f}")
    print()
    print("per layer (own code + the libc/libstdc++ calls it makes), instructions/packet:")
    names = ["bench", "en", "hw", "prm", "abi", "os", "other (startup, libc outside any layer)"]
    for name in names:
        d = (l2.get(name, 0) - l1.get(name, 0)) / dn
        if abs(d) >= 0.05 or name in ("en", "hw", "os", "bench"):
            print(f"  {name:44s} {d:9.1f}  {100 * d / ipp:5.1f} %")
    print()
    print(f"top {top} functions (self + lib calls), instructions/packet:")
    diffs = sorted(((f2.get(f, 0) - f1.get(f, 0)) / dn, f) for f in set(f1) | set(f2))
    for d, f in reversed(diffs[-top:]):
        name = f if len(f) <= 90 else f[:87] + "..."
        print(f"  {d:9.1f}  [{layers.get(f, '?'):5s}] {name}")


if __name__ == "__main__":
    main()
