# SPDX-License-Identifier: GPL-2.0
# softcx top-level Makefile. `make` builds softcx.ko; `make check` runs everything.

# KVER/KDIR may be given (make KVER=...; command-line variables reach the
# scripts' environment); otherwise the scripts pick them after `make deps`
# has installed a kernel (scripts/kver.sh).

.PHONY: all module deps host-test kunit vm-test fuzz stress check demo bench clean kselftest

all: module

# Builds softcx.ko; any objtool or modpost warning fails the build.
module:
	@scripts/build-module.sh

deps:
	@scripts/deps.sh

# The host stage of `make check`: gtest with ASan/UBSan (GTEST_FILTER=...,
# CORE_DIRS=... narrow it; tests/host/Makefile) and a build of bench/host.
host-test:
	@scripts/host-test.sh

kunit:
	@scripts/kunit.sh

# libFuzzer targets (tests/fuzz): 10^7 executions in total by default;
# FUZZ_SECONDS=S or FUZZ_RUNS=N per target, FUZZ_JOBS=J side by side.
fuzz:
	@scripts/fuzz.sh

vm-test: module
	@scripts/vm-test.sh

# The kernel's network selftest programs the VM suite runs against the
# ports (tests/vm/t-kselftest-*), built from linux-source-6.1 into
# build/kselftest/ (vm-test builds them too).
kselftest:
	@scripts/kselftest.sh

# The VM stress tests at full length: 100 cycles each (make check runs 5),
# in one 4-vCPU boot (Documentation/testing.md, "Stress tests").
STRESS_TESTS := $(patsubst tests/vm/%.sh,%,$(wildcard tests/vm/t-stress-*.sh))
stress: module
	@SCX_STRESS_CYCLES=$${SCX_STRESS_CYCLES:-100} VM_TIMEOUT=$${VM_TIMEOUT:-14400} \
		scripts/vm-test.sh $(STRESS_TESTS)

check:
	@scripts/check.sh

demo:
	@scripts/demo.sh

# Benchmarks (figures, not tests; Documentation/performance.md, "Commands").
# `make bench` runs the host microbenchmark, bench/vm/pktgen.sh and
# bench/vm/icount.sh (scripts/bench.sh); each also has a target of its own,
# as does every other benchmark. The VM ones boot scripts/vm-run.sh (results
# in build/vm-results/<run>/); SCX_BENCH_* variables reach the guest script.
BENCH_TARGETS := bench-host bench-host-mpwqe bench-pktgen bench-icount bench-icount-vclock \
	bench-mpwqe bench-mpwqe-icount bench-mpwqe-ab bench-xdp bench-xdp-icount \
	bench-dma-cost bench-profile bench-rx bench-gro
.PHONY: $(BENCH_TARGETS) bpf

bench:
	@scripts/bench.sh

# The BPF objects of tests/bpf, built on the host (the guest would build them
# under TCG otherwise).
bpf:
	@$(MAKE) --no-print-directory -s -C tests/bpf

# bench/host: wall clock and callgrind instructions per packet, both OS layers.
bench-host:
	@bench/host/run.sh

# bench/host: skb_tx_mpwqe off vs on, instructions and CPU ns per packet.
bench-host-mpwqe:
	@bench/host/mpwqe.sh

# softcx vs veth pps, burst 1 (the second part of `make bench`).
bench-pktgen: module
	@scripts/vm-run.sh --timeout 900 bench/vm/pktgen.sh

# Exact guest instructions per packet: veth, softcx burst 1/32, MPWQE on/off,
# the sender on its own (the third part of `make bench`).
bench-icount: module bpf
	@scripts/vm-run.sh --icount-percpu --timeout 2400 bench/vm/icount.sh

# The same with the default settings made repeatable: one vCPU whose clock
# follows its instructions, so that interrupt moderation's timers fire at the
# same instruction from boot to boot (no -rxcpu1 configurations).
bench-icount-vclock: module bpf
	@scripts/vm-run.sh --smp 1 --virtual-clock --icount --timeout 2400 bench/vm/icount.sh

# skb_tx_mpwqe on vs off in pps, interleaved in one boot.
bench-mpwqe: module bpf
	@scripts/vm-run.sh --timeout 1200 bench/vm/mpwqe.sh

# The same, then the sender's instructions per packet on/off (the TX MPWQE goal).
bench-mpwqe-icount: module bpf
	@scripts/vm-run.sh --icount-percpu --timeout 2400 bench/vm/mpwqe.sh

# skb_tx_mpwqe on and off on two port pairs at the same time.
bench-mpwqe-ab: module bpf
	@scripts/vm-run.sh --timeout 1200 bench/vm/mpwqe-ab.sh

# Native XDP: XDP_DROP vs tc drop and veth, XDP_TX with xdp_tx_mpwqe on/off
# (phases 1 to 3: end to end, receiver CPU with kprobes, receiver on its own CPU).
bench-xdp: module bpf
	@scripts/vm-run.sh --timeout 1800 bench/vm/xdp.sh

# Native XDP, phase 4 only: receiver instructions per frame (the XDP_DROP goal).
bench-xdp-icount: module bpf
	@SCX_BENCH_E2E=0 SCX_BENCH_RXCPU=0 SCX_BENCH_THREAD=off \
		scripts/vm-run.sh --icount-percpu --timeout 3000 bench/vm/xdp.sh

# RX instructions per frame: cyclic vs striding RQ, CQE compression off vs on
# (receiver on its own vCPU, XDP_DROP and IP drop), with CQE bytes per frame.
bench-rx: module bpf
	@scripts/vm-run.sh --icount-percpu --timeout 3600 bench/vm/rx.sh

# One TCP stream, software vs hardware GRO (rx-gro-hw): receiver instructions
# per KiB (exact) and throughput, in one boot.
bench-gro: module
	@scripts/vm-run.sh --icount-percpu --timeout 3600 bench/vm/gro.sh

# Instructions per packet of the device's DMA view (dma_view=1 vs 0).
bench-dma-cost: module
	@bench/vm/dma-cost.sh

# Where the guest's CPU 0 goes during the pktgen benchmark (perf; a hint under TCG).
bench-profile: module
	@scripts/vm-run.sh --timeout 600 bench/vm/profile.sh

clean:
	@kdir=$${KDIR:-/lib/modules/$$(scripts/kver.sh)/build}; \
		[ -d "$$kdir" ] && $(MAKE) -C $$kdir M=$(CURDIR) clean || true
	@$(MAKE) --no-print-directory -C tests/host clean
	@$(MAKE) --no-print-directory -C tests/fuzz clean
	@rm -rf build results
