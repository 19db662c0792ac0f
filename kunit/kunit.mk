# SPDX-License-Identifier: GPL-2.0
# The KUnit build of softcx, included by ../Kbuild when the tree was overlaid
# by scripts/kunit.sh (CONFIG_SOFTCX_KUNIT_TEST): the C++ core, the shim's
# files that implement the core's OS hooks and the NAPI poll (os.c, dma.c,
# cxxrt.c, rx.c, tx.c, xdp_path.c, napi.c, ptp.c, tunnel.c; not the netdev registration,
# ethtool, ndo_bpf and module code) and the suites with their C++ test hooks,
# as one built-in object.

scx-kunit-objs := $(patsubst $(scx-root)/%.c,%.o,$(wildcard $(scx-root)/kunit/*.c)) \
		  $(patsubst $(scx-root)/%.cpp,%.o,$(wildcard $(scx-root)/kunit/*.cpp))

obj-$(CONFIG_SOFTCX_KUNIT_TEST) += softcx-kunit.o
scx-kunit-shim := shim/os.o shim/dma.o shim/cxxrt.o shim/rx.o shim/tx.o shim/xdp_path.o \
		  shim/napi.o shim/ptp.o shim/tunnel.o
softcx-kunit-y := $(scx-core-objs) $(filter $(scx-kunit-shim),$(scx-shim-objs)) \
		  $(scx-kunit-objs)

# The device model's interrupts (and CQ error events) reach kunit/os_hooks.c's
# scx_os_raise_irq (scx_os_cq_error) first, which counts them per vector and
# then hands a port's on to the shim's own hook: napi.c's definitions are
# built under other names here.
CFLAGS_shim/napi.o += -Dscx_os_raise_irq=scx_shim_raise_irq -Dscx_os_cq_error=scx_shim_cq_error

# kunit.py shows compiler output only when the build fails: make warnings fail.
ccflags-y += -Werror

# The counter names Documentation/counters.rst documents, as a C list for
# the counters suite (kunit/stats_test.c).
quiet_cmd_scx_counters_doc = GEN     $@
      cmd_scx_counters_doc = sed -n 's/^   \* - \([a-z][a-z0-9_]*\)$$/"\1",/p' $< \
	| grep -vx '"name",' > $@

$(obj)/kunit/counters_doc.h: $(scx-root)/Documentation/counters.rst FORCE
	$(call if_changed,scx_counters_doc)
targets += kunit/counters_doc.h
$(obj)/kunit/stats_test.o: $(obj)/kunit/counters_doc.h
