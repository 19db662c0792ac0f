// SPDX-License-Identifier: GPL-2.0
#include "en/cq.h"

#include "en/cmd.h"
#include "en/cqe_decomp.h"

namespace softcx::en {

namespace {

void moder_fill(prm::CqModeration *out, const scx_cq_moder &m)
{
	out->cq_period.set((u16)m.usecs);
	out->cq_max_count.set((u16)m.frames);
	out->cq_period_mode = m.from_cqe ? prm::kCqPeriodFromCqe : prm::kCqPeriodFromEqe;
}

} /* namespace */

int cq_create(Cq *cq, bus::Function *fn, void *os_dev, void *os_port, u8 log_size, u32 vector,
	      const scx_cq_moder &moder, const CqComp &comp)
{
	prm::CreateCqIn in = {};
	u32 n = 1u << log_size;
	int err;

	err = cq->mem.alloc(os_dev, n * prm::kCqeSize);
	if (err)
		return err;
	cq->cqes = static_cast<prm::Cqe64 *>(cq->mem.ring.cpu);
	cq->dbrec = static_cast<prm::be32 *>(cq->mem.db.cpu);
	cq->log_size = log_size;
	cq->mask = n - 1;
	cq->cc = 0;
	cq->ci_frozen = false;
	cq->arm_held = false;
	cq->fn = fn;
	cq->os_port = os_port;
	cq->validity_count = comp.en && comp.layout == prm::kCqeCompEnhanced;
	for (u32 i = 0; i < n; i++)
		cq->cqes[i].op_own = prm::kCqeInitOpOwn;
	if (cq->validity_count)
		cqe_decomp_stamp(cq);

	in.log_cq_size = log_size;
	if (comp.en) {
		in.cqe_comp_en = 1;
		in.mini_cqe_res_format = comp.fmt;
		in.cqe_comp_layout = comp.layout;
	}
	in.c_eqn.set(vector);
	moder_fill(&in.moder, moder);
	err = cmd_queue_create(fn, os_port, kCqCmds, &in, cq->mem, &cq->cqn);
	if (err)
		cq->mem.free(os_dev);
	return err;
}

int cq_query(Cq *cq, u8 *status, u32 *producer)
{
	prm::DestroyObjIn in = {};
	prm::QueryCqOut out = {};
	int err;

	in.obj_num.set(cq->cqn);
	err = cmd_run(cq->fn, cq->os_port, prm::kCmdQueryCq, &in, &out);
	if (err)
		return err;
	*status = out.status;
	*producer = out.producer_counter.get();
	return 0;
}

u32 cq_resync(Cq *cq)
{
	u8 status;
	u32 pc = cq->cc, skipped = 0;

	/* a CQ that cannot be queried is left where it is (the next recovery retries) */
	if (cq_query(cq, &status, &pc))
		pc = cq->cc;
	if ((s32)(pc - cq->cc) > 0)
		skipped = pc - cq->cc;
	for (u32 c = pc; c != pc + cq->mask + 1; c++)
		cq->cqes[c & cq->mask].op_own =
			(u8)((prm::kCqeInvalid << 4) | (cq->owner_for(c) ^ 1));
	cq->cc = pc;
	cq->arm_held = false;	/* the next arm goes to the device whatever cc is */
	if (cq->validity_count)
		cqe_decomp_stamp(cq);
	cq->ci_frozen = false;
	cq->update_ci();
	return skipped;
}

void cq_destroy(Cq *cq, void *os_dev)
{
	if (!cq->mem.ring.cpu)
		return;
	cmd_destroy(cq->fn, cq->os_port, kCqCmds.destroy, cq->cqn);
	cq->mem.free(os_dev);
}

int cq_modify_moder(Cq *cq, const scx_cq_moder &moder)
{
	prm::ModifyCqIn in = {};
	prm::CmdOut out = {};

	if (!cq->mem.ring.cpu)
		return 0;	/* not created (an XDP_TX SQ without a program) */
	in.cqn.set(cq->cqn);
	in.modify_field_select.set(prm::kCqModifyPeriod | prm::kCqModifyCount |
				   prm::kCqModifyPeriodMode);
	moder_fill(&in.moder, moder);
	return cmd_run(cq->fn, cq->os_port, prm::kCmdModifyCq, &in, &out);
}

} /* namespace softcx::en */
