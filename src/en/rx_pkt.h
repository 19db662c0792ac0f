/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What both RQ types do with a received frame before it becomes an skb:
 * the CQE's metadata (hash, checksum verdict) and the XDP program's
 * verdict, carried out the same way for a cyclic slot and a stride.
 */
#pragma once

#include "en/rq.h"

namespace softcx::en {

/*
 * mlx5 hands up the sum of frames longer than this (the minimum frame with
 * its FCS) and the verdict of shorter ones, whose padding its device's sum
 * leaves out.
 */
constexpr u32 kCsumShortFrame = 64;

/*
 * The verdict among those mask allows: the CQE's sum for an IP frame
 * longer than kCsumShortFrame bytes (len: as delivered), else
 * CHECKSUM_UNNECESSARY when the device found the L3 and L4 checksums right
 * (L4_OK: of TCP/UDP, or of a tunnel's inner frame, which in an IP tunnel
 * follows no outer TCP/UDP header), as mlx5e_handle_csum, else none.
 */
inline u8 rx_csum(const prm::Cqe64 *cqe, u32 len, u8 mask)
{
	u8 ok = prm::kCqeL3Ok | prm::kCqeL4Ok;

	if (len > kCsumShortFrame && (mask & SCX_CSUM_COMPLETE) &&
	    cqe->l3_type() != prm::kCqeL3None)
		return SCX_CSUM_COMPLETE;
	if ((cqe->hds_ip_ext & ok) == ok)
		return (u8)(mask & SCX_CSUM_UNNECESSARY);
	return SCX_CSUM_NONE;
}

inline u8 rx_hash_type(const prm::Cqe64 *cqe)
{
	if (cqe->rss_hash_type & prm::kRssHashL4Mask)
		return SCX_HASH_L4;
	if (cqe->rss_hash_type & prm::kRssHashIpMask)
		return SCX_HASH_L3;
	return SCX_HASH_NONE;
}

/* The RQ's timestamp mask: all ones while RX timestamps are wanted, else 0. */
inline u64 rx_ts_mask(const Rq *rq) { return __atomic_load_n(&rq->ts_mask, __ATOMIC_RELAXED); }
/* The RQ's checksum mask: the SCX_CSUM_* verdicts it may give (0: none). */
inline u8 rx_csum_mask(const Rq *rq) { return __atomic_load_n(&rq->csum_mask, __ATOMIC_RELAXED); }

/*
 * A CQE's metadata, pkt->len set. The raw device timestamp when the RQ
 * wants it (ts_mask), else 0; the checksum verdict among those the RQ
 * gives (csum_mask, SCX_CSUM_NONE being 0), with the CQE's sum as it lies.
 */
inline void rx_pkt_meta(const prm::Cqe64 *cqe, scx_rx_pkt *pkt, u64 ts_mask, u8 csum_mask)
{
	static_assert(SCX_CSUM_NONE == 0, "rx_pkt_meta masks the verdict to SCX_CSUM_NONE");
	static_assert(SCX_CSUM_UNNECESSARY == 1 && SCX_CSUM_COMPLETE == 2 && prm::kCqeTunneled == 1,
		      "csum_inner is the verdict's and the tunneled bit's AND");
	pkt->ts = ((u64)cqe->timestamp_h.get() << 32 | cqe->timestamp_l.get()) & ts_mask;
	pkt->hash = cqe->rss_hash_result.get();
	pkt->hash_type = rx_hash_type(cqe);
	pkt->csum = rx_csum(cqe, pkt->len, csum_mask);
	pkt->csum_raw = cqe->check_sum.raw;
	pkt->meta_len = 0;
	pkt->vlan = cqe->has_vlan();
	pkt->vlan_tci = cqe->vlan_info.get();
	/* 1 only for SCX_CSUM_UNNECESSARY (1) of a tunneled frame (kCqeTunneled 1) */
	pkt->csum_inner = pkt->csum & cqe->tls_outer_l3_tunneled & prm::kCqeTunneled;
}

/*
 * Counted once the stack took the packet: `segs` wire packets of `bytes`
 * in all (more than one: a hardware GRO session, every segment of which
 * had the first one's checksum verdict and tag).
 */
inline void rx_count_delivered(RqStats *s, const scx_rx_pkt &pkt, u32 segs, u32 bytes)
{
	s->packets.add(segs);
	s->bytes.add(bytes);
	if (pkt.csum == SCX_CSUM_UNNECESSARY) {
		if (__builtin_expect(pkt.csum_inner, 0))
			s->csum_unnecessary_inner.add(segs);
		else
			s->csum_unnecessary.add(segs);
	} else if (pkt.csum == SCX_CSUM_COMPLETE) {
		s->csum_complete.add(segs);
	} else {
		s->csum_none.add(segs);
	}
	if (pkt.vlan)
		s->removed_vlan_packets.add(segs);
}

inline void rx_count_delivered(RqStats *s, const scx_rx_pkt &pkt)
{
	rx_count_delivered(s, pkt, 1, pkt.len);
}

/* What became of a frame the program saw. */
enum class XdpFate : u8 {
	Pass,		/* on to the stack, pkt adjusted */
	Taken,		/* XDP_TX posted or redirected: the page (a reference of it) went along */
	Dropped,	/* DROP, ABORTED, unknown, or an XDP_TX that could not be posted */
};

/*
 * Run the program on the frame in page (at pkt->headroom, frame_sz bytes
 * from the page) and carry out its verdict. Defined in rq.cpp only: the
 * XDP SQ's inline builders it calls must be instantiated in one object
 * (a second copy leaves __mcount_loc naming a discarded COMDAT section).
 */
template <RxXdp X>
XdpFate rx_run_xdp(Rq *rq, void *page, u64 dma, u32 frame_sz, scx_rx_pkt *pkt);

} /* namespace softcx::en */
