// SPDX-License-Identifier: GPL-2.0
/*
 * TX send queue: single-packet SEND WQEs, doorbell batching and
 * completion handling (one CQE per doorbell, walked back to the SQ).
 */
#include "en/sq.h"

#include "en/cmd.h"

namespace softcx::en {

namespace {

constexpr u32 kTxCqPollBudget = 128;	/* CQEs per poll, as mlx5 */
constexpr u32 kMinBqlBytes = 60;	/* ETH_ZLEN: what the wire carries at least */

void release_wqe(Sq *sq, const TxWqeInfo &wi, int napi_budget)
{
	for (u32 i = 0; i < wi.num_dma; i++) {
		const TxDmaEntry &e = sq->dma_fifo[sq->dma_cc++ & sq->dma_mask];

		scx_os_dma_unmap(sq->os_dev, e.dma, e.len, e.kind);
	}
	if (wi.skb)
		scx_os_tx_free(sq->os_channel, wi.skb, napi_budget);
}

/* One-WQEBB NOPs up to the ring edge so the next WQE is contiguous. */
void pad_to_edge(Sq *sq, u32 num_wqebbs)
{
	u32 contig = sq->size() - (sq->pc & sq->mask);

	if (contig >= num_wqebbs)
		return;
	while (contig--) {
		auto *ctrl = reinterpret_cast<prm::CtrlSeg *>(sq->wqe_at(sq->pc));

		__builtin_memset(ctrl, 0, prm::kSendWqeBB);
		ctrl->set(prm::kOpNop, sq->pc, sq->sqn, 1);
		sq->wqe_info[sq->pc & sq->mask] = TxWqeInfo{nullptr, 0, 1, 0};
		sq->doorbell_cseg = ctrl;
		sq->pc++;
		sq->stats->nop.inc();
	}
}

/* Bytes of headers the device requires inline, within the linear part. */
u32 inline_size(const Sq *sq, const scx_tx_pkt *pkt)
{
	u32 ihs = sq->min_inline;

	return ihs < pkt->headlen ? ihs : pkt->headlen;
}

} /* namespace */

int sq_create(Sq *sq, bus::Function *fn, void *os_dev, void *os_channel, u8 log_size,
	      u32 min_inline, u32 vector, SqStats *stats)
{
	prm::CreateSqIn in = {};
	prm::CreateObjOut out = {};
	u32 n = 1u << log_size;
	int err;

	sq->fn = fn;
	sq->os_dev = os_dev;
	sq->os_channel = os_channel;
	sq->stats = stats;
	sq->log_size = log_size;
	sq->mask = (u16)(n - 1);
	sq->min_inline = min_inline > kMaxInline ? kMaxInline : min_inline;
	/* A WQE of X WQEBBs may need X-1 NOPs of padding before it. */
	sq->stop_room = 2 * kSqMaxWqeBBs - 1;

	err = cq_create(&sq->cq, fn, os_dev, log_size, vector);
	if (err)
		return err;
	sq->wqe_info = zalloc_array<TxWqeInfo>(n);
	/* at most one mapping per DS; a WQE has fewer DS than WQEBBs * 4 */
	sq->dma_mask = n * prm::kDsPerWqeBB - 1;
	sq->dma_fifo = zalloc_array<TxDmaEntry>(sq->dma_mask + 1);
	err = -SCX_ENOMEM;
	if (!sq->wqe_info || !sq->dma_fifo)
		goto err;
	err = sq->ring.alloc(os_dev, n * prm::kSendWqeBB);
	if (err)
		goto err;
	err = sq->db.alloc(os_dev, 2 * sizeof(prm::be32));
	if (err)
		goto err;
	sq->wqes = static_cast<u8 *>(sq->ring.cpu);
	sq->dbrec = static_cast<prm::be32 *>(sq->db.cpu);

	in.cqn.set(sq->cq.cqn);
	in.log_wq_sz = log_size;
	in.min_wqe_inline_mode = min_inline ? prm::kInlineL2 : prm::kInlineNone;
	in.dbr_addr.set(sq->db.dma);
	in.pas.set(sq->ring.dma);
	err = cmd_run(fn, prm::kCmdCreateSq, &in, &out);
	if (err)
		goto err;
	sq->sqn = out.obj_num.get();
	err = cmd_modify_state(fn, prm::kCmdModifySq, sq->sqn, prm::kQueueRst, prm::kQueueRdy);
	if (err) {
		cmd_destroy(fn, prm::kCmdDestroySq, sq->sqn);
		goto err;
	}
	return 0;

err:
	sq->db.free(os_dev);
	sq->ring.free(os_dev);
	scx_os_free(sq->dma_fifo);
	scx_os_free(sq->wqe_info);
	cq_destroy(&sq->cq, os_dev);
	return err;
}

void sq_destroy(Sq *sq)
{
	if (!sq->ring.cpu)
		return;
	cmd_destroy(sq->fn, prm::kCmdDestroySq, sq->sqn);
	/* The device is gone: release whatever it never completed. */
	while (sq->cc != sq->pc) {
		const TxWqeInfo wi = sq->wqe_info[sq->cc & sq->mask];

		release_wqe(sq, wi, 0);
		sq->cc += wi.num_wqebbs;
	}
	sq->db.free(sq->os_dev);
	sq->ring.free(sq->os_dev);
	scx_os_free(sq->dma_fifo);
	scx_os_free(sq->wqe_info);
	cq_destroy(&sq->cq, sq->os_dev);
}

int sq_xmit(Sq *sq, scx_tx_pkt *pkt)
{
	if (pkt->nr_frags > SCX_TX_MAX_FRAGS || !pkt->nr_frags)
		return -SCX_EINVAL;

	u32 ihs = inline_size(sq, pkt);
	u32 inl_ds = ihs > 2 ? div_round_up(ihs - 2, prm::kSendWqeDS) : 0;
	/* a head fully covered by the inline headers needs no pointer */
	u32 data_ds = pkt->nr_frags - (pkt->frags[0].len <= ihs ? 1 : 0);
	u32 ds = prm::kEmptyDsCount + inl_ds + data_ds;
	u32 num_wqebbs = div_round_up(ds, prm::kDsPerWqeBB);
	if (!sq->has_room(num_wqebbs + num_wqebbs - 1))
		return -SCX_ENOSPC;
	pad_to_edge(sq, num_wqebbs);

	u16 pi = sq->pc & sq->mask;
	u8 *wqe = sq->wqe_at(sq->pc);
	auto *ctrl = reinterpret_cast<prm::CtrlSeg *>(wqe);
	auto *eth = reinterpret_cast<prm::EthSeg *>(wqe + sizeof(prm::CtrlSeg));

	__builtin_memset(wqe, 0, num_wqebbs * prm::kSendWqeBB);
	if (pkt->csum & SCX_TX_CSUM_L3)
		eth->cs_flags |= prm::kCsL3;
	if (pkt->csum & SCX_TX_CSUM_L4)
		eth->cs_flags |= prm::kCsL4;
	if (pkt->csum)
		sq->stats->csum_partial.inc();
	else
		sq->stats->csum_none.inc();

	if (ihs) {
		eth->inline_hdr_sz.set((u16)ihs);
		__builtin_memcpy(eth->inline_hdr_start, pkt->head, ihs < 2 ? ihs : 2);
		if (ihs > 2)
			__builtin_memcpy(eth + 1, pkt->head + 2, ihs - 2);
	}

	auto *dseg = reinterpret_cast<prm::DataSeg *>(wqe + (prm::kEmptyDsCount + inl_ds) *
						       prm::kSendWqeDS);
	for (u32 i = 0; i < pkt->nr_frags; i++) {
		const scx_tx_frag &f = pkt->frags[i];
		u32 skip = i == 0 ? ihs : 0;

		/* every mapping is released on completion, even a fully inlined head */
		sq->dma_fifo[sq->dma_pc++ & sq->dma_mask] = TxDmaEntry{f.dma, f.len, f.kind};
		if (f.len <= skip)
			continue;
		dseg->byte_count.set(f.len - skip);
		dseg->lkey.set(prm::kReservedLkey);
		dseg->addr.set(f.dma + skip);
		dseg++;
	}

	ctrl->set(prm::kOpSend, sq->pc, sq->sqn, ds);
	pkt->num_bytes = pkt->len > kMinBqlBytes ? pkt->len : kMinBqlBytes;
	sq->wqe_info[pi] = TxWqeInfo{pkt->skb, pkt->num_bytes, (u16)num_wqebbs,
				     (u16)pkt->nr_frags};
	sq->doorbell_cseg = ctrl;
	sq->unrung++;
	sq->pc += num_wqebbs;
	sq->stats->packets.inc();
	sq->stats->bytes.add(pkt->len);

	return sq->has_room(sq->stop_room) ? 0 : SCX_TX_STOP;
}

void sq_doorbell(Sq *sq)
{
	prm::CtrlSeg *ctrl = sq->doorbell_cseg;
	u64 v;

	if (!ctrl)
		return;
	/* Only the WQE that rings the doorbell asks for a completion. */
	ctrl->fm_ce_se |= prm::kCtrlCqUpdate;
	sq->stats->xmit_more.add(sq->unrung - (sq->unrung ? 1 : 0));
	sq->stats->doorbells.inc();
	sq->doorbell_cseg = nullptr;
	sq->unrung = 0;
	dma_wmb();
	sq->dbrec[prm::kSndDbr].set(sq->pc);
	wmb();
	__builtin_memcpy(&v, ctrl, sizeof(v));
	bus::mmio_write64(sq->fn, prm::kUarSqDoorbell, v);
}

bool sq_poll_cq(Sq *sq, int napi_budget, scx_tx_done *done)
{
	Cq *cq = &sq->cq;
	u16 sqcc = sq->cc;
	u32 n = 0;
	const prm::Cqe64 *cqe;

	while (n < kTxCqPollBudget && (cqe = cq->peek())) {
		u16 wqe_counter = cqe->wqe_counter.get();
		bool last;

		n++;
		sq->stats->cqes.inc();
		if (cqe->opcode() == prm::kCqeReqErr) {
			auto *err = reinterpret_cast<const prm::ErrCqe *>(cqe);

			sq->stats->cqe_err.inc();
			scx_os_log(SCX_LOG_ERR, "SQ 0x%x error CQE: syndrome 0x%x wqe 0x%x\n",
				   sq->sqn, err->syndrome, wqe_counter);
			/* Recovery (flush + reset) is not implemented yet: the SQ
			 * stays in ERR; close releases what is outstanding. */
			cq->pop();
			continue;
		}
		do {
			const TxWqeInfo wi = sq->wqe_info[sqcc & sq->mask];

			last = sqcc == wqe_counter;
			release_wqe(sq, wi, napi_budget);
			if (wi.skb) {
				done->packets++;
				done->bytes += wi.num_bytes;
			}
			sqcc += wi.num_wqebbs;
		} while (!last && sqcc != __atomic_load_n(&sq->pc, __ATOMIC_RELAXED));
		cq->pop();
	}
	if (!n)
		return false;
	cq->update_ci();
	/* Publish the room after the slots are released. */
	__atomic_store_n(&sq->cc, sqcc, __ATOMIC_RELEASE);
	return n == kTxCqPollBudget;
}

} /* namespace softcx::en */
