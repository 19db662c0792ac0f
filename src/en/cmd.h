/* SPDX-License-Identifier: GPL-2.0 */
/* Driver side of the command interface: build an inbox, run it, map the status to an errno. */
#pragma once

#include "en/dma.h"
#include "en/os.h"
#include "prm/bus.h"
#include "prm/cmd.h"

namespace softcx::en {

/*
 * Every command goes to the port's function (fn) and names the port's
 * interface (os_port, as given to scx_port_create) when it fails.
 */

/* Run one command; 0 or a negative errno (a failure is logged with the device status). */
int cmd_exec(bus::Function *fn, void *os_port, void *in, u32 in_len, void *out, u32 out_len);

template <typename In, typename Out>
int cmd_run(bus::Function *fn, void *os_port, u16 opcode, In *in, Out *out)
{
	in->hdr.opcode.set(opcode);
	return cmd_exec(fn, os_port, in, sizeof(*in), out, sizeof(*out));
}

int cmd_modify_state(bus::Function *fn, void *os_port, u16 opcode, u32 obj, u8 cur, u8 next);
int cmd_destroy(bus::Function *fn, void *os_port, u16 opcode, u32 obj);
/* The RQ context fields the driver changes on a live RQ (prm::ModifyRqIn). */
struct RqCtx {
	u8 vsd;
	u8 scatter_fcs;
	bool operator==(const RqCtx &o) const { return vsd == o.vsd && scatter_fcs == o.scatter_fcs; }
};
/* MODIFY_RQ cur -> next that also sets those fields. */
int cmd_modify_rq_ctx(bus::Function *fn, void *os_port, u32 rqn, u8 cur, u8 next, RqCtx ctx);

/* How a queue object is created, made ready and destroyed (CQ: no modify). */
struct QueueCmds {
	u16 create;
	u16 modify;	/* 0: ready once created */
	u16 destroy;
};
constexpr QueueCmds kCqCmds = {prm::kCmdCreateCq, 0, prm::kCmdDestroyCq};
constexpr QueueCmds kSqCmds = {prm::kCmdCreateSq, prm::kCmdModifySq, prm::kCmdDestroySq};
constexpr QueueCmds kRqCmds = {prm::kCmdCreateRq, prm::kCmdModifyRq, prm::kCmdDestroyRq};

/*
 * Create a queue over its memory (in: the rest of the inbox): CREATE with
 * the ring and doorbell addresses, then RST -> RDY where the object has
 * states; one that cannot be made ready is destroyed again. 0 and its
 * number in *num, or a negative errno.
 */
template <typename In>
int cmd_queue_create(bus::Function *fn, void *os_port, const QueueCmds &c, In *in,
		     const QueueMem &mem, u32 *num)
{
	prm::CreateObjOut out = {};
	int err;

	in->dbr_addr.set(mem.db.dma);
	in->pas.set(mem.ring.dma);
	err = cmd_run(fn, os_port, c.create, in, &out);
	if (err)
		return err;
	*num = out.obj_num.get();
	if (!c.modify)
		return 0;
	err = cmd_modify_state(fn, os_port, c.modify, *num, prm::kQueueRst, prm::kQueueRdy);
	if (err)
		cmd_destroy(fn, os_port, c.destroy, *num);
	return err;
}

int cmd_query_caps(bus::Function *fn, void *os_port, prm::HcaCaps *caps);
/*
 * Recovery's first step: move an SQ/RQ to RST. In ERR after an error CQE;
 * when it may still be RDY (a timeout, a CQE that made no sense) it is
 * stopped there (RDY -> ERR) first.
 */
int cmd_queue_reset(bus::Function *fn, void *os_port, u16 modify_opcode, u32 obj,
		    bool may_be_ready);

} /* namespace softcx::en */
