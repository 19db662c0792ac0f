/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Completion queue, driver side: a ring of 64-byte CQEs the device writes,
 * a free-running consumer counter, and the doorbell record (set_ci, arm).
 */
#pragma once

#include "en/dma.h"
#include "en/os.h"
#include "prm/bus.h"
#include "prm/cmd.h"
#include "prm/cqe.h"
#include "softcx/core.h"

namespace softcx::en {

struct Cq {
	/* hot */
	prm::Cqe64 *cqes;
	u32 cc;			/* consumer counter, free-running */
	u32 mask;
	u8 log_size;
	u32 cqn;
	prm::be32 *dbrec;	/* [kCqSetCiDbr], [kCqArmDbr] */
	bool ci_frozen;		/* test hook: set_ci is not published until cq_resync() */
	bool arm_held;		/* armed at armed_cc, and no event for it since */
	u32 armed_cc;
	bool validity_count;	/* enhanced CQE compression: CQEs are valid by iteration count */
	bus::Function *fn;
	/* cold */
	void *os_port;
	QueueMem mem;

	/* Lap parity the device writes as the owner bit for counter value c. */
	u8 owner_for(u32 c) const { return (c >> log_size) & 1; }

	/* The next completed CQE, or nullptr. */
	const prm::Cqe64 *peek() const
	{
		const prm::Cqe64 *cqe = &cqes[cc & mask];
		u8 op_own = __atomic_load_n(&cqe->op_own, __ATOMIC_RELAXED);

		if ((op_own & 1) != owner_for(cc))
			return nullptr;
		dma_rmb();
		return cqe;
	}

	void pop() { cc++; }

	/* Tell the device how far we consumed (it may reuse those slots). */
	void update_ci()
	{
		if (__builtin_expect(ci_frozen, 0))
			return;
		dbrec[prm::kCqSetCiDbr].set(cc & prm::kCqCiMask);
	}

	/*
	 * Request one interrupt for the next CQE (or now, if one is pending).
	 * events: the CQ events of this CQ's vector since the last arm, bit
	 * cqn % 64 each (scx_channel_arm()). Only an event takes the device's
	 * arm, so a CQ armed at this very consumer counter, with no event bit
	 * since, still holds it: its doorbell is skipped (here an arm runs the
	 * device's arm logic on the CPU; performance.md). A stray bit (another
	 * CQ with the same cqn % 64) costs one doorbell, never an interrupt.
	 */
	void arm(u64 events)
	{
		if (arm_held && armed_cc == cc && !((events >> (cqn & 63)) & 1))
			return;
		arm_held = true;
		armed_cc = cc;

		u32 word = prm::kCqDbReqNot | (cc & prm::kCqCiMask);
		prm::be32 mmio[2];

		dbrec[prm::kCqArmDbr].set(word);
		wmb();
		mmio[0].set(word);
		mmio[1].set(cqn);
		u64 v;
		__builtin_memcpy(&v, mmio, sizeof(v));
		bus::mmio_write64(fn, prm::kUarCqDoorbell, v);
	}
};

/* CQE compression of a CQ (CREATE_CQ cqe_comp_en and its format fields); en false: none. */
struct CqComp {
	bool en;
	prm::MiniCqeFormat fmt;
	prm::CqeCompLayout layout;
};

/*
 * CQ lifecycle (cq.cpp): ring and doorbell memory, CREATE_CQ (with its
 * moderation and compression), DESTROY_CQ. With the enhanced layout every
 * slot is stamped not valid on the first lap.
 */
int cq_create(Cq *cq, bus::Function *fn, void *os_dev, void *os_port, u8 log_size, u32 vector,
	      const scx_cq_moder &moder, const CqComp &comp = {});
void cq_destroy(Cq *cq, void *os_dev);
/* MODIFY_CQ: new moderation for a live CQ, in use or not (process context). */
int cq_modify_moder(Cq *cq, const scx_cq_moder &moder);
/* QUERY_CQ: the status (prm::kCqStatus*) and the device's producer counter. */
int cq_query(Cq *cq, u8 *status, u32 *producer);

/*
 * A queue's recovery, with the queue in RST (the device writes nothing more
 * to its CQ) and every CQE it could read consumed: take the consumer
 * counter to the device's producer counter, so that both agree again, and
 * stamp every slot as not yet written for the lap it is next written in
 * (owner bit, and iteration count with the enhanced layout).
 * Returns the CQEs skipped: written by the device, never seen by the
 * driver (an owner bit lost, an overrun's leftovers).
 */
u32 cq_resync(Cq *cq);

} /* namespace softcx::en */
