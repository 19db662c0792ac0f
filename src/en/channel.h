/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A channel: one NAPI context's queues and counters: the stack's SQ, the RQ,
 * the XDP_TX SQ (only while a program is attached) and the SQ that takes
 * frames redirected to the port (ndo_xdp_xmit), each with its CQ.
 */
#pragma once

#include "en/rq.h"
#include "en/sq.h"

struct scx_channel {
	softcx::en::Sq sq;
	softcx::en::Rq rq;
	softcx::en::Sq xdpsq;	/* XDP_TX; mem.ring.cpu == nullptr without a program */
	softcx::en::Sq xmitsq;	/* ndo_xdp_xmit */
	softcx::en::ChannelStats stats;
	softcx::u32 ix;
	softcx::en::RxXdp rx_xdp;	/* how the RX handler runs (fixed at open) */
};

namespace softcx::en {

using Channel = ::scx_channel;

/* Built by params_build() (params.cpp), every rule applied. */
struct ChannelParams {
	bus::Function *fn;
	void *os_dev;
	void *os_port;
	void *os_channel;
	u32 ix;
	u8 log_sq_size;
	u8 log_rq_size;
	bool xdp;		/* a program is attached: XDP_TX SQ, RX through the program */
	SqLimits skb_sq;	/* the stack's SQ */
	SqLimits xdp_sq;	/* the XDP SQs (XDP_TX, ndo_xdp_xmit) */
	RqLayout rx;
	RxComp rx_comp;		/* the RQ's CQ */
	scx_port_moder moder;	/* of the CQs: rx for the RQ's, tx for the SQs' */
	bool rx_vlan_strip;	/* the RQ strips outer 802.1Q tags (vsd 0) */
	bool rx_tstamp;		/* the RQ hands each packet's CQE timestamp over */
	bool rx_csum;		/* the RQ hands each packet's CQE checksum verdict over */
	bool rx_csum_complete;	/* ... or its sum (CHECKSUM_COMPLETE) where it may */
	bool rx_fcs;		/* the RQ places each frame's FCS after it (scatter_fcs) */
};

int channel_open(Channel *c, const ChannelParams &p);
void channel_close(Channel *c);
/* New moderation for the live channel's CQs (MODIFY_CQ, no rebuild; rx false: the SQs' only); 0 or the first error. */
int channel_set_moder(Channel *c, const scx_port_moder &m, bool rx = true);

} /* namespace softcx::en */
