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
	u32 n;
	struct {
		void *ctx;
		u32 vector;
		u32 cqn;	/* a CQ error event for this CQ; 0: an interrupt */
	} e[kMax];
};

inline void irq_batch_init(IrqBatch *b) { b->n = 0; }
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
bool cq_has_room(Function *fn, Cq *cq, IrqBatch *irqs);

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

/* The CQ arm doorbell: value = {be32 (sn << 28 | cmd | ci), be32 cqn} in memory order. */
void cq_arm_doorbell(Function *fn, u64 value);

} /* namespace softcx::hw */
