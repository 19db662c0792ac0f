# SPDX-License-Identifier: GPL-2.0
# softcx top-level Makefile. `make` builds softcx.ko; `make check` runs everything.

KVER ?= $(shell scripts/kver.sh)
KDIR ?= /lib/modules/$(KVER)/build
export KVER KDIR

.PHONY: all module deps host-test kunit vm-test check demo bench clean

all: module

# Builds softcx.ko; any objtool or modpost warning fails the build.
module:
	@scripts/build-module.sh

deps:
	@scripts/deps.sh

host-test:
	@$(MAKE) --no-print-directory -C tests/host run

kunit:
	@scripts/kunit.sh

vm-test: module
	@scripts/vm-test.sh

check:
	@scripts/check.sh

demo:
	@scripts/demo.sh

bench:
	@scripts/bench.sh

clean:
	@[ -d "$(KDIR)" ] && $(MAKE) -C $(KDIR) M=$(CURDIR) clean || true
	@$(MAKE) --no-print-directory -C tests/host clean
	@rm -rf build results
