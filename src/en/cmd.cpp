// SPDX-License-Identifier: GPL-2.0
#include "en/cmd.h"

namespace softcx::en {

namespace {

int status_to_errno(u8 status)
{
	switch (status) {
	case prm::kStatOk:
		return 0;
	case prm::kStatExceedLim:
		return -SCX_ENOSPC;
	case prm::kStatResourceBusy:
		return -SCX_EBUSY;
	case prm::kStatBadParam:
	case prm::kStatBadResource:
	case prm::kStatBadResState:
	case prm::kStatBadInputLen:
	case prm::kStatBadOutputLen:
		return -SCX_EINVAL;
	default:
		return -SCX_EIO;
	}
}

} /* namespace */

int cmd_exec(bus::Function *fn, void *os_port, void *in, u32 in_len, void *out, u32 out_len)
{
	auto *hdr = static_cast<prm::CmdIn *>(in);
	auto *o = static_cast<prm::CmdOut *>(out);

	if (!bus::cmd_exec(fn, in, in_len, out, out_len)) {
		scx_os_port_log(os_port, SCX_LOG_ERR, "command 0x%x not delivered\n",
				hdr->opcode.get());
		return -SCX_EIO;
	}
	if (o->status != prm::kStatOk)
		scx_os_port_log(os_port, SCX_LOG_ERR,
				"command 0x%x failed: status 0x%x syndrome 0x%x\n",
				hdr->opcode.get(), o->status, o->syndrome.get());
	return status_to_errno(o->status);
}

int cmd_query_caps(bus::Function *fn, void *os_port, prm::HcaCaps *caps)
{
	prm::CmdIn in = {};
	prm::QueryHcaCapOut out = {};

	in.opcode.set(prm::kCmdQueryHcaCap);
	int err = cmd_exec(fn, os_port, &in, sizeof(in), &out, sizeof(out));
	if (!err)
		*caps = out.caps;
	return err;
}

int cmd_modify_state(bus::Function *fn, void *os_port, u16 opcode, u32 obj, u8 cur, u8 next)
{
	prm::ModifyQueueIn in = {};
	prm::CreateObjOut out = {};

	in.obj_num.set(obj);
	in.cur_state = cur;
	in.next_state = next;
	return cmd_run(fn, os_port, opcode, &in, &out);
}

int cmd_modify_rq_ctx(bus::Function *fn, void *os_port, u32 rqn, u8 cur, u8 next, RqCtx ctx)
{
	prm::ModifyRqIn in = {};
	prm::CreateObjOut out = {};

	in.q.obj_num.set(rqn);
	in.q.cur_state = cur;
	in.q.next_state = next;
	in.modify_bitmask.set(prm::kRqModifyVsd | prm::kRqModifyScatterFcs);
	in.vsd = ctx.vsd;
	in.scatter_fcs = ctx.scatter_fcs;
	in.q.hdr.opcode.set(prm::kCmdModifyRq);
	return cmd_exec(fn, os_port, &in, sizeof(in), &out, sizeof(out));
}

int cmd_queue_reset(bus::Function *fn, void *os_port, u16 modify_opcode, u32 obj,
		    bool may_be_ready)
{
	if (may_be_ready)
		cmd_modify_state(fn, os_port, modify_opcode, obj, prm::kQueueRdy, prm::kQueueErr);
	if (!cmd_modify_state(fn, os_port, modify_opcode, obj, prm::kQueueErr, prm::kQueueRst))
		return 0;
	/* the device disagrees on the state: flush it there and retry once */
	cmd_modify_state(fn, os_port, modify_opcode, obj, prm::kQueueRdy, prm::kQueueErr);
	return cmd_modify_state(fn, os_port, modify_opcode, obj, prm::kQueueErr, prm::kQueueRst);
}

int cmd_destroy(bus::Function *fn, void *os_port, u16 opcode, u32 obj)
{
	prm::DestroyObjIn in = {};
	prm::CreateObjOut out = {};

	in.obj_num.set(obj);
	return cmd_run(fn, os_port, opcode, &in, &out);
}

} /* namespace softcx::en */
