/* SPDX-License-Identifier: GPL-2.0 */
/* Driver side of the command interface: build an inbox, run it, map the status to an errno. */
#pragma once

#include "en/os.h"
#include "prm/bus.h"
#include "prm/cmd.h"

namespace softcx::en {

/* Run one command; 0 or a negative errno (the device status is logged). */
int cmd_exec(bus::Function *fn, void *in, u32 in_len, void *out, u32 out_len);

template <typename In, typename Out>
int cmd_run(bus::Function *fn, u16 opcode, In *in, Out *out)
{
	in->hdr.opcode.set(opcode);
	return cmd_exec(fn, in, sizeof(*in), out, sizeof(*out));
}

int cmd_query_caps(bus::Function *fn, prm::HcaCaps *caps);
int cmd_modify_state(bus::Function *fn, u16 opcode, u32 obj, u8 cur, u8 next);
int cmd_destroy(bus::Function *fn, u16 opcode, u32 obj);
/*
 * Recovery's first step: move an SQ/RQ to RST. In ERR after an error CQE;
 * when it may still be RDY (a timeout, a CQE that made no sense) it is
 * stopped there (RDY -> ERR) first.
 */
int cmd_queue_reset(bus::Function *fn, u16 modify_opcode, u32 obj, bool may_be_ready);

} /* namespace softcx::en */
