/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Completion queues: the CQE writer (ownership by lap parity, owner byte
 * last) and the arm/interrupt handshake.
 */
#pragma once

#include "hw/adapter.h"
#include "prm/cqe.h"

namespace softcx::hw {

/*
 * Interrupts decided while a queue lock is held, raised once every lock is
 * dropped (so the OS hook may call back into the device). If the batch
 * fills up, later entries are raised on the spot: still correct, only less
 * polite.
 */
struct IrqBatch {
	static constexpr u32 kMax = 32;
	static constexpr u32 kMaxHeld = 8;
	u32 n;
	u32 nheld;
	struct {
		void *ctx;
		u32 vector;
		u32 cqn;	/* the CQ whose event it is */
		bool error;	/* a CQ error event; else its completion event */
	} e[kMax];
	/*
	 * RQs whose compressing CQ holds CQEs back (cq_post_rx): the batch's
	 * flush publishes them (under the RQ lock) before it raises anything.
	 */
	Rq *held[kMaxHeld];
	/*
	 * The OS timer clock (ns) when the engine started its current WQE, the
	 * instant its CQEs and its frames' CQEs are written (the TX engine's
	 * one timer read per WQE); 0: not known, moderation reads the clock.
	 */
	u64 now;
	/*
	 * The running SQ's RSS cache for the frames it puts on the wire (the
	 * peer's RX engine steers them: rss_steer()); null outside a TX run.
	 */
	RssCache *rss_cache;
};

inline void irq_batch_init(IrqBatch *b)
{
	b->n = 0;
	b->nheld = 0;
	b->now = 0;
	b->rss_cache = nullptr;
}
void irq_batch_flush(IrqBatch *b);

/* A CQ slot's timer, for the adapter's lifetime (0, or -1 without memory). */
int cq_slot_init(Function *fn, Cq *cq);
void cq_slot_fini(Cq *cq);

/* Reset a CQ slot's producer and moderation state for a new object (moder: moder_pack()). */
void cq_reset(Cq *cq, u8 *ring, u32 log_size, u32 c_eqn, u32 moder);
/* DESTROY_CQ: disarm, and no timer callback runs once this returns. */
void cq_stop(Cq *cq);
/*
 * MODIFY_CQ stored a new cq->moder: an armed CQ with pending CQEs is
 * decided again under it (its event queued in `irqs`, or its timer moved).
 */
void cq_moder_changed(Function *fn, Cq *cq, IrqBatch *irqs);

/*
 * Whether the CQ takes one more CQE. It does not when it is in error, or
 * when it is full (the producer index a ring ahead of set_ci, which is read
 * only then): an overrun. The device never overwrites a CQE the driver has
 * not consumed: the CQ goes to OVERFLOW, cq_overrun counts it, and a CQ
 * error event is queued in `irqs`. Caller holds the lock of its queue.
 */
bool cq_has_room_slow(Function *fn, Cq *cq, IrqBatch *irqs);
inline bool cq_has_room(Function *fn, Cq *cq, IrqBatch *irqs)
{
	/* the common case inline: the CQ is fine and has room by the set_ci last read */
	if (__builtin_expect(__atomic_load_n(&cq->status, __ATOMIC_RELAXED) == prm::kCqStatusOk, 1)) {
		/* slots a compressing CQ holds back count as written */
		u32 pi = __atomic_load_n(&cq->pi, __ATOMIC_RELAXED) + cq->comp.held;
		u32 ci = __atomic_load_n(&cq->ci, __ATOMIC_RELAXED);
		if (((pi - ci) & prm::kCqCiMask) < (1u << cq->log_size))
			return true;
	}
	return cq_has_room_slow(fn, cq, irqs);
}

/* The queue served by the CQ was reset (-> RST): a CQ in error takes CQEs again. */
void cq_clear_error(Cq *cq);

/*
 * Write one CQE: all bytes of `cqe` but op_own, a release barrier, then
 * op_own = opcode << 4 | owner. Publishes the new producer index and, if the
 * CQ was armed, queues its interrupt in `irqs`. Caller holds the lock of the
 * queue that reports to this CQ. False, and nothing written, when the CQ
 * has no room (cq_has_room()).
 */
bool cq_post(Function *fn, Cq *cq, const prm::Cqe64 *cqe, u8 opcode, IrqBatch *irqs);

/*
 * CQE compression (cq_comp.cpp; cqe.h has the formats). An RX CQE for a
 * CQ with cqe_comp_en goes through cq_post_rx(): the CQ writes it as the
 * start of a run, as a mini CQE of the open run, or (not compressible: an
 * error or filler CQE, or fields a mini CQE cannot carry differ) closes the
 * run and writes it plainly. `next_wqe_counter` is the wqe_counter a packet
 * continuing the run would carry (cyclic RQ: + 1; striding RQ: + the
 * strides this one took). A run is held back (not published, no
 * interrupt) until it is full, broken, or `irqs` is flushed: the end of the
 * doorbell's work, which is when a device stops waiting for more. The CQ
 * keeps a free slot past everything held, so a held run never overwrites
 * an unread CQE. Caller holds rq's lock. False, nothing written, as
 * cq_post().
 */
bool cq_post_rx(Function *fn, Rq *rq, const prm::Cqe64 *cqe, u8 opcode, u16 next_wqe_counter,
		IrqBatch *irqs);
/* Publish what the CQ holds back (a no-op without compression). Caller holds the queue's lock. */
void cq_comp_flush(Function *fn, Cq *cq, IrqBatch *irqs);
/*
 * The queue writing to the CQ changes state (MODIFY, DESTROY): publish
 * what is held and end the run, so that no CQE after it is compressed
 * against a title the driver's recovery has dropped.
 */
void cq_comp_end(Function *fn, Cq *cq, IrqBatch *irqs);

/* Device-internal, for cq_comp.cpp: the slot of producer index ix, and writing one. */
inline u8 *cq_slot(const Cq *cq, u32 ix)
{
	return cq->ring + (usize)(ix & ((1u << cq->log_size) - 1)) * prm::kCqeSize;
}
/*
 * Write bytes 0..62 of `cqe` (of which 62 is replaced by the validity
 * iteration in the enhanced layout) and op_own, the bytes the driver checks
 * last: op_own (basic), byte 62 (enhanced).
 */
void cq_write_slot(Cq *cq, u32 ix, const void *cqe, u8 op_own);
/* The slot's op_own / validity bytes only, after the rest was written. */
void cq_seal_slot(Cq *cq, u32 ix, u8 op_own);
/*
 * A CQE built in its slot, on a CQ with in_place (no compression, the basic
 * layout): after cq_has_room(), cq_open_slot() gives the slot at the
 * producer index with bytes 0..62 zeroed. Its op_own (byte 63) still holds
 * the previous lap's owner bit, so the driver does not take the slot while
 * the fields are written. cq_post_open() then seals and publishes it as
 * cq_post() does. This saves building the CQE elsewhere and copying it.
 */
inline prm::Cqe64 *cq_open_slot(Cq *cq)
{
	u8 *slot = cq_slot(cq, __atomic_load_n(&cq->pi, __ATOMIC_RELAXED));
	/*
	 * Seven 8-byte stores and three smaller ones: a memset of 63 bytes
	 * becomes `rep stos` here (no SSE in the kernel), which costs more.
	 */
	const u64 z8 = 0;
	const u32 z4 = 0;
	const u16 z2 = 0;
	__builtin_memcpy(slot + 0, &z8, 8);
	__builtin_memcpy(slot + 8, &z8, 8);
	__builtin_memcpy(slot + 16, &z8, 8);
	__builtin_memcpy(slot + 24, &z8, 8);
	__builtin_memcpy(slot + 32, &z8, 8);
	__builtin_memcpy(slot + 40, &z8, 8);
	__builtin_memcpy(slot + 48, &z8, 8);
	__builtin_memcpy(slot + 56, &z4, 4);
	__builtin_memcpy(slot + 60, &z2, 2);
	slot[62] = 0;
	static_assert(prm::kCqeSize == 64, "the CQE's 63 bytes before op_own");
	return reinterpret_cast<prm::Cqe64 *>(slot);
}

/* ---- moderation, the part the CQE writer decides inline (hw/cq.cpp has the rest) ---- */

inline u32 cq_moder_of(const Cq *cq) { return __atomic_load_n(&cq->moder, __ATOMIC_RELAXED); }
inline u64 cq_period_ns(u32 m) { return (u64)moder_period(m) * 1000; }

/* No period, or the count reached: the event is due without waiting. */
inline bool cq_due_now(u32 m, u32 n)
{
	u32 count = moder_count(m);

	return !moder_period(m) || (count && n >= count);
}

/* CQEs written since the consumer index of the last arm. */
inline u32 cq_pending(const Cq *cq, u32 pi)
{
	return (pi - __atomic_load_n(&cq->arm_ci, __ATOMIC_RELAXED)) & prm::kCqCiMask;
}

/*
 * Completions pending since the arm, what cq_max_count counts: a CQE each,
 * or from a compressing CQ's ledger (never fewer than the slots: a run of
 * n >= 2 packets takes at most n slots).
 */
[[gnu::always_inline]] inline u32 cq_pending_done(const Cq *cq, u32 pi)
{
	u32 n = cq_pending(cq, pi);

	if (!n || !cq->done_at)
		return n;
	u32 mask = (1u << cq->log_size) - 1;
	u32 ci = __atomic_load_n(&cq->arm_ci, __ATOMIC_RELAXED);
	u32 d = __atomic_load_n(&cq->done_at[(pi - 1) & mask], __ATOMIC_RELAXED) -
		__atomic_load_n(&cq->done_at[(ci - 1) & mask], __ATOMIC_RELAXED);
	return d > n ? d : n;
}

/* Queue CQ cq's completion event (its arm is taken). */
void cq_irq_completion(IrqBatch *b, Function *fn, Cq *cq);
/* Start the CQ's timer for `expires` (the caller holds the right: cq_timer_claim). */
void cq_timer_start(Cq *cq, u64 expires);
/* cq_moder_due() past its inline part: m is cq_moder_of(cq). */
bool cq_moder_due_slow(Function *fn, Cq *cq, u32 m, u32 n, u64 now);

/*
 * The right to start (or re-arm) the CQ's timer, taken from nobody: true
 * when it is ours now, false when the timer is queued (or a start or
 * re-arm is on its way) and will re-read the deadline when it fires.
 */
[[gnu::always_inline]] inline bool cq_timer_claim(Cq *cq)
{
	return !__atomic_exchange_n(&cq->timer_queued, 1, __ATOMIC_SEQ_CST);
}

/* Start the CQ's timer for `expires` unless it is queued (then it re-reads the deadline). */
[[gnu::always_inline]] inline void cq_timer_kick(Cq *cq, u64 expires)
{
	if (cq_timer_claim(cq))
		cq_timer_start(cq, expires);
}

/* Period from CQE, a CQE at `now` not due by the count: the period starts again from it. */
[[gnu::always_inline]] inline void cq_restart_period(Cq *cq, u32 m, u64 now)
{
	u64 expires = now + cq_period_ns(m);

	__atomic_store_n(&cq->deadline, expires, __ATOMIC_SEQ_CST);
	cq_timer_kick(cq, expires);
}

/*
 * The CQ is armed with n > 0 CQEs pending: true when the event is due now
 * and ours to raise; else the timer will see to it. now: IrqBatch::now.
 * Most CQEs find a period running with its timer queued: from CQE, the
 * CQE moves the deadline; from EQE, it waits. Those two are decided here,
 * inline in the CQE writer (a call and its register saves cost about 15
 * instructions a CQE, bench/vm/icount.sh); the rest out of line, the same
 * steps in the same order.
 */
[[gnu::always_inline]] inline bool cq_moder_due(Function *fn, Cq *cq, u32 n, u64 now)
{
	u32 m = cq_moder_of(cq);

	if (now && !cq_due_now(m, n)) {
		if (moder_mode(m) == prm::kCqPeriodFromCqe) {
			cq_restart_period(cq, m, now);
			return false;
		}
		if (__atomic_load_n(&cq->timer_queued, __ATOMIC_SEQ_CST))
			return false;	/* it re-reads the deadline when it fires */
	}
	return cq_moder_due_slow(fn, cq, m, n, now);
}

/*
 * A slot's seal in the basic layout: op_own last, after a release
 * barrier. The driver reads op_own first, then (after dma_rmb) the rest.
 */
inline void cq_seal_basic(u8 *slot, u8 op_own)
{
	__atomic_thread_fence(__ATOMIC_RELEASE);
	__atomic_store_n(&slot[prm::kCqeSize - 1], op_own, __ATOMIC_RELAXED);
}

/*
 * Publish the producer index pi, then raise the CQ's event if it is armed
 * and moderation says so. Ledger: the CQ may compress, and its ledger
 * counts the completions pending (cq_pending_done); without one, the
 * slots do.
 */
template <bool Ledger>
[[gnu::always_inline]] inline void cq_publish_at(Function *fn, Cq *cq, u32 pi, IrqBatch *irqs)
{
	__atomic_store_n(&cq->pi, pi, __ATOMIC_SEQ_CST);
	if (__atomic_load_n(&cq->armed, __ATOMIC_SEQ_CST) &&
	    cq_moder_due(fn, cq, Ledger ? cq_pending_done(cq, pi) : cq_pending(cq, pi), irqs->now))
		cq_irq_completion(irqs, fn, cq);
}

/*
 * Seal and publish the slot cq_open_slot() gave, as cq_post() does. Inline
 * in the engines (one call fewer per CQE); an in_place CQ has the basic
 * layout and no ledger.
 */
[[gnu::always_inline]] inline void cq_post_open(Function *fn, Cq *cq, u8 opcode, IrqBatch *irqs)
{
	u32 pi = __atomic_load_n(&cq->pi, __ATOMIC_RELAXED);

	cq_seal_basic(cq_slot(cq, pi), (u8)((opcode << 4) | ((pi >> cq->log_size) & 1)));
	bus_add(&fn->bus.wr_cqe_bytes, prm::kCqeSize);
	cq_publish_at<false>(fn, cq, pi + 1, irqs);
}

/*
 * Post one CQE whose fields fill(cqe) writes on a zeroed CQE: in its slot
 * on an in_place CQ, else built here and posted by cq_post(). False,
 * nothing written, when the CQ has no room (cq_has_room()). room_checked:
 * the caller found room under the queue's lock and posted nothing since
 * (room only grows meanwhile), so an in_place CQ does not look again.
 */
template <typename Fill>
[[gnu::always_inline]] inline bool cq_post_built(Function *fn, Cq *cq, u8 opcode, IrqBatch *irqs,
						 Fill &&fill, bool room_checked = false)
{
	if (__builtin_expect(cq->in_place, 1)) {
		if (!room_checked && !cq_has_room(fn, cq, irqs))
			return false;
		fill(cq_open_slot(cq));
		cq_post_open(fn, cq, opcode, irqs);
		return true;
	}
	prm::Cqe64 cqe;
	__builtin_memset(&cqe, 0, sizeof(cqe));
	fill(&cqe);
	return cq_post(fn, cq, &cqe, opcode, irqs);
}

/* Publish the producer index pi and raise the CQ's event as moderation says. */
void cq_publish(Function *fn, Cq *cq, u32 pi, IrqBatch *irqs);
/*
 * Before publishing `slots` slots from producer index pi that complete
 * `packets` packets: note them in the completion ledger (a compressing CQ;
 * a no-op otherwise), so that moderation counts packets, not slots.
 */
inline void cq_account(Cq *cq, u32 pi, u32 slots, u32 packets)
{
	if (!cq->done_at)
		return;
	u32 mask = (1u << cq->log_size) - 1;

	cq->done += packets;
	for (u32 i = 0; i < slots; i++)
		__atomic_store_n(&cq->done_at[(pi + i) & mask], cq->done, __ATOMIC_RELAXED);
}

/* The CQ arm doorbell: value = {be32 (sn << 28 | cmd | ci), be32 cqn} in memory order. */
void cq_arm_doorbell(Function *fn, u64 value);

} /* namespace softcx::hw */
