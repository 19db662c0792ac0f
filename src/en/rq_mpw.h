/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the striding RQ's two CQE handlers share (rq_striding.cpp, and
 * rq_shampo.cpp for SHAMPO): a WQE's pages, their release, and the stride
 * accounting around a packet CQE. Everything here is always inlined: an
 * out-of-line copy in two objects would leave __mcount_loc naming a
 * discarded COMDAT section.
 */
#pragma once

#include "en/rq.h"

namespace softcx::en {

__attribute__((always_inline)) inline MpwPage *mpw_wqe_pages(const Rq *rq, u16 i)
{
	return &rq->mpw[(usize)(i & rq->mask) * rq->layout.pages_per_wqe];
}

/* The WQE's pages go back: the references nobody took, all at once. */
__attribute__((always_inline)) inline void mpw_release_wqe(Rq *rq, u16 i, int napi)
{
	MpwPage *pg = mpw_wqe_pages(rq, i);

	for (u32 k = 0; k < rq->layout.pages_per_wqe; k++) {
		if (pg[k].page)
			scx_os_rx_frag_put(rq->pool, pg[k].page, kMpwPageBias - pg[k].refs, napi);
		pg[k].page = nullptr;
	}
}

/*
 * A whole frame of len bytes in the strides may go up: false (counted)
 * when it is longer than a stride holds (linear) or than any frame (never
 * seen by anyone), or shorter than an Ethernet header.
 */
__attribute__((always_inline)) inline bool mpw_frame_len_ok(Rq *rq, u32 len)
{
	if (__builtin_expect(len > rq->layout.frame_room, 0)) {
		rq->stats->oversize_pkts_sw_drop.inc();
		return false;
	}
	if (__builtin_expect(len < prm::kMinFrame, 0)) {
		rq->stats->skb_err.inc();
		return false;
	}
	return true;
}

/*
 * One CQE of a striding RQ: checked against the WQE at cc and the strides
 * seen (an error CQE, or one out of order, recovers the RQ), a filler
 * counted, a packet handed to pkt(rq, cqe, pages, len); then its strides
 * counted, and the WQE released once all are. A packet CQE consumes at
 * least one stride, but with SHAMPO (a payload continuing a session
 * inside a stride, or headers only) it may consume none.
 */
template <bool Shampo, typename P>
__attribute__((always_inline)) inline void mpw_handle_cqe(Rq *rq, const prm::Cqe64 *cqe, P pkt)
{
	const RqLayout &l = rq->layout;
	u32 nstrides = 1u << l.log_num_strides;
	u32 bc = cqe->byte_cnt.get();
	u32 used = (bc >> prm::kMpwrqCqeStridesShift) & prm::kMpwrqCqeStridesMask;
	u32 first = cqe->wqe_counter.get();
	u16 ix = rq->cc & rq->mask;
	u8 op = cqe->opcode();
	bool filler = bc & prm::kMpwrqCqeFiller;
	/* the CQE names the WQE at cc and the stride after those seen */
	bool in_order = rq->cc != rq->pc && cqe->wqe_id.get() == ix && first == rq->strides_used;

	/* as the cyclic RQ: the frame is lost, the WQE stays until the recovery */
	if (__builtin_expect(op == prm::kCqeRespErr && in_order, 0)) {
		rq->stats->wqe_err.inc();
		rq->recover = kRecoverErrCqe;
		return;
	}
	if (__builtin_expect(op != prm::kCqeRespSend || !in_order || (!used && (filler || !Shampo)) ||
			     first + used > nstrides, 0)) {
		rq->stats->wqe_err.inc();
		rq->recover = kRecoverConfused;
		return;
	}

	if (__builtin_expect(filler, 0)) {
		rq->stats->mpwqe_filler_cqes.inc();
		rq->stats->mpwqe_filler_strides.add(used);
	} else {
		pkt(rq, cqe, mpw_wqe_pages(rq, ix), bc & prm::kMpwrqCqeLenMask);
	}
	rq->strides_used += used;
	if (rq->strides_used == nstrides) {
		mpw_release_wqe(rq, ix, 1);
		rq->strides_used = 0;
		rq->cc++;
	}
}

} /* namespace softcx::en */
