# SPDX-License-Identifier: GPL-2.0
# softcx top-level Makefile. `make` builds softcx.ko; `make check` runs everything.

# KVER/KDIR may be given (make KVER=...; command-line variables reach the
# scripts' environment); otherwise the scripts pick them after `make deps`
# has installed a kernel (scripts/kver.sh).

.PHONY: all module deps host-test kunit vm-test fuzz stress check demo bench clean

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

bench:
	@scripts/bench.sh

clean:
	@kdir=$${KDIR:-/lib/modules/$$(scripts/kver.sh)/build}; \
		[ -d "$$kdir" ] && $(MAKE) -C $$kdir M=$(CURDIR) clean || true
	@$(MAKE) --no-print-directory -C tests/host clean
	@$(MAKE) --no-print-directory -C tests/fuzz clean
	@rm -rf build results
