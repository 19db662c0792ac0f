/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Posting on the XDP send queues: the XDP_TX SQ (Page: the RQ's pages,
 * from the channel's own NAPI) and the redirect target SQ (Frame: OS
 * frames, from ndo_xdp_xmit on any CPU, serialised by the caller). Both are
 * plain Sq rings; these builders add one frame per SEND WQE, or one segment
 * per frame to an enhanced MPWQE session whose eth segment stays zero.
 * Defined here, inline, so the RX handler's XDP_TX path compiles into it.
 */
#pragma once

#include "en/sq.h"

namespace softcx::en {

/* One frame for an XDP SQ. */
struct XdpTxDesc {
	u64 dma;		/* of the frame's first byte */
	const u8 *data;		/* CPU address of that byte (inlined bytes come from here) */
	u32 len;
	void *obj;		/* the page (Page SQ) or the OS frame (Frame SQ) */
};

/*
 * MPWQE inline hysteresis: when this many frames are outstanding the
 * device is behind, and copying small frames into the WQE saves it a DMA
 * read each; once it has caught up (low mark) pointers are cheaper again.
 */
constexpr u32 kXdpInlineHigh = 128;
constexpr u32 kXdpInlineLow = 10;
/* Largest inline frame: 16 DS of which 4 bytes are the byte count. */
constexpr u32 kXdpInlineMaxDs = 16;
constexpr u32 kXdpMaxInline = kXdpInlineMaxDs * prm::kSendWqeDS - 4;

/* Close the open session and ring for everything posted, if anything is unrung. */
inline void xdpsq_doorbell(Sq *sq)
{
	mpw_close(sq);
	if (sq->doorbell_cseg)
		sq_ring(sq);
}

inline bool xdp_len_ok(const Sq *sq, u32 len)
{
	return len >= kMinTxFrame && len >= sq->lim.min_inline && len <= sq->lim.max_frame;
}

/* A frame refused as invalid; the Frame SQ's err has two writers (producers, NAPI). */
template <SqKind K> inline int xdp_invalid(Sq *sq)
{
	if constexpr (K == SqKind::Frame)
		sq->xstats->err.inc_shared();
	else
		sq->xstats->err.inc();
	return -SCX_EINVAL;
}

/* No room: let the device drain what is posted, count, refuse. */
inline int xdp_full(Sq *sq)
{
	xdpsq_doorbell(sq);
	sq->xstats->full.inc();
	return -SCX_ENOSPC;
}

/*
 * One SEND WQE: ctrl, eth (+ min inline headers), a pointer to the rest of
 * d, then one per page of frags: n > 0 is a multi-buffer frame of the
 * XDP_TX SQ, whose later pages are FIFO entries of their own
 * (kDmaXdpFrag, recycled on completion; the frame counts once). Such a
 * WQE stands outside MPWQE sessions (kMpw: the open one is closed first,
 * as a session's segments are whole frames). A full SQ refuses the whole
 * frame. The WQEBBs come from the DS count; n = 0 is one WQEBB (params.h
 * asserts that the minimum inline and a pointer fit), never padded.
 */
template <SqKind K, bool kMpw>
inline int xdpsq_send_wqe(Sq *sq, const XdpTxDesc &d, const scx_xdp_frag *frags, u32 n)
{
	u32 ihs = sq->lim.min_inline, len = d.len, num_wqebbs = 1;

	for (u32 i = 0; i < n; i++)
		len += frags[i].len;
	/* the inline headers come from the first buffer (n = 0: xdp_len_ok checked it) */
	if (__builtin_expect(!xdp_len_ok(sq, len) || (n && d.len < ihs), 0))
		return xdp_invalid<K>(sq);
	if (kMpw)
		mpw_close(sq);
	if (n)
		num_wqebbs = div_round_up(prm::kEmptyDsCount + inline_ds(ihs) + (d.len > ihs ? 1 : 0) + n,
					  prm::kDsPerWqeBB);
	if (__builtin_expect(!sq->has_room(wqe_room(num_wqebbs)), 0))
		return xdp_full(sq);
	if (n)
		pad_to_edge<K>(sq, num_wqebbs);

	u8 *wqe = sq->wqe_at(sq->pc);
	auto *ctrl = reinterpret_cast<prm::CtrlSeg *>(wqe);
	auto *eth = reinterpret_cast<prm::EthSeg *>(wqe + sizeof(prm::CtrlSeg));
	u32 ds = prm::kEmptyDsCount;

	__builtin_memset(wqe, 0, num_wqebbs * prm::kSendWqeBB);
	if (ihs) {
		put_inline_hdr(eth, d.data, ihs);
		ds += inline_ds(ihs);
	}
	if (d.len > ihs) {
		put_dseg(reinterpret_cast<prm::DataSeg *>(wqe + ds * prm::kSendWqeDS),
			 d.dma + ihs, d.len - ihs, sq->lkey);
		ds++;
	}
	fifo_push(sq, d.dma, d.len, SCX_DMA_SINGLE, d.obj);
	for (u32 i = 0; i < n; i++, ds++) {
		put_dseg(reinterpret_cast<prm::DataSeg *>(wqe + ds * prm::kSendWqeDS),
			 frags[i].dma + frags[i].off, frags[i].len, sq->lkey);
		fifo_push(sq, frags[i].dma + frags[i].off, frags[i].len, kDmaXdpFrag,
			  frags[i].page);
	}
	ctrl->set(prm::kOpSend, sq->pc, sq->sqn, ds);
	sq->wqe_info[sq->pc & sq->mask] = TxWqeInfo{nullptr, 0, (u16)num_wqebbs, (u16)(1 + n)};
	sq->doorbell_cseg = ctrl;
	sq->pc += num_wqebbs;
	sq->xstats->xmit.inc();
	return 0;
}

/*
 * A single-buffer frame, outside MPWQE sessions. flatten rather than an
 * always_inline builder: n = 0 folds either way, but only this way does
 * GCC lay the function out as its own (an always_inline builder moved the
 * data segment out of line, a jump more a frame).
 */
template <SqKind K> [[gnu::flatten]] int xdpsq_send(Sq *sq, const XdpTxDesc &d)
{
	return xdpsq_send_wqe<K, false>(sq, d, nullptr, 0);
}

/* Inline hysteresis, decided once per session on the frames still outstanding. */
inline void xdp_update_inline(Sq *sq)
{
	u32 outstanding = sq->dma_pc - __atomic_load_n(&sq->dma_cc, __ATOMIC_RELAXED);

	if (outstanding >= kXdpInlineHigh)
		sq->xdp_inline = true;
	else if (outstanding <= kXdpInlineLow)
		sq->xdp_inline = false;
}

/* Append the frame to the open session, opening one first when none is. */
template <SqKind K> int xdpsq_mpw(Sq *sq, const XdpTxDesc &d)
{
	MpwSession &s = sq->mpw;

	if (__builtin_expect(!xdp_len_ok(sq, d.len), 0))
		return xdp_invalid<K>(sq);
	if (!s.ctrl) {
		if (__builtin_expect(!sq->has_room(sq->lim.stop_room), 0))
			return xdp_full(sq);
		pad_to_edge<K>(sq, kMpwMaxWqeBBs);
		mpw_open(sq, 0);
		xdp_update_inline(sq);
		sq->xstats->mpwqe.inc();
	}
	if (sq->xdp_inline && d.len <= kXdpMaxInline) {
		u8 *seg = reinterpret_cast<u8 *>(s.ctrl) + s.ds_count * prm::kSendWqeDS;
		prm::be32 bc;

		bc.set(d.len | prm::kInlineSegFlag);
		__builtin_memcpy(seg, &bc, sizeof(bc));
		__builtin_memcpy(seg + sizeof(bc), d.data, d.len);
		s.ds_count = (u16)(s.ds_count + div_round_up(sizeof(bc) + d.len, prm::kSendWqeDS));
		sq->xstats->inlnw.inc();
	} else {
		mpw_add_dseg(sq, d.dma, d.len);
	}
	fifo_push(sq, d.dma, d.len, SCX_DMA_SINGLE, d.obj);
	s.pkt_count++;
	sq->xstats->xmit.inc();
	/* full: no room for one more frame of the largest kind this session takes */
	if (sq->xdp_inline ? s.ds_count + kXdpInlineMaxDs > kMpwMaxDs : s.ds_count == kMpwMaxDs)
		mpw_close(sq);
	return 0;
}

template <SqKind K, bool kMpw> inline int xdpsq_xmit(Sq *sq, const XdpTxDesc &d)
{
	return kMpw ? xdpsq_mpw<K>(sq, d) : xdpsq_send<K>(sq, d);
}

} /* namespace softcx::en */
