// SPDX-License-Identifier: GPL-2.0
/*
 * The device's free-running internal timer: what CQE timestamps carry and
 * what the init segment's timer registers read. It counts from adapter
 * creation on the OS timer clock (CLOCK_MONOTONIC in the kernel, the host
 * tests' fake clock) at caps.device_frequency_khz, kTimerErrorPpb fast, as
 * a real oscillator is never exact. Integer math only.
 */
#include "hw/adapter.h"
#include "prm/bus.h"
#include "prm/cmd.h"

namespace softcx::hw {

namespace {
constexpr u64 kNsPerMs = 1000000;	/* ns * kHz / 1e6 = ticks */
constexpr u64 kPpbDiv = 1000000000;
} /* namespace */

u64 timer_ticks(u64 elapsed_ns, u32 khz)
{
	/* floor(elapsed_ns * khz / 1e6) without a 128-bit product */
	u64 nominal = elapsed_ns / kNsPerMs * khz + elapsed_ns % kNsPerMs * khz / kNsPerMs;

	return nominal + nominal / kPpbDiv * kTimerErrorPpb + nominal % kPpbDiv * kTimerErrorPpb / kPpbDiv;
}

} /* namespace softcx::hw */

namespace softcx::bus {

u32 mmio_read32(Function *fn, u32 offset)
{
	if (!fn)
		return ~0u;
	switch (offset) {
	case prm::kInitSegTimerH:
		return (u32)(hw::timer_read(fn) >> 32);
	case prm::kInitSegTimerL:
		return (u32)hw::timer_read(fn);
	default:
		return ~0u;
	}
}

} /* namespace softcx::bus */
