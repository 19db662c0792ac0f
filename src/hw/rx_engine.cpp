// SPDX-License-Identifier: GPL-2.0
/*
 * RX engine: a frame from the wire is steered to an RQ (flow table, then
 * RSS), placed in the next posted buffer of a cyclic RQ or at the next free
 * strides of a striding RQ, and reported by a CQE that carries what the driver needs for
 * the skb: length, WQE (and stride) index, hash, header types, checksum sum
 * and verdicts.
 */
#include "hw/flow.h"
#include "hw/rx.h"
#include "hw/tunnel.h"
#include "hw/vport.h"

namespace softcx::hw {

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
	/* no room (a filler CQE of this frame took the last slot): the frame is an overrun */
	if (!rx_cqe(fn, rq, reinterpret_cast<const prm::Cqe64 *>(&err), prm::kCqeRespErr, 0, irqs))
		bus_add(&fn->qc.rx_cq_overrun, 1);
	rq->cc++;
	rq->state = prm::kQueueErr;
	scx_os_log(SCX_LOG_DEBUG, "softcx hw: fn%u rq 0x%x: WQE %u error 0x%x\n", fn->ix, rq->num,
		   rq->cc - 1, syndrome);
}

namespace {

/*
 * A cyclic WQE of several data segments: the frame scattered into them in
 * order, up to the first end mark (lkey kInvalidLkey). False when it was
 * not placed: too long for the listed segments (dropped, the WQE stays) or
 * a segment the device may not write (error CQE, as for one segment).
 */
[[gnu::noinline]] bool rq_scatter(Function *fn, Rq *rq, const u8 *wqe, const u8 *data, u32 n,
				IrqBatch *irqs)
{
	u32 nseg = 1u << (rq->log_wqe_bytes - prm::kRxWqeCycMinLogStride);
	prm::DataSeg seg[prm::kRxWqeCycMaxSegs];
	__builtin_memcpy(seg, wqe, nseg * sizeof(seg[0]));
	bus_add(&fn->bus.rd_desc_bytes, nseg * sizeof(seg[0]));

	u32 room = 0;
	for (u32 k = 0; k < nseg && seg[k].lkey.get() != prm::kInvalidLkey; k++) {
		if (seg[k].lkey.get() != prm::kReservedLkey) {
			rx_error(fn, rq, prm::kSyndLocalProtErr, irqs);
			return false;
		}
		room += seg[k].byte_count.get();
	}
	if (n > room) {
		bus_add(&fn->qc.rx_oversize_pkts_buffer, 1);
		return false;
	}
	/* every piece translated before any is written */
	void *dst[prm::kRxWqeCycMaxSegs];
	u32 part[prm::kRxWqeCycMaxSegs];
	u32 k = 0;
	for (u32 left = n; left; k++) {
		part[k] = left < seg[k].byte_count.get() ? left : seg[k].byte_count.get();
		dst[k] = part[k] ? dma_translate(fn, seg[k].addr.get(), part[k]) : nullptr;
		if (part[k] && !dst[k]) {
			rx_error(fn, rq, prm::kSyndLocalProtErr, irqs);
			return false;
		}
		left -= part[k];
	}
	for (u32 i = 0, off = 0; i < k; off += part[i], i++)
		if (part[i])
			__builtin_memcpy(dst[i], data + off, part[i]);
	bus_add(&fn->bus.wr_data_bytes, n);
	return true;
}

/*
 * Caller holds the RQ lock; the RQ is RDY. Both placements are inlined
 * into rx_receive(), their one caller: a call and its register saves cost
 * about 20 instructions a frame (bench/vm/icount.sh).
 */
[[gnu::always_inline]] inline void rq_place(Function *fn, Rq *rq, const RxFrame &f,
					     IrqBatch *irqs)
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
	const u8 *wqe = rq->ring + ((usize)(rq->cc & mask) << rq->log_wqe_bytes);
	u32 n = f.len + f.fcs;
	prm::DataSeg d;
	__builtin_memcpy(&d, wqe, sizeof(d));

	if (__builtin_expect(rq->log_wqe_bytes == prm::kRxWqeCycMinLogStride, 1)) {
		/* one data segment: the linear layout */
		bus_add(&fn->bus.rd_desc_bytes, sizeof(d));
		if (d.lkey.get() != prm::kReservedLkey) {
			rx_error(fn, rq, prm::kSyndLocalProtErr, irqs);
			return;
		}
		/* Too long for the posted buffer: dropped, the WQE stays for the next frame. */
		if (n > d.byte_count.get()) {
			bus_add(&fn->qc.rx_oversize_pkts_buffer, 1);
			return;
		}
		/* Not mapped for the device (stale or wrong): nothing is written. */
		void *dst = dma_translate(fn, d.addr.get(), n);
		if (!dst) {
			rx_error(fn, rq, prm::kSyndLocalProtErr, irqs);
			return;
		}
		__builtin_memcpy(dst, f.data, n);
		bus_add(&fn->bus.wr_data_bytes, n);
	} else if (!rq_scatter(fn, rq, wqe, f.data, n, irqs)) {
		return;
	}

	u16 wc = (u16)rq->cc;
	/* room checked above, nothing posted since */
	rx_cqe_build(fn, rq, prm::kCqeRespSend, (u16)(wc + 1), irqs, true,
		     [&](prm::Cqe64 *cqe) __attribute__((always_inline)) {
			     fill_rx_cqe_fields(f, cqe);
			     cqe->byte_cnt.set(n);
			     cqe->wqe_counter.set(wc);
		     });
	rq->cc++;
}

/*
 * A striding RQ places each frame at the next free stride of its current
 * WQE, in as many strides as it needs, and reports the WQE (wqe_id), the
 * first stride (wqe_counter) and the strides consumed (byte_cnt 30:16).
 * A WQE whose last stride is used is retired; so is one whose remaining
 * strides are too few, after a filler CQE for them. Caller holds the RQ
 * lock; the RQ is RDY.
 */
[[gnu::always_inline]] inline void rq_place_striding(Function *fn, Rq *rq, const RxFrame &f,
						      IrqBatch *irqs)
{
	u32 n = f.len + f.fcs;
	u32 need = (n + (1u << rq->log_stride) - 1) >> rq->log_stride;
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
	/* filler CQEs may take the room found above */
	bool filled = rq->stride && rq->stride + need > nstrides;
	if (filled)
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
	if (!striding_write(fn, rq, rq->stride << rq->log_stride, f.data, n)) {
		rx_error(fn, rq, prm::kSyndLocalProtErr, irqs);
		return;
	}

	/* a filler CQE took the last slot: the frame's CQE overruns the CQ */
	if (__builtin_expect(!rx_cqe_build(fn, rq, prm::kCqeRespSend, (u16)(rq->stride + need), irqs,
					   !filled, [&](prm::Cqe64 *cqe) __attribute__((always_inline)) {
						   fill_rx_cqe_fields(f, cqe);
						   striding_cqe(rq, n | need << prm::kMpwrqCqeStridesShift,
								cqe);
					   }),
			     0))
		bus_add(&fn->qc.rx_cq_overrun, 1);
	rq->stride += need;
	if (rq->stride == nstrides)
		striding_retire(fn, rq);
}

/*
 * A frame fn receives: from the wire through its MAC (kWire), or from its
 * own TX by local loopback. Both entry points below inline it whole.
 */
template <bool kWire>
[[gnu::always_inline]] inline void rx_frame(Function *fn, const u8 *data, u8 *buf, u32 len,
					    u32 fault, u64 ts, IrqBatch *irqs)
{
	bool bad_fcs = false;

	if (len < kMinFrame) {
		bus_add(&fn->qc.rx_malformed, 1);
		return;
	}
	if constexpr (kWire) {
		if (__builtin_expect(fault != kFaultNone, 0))
			bad_fcs = phy_rx_fault(fn, fault);
		if (__builtin_expect(bad_fcs, 0)) {
			if (!mac_rx_bad_fcs(fn, len))
				return;
		} else {
			mac_rx(fn, data, len);
		}
	}

	/* pi by parse_frame, rss by the steering that lets the frame on: no zeroing first */
	RxFrame f SCX_SCRATCH;
	f.data = data;
	f.len = len;
	f.fcs = 0;
	f.vlan = 0;
	f.vlan_tci = 0;
	f.ts = ts;
	parse_frame(data, len, &f.pi);
	/*
	 * The flow table first; without entries (the usual case) one load and a
	 * branch. Then the address filter (hw/vport.h), for frames no entry took:
	 * not to an address the function takes, or tagged with a VLAN it does
	 * not (the parser found a tag: the layer 3 header is past it), dropped
	 * and counted.
	 */
	const bool flows = __builtin_expect(__atomic_load_n(&fn->flows.n, __ATOMIC_RELAXED) != 0, 0);
	FlowVerdict v = FlowVerdict::Miss;
	if (flows) {
		v = flow_steer(fn, data, f.pi, &f.rss);
		if (v == FlowVerdict::Drop) {
			bus_add(&fn->qc.rx_steer_drop, 1);
			return;
		}
	}
	if (v == FlowVerdict::Miss &&
	    (!vport_accepts(fn, data) ||
	     (__builtin_expect(f.pi.l3_off != kEthHdrLen, 0) && !vport_vlan_accepts(fn, data)))) {
		bus_add(&fn->qc.rx_steer_missed, 1);
		return;
	}
	/* FlowVerdict::Dead: not steered */
	const bool steered = !flows ? rss_steer(fn, data, f.pi, irqs->rss_cache, &f.rss)
				    : v == FlowVerdict::Steered ||
					      (v == FlowVerdict::Miss &&
					       rss_steer_slow(fn, data, f.pi, irqs->rss_cache, &f.rss));
	int ix = steered ? obj_slot(f.rss.rqn, ObjType::Rq, kMaxRqs) : -1;
	if (ix < 0) {
		bus_add(&fn->qc.rx_if_down_packets, 1);
		return;
	}

	Rq *rq = &fn->rq[ix];
	scx_os_lock(rq->lock);
	if (rq->num != f.rss.rqn || rq->state != prm::kQueueRdy) {
		bus_add(&fn->qc.rx_if_down_packets, 1);
		scx_os_unlock(rq->lock);
		return;
	}
	/* The RQ changes the frame: in buf, copied there first if the sender kept it. */
	if (__builtin_expect(rq->scatter_fcs || (!rq->vsd && rx_has_vlan(data, len)), 0)) {
		if (data != buf) {
			__builtin_memcpy(buf, data, len);
			f.data = buf;
		}
		if (rq->scatter_fcs)
			rx_put_fcs(buf, len, bad_fcs, &f);
		if (!rq->vsd)
			rx_strip_vlan(buf, &f);
	}
	f.ioff = tunnel_inner_rx(fn, f.data, f.pi, &f.itype);
	if (__builtin_expect(rq->shampo.en, 0))
		rq_place_shampo(fn, rq, f, irqs);
	else if (rq->striding)
		rq_place_striding(fn, rq, f, irqs);
	else
		rq_place(fn, rq, f, irqs);
	scx_os_unlock(rq->lock);
}

} /* namespace */

void rx_tunnel_csum(const RxFrame &f, RxCsum *cs)
{
	const u8 *inner = f.data + f.ioff;
	u32 len = f.pi.l4_off + f.pi.l4_len - f.ioff;
	PacketInfo pi;
	RxCsum in;

	parse_inner(inner, len, f.itype, &pi);
	csum_rx_general(inner, len, pi, &in);
	cs->l3_ok = cs->l3_ok && in.l3_ok;
	if (f.pi.l4_proto) {
		cs->l4_ok = cs->l4_ok && in.l4_ok;
		return;
	}
	const u8 *l4 = f.data + f.pi.l4_off;
	cs->l4_ok = in.l4_ok &&
		    (ip_proto(f.data, f.pi) != prm::kIpProtoGre ||
		     !(prm::load_be16(l4) & prm::kGreCsum) ||
		     csum_fold(csum_add(0, l4, f.pi.l4_len)) == 0xffff);
}

void rx_receive(Function *fn, const u8 *data, u8 *buf, u32 len, u32 fault, u64 ts,
		IrqBatch *irqs)
{
	rx_frame<true>(fn, data, buf, len, fault, ts, irqs);
}

void rx_loopback(Function *fn, const u8 *data, u8 *buf, u32 len, u64 ts, IrqBatch *irqs)
{
	rx_frame<false>(fn, data, buf, len, kFaultNone, ts, irqs);
}

bool wire_xmit_slow(Function *fn, u32 wire, const u8 *frame, u8 *buf, u32 len, u64 ts,
		    IrqBatch *irqs)
{
	if ((wire & kWireLocalLb) && vport_own_unicast(fn, frame)) {
		rx_loopback(fn, frame, buf, len, ts, irqs);
		return true;
	}
	if (!(wire & kWireUp)) {
		bus_add(&fn->port.tx_discards, 1);
		return true;
	}
	return false;
}

} /* namespace softcx::hw */
