/* SPDX-License-Identifier: GPL-2.0 */
/* A port: one netdev's view of its PCI function, its channel sets and counters. */
#pragma once

#include "en/channel.h"
#include "en/params.h"
#include "prm/cmd.h"

namespace softcx::en {

/* Channels with the RSS object that spreads received packets over their RQs. */
struct ChannelSet {
	Channel *ch;		/* nullptr: no set */
	u32 nch;
	u32 rss_num;
	bool has_rss;
	bool rss_spread;	/* its table is spread evenly, not the port's */
	/*
	 * The device RSS objects of the RSS contexts over this set's RQs: one
	 * per context, and one more per offset a context's rules add to its
	 * table entries (en/flow.cpp). num 0: a free slot.
	 */
	struct CtxObj {
		u32 ctx;
		u32 offset;
		u32 num;
	} ctx_obj[2 * SCX_MAX_RSS_CONTEXTS];
};

/* A flow rule location (ethtool -N loc) and an RSS context (ethtool -X context), en/flow.cpp. */
struct FlowSlot {
	scx_flow_rule r;
	bool used;
	bool hw;	/* its device flow table entry exists */
};
struct RssCtx {
	bool used;
	u8 key[SCX_RSS_KEY_SIZE];
	u32 table[SCX_RSS_TABLE_SIZE];	/* channel indices */
};

} /* namespace softcx::en */

struct scx_port {
	softcx::bus::Function *fn;
	void *os_dev;
	void *os_port;		/* names the port in log lines (scx_os_port_log) */
	softcx::prm::HcaCaps caps;
	softcx::u32 nch_max;
	scx_os_layout os;	/* the OS's part of the RX buffer layout */
	scx_port_moder moder;	/* CQ moderation channel sets are built with */
	scx_rss rss;		/* RSS channel sets are built with (en/rss.cpp) */
	/*
	 * Flow rules and RSS contexts (en/flow.cpp), by channel index: each
	 * set gets them with its own RQ numbers (scx_port_prepare).
	 */
	softcx::en::FlowSlot *flows;	/* flow_size locations */
	softcx::u32 flow_size;
	softcx::u32 flow_count;
	bool ntuple;			/* ethtool -K ntuple: rules may be inserted */
	softcx::en::RssCtx ctx[SCX_MAX_RSS_CONTEXTS + 1];	/* [0] unused: the port's own */
	bool rx_vlan_strip;	/* RQs strip outer 802.1Q tags (scx_port_set_rx_vlan_strip) */
	bool rx_fcs;		/* RQs place each frame's FCS after it (scx_port_set_rx_fcs) */
	bool rx_csum;		/* RQs use the CQEs' checksum verdicts (scx_port_set_rx_csum) */
	bool rx_no_csum_complete;	/* ... never their sums (scx_port_set_rx_no_csum_complete) */
	/*
	 * MODIFY_NIC_VPORT_CONTEXT is built here, room for the caps' lists
	 * (scx_port_set_rx_filter: any context, no allocation)
	 */
	softcx::u8 *rx_filter_in;
	softcx::u8 *rx_vlan_in;		/* the same for scx_port_set_rx_vlans() */
	/*
	 * The live set (down: none) and, during a safe switch, the prepared
	 * one. Both change under stats_lock, which stats readers take.
	 */
	softcx::en::ChannelSet live;
	softcx::en::ChannelSet next;
	struct scx_os_lock *stats_lock;
	/* counters of channel sets already destroyed, per channel index */
	softcx::en::ChannelStats *base;
	/* the device's counters as last queried (scx_stats_refresh), under stats_lock */
	softcx::en::DeviceStats dev_cache;
};

namespace softcx::en {
using Port = ::scx_port;

/* Every channel of the port's sets, base excluded: f(index, stats). Caller holds stats_lock. */
template <typename F> void for_each_live_stats(const Port *p, F f)
{
	const ChannelSet *sets[] = {&p->live, &p->next};

	for (const ChannelSet *s : sets)
		for (u32 i = 0; s->ch && i < s->nch; i++)
			f(i, s->ch[i].stats);
}
} /* namespace softcx::en */
