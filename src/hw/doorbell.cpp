// SPDX-License-Identifier: GPL-2.0
/*
 * The function's BAR: 64-bit doorbell writes. Decoding only; the work is
 * scheduled on the SQ or done by the CQ arm logic. With timing on, the
 * time each write takes to emulate is added to bus.emul_ns.
 */
#include "hw/engine.h"
#include "prm/wqe.h"
#include "prm/bus.h"
#include "prm/cmd.h"

namespace softcx::hw {
namespace {

void doorbell(Function *fn, u32 offset, u64 value)
{
	switch (offset) {
	case prm::kUarSqDoorbell: {
		/* The first 8 bytes of the ctrl segment: opmod_idx_opcode, qpn_ds. */
		prm::CtrlSeg ctrl = {};
		static_assert(sizeof(value) == __builtin_offsetof(prm::CtrlSeg, signature));
		__builtin_memcpy(&ctrl, &value, sizeof(value));
		bus_add(&fn->bus.doorbells, 1);
		sq_schedule(fn, ctrl.sqn());
		break;
	}
	case prm::kUarCqDoorbell:
		bus_add(&fn->bus.doorbells, 1);
		cq_arm_doorbell(fn, value);
		break;
	default:
		scx_os_log(SCX_LOG_DEBUG, "softcx hw: fn%u: write to unknown BAR offset 0x%x\n",
			   fn->ix, offset);
		break;
	}
}

} /* namespace */
} /* namespace softcx::hw */

namespace softcx::bus {

void mmio_write64(Function *fn, u32 offset, u64 value)
{
	using namespace softcx::hw;
	if (!fn)
		return;
	if (__builtin_expect(!__atomic_load_n(&fn->timing, __ATOMIC_RELAXED), 1)) {
		doorbell(fn, offset, value);
		return;
	}
	u64 t0 = scx_os_clock_ns();
	doorbell(fn, offset, value);
	bus_add(&fn->bus.emul_ns, scx_os_clock_ns() - t0);
}

} /* namespace softcx::bus */
