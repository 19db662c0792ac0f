/* SPDX-License-Identifier: GPL-2.0 */
/* A port: one netdev's view of its PCI function, its channel set and counters. */
#pragma once

#include "en/channel.h"
#include "prm/cmd.h"

struct scx_port {
	softcx::bus::Function *fn;
	void *os_dev;
	softcx::prm::HcaCaps caps;
	softcx::u32 nch_max;
	/* the live channel set (nullptr while down), guarded by stats_lock for readers */
	softcx::en::Channel *channels;
	softcx::u32 nch;
	softcx::u32 rss_num;
	bool has_rss;
	struct scx_os_lock *stats_lock;
	/* counters of channel sets already destroyed, per channel index */
	softcx::en::ChannelStats *base;
};

namespace softcx::en {
using Port = ::scx_port;

/* RX buffer geometry for an MTU (exposed for tests). */
bool rx_layout(u32 mtu, u32 headroom, u32 tailroom, RqLayout *out);
} /* namespace softcx::en */
