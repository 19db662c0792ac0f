// SPDX-License-Identifier: GPL-2.0
/*
 * CQE writer and CQ arming.
 *
 * A CQ raises its interrupt at most once per arm. Two parties race: the
 * writer (an engine producing a CQE) and the arm doorbell (the driver after
 * NAPI completes). Neither takes a lock; the handshake is
 *
 *   writer:  publish pi          arm:  armed = 1
 *            if armed:                 if pi != ci:
 *              xchg(armed, 0)            xchg(armed, 0)
 *
 * with sequentially consistent stores and loads, so at least one side sees
 * the other's store, and the exchange makes sure only one side raises.
 *
 * Moderation decides when the side that saw both raises: at once when the
 * CQ has no period, or when cq_max_count completions are pending since the
 * arm (a CQE each; a compressing CQ's slots may hold several: its ledger,
 * cq_account(), counts packets, as rx-frames means);
 * else the CQ's timer raises it once the period is over (from the last
 * event, or from the last CQE). The timer is a third party to the same
 * handshake: it takes `armed` like the others. Its deadline is re-read by
 * the callback, so a CQE only moves `deadline` and starts the timer when
 * none is queued (`timer_queued`, cleared by the callback before it reads
 * anything): the per-CQE cost is a store of the deadline in from-CQE mode
 * (the time is the engine's, IrqBatch::now), nothing while the CQ is not
 * armed. The CQE writer decides those common cases inline (cq.h:
 * cq_moder_due); the rest is here.
 *
 * `timer_queued` is also who may start the timer: whoever sets it from 0
 * (cq_timer_claim), until the callback clears it. A callback that finds the
 * deadline moved on takes it back the same way and re-arms the timer in
 * place (the OS's restart, no start call); a start from anyone else then
 * could leave a queued timer with the expiry changed under it. MODIFY_CQ
 * takes it too, from a queued timer by cancelling it (cq_timer_take).
 */
#include "hw/cq.h"

namespace softcx::hw {
namespace {

constexpr u32 kCqArmCiMask = prm::kCqCiMask;

void *irq_ctx_of(Function *fn) { return __atomic_load_n(&fn->irq_ctx, __ATOMIC_ACQUIRE); }

/* Whoever takes `armed` from 1 to 0 owns the interrupt. */
bool take_arm(Cq *cq) { return __atomic_exchange_n(&cq->armed, 0, __ATOMIC_SEQ_CST) == 1; }

/* Event kinds (IrqBatch): a completion event (it took the CQ's arm), or a CQ error. */
constexpr bool kCompletion = false;
constexpr bool kCqError = true;

/* CQ cqn's completion event, or its error event, to the OS now. */
void raise_event(void *ctx, u32 vector, u32 cqn, bool error)
{
	if (!ctx)
		return;
	if (error)
		scx_os_cq_error(ctx, vector, cqn, prm::kCqErrSyndOverrun);
	else
		scx_os_raise_irq(ctx, vector, cqn);
}

/* Queue an event for irq_batch_flush(); a full batch raises it at once. */
void irq_batch_add(IrqBatch *b, void *ctx, u32 vector, u32 cqn, bool error)
{
	if (!ctx)
		return;
	if (b->n == IrqBatch::kMax) {
		raise_event(ctx, vector, cqn, error);
		return;
	}
	b->e[b->n].ctx = ctx;
	b->e[b->n].vector = vector;
	b->e[b->n].cqn = cqn;
	b->e[b->n].error = error;
	b->n++;
}

/* When an armed CQ's pending CQEs are due by the period alone. */
u64 period_deadline(const Cq *cq, u32 m)
{
	if (moder_mode(m) == prm::kCqPeriodFromCqe)
		return __atomic_load_n(&cq->deadline, __ATOMIC_SEQ_CST);
	return __atomic_load_n(&cq->last_event, __ATOMIC_RELAXED) + cq_period_ns(m);
}

/* The timer clock: `now` when the caller knows it (IrqBatch::now), else read. */
u64 clock_at(u64 now) { return now ? now : scx_os_timer_now(); }

/*
 * The event is ours (take_arm() returned true): count it and, where a
 * period runs from EQE, note when it was (one clock read per event; none
 * without a period or from CQE: period_deadline() reads last_event only
 * for a period from EQE. A CQ switched to that mode by MODIFY_CQ starts
 * from an older last_event: its first event may come a period early).
 */
void signalled(Function *fn, Cq *cq, u64 now)
{
	u32 m = cq_moder_of(cq);

	bus_add(&fn->bus.interrupts, 1);
	if (moder_period(m) && moder_mode(m) != prm::kCqPeriodFromCqe)
		__atomic_store_n(&cq->last_event, clock_at(now), __ATOMIC_RELAXED);
}

/*
 * The CQ's timer (interrupt context): raise the event if the period is
 * over, else wait on. Returns the expiry to re-arm at, or 0. The event
 * goes out at `expired`, the instant the timer went off for: a period
 * from EQE runs from there, without a clock read.
 */
u64 timer_fired(void *arg, u64 expired)
{
	auto *cq = static_cast<Cq *>(arg);
	Function *fn = cq->fn;

	__atomic_store_n(&cq->timer_queued, 0, __ATOMIC_SEQ_CST);
	if (!__atomic_load_n(&cq->armed, __ATOMIC_SEQ_CST) ||
	    !cq_pending(cq, __atomic_load_n(&cq->pi, __ATOMIC_SEQ_CST)))
		return 0;
	u32 m = cq_moder_of(cq);
	u64 expires = period_deadline(cq, m);
	/*
	 * It fires no earlier than it was started for, so a deadline not past
	 * that is due without reading the clock; a later one (CQEs moved it
	 * on) waits on: re-armed from here, unless a CQE since the clear above
	 * has started the timer itself. A start racing with this callback may
	 * leave an older expiry here: at worst one more callback, or the event
	 * a little early.
	 */
	if (moder_period(m) && expires > __atomic_load_n(&cq->timer_expires, __ATOMIC_RELAXED)) {
		if (!cq_timer_claim(cq))
			return 0;
		__atomic_store_n(&cq->timer_expires, expires, __ATOMIC_RELAXED);
		return expires;
	}
	if (take_arm(cq)) {
		signalled(fn, cq, expired);
		raise_event(irq_ctx_of(fn), __atomic_load_n(&cq->c_eqn, __ATOMIC_RELAXED),
			    load_u32(&cq->num), kCompletion);
	}
	return 0;
}

/*
 * Take the right to start the timer from whoever has it: a queued timer is
 * cancelled (its right passes to us), a running callback finishes (it
 * clears timer_queued or re-arms), a start in flight on another CPU lands
 * and is cancelled the next time round.
 */
void cq_timer_take(Cq *cq)
{
	while (!cq_timer_claim(cq) && !scx_os_timer_cancel(cq->timer))
		;
}

} /* namespace */

void cq_irq_completion(IrqBatch *b, Function *fn, Cq *cq)
{
	irq_batch_add(b, irq_ctx_of(fn), cq->c_eqn, load_u32(&cq->num), kCompletion);
}

void cq_timer_start(Cq *cq, u64 expires)
{
	__atomic_store_n(&cq->timer_expires, expires, __ATOMIC_RELAXED);
	scx_os_timer_start(cq->timer, expires);
}

/* cq_moder_due() past its inline part (cq.h): m is cq_moder_of(cq). */
bool cq_moder_due_slow(Function *fn, Cq *cq, u32 m, u32 n, u64 now)
{
	u64 expires;

	if (cq_due_now(m, n))
		goto take;
	if (moder_mode(m) == prm::kCqPeriodFromCqe) {
		cq_restart_period(cq, m, clock_at(now));
		return false;
	}
	if (__atomic_load_n(&cq->timer_queued, __ATOMIC_SEQ_CST))
		return false;	/* it re-reads the deadline when it fires */
	expires = period_deadline(cq, m);
	now = clock_at(now);
	if (expires <= now)
		goto take;	/* a period has passed since the last event */
	cq_timer_kick(cq, expires);
	return false;
take:
	if (!take_arm(cq))
		return false;
	signalled(fn, cq, now);
	return true;
}

void irq_batch_flush(IrqBatch *b)
{
	/* CQEs held back first: publishing them may queue their interrupts */
	for (u32 i = 0; i < b->nheld; i++) {
		Rq *rq = b->held[i];

		scx_os_lock(rq->lock);
		if (rq->cq)
			cq_comp_flush(rq->cq->fn, rq->cq, b);
		scx_os_unlock(rq->lock);
	}
	b->nheld = 0;
	for (u32 i = 0; i < b->n; i++) {
		raise_event(b->e[i].ctx, b->e[i].vector, b->e[i].cqn, b->e[i].error);
	}
	b->n = 0;
}

int cq_slot_init(Function *fn, Cq *cq)
{
	cq->fn = fn;
	cq->timer = scx_os_timer_create(timer_fired, cq);
	return cq->timer ? 0 : -1;
}

void cq_slot_fini(Cq *cq)
{
	if (cq->timer)
		scx_os_timer_destroy(cq->timer);
	cq->timer = nullptr;
}

void cq_reset(Cq *cq, u8 *ring, u32 log_size, u32 c_eqn, u32 moder)
{
	cq->ring = ring;
	cq->log_size = log_size;
	__atomic_store_n(&cq->c_eqn, c_eqn, __ATOMIC_RELAXED);
	__atomic_store_n(&cq->pi, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&cq->armed, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&cq->ci, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&cq->status, prm::kCqStatusOk, __ATOMIC_RELAXED);
	__atomic_store_n(&cq->arm_ci, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&cq->moder, moder, __ATOMIC_RELAXED);
	__atomic_store_n(&cq->deadline, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&cq->last_event, 0, __ATOMIC_RELAXED);
	cq->comp = {};
	cq->done = 0;
}

void cq_stop(Cq *cq)
{
	__atomic_store_n(&cq->armed, 0, __ATOMIC_SEQ_CST);
	scx_os_timer_cancel(cq->timer);
	__atomic_store_n(&cq->timer_queued, 0, __ATOMIC_SEQ_CST);
}

void cq_moder_changed(Function *fn, Cq *cq, IrqBatch *irqs)
{
	if (!__atomic_load_n(&cq->armed, __ATOMIC_SEQ_CST))
		return;
	u32 n = cq_pending_done(cq, __atomic_load_n(&cq->pi, __ATOMIC_SEQ_CST));
	if (!n)
		return;
	u32 m = cq_moder_of(cq);
	if (!cq_due_now(m, n)) {
		/* a timer queued for the old period may be far off: decide again now */
		u64 now = scx_os_timer_now();

		if (moder_mode(m) == prm::kCqPeriodFromCqe)
			__atomic_store_n(&cq->deadline, now + cq_period_ns(m), __ATOMIC_SEQ_CST);
		cq_timer_take(cq);
		cq_timer_start(cq, now);
		return;
	}
	if (take_arm(cq)) {
		signalled(fn, cq, 0);
		cq_irq_completion(irqs, fn, cq);
	}
}

/* cq_has_room() past its inline check: the CQ in error, or full by the set_ci last read. */
bool cq_has_room_slow(Function *fn, Cq *cq, IrqBatch *irqs)
{
	if (__builtin_expect(__atomic_load_n(&cq->status, __ATOMIC_RELAXED) != prm::kCqStatusOk, 0))
		return false;
	/* slots a compressing CQ holds back count as written */
	u32 pi = __atomic_load_n(&cq->pi, __ATOMIC_RELAXED) + cq->comp.held;
	u32 size = 1u << cq->log_size;
	/* the doorbell record is read again only when the CQ looks full */
	u32 ci = dbrec_read(fn, cq->dbrec, prm::kCqSetCiDbr) & kCqArmCiMask;
	__atomic_store_n(&cq->ci, ci, __ATOMIC_RELAXED);
	if (((pi - ci) & kCqArmCiMask) < size)
		return true;

	u32 cqn = load_u32(&cq->num);
	__atomic_store_n(&cq->status, prm::kCqStatusOverflow, __ATOMIC_RELAXED);
	bus_add(&fn->qc.cq_overrun, 1);
	scx_os_log(SCX_LOG_DEBUG, "softcx hw: fn%u cq 0x%x: overrun (pi %u set_ci %u)\n", fn->ix,
		   cqn, pi, ci);
	irq_batch_add(irqs, irq_ctx_of(fn), __atomic_load_n(&cq->c_eqn, __ATOMIC_RELAXED), cqn,
		      kCqError);
	return false;
}

void cq_clear_error(Cq *cq)
{
	__atomic_store_n(&cq->status, prm::kCqStatusOk, __ATOMIC_RELAXED);
}

namespace {

/* The CQE writer's steps, inlined into cq_post() (every CQE) and exported for cq_comp.cpp. */
[[gnu::always_inline]] inline void seal_slot(Cq *cq, u32 ix, u8 op_own)
{
	u8 *slot = cq_slot(cq, ix);

	if (__builtin_expect(cq->comp.layout == prm::kCqeCompEnhanced, 0)) {
		/* valid by the iteration count: it goes last */
		slot[prm::kCqeSize - 1] = op_own;
		__atomic_thread_fence(__ATOMIC_RELEASE);
		__atomic_store_n(&slot[prm::kCqeSize - 2], (u8)(ix >> cq->log_size),
				 __ATOMIC_RELAXED);
		return;
	}
	cq_seal_basic(slot, op_own);
}

[[gnu::always_inline]] inline void write_slot(Cq *cq, u32 ix, const void *cqe, u8 op_own)
{
	u8 *slot = cq_slot(cq, ix);

	/* enhanced layout: byte 62 is the validity iteration, written by the seal only */
	if (__builtin_expect(cq->comp.layout == prm::kCqeCompEnhanced, 0))
		__builtin_memcpy(slot, cqe, prm::kCqeSize - 2);
	else
		__builtin_memcpy(slot, cqe, prm::kCqeSize - 1);
	seal_slot(cq, ix, op_own);
}

} /* namespace */

void cq_write_slot(Cq *cq, u32 ix, const void *cqe, u8 op_own) { write_slot(cq, ix, cqe, op_own); }

void cq_seal_slot(Cq *cq, u32 ix, u8 op_own) { seal_slot(cq, ix, op_own); }

void cq_publish(Function *fn, Cq *cq, u32 pi, IrqBatch *irqs) { cq_publish_at<true>(fn, cq, pi, irqs); }

bool cq_post(Function *fn, Cq *cq, const prm::Cqe64 *cqe, u8 opcode, IrqBatch *irqs)
{
	if (!cq_has_room(fn, cq, irqs))
		return false;
	/* a compressed run held back goes first */
	if (__builtin_expect(cq->comp.held, 0))
		cq_comp_flush(fn, cq, irqs);
	u32 pi = __atomic_load_n(&cq->pi, __ATOMIC_RELAXED);
	u8 owner = (u8)((pi >> cq->log_size) & 1);

	write_slot(cq, pi, cqe, (u8)((opcode << 4) | owner));
	bus_add(&fn->bus.wr_cqe_bytes, prm::kCqeSize);
	cq_account(cq, pi, 1, 1);
	cq_publish_at<true>(fn, cq, pi + 1, irqs);
	return true;
}

void cq_arm_doorbell(Function *fn, u64 value)
{
	u8 bytes[8];
	__builtin_memcpy(bytes, &value, sizeof(bytes));
	u32 arm = prm::load_be32(bytes);
	u32 cqn = prm::load_be32(bytes + 4);

	int ix = obj_slot(cqn, ObjType::Cq, kMaxCqs);
	if (ix < 0)
		return;
	Cq *cq = &fn->cq[ix];
	if (load_u32(&cq->num) != cqn)
		return;		/* not (or no longer) this CQ: ignore like HW would */

	u32 ci = arm & kCqArmCiMask;
	u32 vector = __atomic_load_n(&cq->c_eqn, __ATOMIC_RELAXED);
	__atomic_store_n(&cq->arm_ci, ci, __ATOMIC_RELAXED);
	__atomic_store_n(&cq->armed, 1, __ATOMIC_SEQ_CST);
	/* CQEs the driver has not seen yet: the interrupt is due (as moderation allows). */
	u32 n = cq_pending_done(cq, __atomic_load_n(&cq->pi, __ATOMIC_SEQ_CST));
	if (n && cq_moder_due(fn, cq, n, 0))
		raise_event(irq_ctx_of(fn), vector, cqn, kCompletion);
}

} /* namespace softcx::hw */
