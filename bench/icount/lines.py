#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Split one softcx function's instructions per packet by source line.

    lines.py [--config CFG] [--top N] [--asm] DIR FUNCTION [KO]

DIR is an icount result directory (bench/vm/icount.sh: manifest,
icount-K.txt, kallsyms), KO the softcx.ko that ran there (default
DIR/softcx.ko, which bench/vm/icount-lib.sh copies; `make module` builds
it with its debug information). FUNCTION is a kallsyms
name or a part of the demangled name (`sq_run`, `rx_receive`); it must
name one function of the module.

The plugin counts per translation block: the block's start address, its
instructions, and their total executions. Every instruction of a block ran
as often as the block did, so each is charged total / instructions per
execution (a start address may carry several block lengths: each is its
own block); objdump -l names the source line of each instruction (the
innermost inlined one). Per configuration and repetition the two windows
are differenced as icount.py does, (I(N2) - I(N1)) / (N2 - N1), and the
repetitions averaged. --asm prints the disassembly with each block's
per-packet executions instead.

What it is for: a function's total says how much, this says where, once a
profile is flat at the function level (most of the device model's are).
"""
import argparse
import bisect
import collections
import os
import re
import subprocess
import sys


def kallsyms(path):
    addrs, names = [], []
    with open(path) as f:
        for line in f:
            p = line.split()
            if len(p) >= 3 and p[1] in "tTwW":
                addrs.append(int(p[0], 16))
                names.append(p[2])
    order = sorted(range(len(addrs)), key=addrs.__getitem__)
    return [addrs[i] for i in order], [names[i] for i in order]


def pick(addrs, names, want):
    """The one module symbol FUNCTION names, its address and end."""
    cands = [i for i, n in enumerate(names) if n == want]
    if not cands:
        dem = subprocess.run(["c++filt"], input="\n".join(names), capture_output=True,
                             text=True).stdout.splitlines()
        cands = [i for i, d in enumerate(dem) if want in d and names[i].startswith("_ZN")] or \
                [i for i, d in enumerate(dem) if want in d]
        if len(set(names[i] for i in cands)) > 1:
            sys.exit("lines.py: %r names %d functions: %s" % (
                want, len(cands), ", ".join(dem[i][:80] for i in cands[:6])))
    if not cands:
        sys.exit("lines.py: no function %r in kallsyms" % want)
    i = cands[0]
    end = next((a for a in addrs[i + 1:] if a > addrs[i]), addrs[i] + 0x10000)
    return names[i], addrs[i], end


def blocks(path, lo, hi):
    """(addr - lo, instructions) -> executions, for the blocks in [lo, hi).

    A start address may come with several lengths (TCG translated a block
    again, shorter or longer: an interrupt or the instruction budget ended
    it early): each length is its own block."""
    r = collections.Counter()
    with open(path) as f:
        for line in f:
            p = line.split()
            if len(p) < 3 or len(p[0]) != 16:
                continue
            a = int(p[0], 16)
            if lo <= a < hi and int(p[1]):
                k = int(p[1])
                r[(a - lo, k)] += int(p[2]) // k
    return r


def disassemble(ko, sym):
    """[(offset, source line, text)] of the symbol in the .ko."""
    out = subprocess.run(["objdump", "-d", "-l", "--no-show-raw-insn", "--disassemble=" + sym, ko],
                         capture_output=True, text=True, check=True).stdout
    insns, start, src = [], None, "?"
    for line in out.splitlines():
        m = re.match(r"^([0-9a-f]+) <", line)
        if m:
            start = int(m.group(1), 16)
            continue
        m = re.match(r"^\s*(/\S+):(\d+)", line)
        if m:
            src = "%s:%s" % (os.path.basename(m.group(1)), m.group(2))
            continue
        m = re.match(r"^\s+([0-9a-f]+):\s+(.*)$", line)
        if m and start is not None:
            insns.append((int(m.group(1), 16) - start, src, m.group(2)))
    if not insns:
        sys.exit("lines.py: %s not found in %s" % (sym, ko))
    return insns


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("dir")
    ap.add_argument("function")
    ap.add_argument("ko", nargs="?", help="default: DIR/softcx.ko")
    ap.add_argument("--config", help="configuration (default: every one in the manifest)")
    ap.add_argument("--top", type=int, default=40)
    ap.add_argument("--asm", action="store_true")
    a = ap.parse_args()
    ko = a.ko or os.path.join(a.dir, "softcx.ko")
    if not os.path.exists(ko):
        sys.exit("lines.py: no %s (name the .ko the run loaded)" % ko)

    addrs, names = kallsyms(os.path.join(a.dir, "kallsyms"))
    sym, lo, hi = pick(addrs, names, a.function)
    insns = disassemble(ko, sym)
    at = dict((off, i) for i, (off, _, _) in enumerate(insns))

    runs = collections.OrderedDict()  # cfg -> rep -> [(n, k)]
    with open(os.path.join(a.dir, "manifest")) as f:
        for line in f:
            p = line.split()
            if len(p) >= 4 and (not a.config or p[0] == a.config):
                runs.setdefault(p[0], collections.OrderedDict()).setdefault(int(p[1]), []).append(
                    (int(p[2]), int(p[3])))
    if not runs:
        sys.exit("lines.py: no configuration %r in the manifest" % a.config)
    print("# %s, per packet, by source line (innermost inlined line)" % sym)
    for cfg, reps in runs.items():
        per_line = collections.Counter()
        per_block = collections.Counter()
        nreps = 0
        for rep, wins in reps.items():
            wins.sort()
            if len(wins) < 2 or wins[0][0] == wins[-1][0]:
                continue
            (n1, k1), (n2, k2) = wins[0], wins[-1]
            b1 = blocks(os.path.join(a.dir, "icount-%d.txt" % k1), lo, hi)
            b2 = blocks(os.path.join(a.dir, "icount-%d.txt" % k2), lo, hi)
            nreps += 1
            for off, k in set(b1) | set(b2):
                each = (b2[(off, k)] - b1[(off, k)]) / float(n2 - n1)
                per_block[off] += each
                i = at.get(off)
                if i is None:
                    continue	# not an instruction start of this build: another .ko?
                for _, src, _ in insns[i:i + k]:
                    per_line[src] += each
        if not nreps:
            continue
        for key in per_line:
            per_line[key] /= nreps
        total = sum(per_line.values())
        print()
        print("%s: %.1f instructions/packet (mean of %d repetition%s)" % (
            cfg, total, nreps, "" if nreps == 1 else "s"))
        if a.asm:
            for off, src, text in insns:
                e = per_block.get(off, 0.0) / nreps
                print("%9s  +%#06x  %-22s %s" % ("%.2f" % e if abs(e) >= 0.005 else "", off, src, text))
            continue
        for src, v in per_line.most_common(a.top):
            print("%9.1f %5.1f%%  %s" % (v, 100.0 * v / total if total else 0.0, src))


if __name__ == "__main__":
    main()
