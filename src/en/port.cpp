// SPDX-License-Identifier: GPL-2.0
/*
 * Port lifecycle: caps query, channel set build/teardown and the RSS object that
 * spreads received packets over the channels' RQs, and the safe switch from
 * one set to another (the new set is built and steered to while the old
 * one still runs; then the old one goes).
 */
#include "en/port.h"

#include "en/cmd.h"
#include "en/flow.h"
#include "en/rss.h"

namespace softcx::en {

namespace {

void channels_close(Channel *chs, u32 n)
{
	for (u32 i = 0; i < n; i++)
		channel_close(&chs[i]);
}

/*
 * Tear a set down: RSS first (RX no longer reaches its RQs; its context
 * objects once no flow table entry names them), then the
 * queues (the device lock guarantees no engine touches ring memory
 * afterwards), then its counters move into the port's base.
 */
void set_close(Port *p, ChannelSet *set)
{
	Channel *chs = set->ch;
	u32 n = set->nch;

	if (!chs)
		return;
	flows_ctx_destroy(p, set);
	if (set->has_rss)
		cmd_destroy(p->fn, p->os_port, prm::kCmdDestroyRss, set->rss_num);
	set->has_rss = false;
	channels_close(chs, n);
	{
		LockGuard g(p->stats_lock);

		for (u32 i = 0; i < n; i++)
			stats_fold(&p->base[i], &chs[i].stats);
		*set = ChannelSet{};
	}
	scx_os_free(chs);
}

/* The port's administrative state (the cable comes up with both ends up). */
int link_admin(scx_port *p, bool up)
{
	prm::ModifyPortLinkIn in = {};
	prm::CmdOut out = {};

	in.modify_bitmask.set(prm::kLinkModifyAdmin);
	in.admin_up = up ? 1 : 0;
	return cmd_run(p->fn, p->os_port, prm::kCmdModifyPortLink, &in, &out);
}

} /* namespace */

} /* namespace softcx::en */

using namespace softcx;
using namespace softcx::en;

extern "C" int scx_port_create(struct scx_hw_function *fn, void *os_dev, void *os_port,
			       uint32_t nch_max, const scx_os_layout *os, scx_port **out)
{
	Port *p;
	int err;

	if (!nch_max || nch_max > SCX_MAX_CHANNELS || !os_layout_ok(*os))
		return -SCX_EINVAL;
	p = zalloc_one<Port>();
	if (!p)
		return -SCX_ENOMEM;
	p->fn = fn;
	p->os_dev = os_dev;
	p->os_port = os_port;
	p->nch_max = nch_max;
	p->os = *os;
	err = cmd_query_caps(fn, os_port, &p->caps);
	if (err)
		goto err;
	p->moder = moder_port_default(p->caps);
	p->rx_vlan_strip = true;
	p->rx_csum = true;
	rss_default(&p->rss, nch_max);
	/* two sets during a switch: 3 SQs, 1 RQ, 4 CQs per channel each */
	if (2 * 3 * nch_max > p->caps.max_sqs.get() || 2 * nch_max > p->caps.max_rqs.get() ||
	    2 * 4 * nch_max > p->caps.max_cqs.get()) {
		scx_os_port_log(os_port, SCX_LOG_ERR,
				"%u channels exceed the device's %u SQs / %u RQs / %u CQs\n",
				nch_max, p->caps.max_sqs.get(), p->caps.max_rqs.get(),
				p->caps.max_cqs.get());
		err = -SCX_EINVAL;
		goto err;
	}
	err = -SCX_ENOMEM;
	p->base = zalloc_array<ChannelStats>(nch_max);
	p->stats_lock = scx_os_lock_create(SCX_LOCK_PORT_STATS);
	p->rx_filter_in = static_cast<u8 *>(
		scx_os_zalloc(sizeof(prm::ModifyNicVportIn) +
			      ((1u << p->caps.log_max_current_uc_list) +
			       (1u << p->caps.log_max_current_mc_list)) * sizeof(prm::VportMac)));
	p->rx_vlan_in = static_cast<u8 *>(
		scx_os_zalloc(sizeof(prm::ModifyNicVportIn) + 2 * prm::kVportVlanMapBytes));
	if (!p->base || !p->stats_lock || !p->rx_filter_in || !p->rx_vlan_in || flows_init(p))
		goto err;
	*out = p;
	return 0;

err:
	if (p->stats_lock)
		scx_os_lock_destroy(p->stats_lock);
	flows_free(p);
	scx_os_free(p->rx_filter_in);
	scx_os_free(p->rx_vlan_in);
	scx_os_free(p->base);
	scx_os_free(p);
	return err;
}

extern "C" void scx_port_destroy(scx_port *p)
{
	if (!p)
		return;
	scx_port_abort(p);
	scx_port_close(p);
	scx_os_lock_destroy(p->stats_lock);
	flows_free(p);
	scx_os_free(p->rx_filter_in);
	scx_os_free(p->rx_vlan_in);
	scx_os_free(p->base);
	scx_os_free(p);
}

extern "C" int scx_port_prepare(scx_port *p, const scx_port_params *params,
				void *const *os_channels)
{
	ChannelParams cp;
	Channel *chs;
	u32 i;
	int err;

	if (p->next.ch)
		return -SCX_EBUSY;
	err = params_build(p, params, &cp);
	if (err)
		return err;
	chs = zalloc_array<Channel>(params->nch);
	if (!chs)
		return -SCX_ENOMEM;
	for (i = 0; i < params->nch; i++) {
		cp.ix = i;
		cp.os_channel = os_channels[i];
		err = channel_open(&chs[i], cp);
		if (err)
			goto err_close;
	}
	{
		LockGuard g(p->stats_lock);	/* stats readers see the set from here */

		p->next = ChannelSet{chs, params->nch, 0, false, false};
	}
	err = rss_create(p, &p->next, params->rss_keep_table != 0);
	/* flow rules and RSS contexts follow the new set's RQs from here on */
	if (!err)
		err = flows_attach(p, &p->next);
	if (err)
		set_close(p, &p->next);
	return err;

err_close:
	channels_close(chs, i);
	{
		LockGuard g(p->stats_lock);

		for (u32 j = 0; j < i; j++)
			stats_fold(&p->base[j], &chs[j].stats);
	}
	scx_os_free(chs);
	return err;
}

extern "C" void scx_port_commit(scx_port *p)
{
	if (!p->next.ch)
		return;
	set_close(p, &p->live);
	LockGuard g(p->stats_lock);

	p->live = p->next;
	p->next = ChannelSet{};
	rss_set_live(p, p->live);
}

/*
 * The live set's RSS object is older: it steers again once the prepared
 * one is gone; the flow rules go back to the live set's RQs first.
 */
extern "C" void scx_port_abort(scx_port *p)
{
	if (!p->next.ch)
		return;
	flows_reattach_live(p);
	set_close(p, &p->next);
}

extern "C" int scx_port_open(scx_port *p, const scx_port_params *params,
			     void *const *os_channels)
{
	int err;

	if (p->live.ch)
		return -SCX_EBUSY;
	err = scx_port_prepare(p, params, os_channels);
	if (err)
		return err;
	scx_port_commit(p);
	/* the RQs are ready: the cable may come up */
	err = link_admin(p, true);
	if (err)
		scx_port_close(p);
	return err;
}

/*
 * Down first, so that the peer's frames stop at its port (tx_discards_phy)
 * before the RQs go; then the flow rules' device entries: they name the
 * set's RQs and context objects.
 */
extern "C" void scx_port_close(scx_port *p)
{
	link_admin(p, false);
	flows_detach(p);
	set_close(p, &p->live);
}

extern "C" scx_channel *scx_port_channel(scx_port *p, uint32_t ix)
{
	return p->live.ch && ix < p->live.nch ? &p->live.ch[ix] : nullptr;
}

extern "C" void scx_port_get_moder(const scx_port *p, scx_port_moder *m)
{
	*m = p->moder;
}

extern "C" int scx_port_moder_check(const scx_port *p, const scx_port_moder *m,
				    const char **why)
{
	int err = 0;

	if (!moder_ok(p->caps, m->rx, true, why, &err) || !moder_ok(p->caps, m->tx, false, why, &err))
		return err;
	return 0;
}

extern "C" int scx_port_set_moder(scx_port *p, const scx_port_moder *m, const char **why)
{
	int err = scx_port_moder_check(p, m, why);

	if (err)
		return err;
	p->moder = *m;
	for (u32 i = 0; p->live.ch && i < p->live.nch; i++) {
		int e = channel_set_moder(&p->live.ch[i], *m);

		err = err ? err : e;
	}
	return err;
}

namespace {
/* f(rq) on every RQ of the live channel set (none while down). */
template <typename F> void each_live_rq(Port *p, F f)
{
	for (u32 i = 0; p->live.ch && i < p->live.nch; i++)
		f(&p->live.ch[i].rq);
}

/*
 * A context field (Rq::*field) from `old` to `value` on every live RQ, or
 * on none: when a MODIFY_RQ fails (e.g. an RQ in error), every RQ goes
 * back to `old`, so that the RQs never stay mixed and the feature the
 * kernel keeps (the change failed) is what the device does. An RQ whose
 * MODIFY fails either way restarts from its recovery with the field as
 * stored (rq_ready_with_ctx). 0 or the first error.
 */
int live_rqs_set_ctx(Port *p, u8 Rq::*field, u8 value, u8 old)
{
	int err = 0;

	each_live_rq(p, [&](Rq *rq) {
		if (!err)
			err = rq_set_ctx(rq, &(rq->*field), value);
	});
	if (err)
		each_live_rq(p, [&](Rq *rq) {
			if (__atomic_load_n(&(rq->*field), __ATOMIC_RELAXED) != old)
				rq_set_ctx(rq, &(rq->*field), old);
		});
	return err;
}
} /* namespace */

extern "C" void scx_port_set_rx_tstamp(scx_port *p, int on)
{
	each_live_rq(p, [on](Rq *rq) { rq_set_tstamp(rq, on != 0); });
}

/* The live RQs take the port's checksum settings (rx_csum, rx_no_csum_complete). */
static void port_apply_rx_csum(scx_port *p)
{
	each_live_rq(p, [p](Rq *rq) { rq_set_csum(rq, p->rx_csum, !p->rx_no_csum_complete); });
}

extern "C" void scx_port_set_rx_csum(scx_port *p, int on)
{
	p->rx_csum = on != 0;
	port_apply_rx_csum(p);
}

extern "C" void scx_port_set_rx_no_csum_complete(scx_port *p, int on)
{
	p->rx_no_csum_complete = on != 0;
	port_apply_rx_csum(p);
}

extern "C" uint64_t scx_port_read_clock(const scx_port *p)
{
	u32 hi = bus::mmio_read32(p->fn, prm::kInitSegTimerH);
	u32 lo = bus::mmio_read32(p->fn, prm::kInitSegTimerL);
	u32 hi2 = bus::mmio_read32(p->fn, prm::kInitSegTimerH);

	/* the low word wrapped between the reads: read it again, under the new high word */
	if (hi != hi2)
		lo = bus::mmio_read32(p->fn, prm::kInitSegTimerL);
	return (u64)hi2 << 32 | lo;
}

extern "C" int scx_port_set_rx_vlan_strip(scx_port *p, int on)
{
	int err = live_rqs_set_ctx(p, &Rq::vsd, on ? 0 : 1, on ? 1 : 0);

	if (!err)
		p->rx_vlan_strip = on != 0;
	return err;
}

extern "C" int scx_port_set_rx_fcs(scx_port *p, int on)
{
	/* SHAMPO RQs place no FCS: the device refuses it (the kernel never asks) */
	if (on && p->live.ch && p->live.ch[0].rq.layout.shampo)
		return -SCX_EOPNOTSUPP;
	int err = live_rqs_set_ctx(p, &Rq::scatter_fcs, on ? 1 : 0, on ? 0 : 1);

	if (!err)
		p->rx_fcs = on != 0;
	return err;
}

extern "C" int scx_port_set_fcs_check(scx_port *p, int on)
{
	prm::ModifyPortIn in = {};
	prm::CmdOut out = {};

	in.modify_bitmask.set(prm::kPortModifyFcsChk);
	in.fcs_chk = on ? 1 : 0;
	return cmd_run(p->fn, p->os_port, prm::kCmdModifyPort, &in, &out);
}

extern "C" int scx_port_vxlan_port(scx_port *p, uint16_t udp_port, int add)
{
	prm::VxlanUdpDportIn in = {};
	prm::CmdOut out = {};

	in.vxlan_udp_port.set(udp_port);
	return cmd_run(p->fn, p->os_port,
		       add ? prm::kCmdAddVxlanUdpDport : prm::kCmdDeleteVxlanUdpDport, &in, &out);
}

static_assert((int)SCX_LINK_1000BASE_X == prm::kLinkProto1000BaseX &&
	      (int)SCX_LINK_10GBASE_R == prm::kLinkProto10GBaseR &&
	      (int)SCX_LINK_40GBASE_R4 == prm::kLinkProto40GBaseR4 &&
	      (int)SCX_LINK_25GBASE_R == prm::kLinkProto25GBaseR &&
	      (int)SCX_LINK_50GBASE_R2 == prm::kLinkProto50GBaseR2 &&
	      (int)SCX_LINK_50GBASE_R == prm::kLinkProto50GBaseR &&
	      (int)SCX_LINK_100GBASE_R4 == prm::kLinkProto100GBaseR4 &&
	      (int)SCX_LINK_100GBASE_R2 == prm::kLinkProto100GBaseR2 &&
	      (int)SCX_LINK_100GBASE_R == prm::kLinkProto100GBaseR &&
	      (int)SCX_LINK_200GBASE_R4 == prm::kLinkProto200GBaseR4 &&
	      (int)SCX_LINK_200GBASE_R2 == prm::kLinkProto200GBaseR2 &&
	      (int)SCX_LINK_400GBASE_R4 == prm::kLinkProto400GBaseR4 &&
	      (int)SCX_LINK_PROTO_BITS == prm::kLinkProtoBits);
static_assert((int)SCX_LINK_DOWN_NONE == prm::kLinkDownNone &&
	      (int)SCX_LINK_DOWN_NO_PARTNER == prm::kLinkDownNoPartner &&
	      (int)SCX_LINK_DOWN_NO_PARTNER_FORCED == prm::kLinkDownNoPartnerForced &&
	      (int)SCX_LINK_DOWN_NO_COMMON == prm::kLinkDownNoCommon &&
	      (int)SCX_LINK_DOWN_FEC_NONE_NO_LOCK == prm::kLinkDownFecNoneNoLock &&
	      (int)SCX_LINK_DOWN_FC_NOT_LOCKED == prm::kLinkDownFcNotLocked &&
	      (int)SCX_LINK_DOWN_RS_NOT_LOCKED == prm::kLinkDownRsNotLocked);
static_assert((int)SCX_FEC_NONE == prm::kFecNone && (int)SCX_FEC_FIRECODE == prm::kFecFirecode &&
	      (int)SCX_FEC_RS_528 == prm::kFecRs528 && (int)SCX_FEC_RS_544 == prm::kFecRs544 &&
	      (int)SCX_FEC_LLRS == prm::kFecLlrs);

extern "C" uint32_t scx_link_proto_mbps(uint32_t bit)
{
	return prm::link_proto_mbps(bit);
}

extern "C" int scx_port_link_get(scx_port *p, scx_link *l)
{
	prm::CmdIn in = {};
	prm::QueryPortLinkOut out = {};
	int err;

	in.opcode.set(prm::kCmdQueryPortLink);
	err = cmd_exec(p->fn, p->os_port, &in, sizeof(in), &out, sizeof(out));
	if (err)
		return err;
	l->cap = out.proto_cap.get();
	l->admin = out.proto_admin.get();
	l->oper = out.proto_oper.get();
	l->partner = out.proto_partner.get();
	l->admin_up = out.admin_up;
	l->up = out.oper_up;
	l->autoneg = !out.an_disable;
	l->down_reason = out.down_reason;
	l->fec_cap = out.fec_cap.get();
	l->fec_admin = out.fec_admin.get();
	l->fec_oper = out.fec_oper.get();
	return 0;
}

extern "C" int scx_port_link_set(scx_port *p, uint32_t admin, int autoneg, const char **why)
{
	scx_link cur;
	int err = scx_port_link_get(p, &cur);

	if (err)
		return err;
	admin &= cur.cap;
	if (!admin) {
		*why = "no supported link mode";
		return -SCX_EINVAL;
	}
	if (!autoneg && prm::link_protos_one_speed(admin) == ~0u) {
		*why = "autoneg off needs link modes of one speed";
		return -SCX_EINVAL;
	}
	if (admin == cur.admin && !autoneg == !cur.autoneg)
		return 0;

	prm::ModifyPortLinkIn in = {};
	prm::CmdOut out = {};
	in.modify_bitmask.set(prm::kLinkModifyProto | prm::kLinkModifyAutoneg);
	in.proto_admin.set(admin);
	in.an_disable = autoneg ? 0 : 1;
	return cmd_run(p->fn, p->os_port, prm::kCmdModifyPortLink, &in, &out);
}

extern "C" int scx_port_fec_set(scx_port *p, uint16_t policy, const char **why)
{
	scx_link cur;
	int err;

	if (policy & ~prm::kFecModes) {
		*why = "not a FEC mode";
		return -SCX_EINVAL;
	}
	err = scx_port_link_get(p, &cur);
	if (err)
		return err;
	if (policy && !(policy & cur.fec_cap)) {
		*why = "no speed of the port runs that FEC mode";
		return -SCX_EOPNOTSUPP;
	}
	if (policy == cur.fec_admin)
		return 0;

	prm::ModifyPortLinkIn in = {};
	prm::CmdOut out = {};
	in.modify_bitmask.set(prm::kLinkModifyFec);
	in.fec_admin.set(policy);
	return cmd_run(p->fn, p->os_port, prm::kCmdModifyPortLink, &in, &out);
}

extern "C" int scx_port_module_read(scx_port *p, uint8_t i2c_address, uint8_t page, uint8_t bank,
				    uint32_t offset, uint32_t len, uint8_t *data, const char **why)
{
	static_assert(SCX_MODULE_I2C_ADDR == prm::kModuleI2cAddr);
	if (!len || offset > 255 || len > 256 - offset) {
		*why = "offset and length must stay within the 256 bytes of a page";
		return -SCX_EINVAL;
	}
	for (uint32_t done = 0; done < len;) {
		prm::QueryModuleEepromIn in = {};
		prm::QueryModuleEepromOut out = {};
		uint32_t n = len - done < prm::kModuleReadMax ? len - done : prm::kModuleReadMax;

		in.hdr.opcode.set(prm::kCmdQueryModuleEeprom);
		in.i2c_address = i2c_address;
		in.page = page;
		in.bank = bank;
		in.size = (u8)n;
		in.offset.set((u16)(offset + done));
		int err = cmd_exec(p->fn, p->os_port, &in, sizeof(in), &out, sizeof(out));
		if (err)
			return err;
		if (out.module_status == prm::kModuleNoAnswer) {
			*why = "the module does not answer at that I2C address";
			return -SCX_EINVAL;
		}
		if (out.module_status != prm::kModuleOk) {
			*why = "the module keeps page 00h of bank 0 only (flat memory)";
			return -SCX_EINVAL;
		}
		__builtin_memcpy(data + done, out.data, n);
		done += n;
	}
	return (int)len;
}

extern "C" int scx_port_set_rx_filter(scx_port *p, uint32_t promisc, const uint8_t *uc,
				      uint32_t n_uc, const uint8_t *mc, uint32_t n_mc)
{
	const u32 max_uc = 1u << p->caps.log_max_current_uc_list;
	const u32 max_mc = 1u << p->caps.log_max_current_mc_list;
	u8 modes = 0;

	if (promisc & ~(SCX_RX_PROMISC_UC | SCX_RX_PROMISC_MC | SCX_RX_PROMISC_ALL))
		return -SCX_EINVAL;
	if (promisc & SCX_RX_PROMISC_ALL)
		modes |= prm::kVportPromiscAll;
	/* too many to list: take them all */
	if ((promisc & SCX_RX_PROMISC_UC) || n_uc > max_uc) {
		modes |= prm::kVportPromiscUc;
		n_uc = n_uc > max_uc ? max_uc : n_uc;
	}
	if ((promisc & SCX_RX_PROMISC_MC) || n_mc > max_mc) {
		modes |= prm::kVportPromiscMc;
		n_mc = 0;
	}

	/* built in the port's buffer: callers serialize (the shim: the netdev's address lock) */
	u32 len = (u32)sizeof(prm::ModifyNicVportIn) + (n_uc + n_mc) * (u32)sizeof(prm::VportMac);
	auto *in = reinterpret_cast<prm::ModifyNicVportIn *>(p->rx_filter_in);
	auto *list = reinterpret_cast<prm::VportMac *>(in + 1);
	prm::CmdOut out = {};

	__builtin_memset(in, 0, len);
	in->hdr.opcode.set(prm::kCmdModifyNicVportContext);
	in->field_select = prm::kVportSelectAddrs;
	in->promisc = modes;
	in->n_uc = (u8)n_uc;
	in->n_mc = (u8)n_mc;
	for (u32 i = 0; i < n_uc; i++)
		__builtin_memcpy(list[i].addr, uc + i * 6, 6);
	for (u32 i = 0; i < n_mc; i++)
		__builtin_memcpy(list[n_uc + i].addr, mc + i * 6, 6);
	return cmd_exec(p->fn, p->os_port, in, len, &out, sizeof(out));
}

extern "C" int scx_port_set_rx_vlans(scx_port *p, uint32_t flags, const uint64_t *ctag,
				     const uint64_t *stag)
{
	static_assert(SCX_VLAN_MAP_WORDS * 64 == prm::kVlanIds);
	static_assert(SCX_RX_VLAN_CTAG == prm::kVportVlanCtag && SCX_RX_VLAN_STAG == prm::kVportVlanStag);
	if (flags & ~(SCX_RX_VLAN_CTAG | SCX_RX_VLAN_STAG))
		return -SCX_EINVAL;

	/* built in the port's buffer: callers serialize (the shim: RTNL) */
	const u32 len = (u32)sizeof(prm::ModifyNicVportIn) + 2 * prm::kVportVlanMapBytes;
	auto *in = reinterpret_cast<prm::ModifyNicVportIn *>(p->rx_vlan_in);
	u8 *maps = p->rx_vlan_in + sizeof(*in);
	prm::CmdOut out = {};

	__builtin_memset(in, 0, sizeof(*in));
	in->hdr.opcode.set(prm::kCmdModifyNicVportContext);
	in->field_select = prm::kVportSelectVlans;
	in->vlan = (u8)flags;
	/* the device's byte order: ID v is bit v % 8 of byte v / 8 */
	for (u32 k = 0; k < 2; k++) {
		const uint64_t *w = k ? stag : ctag;

		for (u32 i = 0; i < prm::kVportVlanMapBytes; i++)
			maps[k * prm::kVportVlanMapBytes + i] = (u8)(w[i / 8] >> (8 * (i % 8)));
	}
	return cmd_exec(p->fn, p->os_port, in, len, &out, sizeof(out));
}

extern "C" int scx_port_set_local_lb(scx_port *p, int on)
{
	prm::ModifyNicVportIn in = {};
	prm::CmdOut out = {};

	in.field_select = prm::kVportSelectLocalLb;
	in.local_lb = on ? 1 : 0;
	return cmd_run(p->fn, p->os_port, prm::kCmdModifyNicVportContext, &in, &out);
}

extern "C" int scx_channel_set_moder(scx_channel *c, int rx, const scx_cq_moder *m)
{
	scx_port_moder pm;

	if (rx)
		return cq_modify_moder(&c->rq.cq, *m);
	pm.tx = *m;
	return channel_set_moder(c, pm, false);
}

extern "C" uint32_t scx_channel_cqn(const scx_channel *c, int rx)
{
	return rx ? c->rq.cq.cqn : c->sq.cq.cqn;
}

extern "C" void scx_channel_totals(scx_channel *c, scx_chan_totals *t)
{
	t->rx_packets = c->stats.rq.packets.read();
	t->rx_bytes = c->stats.rq.bytes.read();
	t->tx_packets = c->stats.sq.packets.read();
	t->tx_bytes = c->stats.sq.bytes.read();
}
