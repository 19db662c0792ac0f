/* SPDX-License-Identifier: GPL-2.0 */
/*
 * RX receive queue of either type. Cyclic ("legacy"): a WQE of 1 to 4
 * data segments per packet, each naming a fragment carved from a shared
 * page_pool page (one page reference per fragment), refilled in bulks. Striding
 * (multi-packet WQEs, rq_striding.cpp): linked-list WQEs of several pages
 * cut into strides, many packets per WQE, pages shared by the packets
 * through page references. With an XDP program every frame goes through
 * it before any skb exists.
 */
#pragma once

#include "en/cq.h"
#include "en/cqe_decomp.h"
#include "en/params.h"
#include "en/stats.h"
#include "prm/wqe.h"
#include "softcx/core.h"

namespace softcx::en {

/* A cyclic WQE's fragment: off bytes into its page, holding one page reference while posted. */
struct RxSlot {
	void *page;
	u64 dma;		/* of the page */
	u32 off;
};

/* A page of a striding WQE: the references handed out (skbs, fragments, XDP) so far. */
struct MpwPage {
	void *page;
	u64 dma;
	u32 refs;
};

/*
 * References a striding RQ's page starts with (scx_os_rx_frag_set): more
 * than it can hand out (one per stride); those not handed out are dropped
 * at once when its WQE is done.
 */
constexpr u32 kMpwPageBias = 1u << 15;

struct Sq;
struct ChannelParams;
struct Shampo;

/*
 * Why an RQ needs a reset: an error CQE (the RQ is in ERR), a CQE that made
 * no sense, or its CQ in error (an overrun); in the last two it may be RDY.
 */
constexpr u8 kRecoverNone = 0, kRecoverErrCqe = 1, kRecoverConfused = 2, kRecoverCqErr = 3;

/* How the RX handler is compiled: without XDP, or with XDP_TX posting SENDs or sessions. */
enum class RxXdp : u8 { Off, TxSend, TxMpw };

struct Rq {
	/* hot */
	u16 pc;			/* WQEs posted, free-running */
	u16 cc;			/* WQEs completed */
	u16 mask;
	u16 bulk;
	u32 strides_used;	/* striding: of the WQE at cc, by the CQEs seen */
	prm::DataSeg *wqes;	/* cyclic: 2^layout.log_wqe_segs segments a WQE */
	u8 *swqes;		/* striding: 2^layout.log_wqe_bytes each */
	MpwPage *mpw;		/* striding: layout.pages_per_wqe per WQE */
	prm::be32 *dbrec;
	RxSlot *slots;		/* cyclic: 2^layout.log_wqe_segs a WQE, layout.nfrags used */
	scx_os_rxq *pool;
	RqLayout layout;
	void *os_channel;
	RqStats *stats;
	Sq *xdpsq;		/* XDP_TX target (program attached), else nullptr */
	prm::be32 lkey;		/* of every WQE posted (the error hook spoils it) */
	u8 recover;		/* kRecover*: reset before handling more CQEs */
	RxComp comp;		/* the CQ's compression: which poll loop runs */
	Cq cq;
	CqeDecomp decomp;	/* compression: the title, the run being handed out */
	u64 ts_mask;		/* __atomic: ~0 while RX timestamps are wanted (rq_set_tstamp), else 0 */
	u8 csum_mask;		/* __atomic: the SCX_CSUM_* verdicts the RQ may give (rq_set_csum) */
	bool csum_complete_ok;	/* neither XDP nor SHAMPO: CHECKSUM_COMPLETE may be given */
	/* cold */
	u32 rqn;
	bool has_rqn;
	/* context fields the RQ runs with (and recovers to); __atomic, set by rq_set_ctx() */
	u8 vsd;			/* VLAN strip disable */
	u8 scatter_fcs;		/* the device places each frame's FCS after it */
	bus::Function *fn;
	void *os_dev;
	void *os_port;
	QueueMem mem;
	DmaBuf tail;		/* striding, linear: where each WQE's headroom shift ends */
	Shampo *shampo;		/* SHAMPO: header ring, open session (rq_shampo.cpp) */
	/* cyclic: the page fragments are carved from, in posting order, and its references left */
	void *carve_page;
	u64 carve_dma;
	u32 carve_off;
	u32 carve_left;

	u32 size() const { return mask + 1u; }
	u32 missing() const { return size() - (u16)(pc - cc); }
};

/* The channel's RQ and its CQ, as the parameters say (layout, XDP, compression, moderation). */
int rq_create(Rq *rq, const ChannelParams &p, RqStats *stats);
void rq_destroy(Rq *rq);

/* The WQEs posted since `start` go to the device: one doorbell record write. */
__attribute__((always_inline)) inline void rq_post_doorbell(Rq *rq, u16 start)
{
	if (rq->pc != start) {
		dma_wmb();
		rq->dbrec[prm::kRcvDbr].set(rq->pc);
	}
}

/* Post buffers while at least `bulk` are missing; true if a refill fell short. */
bool rq_refill(Rq *rq);
/*
 * Handle up to budget RX CQEs; returns the number handled. An error CQE
 * (or a CQE that names no posted WQE) ends the poll and recovers the RQ
 * there (ERR -> RST -> RDY, ring refilled; rx_wqe_err, rx_recover).
 */
template <RxXdp X> int rq_poll_cq(Rq *rq, int budget);
/* The same for a striding RQ (rq_striding.cpp). */
template <RxXdp X> int rq_poll_cq_striding(Rq *rq, int budget);
/* Its CQ is in error (an overrun): the next poll recovers the RQ (it may still be RDY). */
void rq_cq_error(Rq *rq);
/* Test hook: every WQE posted (now and until the recovery) carries a bad lkey. */
void rq_inject_error(Rq *rq);
/*
 * A context field on a running RQ (MODIFY_RQ RDY -> RDY, no rebuild): VLAN
 * stripping (vsd), FCS scatter. Remembered, so a recovery restarts the RQ
 * with it. Process context, one caller at a time. 0 or a negative errno
 * (an RQ in the middle of a recovery refuses the command; the recovery then
 * applies the setting).
 */
int rq_set_ctx(Rq *rq, u8 *field, u8 value);
/* RX timestamps wanted (each packet's raw CQE timestamp in scx_rx_pkt.ts) or not; any context. */
inline void rq_set_tstamp(Rq *rq, bool on)
{
	__atomic_store_n(&rq->ts_mask, on ? ~(u64)0 : 0, __ATOMIC_RELAXED);
}
/*
 * The CQE's checksum used (scx_rx_pkt.csum: the sum, rx_csum_complete,
 * when `complete` and the RQ runs neither XDP nor SHAMPO, as mlx5 unless
 * rx_no_csum_complete; else the verdict, rx_csum_unnecessary) or ignored
 * (every packet SCX_CSUM_NONE, counted in rx_csum_none), as mlx5 does with
 * rx-checksum off; the device is not told. Any context.
 */
inline void rq_set_csum(Rq *rq, bool on, bool complete)
{
	u8 m = 0;

	if (on)
		m = SCX_CSUM_UNNECESSARY | (complete && rq->csum_complete_ok ? SCX_CSUM_COMPLETE : 0);
	__atomic_store_n(&rq->csum_mask, m, __ATOMIC_RELAXED);
}
/* Recovery's last step: RST -> RDY with the RQ's context, and any change that came meanwhile. */
int rq_ready_with_ctx(Rq *rq);

/* A non-linear frame (either RQ type) to the OS in pieces, each holding a page reference; counted. */
void rq_deliver_pieces(Rq *rq, scx_rx_pkt *pkt, const scx_rx_piece *pieces, u32 n);

/* ---- the striding RQ's half (rq_striding.cpp), for rq.cpp ---- */

/* The WQE ring's memory, page array and linked list; 0 or a negative errno. */
int mpw_alloc(Rq *rq);
void mpw_free(Rq *rq);
bool mpw_refill(Rq *rq);
/* A frame over several strides (and maybe pages) of WQE pages pg at off: one reference per page piece. */
void mpw_nonlinear_frame(Rq *rq, MpwPage *pg, u32 off, scx_rx_pkt *pkt);
/* Give back the pages of every posted WQE (close, recovery: the RQ is in RST or gone). */
void mpw_release_posted(Rq *rq, int napi);
/*
 * End of a poll of either type: when a CQE asked for it, recover the RQ
 * (ERR -> RST -> RDY, posted buffers back to the pool, refilled) and log
 * it. Returns the work to report (the budget after a failed recovery, so
 * NAPI polls again).
 */
int rq_poll_recover(Rq *rq, int work, int budget);

/* ---- SHAMPO (rq_shampo.cpp): a striding RQ with header-data split and HW-GRO ---- */

/* The header ring, and CREATE_RQ's SHAMPO fields in `in`; 0 or a negative errno. */
int shampo_alloc(Rq *rq, prm::CreateRqIn *in);
void shampo_free(Rq *rq);
/* The RQ was reset (recovery): the device starts again at header entry 0. */
void shampo_reset(Rq *rq);
/* Handle up to budget CQEs as rq_poll_cq(); every session is delivered by the poll's end. */
int rq_poll_cq_shampo(Rq *rq, int budget);

/* Consume every CQE left in the CQ (close, recovery): the packets they held. */
u32 rq_drain_cq(Rq *rq);

/* A compressed CQ's run counters, folded once per poll. */
inline void rq_comp_fold(Rq *rq)
{
	if (rq->decomp.blks | rq->decomp.pkts) {
		rq->stats->cqe_compress_blks.add(rq->decomp.blks);
		rq->stats->cqe_compress_pkts.add(rq->decomp.pkts);
		rq->decomp.blks = 0;
		rq->decomp.pkts = 0;
	}
}

/*
 * The poll loop of either RQ type around its CQE handler h(rq, cqe), one
 * per CQ compression mode (the handler sees every packet's CQE alike).
 */
template <RxComp C, bool Striding, typename H> inline int rq_poll_loop(Rq *rq, int budget, H h)
{
	const prm::Cqe64 *cqe;
	int work = 0;

	if (C == RxComp::Off) {
		while (work < budget && !rq->recover && (cqe = rq->cq.peek())) {
			h(rq, cqe);
			rq->cq.pop();
			work++;
		}
		if (work)
			rq->cq.update_ci();
	} else {
		constexpr prm::CqeCompLayout L = rx_comp_layout(C);
		constexpr prm::MiniCqeFormat F = rx_comp_format(C, Striding);
		u32 cc = rq->cq.cc;

		while (work < budget && !rq->recover &&
		       (cqe = cqe_decomp_next<L, F, Striding>(&rq->decomp, &rq->cq))) {
			h(rq, cqe);
			work++;
		}
		cqe_decomp_poll_done<L, Striding>(&rq->decomp, &rq->cq);
		rq_comp_fold(rq);
		if (rq->cq.cc != cc)
			rq->cq.update_ci();
	}
	if (__builtin_expect(rq->recover, 0))
		work = rq_poll_recover(rq, work, budget);
	return work;
}

/* The loop for the RQ's compression mode: one test per poll, none per packet. */
template <bool Striding, typename H> inline int rq_poll_comp(Rq *rq, int budget, H h)
{
	switch (rq->comp) {
	case RxComp::Off:
		return rq_poll_loop<RxComp::Off, Striding>(rq, budget, h);
	case RxComp::Basic:
		return rq_poll_loop<RxComp::Basic, Striding>(rq, budget, h);
	default:
		return rq_poll_loop<RxComp::Enhanced, Striding>(rq, budget, h);
	}
}

} /* namespace softcx::en */
