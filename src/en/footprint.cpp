// SPDX-License-Identifier: GPL-2.0
/*
 * Memory footprint of a port's queues, from the same geometry the channel
 * builders use (sq.cpp, rq.cpp, cq.cpp, channel.cpp): what the module
 * parameters commit the machine to before any port is opened.
 */
#include "en/port.h"

namespace softcx::en {

namespace {

/* kmalloc and the page allocator hand out power-of-two blocks. */
u64 pow2_at_least(u64 n, u64 min)
{
	u64 c = min;

	while (c < n)
		c <<= 1;
	return c;
}

/* scx_os_zalloc: kmalloc (smallest slab 8 bytes; above 8 KiB whole page orders). */
u64 heap_cost(u64 bytes)
{
	return pow2_at_least(bytes, 8);
}

/* scx_os_dma_alloc: dma_alloc_coherent takes whole pages, a power-of-two number of them. */
u64 dma_cost(u64 bytes)
{
	return pow2_at_least(bytes, kPageSize);
}

/* A doorbell record pair (be32[2]) of a queue. */
u64 doorbell_cost()
{
	return dma_cost(kDbRecBytes);
}

/* cq_create(): the CQE ring and its doorbell records. */
u64 cq_cost(u32 log_size)
{
	return dma_cost((u64)prm::kCqeSize << log_size) + doorbell_cost();
}

/* sq_create(): its CQ, WQE ring, doorbells, WQE info per WQEBB, DMA FIFO (one entry per DS). */
u64 sq_cost(u32 log_size)
{
	u64 n = 1ull << log_size;

	return cq_cost(log_size) + dma_cost(n * prm::kSendWqeBB) + doorbell_cost() +
	       heap_cost(n * sizeof(TxWqeInfo)) +
	       heap_cost(n * prm::kDsPerWqeBB * sizeof(TxDmaEntry));
}

/* rq_create(): its CQ, WQE ring, doorbells, slots, and the fragments posted (a page carved on). */
u64 rq_cost(u32 log_size, const RqLayout &l)
{
	u64 n = 1ull << log_size, segs = 1ull << l.log_wqe_segs, bytes = 0;

	for (u32 i = 0; i < l.nfrags; i++)
		bytes += l.frag[i].stride;
	return cq_cost(log_size) + dma_cost(n * segs * sizeof(prm::DataSeg)) + doorbell_cost() +
	       heap_cost(n * segs * sizeof(RxSlot)) + n * bytes + kPageSize;
}

/* rq_create() of a striding RQ: its CQ (a CQE per stride), WQE ring, page array, pages, tail. */
u64 striding_rq_cost(const RqLayout &l)
{
	u64 n = 1ull << l.log_wqes;

	return cq_cost(l.log_cqes) + dma_cost(n << l.log_wqe_bytes) + doorbell_cost() +
	       heap_cost(n * l.pages_per_wqe * sizeof(MpwPage)) + n * l.pages_per_wqe * kPageSize +
	       (l.headroom ? dma_cost(l.headroom) : 0);
}

/* The larger of the two RQ types at the largest MTU (the striding RQ's on a device that has it). */
u64 rq_cost_max(u32 log_rq_size, const scx_os_layout &os, const RqLayout &cyclic)
{
	prm::HcaCaps caps = {};
	RqLayout l;
	u64 c = rq_cost(log_rq_size, cyclic);

	caps.striding_rq = 1;
	caps.ext_stride_num_range = 1;
	caps.log_max_rq_sz = kMaxLogQueue;
	caps.log_max_cq_sz = kMaxLogQueue;
	if (rx_striding_layout(caps, os, SCX_MAX_MTU, log_rq_size, false, &l) &&
	    striding_rq_cost(l) > c)
		c = striding_rq_cost(l);
	return c;
}

} /* namespace */

} /* namespace softcx::en */

using namespace softcx;
using namespace softcx::en;

extern "C" uint64_t scx_port_mem_estimate(uint32_t nch, uint32_t log_sq_size,
					  uint32_t log_rq_size, const scx_os_layout *os)
{
	RqLayout rx, rx_xdp;
	u64 per_ch, set;

	if (!nch || nch > SCX_MAX_CHANNELS || log_sq_size < kMinLogSqSize ||
	    log_sq_size > kMaxLogQueue || log_rq_size < kMinLogRqSize ||
	    log_rq_size > kMaxLogQueue || !os_layout_ok(*os))
		return 0;
	/* the largest buffers any MTU can ask for: the stack's, or a multi-buffer XDP set's (a page a fragment) */
	if (!rx_layout(*os, SCX_MAX_MTU, false, &rx) || !rx_layout(*os, SCX_MAX_MTU, true, &rx_xdp))
		return 0;
	if (rq_cost(log_rq_size, rx_xdp) > rq_cost(log_rq_size, rx))
		rx = rx_xdp;
	/* the stack's SQ, the XDP_TX SQ (with a program) and the ndo_xdp_xmit SQ; the RQ */
	per_ch = 3 * sq_cost(log_sq_size) + rq_cost_max(log_rq_size, *os, rx);
	set = nch * per_ch + heap_cost((u64)nch * sizeof(Channel));
	/* a safe switch (scx_port_prepare) builds the new set next to the live one */
	return 2 * set;
}
