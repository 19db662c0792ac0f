// SPDX-License-Identifier: GPL-2.0
/*
 * What the device learns of a striding RQ WQE once, when it starts it:
 * its shape (hw/striding.h) and where its segments are (hw/rx.h).
 */
#include "hw/rx.h"
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

void striding_xlat(Function *fn, Rq *rq, u32 n)
{
	u64 dma[kMaxStridingSegs] SCX_SCRATCH;
	u32 len[kMaxStridingSegs] SCX_SCRATCH;

	for (u32 k = 0; k < n; k++) {
		prm::DataSeg d = striding_seg(rq, k);
		dma[k] = d.addr.get();
		len[k] = d.byte_count.get();
	}
	scx_os_dma_to_cpu_n(os_dev_of(fn), dma, len, rq->seg_cpu, n);
	rq->seg_n = n;
}

} /* namespace softcx::hw */
