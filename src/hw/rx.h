/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The RX engine's pieces shared by its placements (rx_engine.cpp: cyclic
 * and striding RQs; shampo.cpp: SHAMPO on a striding RQ): the frame being
 * received, the CQE fields every RX CQE carries, and the striding RQ's WQE
 * walking. Inline, as they were when private to rx_engine.cpp, so that the
 * per-packet paths keep them inlined.
 */
#pragma once

#include "hw/checksum.h"
#include "hw/engine.h"
#include "hw/rss.h"
#include "prm/cqe.h"
#include "prm/wqe.h"

namespace softcx::hw {

struct RxFrame {
	const u8 *data;
	u32 len;
	u32 fcs;		/* 0, or prm::kFcsLen: the FCS follows data[len - 1] (rx_put_fcs) */
	PacketInfo pi;
	RssResult rss;
	u8 vlan;		/* an outer 802.1Q tag was stripped (rx_strip_vlan): vlan_tci */
	u16 vlan_tci;
	u64 ts;			/* the internal timer when the frame arrived (CQE timestamp) */
	u32 ioff;		/* a tunnel frame's inner frame (hw/tunnel.h); 0: none */
	u16 itype;		/* and its parse_inner() l3_type */
};

/*
 * A tunnel frame's verdicts (hw/tunnel.h): the outer ones in cs, and the
 * inner frame's IPv4 header and TCP/UDP checksums right too (an inner
 * frame without TCP/UDP: no L4 verdict). In an IP tunnel, which has no
 * outer L4 checksum, the L4 verdict is the inner one's and a GRE
 * checksum's, if the header has one.
 */
void rx_tunnel_csum(const RxFrame &f, RxCsum *cs);

/*
 * An RQ with vsd 0 takes the outer 802.1Q tag out of the frame (in place:
 * the wire's copy is the receiver's) and reports its TCI in the CQE. The
 * frame is parsed again, so checksum, SHAMPO split and lengths see the
 * frame as it is written; RSS was decided on the frame as it came, tag
 * or not (the hash does not cover the tag).
 */
inline bool rx_has_vlan(const u8 *data, u32 len)
{
	return len >= kEthHdrLen + kVlanHdrLen &&
	       prm::load_be16(data + kEthAddrsLen) == prm::kEthTypeVlan;
}

inline void rx_strip_vlan(u8 *data, RxFrame *f)
{
	if (!rx_has_vlan(data, f->len))
		return;
	f->vlan = 1;
	f->vlan_tci = prm::load_be16(data + kEthAddrsLen + 2);
	__builtin_memmove(data + kVlanHdrLen, data, kEthAddrsLen);
	f->data = data + kVlanHdrLen;
	f->len -= kVlanHdrLen;
	parse_frame(f->data, f->len, &f->pi);
}

/*
 * An RQ with scatter_fcs places the frame's FCS after it (as it came:
 * computed over the frame as on the wire, before any VLAN strip; a
 * damaged one inverted). Written in place after the frame, where the
 * stripped frame ends too; placements copy len + fcs bytes.
 */
inline void rx_put_fcs(u8 *data, u32 len, bool bad_fcs, RxFrame *f)
{
	u32 fcs = eth_fcs(data, len) ^ (bad_fcs ? 0xffffffffu : 0u);
	for (u32 i = 0; i < prm::kFcsLen; i++)
		data[len + i] = (u8)(fcs >> (8 * i));
	f->fcs = prm::kFcsLen;
}

inline u8 l4_cqe_type(const RxFrame &f)
{
	if (f.pi.l4_proto == kIpProtoUdp)
		return prm::kCqeL4Udp;
	if (f.pi.l4_proto != kIpProtoTcp)
		return prm::kCqeL4None;
	const u8 *tcp = f.data + f.pi.l4_off;
	u32 payload = f.pi.l4_len - (u32)(tcp[12] >> 4) * 4;
	if (!(tcp[13] & prm::kTcpAck))
		return prm::kCqeL4TcpNoAck;
	return payload ? prm::kCqeL4TcpAckData : prm::kCqeL4TcpAckNoData;
}

inline u8 l3_cqe_type(const RxFrame &f)
{
	switch (f.pi.l3) {
	case L3::Ipv4:
		return prm::kCqeL3Ipv4;
	case L3::Ipv6:
		return prm::kCqeL3Ipv6;
	default:
		return prm::kCqeL3None;
	}
}

/*
 * The fields every RX CQE of a frame carries; the placement adds where the
 * frame went and its length (rq_place(): wqe_counter and byte_cnt; a
 * striding RQ: striding_cqe()), so that neither is stored twice.
 * Inlined into both placements: once the striding RQ became its second
 * caller, GCC stopped inlining it into the cyclic RQ's, which cost 34
 * instructions per packet (bench/vm/icount.sh, performance-history.md).
 */
[[gnu::always_inline]] inline void fill_rx_cqe_fields(const RxFrame &f, prm::Cqe64 *cqe)
{
	cqe->rss_hash_result.set(f.rss.hash);
	cqe->rss_hash_type = f.rss.hash_type;
	/*
	 * Raw sum from the L3 header to the end of what is placed (the FCS
	 * too when the RQ scatters it: it follows the frame): the driver's
	 * CHECKSUM_COMPLETE, with the bytes of tags left before the L3 header.
	 */
	RxCsum cs;
	csum_rx(f.data, f.len + f.fcs, f.pi, &cs);
	if (__builtin_expect(f.ioff != 0, 0)) {
		rx_tunnel_csum(f, &cs);
		cqe->tls_outer_l3_tunneled = prm::kCqeTunneled;
	}
	cqe->check_sum.set(cs.raw);
	if (cs.l3_ok)
		cqe->hds_ip_ext |= prm::kCqeL3Ok;
	if (cs.l4_ok)
		cqe->hds_ip_ext |= prm::kCqeL4Ok;
	cqe->l4_l3_hdr_type = (u8)((l4_cqe_type(f) << 4) | (l3_cqe_type(f) << 2) | f.vlan);
	cqe->vlan_info.set(f.vlan_tci);
	cqe->timestamp_h.set((u32)(f.ts >> 32));
	cqe->timestamp_l.set((u32)f.ts);
}

/* The same on a CQE not zeroed yet. */
[[gnu::always_inline]] inline void fill_rx_cqe(const RxFrame &f, prm::Cqe64 *cqe)
{
	__builtin_memset(cqe, 0, sizeof(*cqe));
	fill_rx_cqe_fields(f, cqe);
}

/*
 * Every RX CQE goes through here: a CQ with cqe_comp_en compresses
 * (cq_comp.cpp), and `next` is the wqe_counter of a packet that would
 * continue this one's run.
 */
[[gnu::always_inline]] inline bool rx_cqe(Function *fn, Rq *rq, const prm::Cqe64 *cqe, u8 opcode,
					  u16 next, IrqBatch *irqs)
{
	if (__builtin_expect(rq->cq->comp.en, 0))
		return cq_post_rx(fn, rq, cqe, opcode, next, irqs);
	return cq_post(fn, rq->cq, cqe, opcode, irqs);
}

/*
 * A packet's CQE, its fields written by fill(cqe) on a zeroed CQE: in its
 * slot where the CQ takes CQEs in place (cq_post_built), else built here
 * and posted by rx_cqe(). False, nothing written, when the CQ has no room.
 * room_checked: as cq_post_built()'s (the placements check for room before
 * they write the frame).
 */
template <typename Fill>
[[gnu::always_inline]] inline bool rx_cqe_build(Function *fn, Rq *rq, u8 opcode, u16 next,
						IrqBatch *irqs, bool room_checked, Fill &&fill)
{
	if (__builtin_expect(rq->cq->in_place, 1))
		return cq_post_built(fn, rq->cq, opcode, irqs, fill, room_checked);
	prm::Cqe64 cqe;
	__builtin_memset(&cqe, 0, sizeof(cqe));
	fill(&cqe);
	return rx_cqe(fn, rq, &cqe, opcode, next, irqs);
}

/*
 * A buffer the device cannot write to: error CQE, the WQE is consumed, the
 * RQ stops. A striding RQ's error CQE names the WQE (wqe_id) and the stride
 * (wqe_counter) as its packet CQEs do. No room for the error CQE (a filler
 * CQE of the same frame took the last slot): the frame counts as
 * rx_cq_overrun.
 */
void rx_error(Function *fn, Rq *rq, u8 syndrome, IrqBatch *irqs);

/*
 * The device keeps the last posted count it read and reads the doorbell
 * record again only when it has caught up with it.
 */
inline bool rq_has_wqe(Function *fn, Rq *rq)
{
	if ((u16)rq->cc == rq->posted)
		rq->posted = (u16)dbrec_read(fn, rq->dbrec, prm::kRcvDbr);
	return (u16)rq->cc != rq->posted;
}

/* ---- striding RQ ---- */

/*
 * Data segment k of the current WQE, from the ring. The device fetches
 * the descriptor once, when it starts the WQE (striding_wqe_ok counts
 * those bytes); later reads are of its copy.
 */
inline prm::DataSeg striding_seg(const Rq *rq, u32 k)
{
	prm::DataSeg d;
	u32 mask = (1u << rq->log_size) - 1;
	const u8 *wqe = rq->ring + ((usize)(rq->wqe_ix & mask) << rq->log_wqe_bytes);
	__builtin_memcpy(&d, wqe + sizeof(prm::SrqNextSeg) + (usize)k * sizeof(d), sizeof(d));
	return d;
}

inline u32 striding_nsegs(const Rq *rq)
{
	return ((1u << rq->log_wqe_bytes) - (u32)sizeof(prm::SrqNextSeg)) / (u32)sizeof(prm::DataSeg);
}
static_assert(kMaxStridingSegs ==
	      ((1u << prm::kRxWqeStridingMaxLogStride) - sizeof(prm::SrqNextSeg)) / sizeof(prm::DataSeg));

/*
 * A WQE the device starts to fill must describe exactly its buffer
 * (stride size x strides) with the reserved lkey; anything else is a
 * malformed WQE: length error, the RQ stops. The shape of its segments
 * is kept for striding_write (hw/striding.h), and so is where each
 * segment is for the CPU: the device translates the whole buffer when it
 * starts the WQE, in the same walk of its segments, as an IOTLB it keeps
 * until the WQE is done. The driver owns none of those pages until then;
 * a segment it may not reach is a DMA fault when the first frame reaches
 * it. Out of line (hw/striding.cpp): once per WQE.
 */
bool striding_wqe_ok(Function *fn, Rq *rq, u8 *syndrome);

/*
 * Scatter len bytes at offset off of the current WQE's buffer (off + len
 * within it); false on a DMA fault. The first segment written is found
 * from the WQE's shape, or by walking the WQE; each segment was
 * translated when the WQE started (striding_wqe_ok), in one call: with the
 * DMA view, a call per page cost about 145 instructions, the batch about
 * 110 a page (bench/vm/icount.sh, performance-history.md).
 */
/* n bytes at offset off of the WQE's segment k, translated when the WQE started; false on a DMA fault. */
[[gnu::always_inline]] inline bool striding_put(Function *fn, Rq *rq, u32 k, u32 off, const u8 *data,
						u32 n)
{
	u8 *seg = static_cast<u8 *>(rq->seg_cpu[k]);
	if (__builtin_expect(!seg, 0)) {
		dma_fault(fn);
		return false;
	}
	__builtin_memcpy(seg + off, data, n);
	bus_add(&fn->bus.wr_data_bytes, n);
	return true;
}

[[gnu::always_inline]] inline bool striding_write(Function *fn, Rq *rq, u32 off, const u8 *data,
						  u32 len)
{
	u32 k = 0;

	if (rq->wqe_shape.log_seg != kSegWalk) {
		k = striding_locate(rq->wqe_shape, &off);
		/*
		 * The usual frame lies in one segment: by the shape's size for
		 * it, no segment read from the ring. The last segment may be
		 * shorter than that, but a frame that starts in it ends in it
		 * (off + len is within the buffer).
		 */
		u32 n = k ? 1u << rq->wqe_shape.log_seg : rq->wqe_shape.first;
		if (__builtin_expect(off + len <= n, 1))
			return striding_put(fn, rq, k, off, data, len);
	}
	for (; len && k < rq->seg_n; k++) {
		u32 n = striding_seg(rq, k).byte_count.get();
		if (off >= n) {
			off -= n;
			continue;
		}
		n = n - off < len ? n - off : len;
		if (!striding_put(fn, rq, k, off, data, n))
			return false;
		data += n;
		len -= n;
		off = 0;
	}
	return !len;
}

/* The WQE is used up: move to the one its next segment names. */
inline void striding_retire(Function *fn, Rq *rq)
{
	prm::SrqNextSeg next;
	u32 mask = (1u << rq->log_size) - 1;
	__builtin_memcpy(&next, rq->ring + ((usize)(rq->wqe_ix & mask) << rq->log_wqe_bytes),
			 sizeof(next));
	bus_add(&fn->bus.rd_desc_bytes, sizeof(next));
	rq->wqe_ix = next.next_wqe_index.get();
	rq->stride = 0;
	rq->cc++;
}

inline void striding_cqe(Rq *rq, u32 byte_cnt, prm::Cqe64 *cqe)
{
	cqe->byte_cnt.set(byte_cnt);
	cqe->wqe_id.set(rq->wqe_ix);
	cqe->wqe_counter.set((u16)rq->stride);
}

/* The strides left in the WQE are too few for the frame: a filler CQE covers them. */
inline void striding_fill(Function *fn, Rq *rq, IrqBatch *irqs)
{
	u32 left = (1u << rq->log_num_strides) - rq->stride;
	while (left) {
		u32 n = left < prm::kMpwrqCqeStridesMask ? left : prm::kMpwrqCqeStridesMask;
		prm::Cqe64 cqe = {};
		striding_cqe(rq, prm::kMpwrqCqeFiller | n << prm::kMpwrqCqeStridesShift, &cqe);
		rx_cqe(fn, rq, &cqe, prm::kCqeRespSend, 0, irqs);
		rq->stride += n;
		left -= n;
	}
	striding_retire(fn, rq);
}

/* SHAMPO (shampo.cpp): a frame for a striding RQ with shampo.en. Caller holds the RQ lock; RDY. */
void rq_place_shampo(Function *fn, Rq *rq, const RxFrame &f, IrqBatch *irqs);

} /* namespace softcx::hw */
