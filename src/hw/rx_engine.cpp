// SPDX-License-Identifier: GPL-2.0
/*
 * RX engine: a frame from the wire is steered by RSS to an RQ, placed in the
 * next posted buffer of a cyclic RQ or at the next free strides of a
 * striding RQ, and reported by a CQE that carries what the driver needs for
 * the skb: length, WQE (and stride) index, hash, header types, checksum sum
 * and verdicts.
 */
#include "hw/checksum.h"
#include "hw/engine.h"
#include "hw/rss.h"
#include "prm/cqe.h"
#include "prm/wqe.h"

namespace softcx::hw {
namespace {

constexpr u8 kTcpAck = 0x10;

struct RxFrame {
	const u8 *data;
	u32 len;
	PacketInfo pi;
	RssResult rss;
};

u8 l4_cqe_type(const RxFrame &f)
{
	if (f.pi.l4_proto == kIpProtoUdp)
		return prm::kCqeL4Udp;
	if (f.pi.l4_proto != kIpProtoTcp)
		return prm::kCqeL4None;
	const u8 *tcp = f.data + f.pi.l4_off;
	u32 payload = f.pi.l4_len - (u32)(tcp[12] >> 4) * 4;
	if (!(tcp[13] & kTcpAck))
		return prm::kCqeL4TcpNoAck;
	return payload ? prm::kCqeL4TcpAckData : prm::kCqeL4TcpAckNoData;
}

u8 l3_cqe_type(const RxFrame &f)
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
 * Inlined into both placements: once the striding RQ became its second
 * caller, GCC stopped inlining it into the cyclic RQ's, which cost 34
 * instructions per packet (bench/vm/icount.sh, performance-history.md).
 */
[[gnu::always_inline]] inline void fill_rx_cqe(const RxFrame &f, u16 wqe_counter, prm::Cqe64 *cqe)
{
	__builtin_memset(cqe, 0, sizeof(*cqe));
	cqe->rss_hash_result.set(f.rss.hash);
	cqe->rss_hash_type = f.rss.hash_type;
	/* Raw sum from the L3 header to the end of the frame: CHECKSUM_COMPLETE material. */
	RxCsum cs;
	csum_rx(f.data, f.len, f.pi, &cs);
	cqe->check_sum.set(cs.raw);
	if (cs.l3_ok)
		cqe->hds_ip_ext |= prm::kCqeL3Ok;
	if (cs.l4_ok)
		cqe->hds_ip_ext |= prm::kCqeL4Ok;
	cqe->l4_l3_hdr_type = (u8)((l4_cqe_type(f) << 4) | (l3_cqe_type(f) << 2));
	cqe->byte_cnt.set(f.len);
	cqe->wqe_counter.set(wqe_counter);
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
 * A buffer the device cannot write to: error CQE, the WQE is consumed, the
 * RQ stops. A striding RQ's error CQE names the WQE (wqe_id) and the stride
 * (wqe_counter) as its packet CQEs do.
 */
void rx_error(Function *fn, Rq *rq, u8 syndrome, IrqBatch *irqs)
{
	prm::ErrCqe err = {};
	err.syndrome = syndrome;
	err.s_wqe_opcode_qpn.set(rq->num);
	if (rq->striding) {
		reinterpret_cast<prm::Cqe64 *>(&err)->wqe_id.set(rq->wqe_ix);
		err.wqe_counter.set((u16)rq->stride);
	} else {
		err.wqe_counter.set((u16)rq->cc);
	}
	rx_cqe(fn, rq, reinterpret_cast<const prm::Cqe64 *>(&err), prm::kCqeRespErr, 0, irqs);
	rq->cc++;
	rq->state = prm::kQueueErr;
	scx_os_log(SCX_LOG_DEBUG, "softcx hw: fn%u rq 0x%x: WQE %u error 0x%x\n", fn->ix, rq->num,
		   rq->cc - 1, syndrome);
}

/*
 * The device keeps the last posted count it read and reads the doorbell
 * record again only when it has caught up with it.
 */
bool rq_has_wqe(Function *fn, Rq *rq)
{
	if ((u16)rq->cc == rq->posted)
		rq->posted = (u16)dbrec_read(fn, rq->dbrec, prm::kRcvDbr);
	return (u16)rq->cc != rq->posted;
}

/* Caller holds the RQ lock; the RQ is RDY. */
void rq_place(Function *fn, Rq *rq, const RxFrame &f, IrqBatch *irqs)
{
	if (!rq_has_wqe(fn, rq)) {
		bus_add(&fn->qc.rx_out_of_buffer, 1);
		return;
	}
	/* No room for its CQE (an overrun, or the CQ stopped by one): dropped, the WQE kept. */
	if (__builtin_expect(!cq_has_room(fn, rq->cq, irqs), 0)) {
		bus_add(&fn->qc.rx_cq_overrun, 1);
		return;
	}

	u32 mask = (1u << rq->log_size) - 1;
	prm::RxWqeCyc wqe;
	__builtin_memcpy(&wqe, rq->ring + (usize)(rq->cc & mask) * sizeof(wqe), sizeof(wqe));
	bus_add(&fn->bus.rd_desc_bytes, sizeof(wqe));

	if (wqe.data.lkey.get() != prm::kReservedLkey) {
		rx_error(fn, rq, prm::kSyndLocalProtErr, irqs);
		return;
	}
	/* Too long for the posted buffer: dropped, the buffer stays for the next frame. */
	if (f.len > wqe.data.byte_count.get()) {
		bus_add(&fn->qc.rx_oversize_pkts_buffer, 1);
		return;
	}
	/* Not mapped for the device (stale or wrong): nothing is written. */
	void *dst = dma_translate(fn, wqe.data.addr.get(), f.len);
	if (!dst) {
		rx_error(fn, rq, prm::kSyndLocalProtErr, irqs);
		return;
	}
	__builtin_memcpy(dst, f.data, f.len);
	bus_add(&fn->bus.wr_data_bytes, f.len);

	prm::Cqe64 cqe;
	fill_rx_cqe(f, (u16)rq->cc, &cqe);
	rx_cqe(fn, rq, &cqe, prm::kCqeRespSend, (u16)(rq->cc + 1), irqs);
	rq->cc++;
}

/* ---- striding RQ ---- */

/*
 * Data segment k of the current WQE, from the ring. The device fetches
 * the descriptor once, when it starts the WQE (striding_wqe_ok counts
 * those bytes); later reads are of its copy.
 */
prm::DataSeg striding_seg(const Rq *rq, u32 k)
{
	prm::DataSeg d;
	u32 mask = (1u << rq->log_size) - 1;
	const u8 *wqe = rq->ring + ((usize)(rq->wqe_ix & mask) << rq->log_wqe_bytes);
	__builtin_memcpy(&d, wqe + sizeof(prm::SrqNextSeg) + (usize)k * sizeof(d), sizeof(d));
	return d;
}

u32 striding_nsegs(const Rq *rq)
{
	return ((1u << rq->log_wqe_bytes) - (u32)sizeof(prm::SrqNextSeg)) / (u32)sizeof(prm::DataSeg);
}

/*
 * A WQE the device starts to fill must describe exactly its buffer
 * (stride size x strides) with the reserved lkey; anything else is a
 * malformed WQE: length error, the RQ stops.
 */
bool striding_wqe_ok(Function *fn, Rq *rq, u8 *syndrome)
{
	u64 want = 1ull << (rq->log_stride + rq->log_num_strides), have = 0;
	u32 k, first = 0;
	bool uniform = true;

	for (k = 0; k < striding_nsegs(rq) && have < want; k++) {
		prm::DataSeg d = striding_seg(rq, k);
		u32 n = d.byte_count.get();
		if (!n)
			break;
		if (d.lkey.get() != prm::kReservedLkey) {
			*syndrome = prm::kSyndLocalProtErr;
			return false;
		}
		first = k ? first : n;
		uniform &= n == first;
		have += n;
	}
	bus_add(&fn->bus.rd_desc_bytes, (u64)k * sizeof(prm::DataSeg));
	rq->wqe_seg_bytes = uniform ? first : 0;
	*syndrome = prm::kSyndLocalLengthErr;
	return have == want;
}

/*
 * Scatter len bytes at offset off of the current WQE's buffer; false on a
 * DMA fault. With segments of one size, the first one written is found
 * by division, not by walking the WQE.
 */
bool striding_write(Function *fn, const Rq *rq, u32 off, const u8 *data, u32 len)
{
	u32 k = 0;

	if (rq->wqe_seg_bytes) {
		k = off / rq->wqe_seg_bytes;
		off -= k * rq->wqe_seg_bytes;
	}
	for (; len && k < striding_nsegs(rq); k++) {
		prm::DataSeg d = striding_seg(rq, k);
		u32 n = d.byte_count.get();
		if (off >= n) {
			off -= n;
			continue;
		}
		n = n - off < len ? n - off : len;
		void *dst = dma_translate(fn, d.addr.get() + off, n);
		if (!dst)
			return false;
		__builtin_memcpy(dst, data, n);
		bus_add(&fn->bus.wr_data_bytes, n);
		data += n;
		len -= n;
		off = 0;
	}
	return !len;
}

/* The WQE is used up: move to the one its next segment names. */
void striding_retire(Function *fn, Rq *rq)
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

void striding_cqe(Rq *rq, u32 byte_cnt, prm::Cqe64 *cqe)
{
	cqe->byte_cnt.set(byte_cnt);
	cqe->wqe_id.set(rq->wqe_ix);
	cqe->wqe_counter.set((u16)rq->stride);
}

/* The strides left in the WQE are too few for the frame: a filler CQE covers them. */
void striding_fill(Function *fn, Rq *rq, IrqBatch *irqs)
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

/*
 * A striding RQ places each frame at the next free stride of its current
 * WQE, in as many strides as it needs, and reports the WQE (wqe_id), the
 * first stride (wqe_counter) and the strides consumed (byte_cnt 30:16).
 * A WQE whose last stride is used is retired; so is one whose remaining
 * strides are too few, after a filler CQE for them. Caller holds the RQ
 * lock; the RQ is RDY.
 */
void rq_place_striding(Function *fn, Rq *rq, const RxFrame &f, IrqBatch *irqs)
{
	u32 need = (f.len + (1u << rq->log_stride) - 1) >> rq->log_stride;
	u32 nstrides = 1u << rq->log_num_strides;
	u8 syndrome;

	/* Longer than a whole WQE: dropped, nothing consumed. */
	if (need > nstrides) {
		bus_add(&fn->qc.rx_oversize_pkts_buffer, 1);
		return;
	}
	/*
	 * No WQE to start: out of buffer, before the CQ check. With a CQE per
	 * stride, every stride used and unpolled fills the CQ too; that is a
	 * full ring, not an overrun (which would stop the CQ).
	 */
	if (!rq->stride && !rq_has_wqe(fn, rq)) {
		bus_add(&fn->qc.rx_out_of_buffer, 1);
		return;
	}
	/* No room for its CQE (an overrun, or the CQ stopped by one): dropped, nothing consumed. */
	if (__builtin_expect(!cq_has_room(fn, rq->cq, irqs), 0)) {
		bus_add(&fn->qc.rx_cq_overrun, 1);
		return;
	}
	if (rq->stride && rq->stride + need > nstrides)
		striding_fill(fn, rq, irqs);
	if (!rq->stride) {
		if (!rq_has_wqe(fn, rq)) {
			bus_add(&fn->qc.rx_out_of_buffer, 1);
			return;
		}
		if (!striding_wqe_ok(fn, rq, &syndrome)) {
			rx_error(fn, rq, syndrome, irqs);
			return;
		}
	}
	if (!striding_write(fn, rq, rq->stride << rq->log_stride, f.data, f.len)) {
		rx_error(fn, rq, prm::kSyndLocalProtErr, irqs);
		return;
	}

	prm::Cqe64 cqe;
	fill_rx_cqe(f, 0, &cqe);
	striding_cqe(rq, f.len | need << prm::kMpwrqCqeStridesShift, &cqe);
	/* a filler CQE took the last slot: the frame's CQE overruns the CQ */
	if (__builtin_expect(!rx_cqe(fn, rq, &cqe, prm::kCqeRespSend, (u16)(rq->stride + need), irqs),
			     0))
		bus_add(&fn->qc.rx_cq_overrun, 1);
	rq->stride += need;
	if (rq->stride == nstrides)
		striding_retire(fn, rq);
}

} /* namespace */

void rx_receive(Function *fn, const u8 *data, u32 len, IrqBatch *irqs)
{
	if (len < kMinFrame) {
		bus_add(&fn->qc.rx_malformed, 1);
		return;
	}
	mac_rx(fn, data, len);

	RxFrame f;
	f.data = data;
	f.len = len;
	parse_frame(data, len, &f.pi);
	int ix = rss_steer(fn, data, f.pi, &f.rss) ? obj_slot(f.rss.rqn, ObjType::Rq, kMaxRqs) : -1;
	if (ix < 0) {
		bus_add(&fn->qc.rx_if_down_packets, 1);
		return;
	}

	Rq *rq = &fn->rq[ix];
	scx_os_lock(rq->lock);
	if (rq->num != f.rss.rqn || rq->state != prm::kQueueRdy)
		bus_add(&fn->qc.rx_if_down_packets, 1);
	else if (rq->striding)
		rq_place_striding(fn, rq, f, irqs);
	else
		rq_place(fn, rq, f, irqs);
	scx_os_unlock(rq->lock);
}

} /* namespace softcx::hw */
