// SPDX-License-Identifier: GPL-2.0
/*
 * Flow rules (ethtool -N/-n) and RSS contexts (ethtool -X context).
 *
 * The port keeps both by channel index. A rule is one entry of the
 * device's flow table at its location (the device looks entries up lowest
 * index first, as ethtool orders rules); a context is a flow-only RSS
 * object of each channel set. A new set gets its context objects and then
 * every entry re-pointed at its RQs in place (SET_FLOW_TABLE_ENTRY on a
 * used index replaces it), so rules keep steering across every switch;
 * the old set's context objects go with the old set, once no entry names
 * them. A context rule's action is ethtool's offset (FLOW_RSS: added to
 * the table entry the hash picks): each offset a context's rules use gets
 * an object of its own with the shifted table. A rule's entry exists while
 * the port is open.
 */
#include "en/flow.h"

#include "en/cmd.h"
#include "en/rss.h"
#include "softcx/errno.h"

namespace softcx::en {
namespace {

/*
 * Locations the driver keeps at most (mlx5's ethtool table has 1024); the
 * device's log_max_ft_size (256 here) is what decides.
 */
constexpr u32 kMaxFlowRules = 1024;

bool is_v6(u32 type) { return type >= SCX_RSS_TCP6 && type <= SCX_RSS_IP6; }

/* The IP protocol a flow type fixes (0: ip4/ip6, the rule's l4proto). */
u8 type_proto(u32 type)
{
	switch (type) {
	case SCX_RSS_TCP4:
	case SCX_RSS_TCP6:
		return prm::kIpProtoTcp;
	case SCX_RSS_UDP4:
	case SCX_RSS_UDP6:
		return prm::kIpProtoUdp;
	default:
		return 0;
	}
}

bool any_byte(const u8 *b, u32 from, u32 to)
{
	for (u32 i = from; i < to; i++)
		if (b[i])
			return true;
	return false;
}

u32 contexts_max(const Port *p)
{
	/* two sets during a switch, each with its default object */
	u32 dev = p->caps.max_rss / 2;
	dev = dev ? dev - 1 : 0;
	return dev < SCX_MAX_RSS_CONTEXTS ? dev : SCX_MAX_RSS_CONTEXTS;
}

/* The highest channel a context's table names. */
u32 table_max(const RssCtx &c)
{
	u32 m = 0;
	for (u32 e : c.table)
		m = e > m ? e : m;
	return m;
}

bool ctx_exists(const Port *p, u32 id)
{
	return id && id <= SCX_MAX_RSS_CONTEXTS && p->ctx[id].used;
}

int rule_check(const Port *p, u32 nch, const scx_flow_rule &r, const char **why)
{
	if (r.type > SCX_FLOW_ETHER)
		return refuse_err(why, "flow types tcp4, udp4, ip4, tcp6, udp6, ip6 and ether only",
			     SCX_EINVAL);
	if (r.vlan_id_mask && r.vlan_id_mask != 0xfff)
		return refuse_err(why, "a VLAN match takes the whole VLAN ID (mask 0xfff)", SCX_EINVAL);
	if (r.vlan_id > 0xfff)
		return refuse_err(why, "a VLAN ID is below 4096", SCX_EINVAL);
	if (r.type == SCX_FLOW_ETHER) {
		if (any_byte(r.src_ip_mask, 0, 16) || any_byte(r.dst_ip_mask, 0, 16) ||
		    r.src_port_mask || r.dst_port_mask || r.l4proto_mask)
			return refuse_err(why, "an ether flow matches MAC addresses, the ethertype and the VLAN only",
				     SCX_EINVAL);
	} else if (any_byte(r.src_mac_mask, 0, 6) || r.ethertype_mask) {
		return refuse_err(why, "the source MAC and the ethertype are for ether flows", SCX_EINVAL);
	}
	if (type_proto(r.type) && (r.l4proto || r.l4proto_mask))
		return refuse_err(why, "l4proto is for ip4 and ip6 flows", SCX_EINVAL);
	if (!type_proto(r.type) && (r.src_port_mask || r.dst_port_mask))
		return refuse_err(why, "ports are for tcp and udp flows", SCX_EINVAL);
	if (r.type != SCX_FLOW_ETHER && !is_v6(r.type) &&
	    (any_byte(r.src_ip, 4, 16) || any_byte(r.src_ip_mask, 4, 16) ||
			       any_byte(r.dst_ip, 4, 16) || any_byte(r.dst_ip_mask, 4, 16)))
		return refuse_err(why, "an IPv4 address has 4 bytes", SCX_EINVAL);
	if (r.context) {
		if (!ctx_exists(p, r.context))
			return refuse_err(why, "no such RSS context", SCX_EINVAL);
		if (r.action == SCX_FLOW_DROP)
			return refuse_err(why, "a drop rule takes no RSS context", SCX_EINVAL);
		if (r.action >= nch || table_max(p->ctx[r.context]) + r.action >= nch)
			return refuse_err(why, "the action offset plus the RSS context's table names a channel the port does not have",
				     SCX_EINVAL);
	} else if (r.action != SCX_FLOW_DROP && r.action >= nch) {
		return refuse_err(why, "the action names a channel the port does not have", SCX_EINVAL);
	}
	return 0;
}

/* The set's object of context ctx with offset off, or nullptr (Set: const or not). */
template <typename Set> auto *ctx_obj_find(Set &set, u32 ctx, u32 off)
{
	for (auto &o : set.ctx_obj)
		if (o.num && o.ctx == ctx && o.offset == off)
			return &o;
	return decltype(&set.ctx_obj[0]){};
}

/* Where the entry of rule r sends its frames. */
void entry_action(const ChannelSet &set, const scx_flow_rule &r, prm::SetFlowEntryIn *in)
{
	if (r.action == SCX_FLOW_DROP) {
		in->action = prm::kFlowDrop;
	} else if (r.context) {
		const ChannelSet::CtxObj *o = ctx_obj_find(set, r.context, r.action);
		in->action = prm::kFlowFwdRss;
		in->dest.set(o ? o->num : 0);	/* none: the device refuses the entry */
	} else {
		in->action = prm::kFlowFwdRq;
		in->dest.set(set.ch[r.action].rq.rqn);
	}
}

/* The device entry of rule r at loc over the set's RQs and context objects. */
void entry_build(const ChannelSet &set, u32 loc, const scx_flow_rule &r, prm::SetFlowEntryIn *in)
{
	u32 alen = is_v6(r.type) ? 16 : 4;
	u8 proto = type_proto(r.type);
	prm::FlowFields &m = in->mask, &v = in->value;

	in->flow_index.set(loc);
	for (u32 i = 0; i < 6; i++) {
		m.dmac[i] = r.dst_mac_mask[i];
		v.dmac[i] = r.dst_mac[i] & r.dst_mac_mask[i];
	}
	if (r.vlan_id_mask) {
		m.cvlan.set(prm::kFlowCvlanTag | r.vlan_id_mask);
		v.cvlan.set(prm::kFlowCvlanTag | r.vlan_id);
	}
	if (r.type == SCX_FLOW_ETHER) {
		for (u32 i = 0; i < 6; i++) {
			m.smac[i] = r.src_mac_mask[i];
			v.smac[i] = r.src_mac[i] & r.src_mac_mask[i];
		}
		m.ethertype.set(r.ethertype_mask);
		v.ethertype.set(r.ethertype & r.ethertype_mask);
		entry_action(set, r, in);
		return;
	}
	m.ip_version = 0xff;
	v.ip_version = is_v6(r.type) ? 6 : 4;
	m.ip_protocol = proto ? 0xff : r.l4proto_mask;
	v.ip_protocol = proto ? proto : (u8)(r.l4proto & r.l4proto_mask);
	if (r.src_port_mask || r.dst_port_mask) {
		m.l4_ok = 1;
		v.l4_ok = 1;
	}
	m.src_port.set(r.src_port_mask);
	v.src_port.set(r.src_port & r.src_port_mask);
	m.dst_port.set(r.dst_port_mask);
	v.dst_port.set(r.dst_port & r.dst_port_mask);
	for (u32 i = 0; i < alen; i++) {
		m.src_ip[i] = r.src_ip_mask[i];
		v.src_ip[i] = r.src_ip[i] & r.src_ip_mask[i];
		m.dst_ip[i] = r.dst_ip_mask[i];
		v.dst_ip[i] = r.dst_ip[i] & r.dst_ip_mask[i];
	}
	entry_action(set, r, in);
}

int entry_install(Port *p, const ChannelSet &set, u32 loc, const scx_flow_rule &r)
{
	prm::SetFlowEntryIn in = {};
	prm::CmdOut out = {};

	entry_build(set, loc, r, &in);
	int err = cmd_run(p->fn, p->os_port, prm::kCmdSetFlowTableEntry, &in, &out);
	if (!err)
		p->flows[loc].hw = true;
	return err;
}

void entry_remove(Port *p, u32 loc)
{
	prm::DeleteFlowEntryIn in = {};
	prm::CmdOut out = {};

	if (!p->flows[loc].hw)
		return;
	in.flow_index.set(loc);
	cmd_run(p->fn, p->os_port, prm::kCmdDeleteFlowTableEntry, &in, &out);
	p->flows[loc].hw = false;
}

/*
 * Create or rewrite the set's object of context id with offset off (key
 * and table of c, off added to every entry); -ENOSPC without a free slot.
 */
int ctx_obj_write(Port *p, ChannelSet *set, u32 id, u32 off, const RssCtx &c)
{
	ChannelSet::CtxObj *o = ctx_obj_find(*set, id, off);
	int err;

	for (u32 i = 0; !o && i < 2 * SCX_MAX_RSS_CONTEXTS; i++)
		if (!set->ctx_obj[i].num)
			o = &set->ctx_obj[i];
	if (!o)
		return -SCX_ENOSPC;
	/* the port's hash fields, the context's key and table */
	prm::RssIn *in = rss_cmd_build(p->rss, c.key, c.table, off, *set,
				       (u8)(rss_flags(p) | prm::kRssFlowOnly));
	if (!in)
		return -SCX_ENOMEM;
	if (o->num) {
		prm::CmdOut out = {};

		in->obj_num.set(o->num);
		err = cmd_run(p->fn, p->os_port, prm::kCmdModifyRss, in, &out);
	} else {
		prm::CreateObjOut out = {};

		err = cmd_run(p->fn, p->os_port, prm::kCmdCreateRss, in, &out);
		if (!err)
			*o = ChannelSet::CtxObj{id, off, out.obj_num.get()};
	}
	scx_os_free(in);
	return err;
}

/* f(rule) for every rule of context id, until f returns true; returns whether one did. */
template <typename F> bool each_ctx_rule(const Port *p, u32 id, F f)
{
	for (u32 i = 0; i < p->flow_size; i++)
		if (p->flows[i].used && p->flows[i].r.context == id && f(p->flows[i].r))
			return true;
	return false;
}

/* A rule of context id adds off to its entries. */
bool ctx_off_used(const Port *p, u32 id, u32 off)
{
	return each_ctx_rule(p, id, [off](const scx_flow_rule &r) { return r.action == off; });
}

/* Every object of context id in the set: offset 0 and the offsets rules use. */
int ctx_write(Port *p, ChannelSet *set, u32 id, const RssCtx &c)
{
	int err = ctx_obj_write(p, set, id, 0, c);

	if (!err)
		each_ctx_rule(p, id, [&](const scx_flow_rule &r) {
			if (r.action)
				err = ctx_obj_write(p, set, id, r.action, c);
			return err != 0;
		});
	return err;
}

/* Destroy the set's objects no context or rule needs any more (all: every one). */
void ctx_obj_gc(Port *p, ChannelSet *set, bool all)
{
	for (ChannelSet::CtxObj &o : set->ctx_obj) {
		if (!o.num)
			continue;
		if (!all && ctx_exists(p, o.ctx) && (!o.offset || ctx_off_used(p, o.ctx, o.offset)))
			continue;
		cmd_destroy(p->fn, p->os_port, prm::kCmdDestroyRss, o.num);
		o = ChannelSet::CtxObj{};
	}
}

bool rule_uses_ctx(const Port *p, u32 id)
{
	return each_ctx_rule(p, id, [](const scx_flow_rule &) { return true; });
}

/* A context's new key and table (nullptr: the port's key, spread over nch). */
int ctx_fill(const Port *p, u32 nch, const u32 *table, const u8 *key, RssCtx *c,
	     const char **why)
{
	if (key)
		__builtin_memcpy(c->key, key, sizeof(c->key));
	if (table)
		__builtin_memcpy(c->table, table, sizeof(c->table));
	else if (!c->used)
		rss_spread(c->table, nch);
	if (!rss_table_ok(c->table, nch))
		return refuse_err(why, "an indirection table entry names a channel the port does not have",
			     SCX_EINVAL);
	return 0;
}

/* The highest offset the rules of context id add (0: none). */
u32 ctx_max_off(const Port *p, u32 id)
{
	u32 m = 0;
	each_ctx_rule(p, id, [&m](const scx_flow_rule &r) {
		m = r.action > m ? r.action : m;
		return false;
	});
	return m;
}

} /* namespace */

int flows_init(Port *p)
{
	u32 n = p->caps.log_max_ft_size ? 1u << p->caps.log_max_ft_size : 0;

	p->flow_size = n < kMaxFlowRules ? n : kMaxFlowRules;
	if (!p->flow_size)
		return 0;
	p->flows = zalloc_array<FlowSlot>(p->flow_size);
	return p->flows ? 0 : -SCX_ENOMEM;
}

void flows_free(Port *p)
{
	scx_os_free(p->flows);
	p->flows = nullptr;
}

int flows_attach(Port *p, ChannelSet *set)
{
	int err = 0;

	for (u32 id = 1; id <= SCX_MAX_RSS_CONTEXTS && !err; id++)
		if (p->ctx[id].used)
			err = table_max(p->ctx[id]) + ctx_max_off(p, id) < set->nch ?
				      ctx_write(p, set, id, p->ctx[id]) : -SCX_EINVAL;
	for (u32 loc = 0; loc < p->flow_size && !err; loc++) {
		const FlowSlot &f = p->flows[loc];
		if (!f.used)
			continue;
		/* a channel the set does not have (-L checks first): no such set */
		if (!f.r.context && f.r.action != SCX_FLOW_DROP && f.r.action >= set->nch)
			err = -SCX_EINVAL;
		else if (f.r.context && table_max(p->ctx[f.r.context]) + f.r.action >= set->nch)
			err = -SCX_EINVAL;
		else
			err = entry_install(p, *set, loc, f.r);
	}
	if (err) {
		flows_reattach_live(p);
		flows_ctx_destroy(p, set);
	}
	return err;
}

void flows_reattach_live(Port *p)
{
	if (!p->live.ch) {
		flows_detach(p);
		return;
	}
	for (u32 loc = 0; loc < p->flow_size; loc++)
		if (p->flows[loc].used)
			entry_install(p, p->live, loc, p->flows[loc].r);
}

void flows_detach(Port *p)
{
	for (u32 loc = 0; loc < p->flow_size; loc++)
		entry_remove(p, loc);
}

void flows_ctx_destroy(Port *p, ChannelSet *set)
{
	ctx_obj_gc(p, set, true);
}

int flows_ctx_refresh(Port *p)
{
	int err = 0;

	for (u32 id = 1; id <= SCX_MAX_RSS_CONTEXTS && p->live.ch; id++)
		if (p->ctx[id].used) {
			int e = ctx_write(p, &p->live, id, p->ctx[id]);
			err = err ? err : e;
		}
	return err;
}

u32 flows_min_channels(const Port *p, const char **what)
{
	u32 need = 0;

	for (u32 loc = 0; loc < p->flow_size; loc++) {
		const scx_flow_rule &r = p->flows[loc].r;
		u32 top = r.context ? table_max(p->ctx[r.context]) + r.action : r.action;
		if (p->flows[loc].used && r.action != SCX_FLOW_DROP && top + 1 > need) {
			need = top + 1;
			*what = r.context ?
				"an ntuple rule's RSS context table (plus its offset) names a channel beyond the new count" :
				"an ntuple rule sends to a channel beyond the new count (ethtool -N delete it first)";
		}
	}
	for (u32 id = 1; id <= SCX_MAX_RSS_CONTEXTS; id++)
		for (u32 i = 0; p->ctx[id].used && i < SCX_RSS_TABLE_SIZE; i++)
			if (p->ctx[id].table[i] + 1 > need) {
				need = p->ctx[id].table[i] + 1;
				*what = "an RSS context's table names a channel beyond the new count";
			}
	return need;
}

} /* namespace softcx::en */

using namespace softcx;
using namespace softcx::en;

extern "C" uint32_t scx_port_flow_table_size(const scx_port *p)
{
	return p->flow_size;
}

extern "C" uint32_t scx_port_flow_count(const scx_port *p)
{
	return p->flow_count;
}

extern "C" uint32_t scx_port_flow_locs(const scx_port *p, uint32_t *locs, uint32_t max)
{
	u32 n = 0;

	for (u32 loc = 0; loc < p->flow_size; loc++)
		if (p->flows[loc].used) {
			if (n < max)
				locs[n] = loc;
			n++;
		}
	return n;
}

extern "C" int scx_port_flow_free_loc(const scx_port *p, int last, uint32_t *loc)
{
	for (u32 i = 0; i < p->flow_size; i++) {
		u32 l = last ? p->flow_size - 1 - i : i;
		if (!p->flows[l].used) {
			*loc = l;
			return 0;
		}
	}
	return -SCX_ENOSPC;
}

extern "C" int scx_port_flow_get(const scx_port *p, uint32_t loc, scx_flow_rule *r)
{
	if (loc >= p->flow_size || !p->flows[loc].used)
		return -SCX_ENOENT;
	*r = p->flows[loc].r;
	return 0;
}

extern "C" int scx_port_flow_set(scx_port *p, uint32_t nch, uint32_t loc, const scx_flow_rule *r,
				 const char **why)
{
	if (!p->ntuple)
		return refuse_err(why, "ntuple filters are off (ethtool -K ntuple on)", SCX_EOPNOTSUPP);
	if (loc >= p->flow_size)
		return refuse_err(why, "location beyond the rule table", SCX_EINVAL);
	int err = rule_check(p, nch, *r, why);
	if (err)
		return err;
	/* a refused SET changes nothing: the old entry (if any) stays */
	if (p->live.ch) {
		if (r->context && !ctx_obj_find(p->live, r->context, r->action))
			err = ctx_obj_write(p, &p->live, r->context, r->action, p->ctx[r->context]);
		if (!err)
			err = entry_install(p, p->live, loc, *r);
		if (err) {
			ctx_obj_gc(p, &p->live, false);
			return refuse_err(why, "the device refused the rule", -err);
		}
	}
	FlowSlot &s = p->flows[loc];
	if (!s.used)
		p->flow_count++;
	s.r = *r;
	s.used = true;
	/* the replaced rule's context offset may be unused now */
	ctx_obj_gc(p, &p->live, false);
	return 0;
}

extern "C" int scx_port_flow_delete(scx_port *p, uint32_t loc)
{
	if (loc >= p->flow_size || !p->flows[loc].used)
		return -SCX_ENOENT;
	entry_remove(p, loc);
	p->flows[loc].used = false;
	p->flow_count--;
	ctx_obj_gc(p, &p->live, false);
	return 0;
}

extern "C" void scx_port_set_ntuple(scx_port *p, int on)
{
	p->ntuple = on != 0;
	if (on)
		return;
	for (u32 loc = 0; loc < p->flow_size; loc++)
		if (p->flows[loc].used)
			scx_port_flow_delete(p, loc);
}

namespace {
/* c with the new key and table, written to the live set's object, kept as context id. */
int ctx_apply(Port *p, u32 nch, u32 id, RssCtx c, const u32 *table, const u8 *key,
	      const char **why)
{
	int err = ctx_fill(p, nch, table, key, &c, why);
	if (err)
		return err;
	if (table_max(c) + ctx_max_off(p, id) >= nch)
		return refuse_err(why, "a rule's offset plus the new table names a channel the port does not have",
			     SCX_EINVAL);
	if (p->live.ch) {
		err = ctx_write(p, &p->live, id, c);
		if (err)
			return refuse_err(why, "the device refused the RSS context", -err);
	}
	c.used = true;
	p->ctx[id] = c;
	return 0;
}
} /* namespace */

extern "C" int scx_port_rss_ctx_create(scx_port *p, uint32_t nch, const uint32_t *table,
				       const uint8_t *key, uint32_t *ctx, const char **why)
{
	u32 id = 1;

	while (id <= contexts_max(p) && p->ctx[id].used)
		id++;
	if (id > contexts_max(p))
		return refuse_err(why, "every RSS context is in use", SCX_ENOSPC);
	RssCtx c = {};
	__builtin_memcpy(c.key, p->rss.key, sizeof(c.key));
	int err = ctx_apply(p, nch, id, c, table, key, why);
	if (!err)
		*ctx = id;
	return err;
}

extern "C" int scx_port_rss_ctx_set(scx_port *p, uint32_t nch, uint32_t ctx,
				    const uint32_t *table, const uint8_t *key, const char **why)
{
	if (!ctx_exists(p, ctx))
		return refuse_err(why, "no such RSS context", SCX_ENOENT);
	return ctx_apply(p, nch, ctx, p->ctx[ctx], table, key, why);
}

extern "C" int scx_port_rss_ctx_delete(scx_port *p, uint32_t ctx, const char **why)
{
	if (!ctx_exists(p, ctx))
		return refuse_err(why, "no such RSS context", SCX_ENOENT);
	if (rule_uses_ctx(p, ctx))
		return refuse_err(why, "an ntuple rule uses the RSS context (delete the rule first)",
			     SCX_EBUSY);
	p->ctx[ctx].used = false;
	ctx_obj_gc(p, &p->live, false);
	return 0;
}

extern "C" int scx_port_rss_ctx_get(const scx_port *p, uint32_t ctx, scx_rss *rss)
{
	if (!ctx_exists(p, ctx))
		return -SCX_ENOENT;
	*rss = p->rss;
	__builtin_memcpy(rss->key, p->ctx[ctx].key, sizeof(rss->key));
	__builtin_memcpy(rss->table, p->ctx[ctx].table, sizeof(rss->table));
	return 0;
}
