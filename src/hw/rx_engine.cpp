// SPDX-License-Identifier: GPL-2.0
/*
 * RX engine: a frame from the wire is steered by RSS to an RQ, placed in the
 * next posted buffer of that cyclic RQ and reported by a CQE that carries
 * what the driver needs for the skb: length, WQE index, hash, header types,
 * checksum sum and verdicts.
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

void fill_rx_cqe(const RxFrame &f, u16 wqe_counter, prm::Cqe64 *cqe)
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

/* A buffer the device cannot write to: error CQE, the WQE is consumed, the RQ stops. */
void rx_error(Function *fn, Rq *rq, u8 syndrome, IrqBatch *irqs)
{
	prm::ErrCqe err = {};
	err.syndrome = syndrome;
	err.s_wqe_opcode_qpn.set(rq->num);
	err.wqe_counter.set((u16)rq->cc);
	cq_post(fn, rq->cq, reinterpret_cast<const prm::Cqe64 *>(&err), prm::kCqeRespErr, irqs);
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
	cq_post(fn, rq->cq, &cqe, prm::kCqeRespSend, irqs);
	rq->cc++;
}

} /* namespace */

void rx_receive(Function *fn, const u8 *data, u32 len, IrqBatch *irqs)
{
	if (len < kMinFrame) {
		bus_add(&fn->qc.rx_malformed, 1);
		return;
	}

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
	if (rq->num == f.rss.rqn && rq->state == prm::kQueueRdy)
		rq_place(fn, rq, f, irqs);
	else
		bus_add(&fn->qc.rx_if_down_packets, 1);
	scx_os_unlock(rq->lock);
}

} /* namespace softcx::hw */
