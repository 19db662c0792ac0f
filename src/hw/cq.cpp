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
 */
#include "hw/cq.h"

namespace softcx::hw {
namespace {

constexpr u32 kCqArmCiMask = prm::kCqCiMask;

void *irq_ctx_of(Function *fn) { return __atomic_load_n(&fn->irq_ctx, __ATOMIC_ACQUIRE); }

/* Whoever takes `armed` from 1 to 0 owns the interrupt. */
bool take_arm(Cq *cq) { return __atomic_exchange_n(&cq->armed, 0, __ATOMIC_SEQ_CST) == 1; }

void raise_now(void *ctx, u32 vector)
{
	if (ctx)
		scx_os_raise_irq(ctx, vector);
}

void irq_batch_add(IrqBatch *b, void *ctx, u32 vector)
{
	if (!ctx)
		return;
	if (b->n == IrqBatch::kMax) {
		raise_now(ctx, vector);
		return;
	}
	b->e[b->n].ctx = ctx;
	b->e[b->n].vector = vector;
	b->e[b->n].cqn = 0;
	b->n++;
}

void raise_cq_error(void *ctx, u32 vector, u32 cqn)
{
	if (ctx)
		scx_os_cq_error(ctx, vector, cqn, prm::kCqErrSyndOverrun);
}

void irq_batch_add_cq_error(IrqBatch *b, void *ctx, u32 vector, u32 cqn)
{
	if (!ctx)
		return;
	if (b->n == IrqBatch::kMax) {
		raise_cq_error(ctx, vector, cqn);
		return;
	}
	b->e[b->n].ctx = ctx;
	b->e[b->n].vector = vector;
	b->e[b->n].cqn = cqn;
	b->n++;
}

} /* namespace */

void irq_batch_flush(IrqBatch *b)
{
	for (u32 i = 0; i < b->n; i++) {
		if (b->e[i].cqn)
			raise_cq_error(b->e[i].ctx, b->e[i].vector, b->e[i].cqn);
		else
			raise_now(b->e[i].ctx, b->e[i].vector);
	}
	b->n = 0;
}

void cq_reset(Cq *cq, u8 *ring, u32 log_size, u32 c_eqn)
{
	cq->ring = ring;
	cq->log_size = log_size;
	__atomic_store_n(&cq->c_eqn, c_eqn, __ATOMIC_RELAXED);
	__atomic_store_n(&cq->pi, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&cq->armed, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&cq->ci, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&cq->status, prm::kCqStatusOk, __ATOMIC_RELAXED);
}

bool cq_has_room(Function *fn, Cq *cq, IrqBatch *irqs)
{
	if (__builtin_expect(__atomic_load_n(&cq->status, __ATOMIC_RELAXED) != prm::kCqStatusOk, 0))
		return false;
	u32 pi = __atomic_load_n(&cq->pi, __ATOMIC_RELAXED);
	u32 size = 1u << cq->log_size;
	/* set_ci as last read: the doorbell record is read again only when the CQ looks full */
	u32 ci = __atomic_load_n(&cq->ci, __ATOMIC_RELAXED);
	if (((pi - ci) & kCqArmCiMask) < size)
		return true;
	ci = dbrec_read(fn, cq->dbrec, prm::kCqSetCiDbr) & kCqArmCiMask;
	__atomic_store_n(&cq->ci, ci, __ATOMIC_RELAXED);
	if (((pi - ci) & kCqArmCiMask) < size)
		return true;

	u32 cqn = load_u32(&cq->num);
	__atomic_store_n(&cq->status, prm::kCqStatusOverflow, __ATOMIC_RELAXED);
	bus_add(&fn->qc.cq_overrun, 1);
	scx_os_log(SCX_LOG_DEBUG, "softcx hw: fn%u cq 0x%x: overrun (pi %u set_ci %u)\n", fn->ix,
		   cqn, pi, ci);
	irq_batch_add_cq_error(irqs, irq_ctx_of(fn), __atomic_load_n(&cq->c_eqn, __ATOMIC_RELAXED),
			       cqn);
	return false;
}

void cq_clear_error(Cq *cq)
{
	__atomic_store_n(&cq->status, prm::kCqStatusOk, __ATOMIC_RELAXED);
}

bool cq_post(Function *fn, Cq *cq, const prm::Cqe64 *cqe, u8 opcode, IrqBatch *irqs)
{
	if (!cq_has_room(fn, cq, irqs))
		return false;
	u32 pi = __atomic_load_n(&cq->pi, __ATOMIC_RELAXED);
	u8 *slot = cq->ring + (usize)(pi & ((1u << cq->log_size) - 1)) * prm::kCqeSize;
	u8 owner = (u8)((pi >> cq->log_size) & 1);

	__builtin_memcpy(slot, cqe, prm::kCqeSize - 1);
	/* The driver reads op_own first, then (after dma_rmb) the rest. */
	__atomic_thread_fence(__ATOMIC_RELEASE);
	__atomic_store_n(&slot[prm::kCqeSize - 1], (u8)((opcode << 4) | owner), __ATOMIC_RELAXED);
	bus_add(&fn->bus.wr_cqe_bytes, prm::kCqeSize);

	__atomic_store_n(&cq->pi, pi + 1, __ATOMIC_SEQ_CST);
	if (__atomic_load_n(&cq->armed, __ATOMIC_SEQ_CST) && take_arm(cq))
		irq_batch_add(irqs, irq_ctx_of(fn), cq->c_eqn);
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
	__atomic_store_n(&cq->armed, 1, __ATOMIC_SEQ_CST);
	/* CQEs the driver has not seen yet: the interrupt is due right away. */
	if ((__atomic_load_n(&cq->pi, __ATOMIC_SEQ_CST) & kCqArmCiMask) != ci && take_arm(cq))
		raise_now(irq_ctx_of(fn), vector);
}

} /* namespace softcx::hw */
