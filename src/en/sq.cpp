// SPDX-License-Identifier: GPL-2.0
/*
 * TX send queue: SEND and LSO WQEs, enhanced multi-packet WQE sessions,
 * doorbell batching, completion handling (one CQE per doorbell, walked back
 * to the SQ) and recovery from error CQEs.
 */
#include "en/sq.h"

#include "en/cmd.h"

namespace softcx::en {

namespace {

constexpr u32 kTxCqPollBudget = 128;	/* CQEs per poll, as mlx5 */
constexpr u32 kMinBqlBytes = 60;	/* ETH_ZLEN: what the wire carries at least */

/*
 * How a completion releases what it held. napi: from the channel's NAPI. A
 * Frame SQ's frames belong to other pools (another port, channel or
 * driver) whose lock-free caches only their own NAPI may touch: they are
 * collected here and handed back in bulk, never recycled "direct".
 */
constexpr u32 kFrameBulk = 16;

struct Release {
	int napi;
	/*
	 * The completing CQE, whose timestamp a WQE that asked for one takes
	 * (read only then); null for an error CQE or a flush. Valid until the
	 * CQE is popped, after its WQEs are released.
	 */
	const prm::Cqe64 *ts_cqe;
	u32 nframes;
	void *frames[kFrameBulk];
};

void release_init(Release *r, int napi)
{
	r->napi = napi;
	r->ts_cqe = nullptr;
	r->nframes = 0;
}

void release_flush(Sq *sq, Release *r)
{
	if (r->nframes)
		scx_os_xdp_frames_free_bulk(sq->os_channel, r->frames, r->nframes);
	r->nframes = 0;
}

/* Release one FIFO entry; returns 1 when it held a packet. */
template <SqKind K> u32 release_entry(Sq *sq, const TxDmaEntry &e, Release *r)
{
	if constexpr (K == SqKind::Skb) {
		scx_os_dma_unmap(sq->os_dev, e.dma, e.len, e.kind);
		if (!e.obj)
			return 0;
		scx_os_tx_free(sq->os_channel, e.obj, r->napi);
	} else if constexpr (K == SqKind::Page) {
		scx_os_rx_recycle(sq->pool, e.obj, r->napi ? 1 : 0);
		return e.kind != kDmaXdpFrag;
	} else {
		scx_os_dma_unmap(sq->os_dev, e.dma, e.len, SCX_DMA_SINGLE);
		if (!r->napi) {
			scx_os_xdp_frame_free(sq->os_channel, e.obj);
			return 1;
		}
		if (r->nframes == kFrameBulk)
			release_flush(sq, r);
		r->frames[r->nframes++] = e.obj;
	}
	return 1;
}

/*
 * Release what one WQE holds; returns the packets (skbs, pages, frames)
 * released. Inlined, as complete_wqes() is into sq_poll_cqes(): at one
 * WQE a completion (burst 1) the two calls and their register saves cost
 * about 35 instructions a packet (bench/vm/icount.sh).
 */
template <SqKind K>
[[gnu::always_inline]] inline u32 release_wqe(Sq *sq, const TxWqeInfo &wi, Release *r)
{
	u32 pkts = 0;

	for (u32 i = 0; i < wi.num_dma; i++)
		pkts += release_entry<K>(sq, sq->dma_fifo[sq->dma_cc++ & sq->dma_mask], r);
	if (K == SqKind::Skb && wi.skb) {
		if (__builtin_expect(wi.tstamp, 0)) {
			if (r->ts_cqe) {
				scx_os_tx_tstamp(sq->os_channel, wi.skb,
						 (u64)r->ts_cqe->timestamp_h.get() << 32 |
							 r->ts_cqe->timestamp_l.get());
				sq->stats->timestamps_delivered.inc();
			} else {
				sq->stats->timestamps_lost.inc();
			}
		}
		scx_os_tx_free(sq->os_channel, wi.skb, r->napi);
		pkts++;
	}
	return pkts;
}

u8 cs_flags_of(const scx_tx_pkt *pkt)
{
	/* the ABI's bits are the eth segment's, shifted: L3, L4 to 0x40, 0x80; the inner ones to 0x10, 0x20 */
	static_assert(SCX_TX_CSUM_L3 << 6 == prm::kCsL3 && SCX_TX_CSUM_L4 << 6 == prm::kCsL4 &&
		      SCX_TX_CSUM_L3_INNER << 2 == prm::kCsL3Inner &&
		      SCX_TX_CSUM_L4_INNER << 2 == prm::kCsL4Inner);
	return (u8)((pkt->csum & 3) << 6 | (pkt->csum & 0xc) << 2);
}

/* csum_partial_inner for an encapsulated skb's inner flags, as mlx5 */
void count_csum(Sq *sq, u8 cs_flags)
{
	if (cs_flags & (prm::kCsL3Inner | prm::kCsL4Inner))
		sq->stats->csum_partial_inner.inc();
	else if (cs_flags)
		sq->stats->csum_partial.inc();
	else
		sq->stats->csum_none.inc();
}

bool stop_needed(const Sq *sq)
{
	return !sq->has_room(sq->lim.stop_room);
}

/* The headers a WQE inlines: inl bytes from src; the first `skip` bytes of the head are covered. */
struct InlineHdr {
	const u8 *src;
	u32 inl;
	u32 skip;
};

/* The bytes a packet's tag from metadata adds on the wire (per wire packet). */
u32 vlan_bytes(const scx_tx_pkt *pkt)
{
	return pkt->vlan ? prm::kVlanHdrLen : 0;
}

/*
 * The packet's VLAN tag: inline headers get it rebuilt in them (MACs,
 * tag, the rest), as the device takes the inline headers as the frame's
 * start; without inline headers the eth segment asks the device to insert
 * it. Called with the headers' length (h.inl >= the MACs: checked by
 * post_wqe).
 */
void put_vlan(prm::EthSeg *eth, const InlineHdr &h, u8 kind, u16 tci)
{
	bool svlan = kind == SCX_TX_VLAN_8021AD;

	if (!h.inl) {
		eth->set_vlan_insert(tci, svlan);
		return;
	}
	u8 *rest = reinterpret_cast<u8 *>(eth + 1);	/* inline bytes 2.. */

	eth->inline_hdr_sz.set((u16)(h.inl + prm::kVlanHdrLen));
	__builtin_memcpy(eth->inline_hdr_start, h.src, 2);
	__builtin_memcpy(rest, h.src + 2, prm::kEthAddrsLen - 2);
	rest += prm::kEthAddrsLen - 2;
	prm::store_be16(rest, svlan ? prm::kEthTypeQinQ : prm::kEthTypeVlan);
	prm::store_be16(rest + 2, tci);
	__builtin_memcpy(rest + prm::kVlanHdrLen, h.src + prm::kEthAddrsLen,
			 h.inl - prm::kEthAddrsLen);
}

/*
 * One SEND or LSO WQE: ctrl, eth (csum flags, mss, the inline headers or
 * the VLAN insert), one data segment per mapping minus the bytes the
 * inline headers cover.
 */
int post_wqe(Sq *sq, scx_tx_pkt *pkt, u8 opcode, const InlineHdr &h, u16 mss, u32 wire_bytes,
	     u16 wire_pkts)
{
	/* a tag goes after the MACs: inline headers that stop short of them cannot take it */
	if (__builtin_expect(pkt->vlan && h.inl && h.inl < prm::kEthAddrsLen, 0))
		return -SCX_EINVAL;
	u32 inl_ds = inline_ds(h.inl ? h.inl + vlan_bytes(pkt) : 0);
	/* a head fully covered by the inline headers needs no pointer */
	u32 data_ds = pkt->nr_frags - (pkt->frags[0].len <= h.skip ? 1 : 0);
	u32 ds = prm::kEmptyDsCount + inl_ds + data_ds;
	u32 num_wqebbs = div_round_up(ds, prm::kDsPerWqeBB);

	if (!sq->has_room(wqe_room(num_wqebbs)))
		return -SCX_ENOSPC;
	pad_to_edge<SqKind::Skb>(sq, num_wqebbs);

	u16 pi = sq->pc & sq->mask;
	u8 *wqe = sq->wqe_at(sq->pc);
	auto *ctrl = reinterpret_cast<prm::CtrlSeg *>(wqe);
	auto *eth = reinterpret_cast<prm::EthSeg *>(wqe + sizeof(prm::CtrlSeg));
	u8 cs = cs_flags_of(pkt);

	__builtin_memset(wqe, 0, num_wqebbs * prm::kSendWqeBB);
	eth->cs_flags = cs;
	count_csum(sq, cs);
	if (mss)
		eth->mss.set(mss);
	if (pkt->vlan) {
		put_vlan(eth, h, pkt->vlan, pkt->vlan_tci);
		sq->stats->added_vlan_packets.inc();
	} else if (h.inl) {
		put_inline_hdr(eth, h.src, h.inl);
	}

	auto *dseg = reinterpret_cast<prm::DataSeg *>(wqe + (prm::kEmptyDsCount + inl_ds) *
						       prm::kSendWqeDS);
	for (u32 i = 0; i < pkt->nr_frags; i++) {
		const scx_tx_frag &f = pkt->frags[i];
		u32 skip = i == 0 ? h.skip : 0;

		/* every mapping is released on completion, even a fully inlined head */
		fifo_push(sq, f.dma, f.len, f.kind, nullptr);
		if (f.len <= skip)
			continue;
		put_dseg(dseg++, f.dma + skip, f.len - skip, sq->lkey);
	}

	ctrl->set(opcode, sq->pc, sq->sqn, ds);
	sq->wqe_info[pi] = TxWqeInfo{pkt->skb, pkt->num_bytes, (u16)num_wqebbs,
				     (u16)pkt->nr_frags, wire_bytes, wire_pkts, pkt->tstamp};
	if (__builtin_expect(pkt->tstamp, 0))
		sq->stats->timestamps.inc();
	sq->doorbell_cseg = ctrl;
	sq->unrung++;
	sq->pc += num_wqebbs;
	return 0;
}

int xmit_send(Sq *sq, scx_tx_pkt *pkt)
{
	u32 ihs = sq->lim.min_inline < pkt->headlen ? sq->lim.min_inline : pkt->headlen;

	pkt->num_bytes = pkt->len > kMinBqlBytes ? pkt->len : kMinBqlBytes;
	return post_wqe(sq, pkt, prm::kOpSend, InlineHdr{pkt->head, ihs, ihs}, 0,
			pkt->len + vlan_bytes(pkt), 1);
}

/*
 * IPv6 BIG TCP: the template leaves out the hop-by-hop jumbo header at
 * hbh_off (right after the IPv6 header): the IPv6 header names TCP as its
 * next header; the device writes each segment's payload length.
 */
bool strip_jumbo_hbh(const scx_tx_pkt *pkt, u8 *hdr)
{
	u32 off = pkt->hbh_off;
	const u8 *h = pkt->head;

	u8 *ip;

	/* the jumbo header's first byte, its next header, must be TCP */
	if (off < prm::kIpv6Hdr || off + prm::kIpv6JumboHbhLen > pkt->ihs || h[off] != prm::kIpProtoTcp)
		return false;
	__builtin_memcpy(hdr, h, off);
	__builtin_memcpy(hdr + off, h + off + prm::kIpv6JumboHbhLen,
			 pkt->ihs - off - prm::kIpv6JumboHbhLen);
	ip = hdr + off - prm::kIpv6Hdr;
	ip[prm::kIpv6NextHdrOff] = prm::kIpProtoTcp;
	prm::store_be16(ip + prm::kIpv6PayloadLenOff, 0);
	return true;
}

/*
 * LSO: headers [0, ihs) inlined (the device replicates them per segment and
 * requires them to end at the L4 header's end), the payload gathered. The
 * counters count wire packets and bytes, as mlx5. A send the device would
 * refuse (a segment over its frame limit, a payload over its LSO limit)
 * never reaches it: -EMSGSIZE.
 */
int xmit_lso(Sq *sq, scx_tx_pkt *pkt)
{
	u32 ihs = pkt->ihs;
	u8 hdr[kMaxLsoInline];
	InlineHdr h = {pkt->head, ihs, ihs};

	if (ihs + vlan_bytes(pkt) > kMaxLsoInline || ihs > pkt->headlen || ihs >= pkt->len || !pkt->gso_size ||
	    pkt->gso_size > 0xffff || !pkt->gso_segs || pkt->gso_segs > 0xffff)
		return -SCX_EINVAL;
	if (pkt->hbh_off) {
		if (pkt->gso_type != SCX_TX_GSO_TCPV6 || !strip_jumbo_hbh(pkt, hdr))
			return -SCX_EINVAL;
		h.src = hdr;
		h.inl = ihs - prm::kIpv6JumboHbhLen;
	}
	if (__builtin_expect(h.inl + vlan_bytes(pkt) + pkt->gso_size > sq->lim.max_frame ||
			     pkt->len - ihs > sq->lim.max_lso, 0))
		return -SCX_EMSGSIZE;
	/* wire bytes: the payload and one copy of the headers (and tag) the device sends per segment */
	pkt->num_bytes = pkt->len - ihs + pkt->gso_segs * (h.inl + vlan_bytes(pkt));
	int err = post_wqe(sq, pkt, prm::kOpLso, h, (u16)pkt->gso_size, pkt->num_bytes,
			   (u16)pkt->gso_segs);
	if (err)
		return err;
	if (pkt->gso_type == SCX_TX_GSO_TUNNEL) {
		sq->stats->tso_inner_packets.inc();
		sq->stats->tso_inner_bytes.add(pkt->len - ihs);
	} else {
		sq->stats->tso_packets.inc();
		sq->stats->tso_bytes.add(pkt->len - ihs);
	}
	return 0;
}

/* Append one linear, non-inlined packet to the session (opening one if needed). */
int mpw_xmit(Sq *sq, scx_tx_pkt *pkt)
{
	MpwSession &s = sq->mpw;
	u8 cs = cs_flags_of(pkt);

	if (s.ctrl && s.cs_flags != cs)
		mpw_close(sq);
	if (!s.ctrl) {
		if (!sq->has_room(wqe_room(kMpwMaxWqeBBs)))
			return -SCX_ENOSPC;
		pad_to_edge<SqKind::Skb>(sq, kMpwMaxWqeBBs);
		mpw_open(sq, cs);
		sq->stats->mpwqe_blks.inc();
	}

	const scx_tx_frag &f = pkt->frags[0];

	mpw_add_dseg(sq, f.dma, pkt->len);
	fifo_push(sq, f.dma, f.len, f.kind, pkt->skb);
	pkt->num_bytes = pkt->len > kMinBqlBytes ? pkt->len : kMinBqlBytes;
	s.bytes += pkt->num_bytes;
	s.wire_bytes += pkt->len;
	s.pkt_count++;
	sq->unrung++;
	count_csum(sq, cs);
	sq->stats->mpwqe_pkts.inc();
	if (s.ds_count == kMpwMaxDs)
		mpw_close(sq);	/* full: complete; the caller still decides the doorbell */
	return 0;
}

/*
 * Complete the WQEs from *sqcc up to the one at ctr (through it when
 * inclusive), never past pc: release what they held, feed BQL, count
 * tx_packets/tx_bytes.
 */
template <SqKind K>
[[gnu::always_inline]] inline void complete_wqes(Sq *sq, u16 *sqcc, u16 pc, u16 ctr,
						 bool inclusive, Release *r, scx_tx_done *done)
{
	while (*sqcc != pc && (u16)(ctr - *sqcc) < (u16)(pc - *sqcc)) {
		const TxWqeInfo wi = sq->wqe_info[*sqcc & sq->mask];
		bool last = *sqcc == ctr;

		if (last && !inclusive)
			break;
		u32 pkts = release_wqe<K>(sq, wi, r);
		if (pkts) {
			done->packets += pkts;
			done->bytes += wi.num_bytes;
		}
		if (K == SqKind::Skb && wi.wire_pkts) {
			sq->stats->packets.add(wi.wire_pkts);
			sq->stats->bytes.add(wi.wire_bytes);
		}
		*sqcc = (u16)(*sqcc + wi.num_wqebbs);
		if (last)
			break;
	}
}

/*
 * Release every WQE the device will not complete (recovery, close); what
 * they held was never sent: tx_flushed (Skb: wire packets), or the XDP
 * SQ's flushed count (frames).
 */
template <SqKind K> void release_all(Sq *sq)
{
	Release r;
	u64 pkts = 0;

	release_init(&r, 0);
	mpw_close(sq);
	while (sq->cc != sq->pc) {
		const TxWqeInfo wi = sq->wqe_info[sq->cc & sq->mask];
		u32 n = release_wqe<K>(sq, wi, &r);

		pkts += K == SqKind::Skb ? wi.wire_pkts : n;
		sq->cc += wi.num_wqebbs;
	}
	if constexpr (K == SqKind::Skb)
		sq->stats->flushed.add(pkts);
	else
		sq->xstats->flushed.add(pkts);
}

/*
 * The device is gone: what it completed before (CQEs NAPI never polled)
 * was sent and counts as such; whatever it never completed is flushed.
 */
template <SqKind K> void drain(Sq *sq)
{
	scx_tx_done done = {};

	while (sq_poll_cq<K>(sq, 0, &done))
		;
	release_all<K>(sq);
}

template <SqKind K> Counter &cqe_counter(Sq *sq)
{
	if constexpr (K == SqKind::Skb)
		return sq->stats->cqes;
	else
		return sq->xstats->cqes;
}

/* XDP SQs have no error counters of their own in mlx5: an error CQE counts as err. */
template <SqKind K> void count_cqe_err(Sq *sq)
{
	if constexpr (K == SqKind::Skb)
		sq->stats->cqe_err.inc();
	else
		sq->xstats->err.inc_shared();	/* the Frame SQ's producers count err too */
}

} /* namespace */

int sq_create(Sq *sq, const SqConfig &cfg)
{
	prm::CreateSqIn in = {};
	u32 n = 1u << cfg.log_size;
	void *os_dev = cfg.os_dev;
	bus::Function *fn = cfg.fn;
	int err;

	sq->fn = fn;
	sq->os_dev = os_dev;
	sq->os_port = cfg.os_port;
	sq->os_channel = cfg.os_channel;
	sq->kind = cfg.kind;
	sq->stats = cfg.stats;
	sq->xstats = cfg.xstats;
	sq->pool = cfg.pool;
	sq->stalled = false;
	sq->bogus_cqe = false;
	sq->log_size = cfg.log_size;
	sq->mask = (u16)(n - 1);
	sq->lim = cfg.lim;
	sq->lkey.set(prm::kReservedLkey);
	if (sq->lim.stop_room > n)
		return -SCX_EINVAL;

	err = cq_create(&sq->cq, fn, os_dev, cfg.os_port, cfg.log_size, cfg.vector, cfg.moder);
	if (err)
		return err;
	sq->wqe_info = zalloc_array<TxWqeInfo>(n);
	/* at most one FIFO entry per DS; a WQE has fewer DS than WQEBBs * 4 */
	sq->dma_mask = n * prm::kDsPerWqeBB - 1;
	sq->dma_fifo = zalloc_array<TxDmaEntry>(sq->dma_mask + 1);
	err = -SCX_ENOMEM;
	if (!sq->wqe_info || !sq->dma_fifo)
		goto err;
	err = sq->mem.alloc(os_dev, n * prm::kSendWqeBB);
	if (err)
		goto err;
	sq->wqes = static_cast<u8 *>(sq->mem.ring.cpu);
	sq->dbrec = static_cast<prm::be32 *>(sq->mem.db.cpu);

	in.cqn.set(sq->cq.cqn);
	in.log_wq_sz = cfg.log_size;
	in.min_wqe_inline_mode = sq->lim.min_inline ? prm::kInlineL2 : prm::kInlineNone;
	in.allow_multi_pkt_send_wqe = sq->lim.mpwqe ? 1 : 0;
	err = cmd_queue_create(fn, cfg.os_port, kSqCmds, &in, sq->mem, &sq->sqn);
	if (err)
		goto err;
	return 0;

err:
	sq->mem.free(os_dev);
	scx_os_free(sq->dma_fifo);
	scx_os_free(sq->wqe_info);
	cq_destroy(&sq->cq, os_dev);
	return err;
}

void sq_destroy(Sq *sq)
{
	if (!sq->mem.ring.cpu)
		return;
	cmd_destroy(sq->fn, sq->os_port, kSqCmds.destroy, sq->sqn);
	switch (sq->kind) {
	case SqKind::Skb:
		drain<SqKind::Skb>(sq);
		break;
	case SqKind::Page:
		drain<SqKind::Page>(sq);
		break;
	case SqKind::Frame:
		drain<SqKind::Frame>(sq);
		break;
	}
	sq->mem.free(sq->os_dev);
	scx_os_free(sq->dma_fifo);
	scx_os_free(sq->wqe_info);
	cq_destroy(&sq->cq, sq->os_dev);
}

template <bool kMpw> int sq_xmit(Sq *sq, scx_tx_pkt *pkt)
{
	int err;

	if (__builtin_expect(pkt->nr_frags > SCX_TX_MAX_FRAGS || !pkt->nr_frags, 0))
		return -SCX_EINVAL;
	/* What the device would answer with an error CQE (and the SQ in ERR) is refused here. */
	if (__builtin_expect(pkt->len < kMinTxFrame, 0))
		return -SCX_EINVAL;
	if (__builtin_expect(!pkt->gso_type && pkt->len + vlan_bytes(pkt) > sq->lim.max_frame, 0))
		return -SCX_EMSGSIZE;
	if (kMpw) {
		/*
		 * eligible: linear, no VLAN tag to insert, no inline (SQ-wide), no
		 * LSO, no TX timestamp (a session's skbs live in the FIFO, which
		 * keeps no flag)
		 */
		if (__builtin_expect(pkt->nr_frags == 1 && !pkt->gso_type && !(pkt->vlan | pkt->tstamp),
				     1)) {
			err = mpw_xmit(sq, pkt);
			return err ? err : (stop_needed(sq) ? SCX_TX_STOP : 0);
		}
		mpw_close(sq);
	}
	err = pkt->gso_type ? xmit_lso(sq, pkt) : xmit_send(sq, pkt);
	if (err)
		return err;
	return stop_needed(sq) ? SCX_TX_STOP : 0;
}
template int sq_xmit<true>(Sq *sq, scx_tx_pkt *pkt);
template int sq_xmit<false>(Sq *sq, scx_tx_pkt *pkt);

void sq_doorbell(Sq *sq)
{
	mpw_close(sq);
	if (!sq->doorbell_cseg)
		return;
	/* packets posted without a doorbell of their own (the stack had more) */
	sq->stats->xmit_more.add(sq->unrung - (sq->unrung ? 1 : 0));
	sq->stats->doorbells.inc();
	sq_ring(sq);
}

void sq_ring(Sq *sq)
{
	prm::CtrlSeg *ctrl = sq->doorbell_cseg;
	u64 v;

	/* Only the WQE that rings the doorbell asks for a completion. */
	ctrl->fm_ce_se |= prm::kCtrlCqUpdate;
	sq->doorbell_cseg = nullptr;
	sq->unrung = 0;
	if (__builtin_expect(sq->stalled, 0))
		return;	/* test hook: the doorbell is lost (a TX timeout follows) */
	dma_wmb();
	sq->dbrec[prm::kSndDbr].set(sq->pc);
	wmb();
	__builtin_memcpy(&v, ctrl, sizeof(v));
	bus::mmio_write64(sq->fn, prm::kUarSqDoorbell, v);
}

template <SqKind K> bool sq_poll_cqes(Sq *sq, int napi_budget, scx_tx_done *done)
{
	Cq *cq = &sq->cq;
	Release r SCX_SCRATCH;
	u16 sqcc = sq->cc;
	u32 n = 0;
	const prm::Cqe64 *cqe;

	release_init(&r, napi_budget);	/* not the frame array */
	while (n < kTxCqPollBudget && (cqe = cq->peek())) {
		/*
		 * pc after the CQE: the producer (another CPU) published it before
		 * the doorbell that made the device write this CQE.
		 */
		u16 pc = __atomic_load_n(&sq->pc, __ATOMIC_ACQUIRE);
		u16 ctr = cqe->wqe_counter.get();
		bool known = (u16)(ctr - sqcc) < (u16)(pc - sqcc);

		n++;
		cqe_counter<K>(sq).inc();
		if (__builtin_expect(cqe->opcode() == prm::kCqeReqErr || !known, 0)) {
			auto *err = reinterpret_cast<const prm::ErrCqe *>(cqe);

			count_cqe_err<K>(sq);
			scx_os_chan_log(sq->os_channel, SCX_LOG_ERR,
					"SQ 0x%x %s CQE: syndrome 0x%x wqe 0x%x (cc 0x%x pc 0x%x)\n",
					sq->sqn, known ? "error" : "bogus", err->syndrome, ctr, sqcc, pc);
			/* The device did what comes before the failed WQE; sq_recover() flushes the rest. */
			if (known && cqe->opcode() == prm::kCqeReqErr) {
				r.ts_cqe = nullptr;	/* an error CQE carries no timestamp */
				complete_wqes<K>(sq, &sqcc, pc, ctr, false, &r, done);
			}
			cq->pop();
			sq->bogus_cqe = !known;
			__atomic_store_n(&sq->recovering, true, __ATOMIC_RELAXED);
			done->tx_error = 1;
			break;
		}
		/* every skb this CQE completes takes its timestamp (mlx5 does the same) */
		r.ts_cqe = cqe;
		complete_wqes<K>(sq, &sqcc, pc, ctr, true, &r, done);
		cq->pop();
	}
	if constexpr (K == SqKind::Frame)
		release_flush(sq, &r);
	if (!n)
		return false;
	cq->update_ci();
	/* Publish the room after the slots are released. */
	__atomic_store_n(&sq->cc, sqcc, __ATOMIC_RELEASE);
	return n == kTxCqPollBudget && !done->tx_error;
}
template bool sq_poll_cqes<SqKind::Skb>(Sq *sq, int napi_budget, scx_tx_done *done);
template bool sq_poll_cqes<SqKind::Page>(Sq *sq, int napi_budget, scx_tx_done *done);
template bool sq_poll_cqes<SqKind::Frame>(Sq *sq, int napi_budget, scx_tx_done *done);

template <SqKind K> int sq_recover(Sq *sq)
{
	int err;

	/* no error CQE (a TX timeout; a CQE naming no WQE): the SQ may still be RDY */
	err = cmd_queue_reset(sq->fn, sq->os_port, prm::kCmdModifySq, sq->sqn,
			      !__atomic_load_n(&sq->recovering, __ATOMIC_RELAXED) || sq->bogus_cqe);
	if (err)
		return err;
	/*
	 * CQEs not polled yet (a timeout, or NAPI stopped at its bound) complete
	 * what the device sent; an error CQE among them ends that walk, and
	 * what it leaves in the CQ is dropped with the rest. Then the CQ meets
	 * the device's producer counter: a CQE the driver could not see (its
	 * owner bit lost, a CQ overrun) left the two apart, and only resetting
	 * the SQ would leave the driver waiting at a slot the device has passed.
	 */
	drain<K>(sq);
	while (sq->cq.peek())
		sq->cq.pop();
	cq_resync(&sq->cq);
	sq->pc = 0;
	__atomic_store_n(&sq->cc, (u16)0, __ATOMIC_RELEASE);
	sq->dma_pc = 0;
	sq->dma_cc = 0;
	sq->doorbell_cseg = nullptr;
	sq->unrung = 0;
	sq->lkey.set(prm::kReservedLkey);
	sq->stalled = false;
	sq->bogus_cqe = false;
	sq->dbrec[prm::kSndDbr].set(0);
	wmb();
	err = cmd_modify_state(sq->fn, sq->os_port, prm::kCmdModifySq, sq->sqn, prm::kQueueRst,
			       prm::kQueueRdy);
	if (err)
		return err;
	__atomic_store_n(&sq->recovering, false, __ATOMIC_RELEASE);
	if constexpr (K == SqKind::Skb)
		sq->stats->recover.inc();
	else
		sq->xstats->recover.inc();
	return 0;
}
template int sq_recover<SqKind::Skb>(Sq *sq);
template int sq_recover<SqKind::Page>(Sq *sq);
template int sq_recover<SqKind::Frame>(Sq *sq);

} /* namespace softcx::en */
