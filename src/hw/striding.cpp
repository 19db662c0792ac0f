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

bool striding_wqe_ok(Function *fn, Rq *rq, u8 *syndrome)
{
	u64 want = 1ull << (rq->log_stride + rq->log_num_strides), have = 0;
	u64 dma[kMaxStridingSegs] SCX_SCRATCH;
	u32 len[kMaxStridingSegs] SCX_SCRATCH;
	StridingShapeScan scan;
	u32 k;

	for (k = 0; k < striding_nsegs(rq) && have < want; k++) {
		prm::DataSeg d = striding_seg(rq, k);
		u32 n = d.byte_count.get();
		if (!n)
			break;
		if (d.lkey.get() != prm::kReservedLkey) {
			*syndrome = prm::kSyndLocalProtErr;
			return false;
		}
		scan.add(n);
		have += n;
		dma[k] = d.addr.get();
		len[k] = n;
	}
	bus_add(&fn->bus.rd_desc_bytes, (u64)k * sizeof(prm::DataSeg));
	rq->wqe_shape = striding_shape(scan);
	if (have != want) {
		*syndrome = prm::kSyndLocalLengthErr;
		return false;
	}
	scx_os_dma_to_cpu_n(os_dev_of(fn), dma, len, rq->seg_cpu, k);
	rq->seg_n = k;
	return true;
}

} /* namespace softcx::hw */
