/* SPDX-License-Identifier: GPL-2.0 */
/* A channel: one NAPI context's queues (TX SQ + CQ, RX RQ + CQ) and counters. */
#pragma once

#include "en/rq.h"
#include "en/sq.h"

struct scx_channel {
	softcx::en::Sq sq;
	softcx::en::Rq rq;
	softcx::en::ChannelStats stats;
	softcx::u32 ix;
};

namespace softcx::en {

using Channel = ::scx_channel;

struct ChannelParams {
	bus::Function *fn;
	void *os_dev;
	void *os_channel;
	u32 ix;
	u8 log_sq_size;
	u8 log_rq_size;
	u32 min_inline;
	bool tx_mpwqe;
	RqLayout rx;
};

int channel_open(Channel *c, const ChannelParams &p);
void channel_close(Channel *c);

} /* namespace softcx::en */
