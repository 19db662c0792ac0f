// SPDX-License-Identifier: GPL-2.0
/*
 * The device's free-running internal timer: what CQE timestamps carry and
 * what the init segment's timer registers read. It counts from adapter
 * creation on the OS timer clock (CLOCK_MONOTONIC in the kernel, the host
 * tests' fake clock) at caps.device_frequency_khz, kTimerErrorPpb fast, as
 * a real oscillator is never exact. Integer math only: a 64.64 fixed-point
 * rate computed once, one multiply per read.
 */
#include "hw/adapter.h"
#include "prm/bus.h"
#include "prm/cmd.h"

namespace softcx::hw {

TimerRate timer_rate(u32 khz)
{
	/* ticks per ns = khz * (1e9 + ppb) / 1e15: X / D, X < 2^50 */
	constexpr u64 kD = 1000000000000000ull;
	u64 x = (u64)khz * (1000000000ull + kTimerErrorPpb);
	TimerRate r = { x / kD, 0 };
	u64 rem = x % kD;

	/* the fraction's 64 bits by long division (once, at adapter creation) */
	for (int i = 0; i < 64; i++) {
		rem <<= 1;
		r.frac <<= 1;
		if (rem >= kD) {
			rem -= kD;
			r.frac |= 1;
		}
	}
	return r;
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
