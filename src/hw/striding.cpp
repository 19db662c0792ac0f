// SPDX-License-Identifier: GPL-2.0
/*
 * A striding RQ WQE's shape (hw/striding.h), learned once per WQE when the
 * device starts it.
 */
#include "hw/striding.h"

namespace softcx::hw {

StridingShape striding_shape(const StridingShapeScan &scan)
{
	u8 l = 0;

	/* one segment: every offset of the buffer is in it */
	if (scan.n < 2)
		return { scan.first, 0 };
	while (l < 31 && (1u << l) < scan.second)
		l++;
	/* two: the second is the last, and any 2^l not below it will do */
	if (!scan.mid_same || (1u << l) < scan.second ||
	    (scan.n > 2 && scan.second != 1u << l) || scan.last > 1u << l)
		return { scan.first, kSegWalk };
	return { scan.first, l };
}

} /* namespace softcx::hw */
