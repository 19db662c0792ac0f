#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Symbolise the scx_icount plugin's windows into instructions per packet.

    icount.py [--title T] [--percpu 0|1] [--ratio SPEC]... [--top N] DIR

DIR holds what bench/vm/icount-lib.sh leaves there: `manifest` (one line
per window: CONFIG REP PACKETS K PPS), `icount-K.txt` (the plugin's counts
per translation block, bench/icount/scx_icount.c) and `kallsyms` (the
guest's /proc/kallsyms, modules and JITed BPF programs included).

Each block is charged to the kallsyms text symbol at or below its start
address (a block ends at the first jump, so it stays in one function);
softcx's C++ names are demangled with c++filt. Per configuration and
repetition there are two windows of N1 < N2 packets; instructions per
packet = (I(N2) - I(N1)) / (N2 - N1), per function and per group, so the
setup around a run (the marker program, pktgen's configuration, counters
read before and after) cancels. Groups (softcx's functions by name):

  device model    softcx::hw::*, softcx::bus::* (the doorbell entry,
                  src/hw/doorbell.cpp), scx_hw_*, scx_os_dma_to_cpu and
                  scx_os_dma_to_cpu_n (the OS layer's DMA translation,
                  called only by src/hw) and its out-of-line DMA view half
                  scx_view_to_cpu
  driver TX       softcx::en::* whose name starts with sq_ or xdpsq_ or
                  holds "tx" or "xmit", or whose first parameter is an
                  Sq* (post_wqe, complete_wqes, release_wqe: the SQ and the
                  XDP SQ, completions included); scx_channel_* entry points
                  that hold "xmit", "tx" or "doorbell"
  driver RX/NAPI  every other softcx::en::* and scx_channel_* (NAPI poll,
                  RQ poll and refill, CQ arm, counters)
  shim TX         scx_start_xmit, scx_features_check, scx_tx_*,
                  scx_os_tx_free, scx_os_dma_unmap (TX buffers), scx_xdp_xmit
  shim RX/other   every other function of the softcx module (scx_napi_poll,
                  scx_os_rx_*, scx_os_raise_irq, XDP glue, C++ runtime)
  pktgen, veth    the functions of those modules
  BPF programs    JITed programs ([bpf] in kallsyms)
  rest of kernel  everything else with a symbol (other modules included)
  unsymbolised    kernel blocks below the first or far from any symbol
  user            user-space blocks (not in the kernel total)

Events per packet: how often a few functions were entered, from the
executions of the block at each one's address (a call starts a block):
the device model's interrupts (scx_os_raise_irq), its moderation timers'
fires (scx_os_timer_fire), NAPI polls (scx_napi_poll) and the guest's
hrtimer interrupts (hrtimer_interrupt), per repetition. They tell what a
packet's share of the per-event costs is, and why repetitions differ.

softcx module = the five softcx groups. "sender (by function)" = pktgen +
driver TX + shim TX. With --percpu 1 (the plugin counted per vCPU) also
"sender (vCPU 0)" = everything the kernel executed on vCPU 0, where
kpktgend_0 runs, minus the device model's groups: meaningful when the
receiver's NAPI runs on another CPU (bench/vm/icount.sh's -rxcpu1
configurations), and "receiver (vCPU 1)" = vCPU 1's kernel instructions
minus the device model's there, per frame the receiver handled (the
manifest's sixth column, when given; configurations named rx1-*, where the
receiver's NAPI is a kthread on CPU 1 and the benchmark script runs on CPU 0).

--ratio 'LABEL=A/B:METRIC[:GOAL]' prints METRIC(A) / METRIC(B) per
repetition and of the means; METRIC is one of total, module, sender_fn, rx_cpu1,
sender_cpu0, or a group name with spaces as underscores; GOAL, when given,
is checked as ratio >= GOAL.
"""
import argparse
import bisect
import collections
import os
import statistics
import subprocess
import sys

GROUPS = ["device model", "driver TX", "driver RX/NAPI", "shim TX", "shim RX/other",
          "pktgen", "veth", "BPF programs", "rest of kernel", "unsymbolised"]
SOFTCX = GROUPS[:5]
KERNEL_HALF = 0xffff800000000000
FAR = 1 << 20  # a block further than this past its symbol is unsymbolised
# (label, kallsyms name): functions whose entries per packet are printed
EVENTS = [("device interrupts", "scx_os_raise_irq"),
          ("moderation timer fires", "scx_os_timer_fire"),
          ("NAPI polls", "scx_napi_poll"),
          ("hrtimer interrupts", "hrtimer_interrupt")]


def load_kallsyms(path):
    syms = {}
    with open(path) as f:
        for line in f:
            parts = line.rstrip("\n").split(None, 3)
            if len(parts) < 3 or parts[1] not in "tTwW":
                continue
            addr = int(parts[0], 16)
            if addr == 0:
                continue
            mod = parts[3].strip().strip("[]") if len(parts) > 3 else ""
            syms.setdefault(addr, (parts[2], mod))
    if not syms:
        sys.exit("icount.py: no text symbols with addresses in %s (kptr_restrict?)" % path)
    addrs = sorted(syms)
    return addrs, [syms[a] for a in addrs]


def demangle(names):
    mangled = sorted({n for n in names if n.startswith("_Z")})
    if not mangled:
        return {}
    try:
        out = subprocess.run(["c++filt"], input="\n".join(mangled) + "\n", text=True,
                             capture_output=True, check=True).stdout.split("\n")
    except (OSError, subprocess.CalledProcessError):
        return {}
    return dict(zip(mangled, out))


def base_name(dem):
    """softcx::en::sq_xmit<true>(...) -> sq_xmit"""
    s = dem.replace("(anonymous namespace)::", "")
    while "<" in s.split("(", 1)[0]:  # drop template arguments, which may hold parentheses
        i = s.index("<")
        depth, j = 0, i
        for j in range(i, len(s)):
            depth += {"<": 1, ">": -1}.get(s[j], 0)
            if depth == 0:
                break
        s = s[:i] + s[j + 1:]
    s = s.split("(", 1)[0]
    s = s.split("::")[-1] if "::" in s else s
    return s.split(" ")[-1]


def classify(raw, dem, mod):
    if mod == "pktgen":
        return "pktgen"
    if mod == "veth":
        return "veth"
    if mod == "bpf":
        return "BPF programs"
    if mod != "softcx":
        return "rest of kernel"
    if ("softcx::hw::" in dem or "softcx::bus::" in dem or raw.startswith("scx_hw_")
            or raw in ("scx_os_dma_to_cpu", "scx_view_to_cpu", "scx_os_dma_to_cpu_n")):
        return "device model"
    if "softcx::en::" in dem or raw.startswith("scx_channel_"):
        b = base_name(dem) if "softcx::en::" in dem else raw[len("scx_channel_"):]
        if (b.startswith("sq_") or b.startswith("xdpsq_") or "tx" in b or "xmit" in b
                or "(softcx::en::Sq*" in dem
                or (raw.startswith("scx_channel_") and "doorbell" in b)):
            return "driver TX"
        return "driver RX/NAPI"
    r = raw.split(".", 1)[0]
    if (r in ("scx_start_xmit", "scx_features_check", "scx_os_tx_free", "scx_xdp_xmit",
              "scx_os_dma_unmap") or r.startswith("scx_tx_")):
        return "shim TX"
    return "shim RX/other"


class Symbols:
    def __init__(self, path):
        self.addrs, self.syms = load_kallsyms(path)
        self.dem = demangle(n for n, _ in self.syms)
        self.cache = {}
        names = dict((n, lbl) for lbl, n in EVENTS)
        self.entry = dict((a, names[n]) for a, (n, _) in zip(self.addrs, self.syms) if n in names)

    def lookup(self, vaddr):
        """-> (function label, group)"""
        i = bisect.bisect_right(self.addrs, vaddr) - 1
        if i < 0 or vaddr - self.addrs[i] > FAR:
            return ("[unsymbolised]", "unsymbolised")
        if i in self.cache:
            return self.cache[i]
        raw, mod = self.syms[i]
        dem = self.dem.get(raw, raw)
        label = dem + (" [%s]" % mod if mod else "")
        r = (label, classify(raw, dem, mod))
        self.cache[i] = r
        return r


class Window:
    """One icount-K.txt: totals and counts per function (and per vCPU)."""

    def __init__(self, path, syms):
        self.func = collections.Counter()
        self.calls = collections.Counter()  # EVENTS label -> entries
        self.func_cpu = collections.defaultdict(collections.Counter)  # vcpu -> func -> n
        self.total = self.user = 0
        self.total_cpu = []
        self.user_cpu = []
        self.group_of = {}
        with open(path) as f:
            for line in f:
                if line.startswith("#"):
                    continue
                p = line.split()
                if p[0] == "total":
                    self.total, self.total_cpu = int(p[1]), [int(x) for x in p[2:]]
                elif p[0] == "user":
                    self.user, self.user_cpu = int(p[1]), [int(x) for x in p[2:]]
                else:
                    vaddr, cnt = int(p[0], 16), int(p[2])
                    if vaddr < KERNEL_HALF:
                        continue
                    if vaddr in syms.entry and int(p[1]):
                        self.calls[syms.entry[vaddr]] += cnt // int(p[1])
                    label, group = syms.lookup(vaddr)
                    self.func[label] += cnt
                    self.group_of[label] = group
                    for v, c in enumerate(p[3:]):
                        if c != "0":
                            self.func_cpu[v][label] += int(c)


def per_packet(small, big, n_small, n_big, h_small, h_big):
    """Differences of the two windows over the packet difference (the
    receiver-side metric over the difference of the frames it handled)."""
    dn = float(n_big - n_small)
    dh = float(h_big - h_small) if h_big is not None and h_small is not None and h_big > h_small else dn
    r = {"func": {}, "gof": {}, "group": collections.Counter(),
         "cpu_group": collections.defaultdict(collections.Counter), "func_cpu0": {},
         "func_cpu1": {}}
    for label in set(small.func) | set(big.func):
        d = (big.func.get(label, 0) - small.func.get(label, 0)) / dn
        if d:
            r["func"][label] = d
            g = big.group_of.get(label) or small.group_of[label]
            r["group"][g] += d
            r["gof"][label] = g
    gof = r["gof"]
    for v in set(small.func_cpu) | set(big.func_cpu):
        for label in set(small.func_cpu.get(v, {})) | set(big.func_cpu.get(v, {})):
            d = (big.func_cpu[v].get(label, 0) - small.func_cpu[v].get(label, 0)) / dn
            if d:
                r["cpu_group"][v][gof.get(label, "rest of kernel")] += d
                if v == 0:
                    r["func_cpu0"][label] = d
                if v == 1:	# the receiver's metric: per handled frame
                    r["func_cpu1"][label] = d * dn / dh
    r["user"] = (big.user - small.user) / dn
    # a count that moved by less than one in the window difference prints as 0
    r["calls"] = dict((lbl, max(0.0, (big.calls[lbl] - small.calls[lbl]) / dn)) for lbl, _ in EVENTS)
    g = r["group"]
    r["kernel"] = sum(g.values())
    r["module"] = sum(g[x] for x in SOFTCX)
    r["sender_fn"] = g["pktgen"] + g["driver TX"] + g["shim TX"]
    if r["cpu_group"]:
        c0 = r["cpu_group"].get(0, collections.Counter())
        c1 = r["cpu_group"].get(1, collections.Counter())
        r["cpu0"] = sum(c0.values())
        r["sender_cpu0"] = r["cpu0"] - c0["device model"]
        r["cpu0_devmodel"] = c0["device model"]
        r["cpu1"] = sum(c1.values())
        # per handled frame: the receiver on vCPU 1, its device model calls out
        r["rx_cpu1"] = (r["cpu1"] - c1["device model"]) * dn / dh
        r["cpu1_devmodel"] = c1["device model"] * dn / dh
    return r


def metric(r, name):
    if name == "total":
        return r["kernel"]
    if name in ("module", "sender_fn", "sender_cpu0", "rx_cpu1"):
        return r.get(name)
    return r["group"].get(name.replace("_", " "))


def fmt(x, w=8):
    return ("%*.1f" % (w, x)) if x is not None else "%*s" % (w, "-")



def mean(xs):
    xs = [x for x in xs if x is not None]
    return sum(xs) / len(xs) if xs else None


def print_cpu_top(rs, key, total_key, unit, top):
    """The top functions of one vCPU (rs[i][key]) without the device model."""
    acc = collections.Counter()
    gof = {}
    for r in rs:
        for label, d in r[key].items():
            if r["gof"].get(label) != "device model":
                acc[label] += d / len(rs)
                gof[label] = r["gof"].get(label, "rest of kernel")
    total = mean([r[total_key] for r in rs]) or 1.0
    print("%4s %9s %6s  %-15s %s" % ("#", unit, "share", "group", "function"))
    for i, (label, d) in enumerate(acc.most_common(top), 1):
        print("%4d %9.1f %5.1f%%  %-15s %s" % (i, d, 100.0 * d / total, gof[label], label[:110]))

def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("dir")
    ap.add_argument("--title", default="instruction counts")
    ap.add_argument("--percpu", default="0")
    ap.add_argument("--ratio", action="append", default=[])
    ap.add_argument("--top", type=int, default=30)
    a = ap.parse_args()

    syms = Symbols(os.path.join(a.dir, "kallsyms"))
    runs = collections.OrderedDict()  # cfg -> rep -> [(n, k, pps)]
    with open(os.path.join(a.dir, "manifest")) as f:
        for line in f:
            p = line.split()
            if len(p) < 4:
                continue
            cfg, rep, n, k = p[0], int(p[1]), int(p[2]), int(p[3])
            pps = p[4] if len(p) > 4 else "-"
            h = int(p[5]) if len(p) > 5 and p[5].isdigit() else None
            runs.setdefault(cfg, collections.OrderedDict()).setdefault(rep, []).append((n, k, pps, h))

    res = collections.OrderedDict()  # cfg -> [per-rep result]
    for cfg, reps in runs.items():
        for rep, wins in reps.items():
            wins.sort()
            if len(wins) < 2 or wins[0][0] == wins[-1][0]:
                print("# %s rep %d: needs two windows of different lengths, skipped" % (cfg, rep))
                continue
            (n1, k1, _, h1), (n2, k2, pps, h2) = wins[0], wins[-1]
            w1 = Window(os.path.join(a.dir, "icount-%d.txt" % k1), syms)
            w2 = Window(os.path.join(a.dir, "icount-%d.txt" % k2), syms)
            r = per_packet(w1, w2, n1, n2, h1, h2)
            r.update(rep=rep, n1=n1, n2=n2, pps=pps)
            res.setdefault(cfg, []).append(r)

    print("# %s" % a.title)
    print("# guest kernel instructions per packet = (I(N2) - I(N1)) / (N2 - N1), exact (QEMU TCG plugin"
          " bench/icount/scx_icount.c); groups: see bench/icount/icount.py")
    print()
    cols = ["kernel", "module"] + GROUPS + ["sender_fn"]
    percpu = any("sender_cpu0" in r for rs in res.values() for r in rs)
    if percpu:
        cols += ["cpu0", "sender_cpu0"]
    short = {"kernel": "total", "module": "softcx", "device model": "devmodel", "driver TX": "drvTX",
             "driver RX/NAPI": "drvRX", "shim TX": "shimTX", "shim RX/other": "shimRX",
             "BPF programs": "bpf", "rest of kernel": "kernel*", "unsymbolised": "unsym",
             "sender_fn": "sendfn", "cpu0": "cpu0", "sender_cpu0": "send0"}
    print("%-22s %3s %13s " % ("configuration", "rep", "N1..N2") +
          " ".join("%8s" % short.get(c, c) for c in cols) + " %8s %9s" % ("user", "pps(N2)"))

    def val(r, c):
        if c in r and not isinstance(r[c], (dict, collections.Counter)):
            return r[c]
        return r["group"].get(c, 0.0)

    for cfg, rs in res.items():
        for r in rs:
            print("%-22s %3d %13s " % (cfg, r["rep"], "%d..%d" % (r["n1"], r["n2"])) +
                  " ".join(fmt(val(r, c)) for c in cols) + " %8.1f %9s" % (r["user"], r["pps"]))
    print("(total = guest kernel; softcx = devmodel + drvTX + drvRX + shimTX + shimRX; kernel* = rest of"
          " the kernel; sendfn = pktgen + drvTX + shimTX%s)" %
          ("; cpu0 = the kernel on vCPU 0; send0 = cpu0 minus the device model on vCPU 0" if percpu else ""))
    print()

    def spread(xs):
        xs = [x for x in xs if x is not None]
        if len(xs) < 2 or not mean(xs):
            return "one repetition"
        return "spread %.2f %%" % (100.0 * (max(xs) - min(xs)) / mean(xs))

    for cfg, rs in res.items():
        tot = [r["kernel"] for r in rs]
        ppss = [int(r["pps"]) for r in rs if r["pps"].isdigit()]
        line = ("RESULT icount %s: %.1f kernel instructions/packet (reps %s; %s) | softcx module %.1f"
                " (device model %.1f, driver TX %.1f, driver RX/NAPI %.1f, shim %.1f) | rest of kernel %.1f"
                " | pktgen %.1f" % (
                    cfg, mean(tot), " ".join("%.1f" % x for x in tot), spread(tot),
                    mean([r["module"] for r in rs]), mean([r["group"]["device model"] for r in rs]),
                    mean([r["group"]["driver TX"] for r in rs]), mean([r["group"]["driver RX/NAPI"] for r in rs]),
                    mean([r["group"]["shim TX"] + r["group"]["shim RX/other"] for r in rs]),
                    mean([r["group"]["rest of kernel"] + r["group"]["unsymbolised"] + r["group"]["BPF programs"]
                          for r in rs]),
                    mean([r["group"]["pktgen"] for r in rs])))
        v = mean([r["group"]["veth"] for r in rs])
        if v:
            line += " | veth %.1f" % v
        b = mean([r["group"]["BPF programs"] for r in rs])
        if b:
            line += " (BPF programs %.1f)" % b
        line += " | sender by function %.1f" % mean([r["sender_fn"] for r in rs])
        if "sender_cpu0" in rs[0] and cfg.endswith("-rxcpu1"):
            s0 = [r["sender_cpu0"] for r in rs]
            line += (" | sender = vCPU 0 without device model %.1f (%s; vCPU 0 %.1f, of it device model %.1f)" %
                     (mean(s0), spread(s0), mean([r["cpu0"] for r in rs]), mean([r["cpu0_devmodel"] for r in rs])))
        if "rx_cpu1" in rs[0] and cfg.startswith("rx1-"):
            s1 = [r["rx_cpu1"] for r in rs]
            line += (" | receiver = vCPU 1 without device model, per handled frame %.1f (%s; device model on"
                     " vCPU 1 %.1f)" % (mean(s1), spread(s1), mean([r["cpu1_devmodel"] for r in rs])))
        line += " | pps under the plugin %s" % (statistics.median(ppss) if ppss else "-")
        print(line)

    for cfg, rs in res.items():
        print("RESULT events %s, per packet: " % cfg + "; ".join(
            "%s %.3f%s" % (lbl, mean([r["calls"][lbl] for r in rs]),
                           " (reps %s)" % " ".join("%.3f" % r["calls"][lbl] for r in rs) if len(rs) > 1 else "")
            for lbl, _ in EVENTS))

    for spec in a.ratio:
        label, rest = spec.rsplit("=", 1)
        parts = rest.split(":")
        ab, m = parts[0], parts[1]
        goal = float(parts[2]) if len(parts) > 2 and parts[2] else None
        ca, cb = ab.split("/")
        if ca not in res or cb not in res:
            print("RESULT ratio %s: not measured (%s or %s missing)" % (label, ca, cb))
            continue
        va = [metric(r, m) for r in res[ca]]
        vb = [metric(r, m) for r in res[cb]]
        if None in va or None in vb:
            print("RESULT ratio %s: metric %s not available" % (label, m))
            continue
        per = ["%.3f" % (x / y) for x, y in zip(va, vb) if y]
        q = mean(va) / mean(vb) if mean(vb) else 0
        s = "RESULT ratio %s: %s %.1f / %.1f = %.3f (per repetition %s)" % (
            label, m, mean(va), mean(vb), q, " ".join(per))
        if goal is not None:
            s += "; goal >= %.2f: %s" % (goal, "MET" if q >= goal else "NOT MET")
        print(s)

    for cfg, rs in res.items():
        print()
        print("top %d kernel functions, %s (instructions/packet, mean of %d repetition%s):" % (
            a.top, cfg, len(rs), "" if len(rs) == 1 else "s"))
        acc = collections.Counter()
        gof = {}
        for r in rs:
            for label, d in r["func"].items():
                acc[label] += d / len(rs)
                gof[label] = r["gof"][label]
        total = mean([r["kernel"] for r in rs]) or 1.0
        print("%4s %9s %6s  %-15s %s" % ("#", "instr/pkt", "share", "group", "function"))
        for i, (label, d) in enumerate(acc.most_common(a.top), 1):
            print("%4d %9.1f %5.1f%%  %-15s %s" % (i, d, 100.0 * d / total, gof[label], label[:110]))
        if cfg.startswith("rx1-") and rs[0].get("func_cpu1"):
            print()
            print("top %d kernel functions on vCPU 1 (the receiver) without the device model, %s, "
                  "per handled frame:" % (a.top, cfg))
            print_cpu_top(rs, "func_cpu1", "rx_cpu1", "instr", a.top)
        if cfg.endswith("-rxcpu1") and rs[0].get("func_cpu0"):
            print()
            print("top %d kernel functions on vCPU 0 (the sender) without the device model, %s:"
                  % (a.top, cfg))
            print_cpu_top(rs, "func_cpu0", "sender_cpu0", "instr/pkt", a.top)

if __name__ == "__main__":
    main()
