/* SPDX-License-Identifier: GPL-2.0 */
/*
 * RX receive queue, cyclic ("legacy") type: one 16-byte WQE per buffer,
 * one page_pool buffer per packet, refilled in bulks. With an XDP program
 * every frame goes through it before any skb exists.
 */
#pragma once

#include "en/cq.h"
#include "en/params.h"
#include "en/stats.h"
#include "prm/wqe.h"
#include "softcx/core.h"

namespace softcx::en {

struct RxSlot {
	void *page;
	u64 dma;
};

struct Sq;

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
	prm::RxWqeCyc *wqes;
	prm::be32 *dbrec;
	RxSlot *slots;
	scx_os_rxq *pool;
	RqLayout layout;
	void *os_channel;
	RqStats *stats;
	Sq *xdpsq;		/* XDP_TX target (program attached), else nullptr */
	prm::be32 lkey;		/* of every WQE posted (the error hook spoils it) */
	u8 recover;		/* kRecover*: reset before handling more CQEs */
	Cq cq;
	/* cold */
	u32 rqn;
	bool has_rqn;
	bus::Function *fn;
	void *os_dev;
	void *os_port;
	QueueMem mem;

	u32 size() const { return mask + 1u; }
	u32 missing() const { return size() - (u16)(pc - cc); }
};

int rq_create(Rq *rq, bus::Function *fn, void *os_dev, void *os_port, void *os_channel,
	      u8 log_size, const RqLayout &layout, bool xdp, u32 vector, const scx_cq_moder &moder,
	      RqStats *stats);
void rq_destroy(Rq *rq);

/* Post buffers while at least `bulk` are missing; true if a refill fell short. */
bool rq_refill(Rq *rq);
/*
 * Handle up to budget RX CQEs; returns the number handled. An error CQE
 * (or a CQE that names no posted WQE) ends the poll and recovers the RQ
 * there (ERR -> RST -> RDY, ring refilled; rx_wqe_err, rx_recover).
 */
template <RxXdp X> int rq_poll_cq(Rq *rq, int budget);
/* Its CQ is in error (an overrun): the next poll recovers the RQ (it may still be RDY). */
void rq_cq_error(Rq *rq);
/* Test hook: every WQE posted (now and until the recovery) carries a bad lkey. */
void rq_inject_error(Rq *rq);

} /* namespace softcx::en */
