// SPDX-License-Identifier: GPL-2.0
/*
 * RSS: the port remembers one configuration (ethtool -x/-X, -n/-N); each
 * channel set gets its own device RSS object built from it (the newest
 * object steers, so a prepared set takes RX over from the live one), and
 * a change while up rewrites the live object in place with MODIFY_RSS.
 */
#include "en/rss.h"

#include "en/cmd.h"
#include "en/flow.h"

namespace softcx::en {

static_assert(SCX_RSS_KEY_SIZE == prm::kRssKeySize);
static_assert(SCX_RSS_TABLE_SIZE <= 1u << prm::kRssMaxTableLog);
static_assert((SCX_RSS_TABLE_SIZE & (SCX_RSS_TABLE_SIZE - 1)) == 0);
constexpr bool same(u32 a, u32 b) { return a == b; }
static_assert(same(SCX_RSS_NTYPES, prm::kRssTypes) && same(SCX_RSS_TCP4, prm::kRssTcp4) &&
	      same(SCX_RSS_UDP4, prm::kRssUdp4) && same(SCX_RSS_IP4, prm::kRssIp4) &&
	      same(SCX_RSS_TCP6, prm::kRssTcp6) && same(SCX_RSS_UDP6, prm::kRssUdp6) &&
	      same(SCX_RSS_IP6, prm::kRssIp6));
static_assert(SCX_RSS_SRC_IP == prm::kRssFieldSrcIp && SCX_RSS_DST_IP == prm::kRssFieldDstIp &&
	      SCX_RSS_SRC_PORT == prm::kRssFieldL4SPort &&
	      SCX_RSS_DST_PORT == prm::kRssFieldL4DPort);

namespace {

constexpr u32 kRssAddrs = SCX_RSS_SRC_IP | SCX_RSS_DST_IP;
constexpr u32 kRssPorts = SCX_RSS_SRC_PORT | SCX_RSS_DST_PORT;

/* A fixed, well-known Toeplitz key keeps hashes reproducible until the OS sets its own. */
constexpr u8 kRssKey[prm::kRssKeySize] = {
	0x6d, 0x5a, 0x56, 0xda, 0x25, 0x5b, 0x0e, 0xc2, 0x41, 0x67, 0x25, 0x3d, 0x43, 0xa3,
	0x8f, 0xb0, 0xd0, 0xca, 0x2b, 0xcb, 0xae, 0x7b, 0x30, 0xb4, 0x77, 0xcb, 0x2d, 0xa3,
	0x80, 0x30, 0xf2, 0x0c, 0x6a, 0x42, 0xb7, 0x3b, 0xbe, 0xac, 0x01, 0xfa,
};

constexpr u32 log_table()
{
	u32 l = 0;
	while ((1u << l) < SCX_RSS_TABLE_SIZE)
		l++;
	return l;
}

bool has_ports(u32 type)
{
	return type != SCX_RSS_IP4 && type != SCX_RSS_IP6;
}

} /* namespace */

void rss_spread(u32 *table, u32 nch)
{
	for (u32 i = 0; i < SCX_RSS_TABLE_SIZE; i++)
		table[i] = i % nch;
}

u8 rss_flags(const Port *p) { return p->caps.ip_tunnels ? prm::kRssInner : 0; }

prm::RssIn *rss_cmd_build(const scx_rss &r, const u8 *key, const u32 *table, u32 off,
			  const ChannelSet &set, u8 flags)
{
	prm::RssIn *in = zalloc_one<prm::RssIn>();

	if (!in)
		return nullptr;
	in->rx_hash_fields.set(kRssAddrs | kRssPorts);	/* every type has its own below */
	for (u32 t = 0; t < SCX_RSS_NTYPES; t++)
		in->type_fields[t] = (u8)(prm::kRssTypeOwn | r.fields[t]);
	in->log_table_size = (u8)log_table();
	__builtin_memcpy(in->toeplitz_key, key, sizeof(r.key));
	for (u32 i = 0; i < SCX_RSS_TABLE_SIZE; i++)
		in->rqn[i].set(set.ch[table[i] + off].rq.rqn);
	in->flags = flags;
	return in;
}

bool rss_table_ok(const u32 *table, u32 nch)
{
	for (u32 i = 0; i < SCX_RSS_TABLE_SIZE; i++)
		if (table[i] >= nch)
			return false;
	return true;
}

void rss_default(scx_rss *r, u32 nch)
{
	__builtin_memcpy(r->key, kRssKey, sizeof(r->key));
	rss_spread(r->table, nch);
	for (u32 t = 0; t < SCX_RSS_NTYPES; t++)
		r->fields[t] = (u8)(has_ports(t) ? kRssAddrs | kRssPorts : kRssAddrs);
}

int rss_create(Port *p, ChannelSet *set, bool keep_table)
{
	u32 spread_table[SCX_RSS_TABLE_SIZE];
	const u32 *table = p->rss.table;
	prm::CreateObjOut out = {};
	int err;

	if (keep_table) {
		if (!rss_table_ok(table, set->nch))
			return -SCX_EINVAL;
	} else {
		rss_spread(spread_table, set->nch);
		table = spread_table;
	}
	prm::RssIn *in = rss_cmd_build(p->rss, p->rss.key, table, 0, *set, rss_flags(p));
	if (!in)
		return -SCX_ENOMEM;
	err = cmd_run(p->fn, p->os_port, prm::kCmdCreateRss, in, &out);
	scx_os_free(in);
	if (err)
		return err;
	set->rss_num = out.obj_num.get();
	set->has_rss = true;
	set->rss_spread = !keep_table;
	return 0;
}

void rss_set_live(Port *p, const ChannelSet &set)
{
	if (set.rss_spread)
		rss_spread(p->rss.table, set.nch);
}

} /* namespace softcx::en */

using namespace softcx;
using namespace softcx::en;

extern "C" void scx_port_get_rss(const scx_port *p, uint32_t spread_nch, scx_rss *rss)
{
	*rss = p->rss;
	if (spread_nch)
		rss_spread(rss->table, spread_nch);
}

extern "C" int scx_port_set_rss(scx_port *p, const scx_rss *rss, const char **why)
{
	u32 nch = p->live.ch ? p->live.nch : p->nch_max;

	if (!rss_table_ok(rss->table, nch)) {
		*why = "an indirection table entry names a channel the port does not have";
		return -SCX_EINVAL;
	}
	for (u32 t = 0; t < SCX_RSS_NTYPES; t++) {
		u32 allowed = has_ports(t) ? kRssAddrs | kRssPorts : kRssAddrs;

		if (rss->fields[t] & ~allowed) {
			*why = has_ports(t) ? "unknown RSS hash field" :
					      "only TCP and UDP hash port numbers";
			return -SCX_EINVAL;
		}
	}
	if (p->live.has_rss) {
		prm::RssIn *in = rss_cmd_build(*rss, rss->key, rss->table, 0, p->live, rss_flags(p));
		prm::CmdOut out = {};
		int err;

		if (!in)
			return -SCX_ENOMEM;
		in->obj_num.set(p->live.rss_num);
		err = cmd_run(p->fn, p->os_port, prm::kCmdModifyRss, in, &out);
		scx_os_free(in);
		if (err) {
			*why = "the device refused the RSS change";
			return err;
		}
		p->live.rss_spread = false;
	}
	p->rss = *rss;
	/* the contexts hash the port's fields too */
	int err = flows_ctx_refresh(p);
	if (err)
		*why = "the device refused the RSS change of a context";
	return err;
}
