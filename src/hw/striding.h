/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Where a byte of a striding RQ WQE's buffer lies among its data segments.
 *
 * The device reads a WQE's data segments once, when it starts the WQE, and
 * keeps their shape: the first segment's size and, when the later ones
 * are one power of two in size (the last may be shorter), log2 of that
 * size. The segment that holds a byte offset is then a compare and a shift
 * away, with no division; any other WQE is walked segment by segment.
 * The driver's WQEs have that shape: the first page shortened by the
 * headroom, whole pages, and a tail the headroom's size (en/params.h
 * RqLayout::wqe_segs, en/rq_striding.cpp alloc_wqe).
 */
#pragma once

#include "prm/types.h"

namespace softcx::hw {

/* StridingShape::log_seg of a WQE the device walks. */
constexpr u8 kSegWalk = 0xff;

struct StridingShape {
	u32 first;	/* segment 0's bytes */
	u8 log_seg;	/* segments 1..n-2 are 2^log_seg bytes, n-1 at most that; or kSegWalk */
};

/* Learns the shape from the segments' sizes, in order, as the device reads them. */
struct StridingShapeScan {
	u32 n = 0;		/* segments seen */
	u32 first = 0, second = 0, last = 0;
	bool mid_same = true;	/* segments 1..n-2 are all second's size */

	void add(u32 bytes)
	{
		if (n >= 2)
			mid_same &= last == second;	/* the one before is a middle one */
		if (n == 0)
			first = bytes;
		else if (n == 1)
			second = bytes;
		last = bytes;
		n++;
	}
};

/*
 * The shape of the segments a scan saw. Out of line (striding.cpp): a
 * function inline in two of the module's objects and not inlined in
 * both is a COMDAT copy the module link refuses (__mcount_loc).
 */
StridingShape striding_shape(const StridingShapeScan &scan);

/*
 * The segment holding byte off (below the buffer's size) of a WQE of shape
 * s (not kSegWalk); off becomes the offset in that segment.
 */
inline u32 striding_locate(StridingShape s, u32 *off)
{
	u32 rest;

	if (*off < s.first)
		return 0;
	rest = *off - s.first;
	*off = rest & ((1u << s.log_seg) - 1);
	return 1 + (rest >> s.log_seg);
}

} /* namespace softcx::hw */
