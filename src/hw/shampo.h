/* SPDX-License-Identifier: GPL-2.0 */
/*
 * SHAMPO's RQ context (CREATE_RQ, prm/cmd.h) on the device side: the
 * checks, and the state a create or a reset to RST gives the RQ. The data
 * path is rq_place_shampo() (hw/rx.h).
 */
#pragma once

#include "hw/adapter.h"

namespace softcx::hw {

/*
 * Why CREATE_RQ's SHAMPO fields are not acceptable for this device and
 * RQ (log_buf: the striding WQE buffer, log2 bytes; cq: the RQ's CQ), or
 * null when they are (shampo_enable 0 with every field 0 included).
 */
const char *shampo_check(const prm::HcaCaps &caps, const prm::CreateRqIn &in, u32 log_stride,
			 u32 log_buf, const Cq *cq);
/* The header ring's size in bytes (after shampo_check() passed, shampo_enable 1). */
inline u32 shampo_hd_ring_bytes(const prm::CreateRqIn &in)
{
	return (u32)sizeof(prm::ShampoHdrWqe) << in.log_headers_buffer_entry_num;
}
/* Set the context at CREATE_RQ (hd_ring: the translated header ring, or null without SHAMPO). */
void shampo_init(Rq *rq, const prm::CreateRqIn &in, const u8 *hd_ring);
/* Created, or reset to RST: no WQE started, no session, header entry 0 next. */
void shampo_reset(Rq *rq);

} /* namespace softcx::hw */
