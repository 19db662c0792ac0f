/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The port's RSS configuration (key, indirection table, hash fields per
 * traffic type) and the device RSS object each channel set steers by.
 */
#pragma once

#include "en/port.h"

namespace softcx::en {

/* The defaults: a fixed key until the OS sets its own, TCP/UDP by 4-tuple, other IP by addresses. */
void rss_default(scx_rss *r, u32 nch);
/*
 * The set's RSS object, from the port's configuration: the table as the
 * port remembers it (keep_table: every entry must name one of the set's
 * channels, else -EINVAL) or spread evenly over the set. Being the newest
 * object, it steers the port's RX from now on.
 */
int rss_create(Port *p, ChannelSet *set, bool keep_table);
/*
 * The flags of every RSS object the port makes: kRssInner where the device
 * parses IP tunnels, so that GRE and IP-in-IP traffic spreads by its inner
 * flows, as mlx5 does with its inner TTC tables.
 */
u8 rss_flags(const Port *p);
/*
 * The device's command for r's hash fields, key and table (channel per
 * entry, plus off) over the set's RQs (rss_flags(), and prm::kRssFlowOnly
 * for a context, in flags); freed by the caller, nullptr without memory.
 */
prm::RssIn *rss_cmd_build(const scx_rss &r, const u8 *key, const u32 *table, u32 off,
			  const ChannelSet &set, u8 flags = 0);
/* Every entry of a table names one of nch channels. */
bool rss_table_ok(const u32 *table, u32 nch);
/* A table spread evenly over nch channels. */
void rss_spread(u32 *table, u32 nch);
/* The set is live now: a spread table becomes the port's. */
void rss_set_live(Port *p, const ChannelSet &set);

} /* namespace softcx::en */
