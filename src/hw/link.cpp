// SPDX-License-Identifier: GPL-2.0
/*
 * The link of each cable. Every port offers its admin protocols; the
 * cable comes up at the fastest protocol both ends offer, once both are
 * administratively up and run the same FEC at that speed
 * (prm::QueryPortLinkOut). No signal runs in the emulation: a change is
 * resolved at once, for both ends, by the command that makes it.
 */
#include "hw/link.h"

namespace softcx::hw {
namespace {

constexpr u32 bit(u32 b) { return 1u << b; }

constexpr u32 kCapCx4 = bit(prm::kLinkProto1000BaseX) | bit(prm::kLinkProto10GBaseR) |
			bit(prm::kLinkProto25GBaseR) | bit(prm::kLinkProto40GBaseR4) |
			bit(prm::kLinkProto50GBaseR2) | bit(prm::kLinkProto100GBaseR4);
/* ConnectX-6 Dx: 50G PAM4 lanes, up to 200G */
constexpr u32 kCapCx6Dx = kCapCx4 | bit(prm::kLinkProto50GBaseR) |
			  bit(prm::kLinkProto100GBaseR2) | bit(prm::kLinkProto200GBaseR4);
/* ConnectX-7: 100G lanes, up to 400G */
constexpr u32 kCapCx7 = kCapCx6Dx | bit(prm::kLinkProto100GBaseR) |
			bit(prm::kLinkProto200GBaseR2) | bit(prm::kLinkProto400GBaseR4);

/* The fastest protocol of a mask (of equal speeds, the one of fewer lanes: the higher bit). */
u32 fastest(u32 mask)
{
	u32 best = 0, best_mbps = 0;

	for (u32 b = 0; b < prm::kLinkProtoBits; b++) {
		if (!(mask & bit(b)) || prm::link_proto_mbps(b) < best_mbps)
			continue;
		best = bit(b);
		best_mbps = prm::link_proto_mbps(b);
	}
	return best;
}

/* The FEC modes any protocol of a mask runs. */
u16 fec_cap(u32 protos)
{
	u16 cap = 0;

	for (u32 b = 0; b < prm::kLinkProtoBits; b++)
		if (protos & bit(b))
			cap |= prm::link_proto_fec_cap(b);
	return cap;
}

/* The FEC a port of policy admin runs at protocol proto (one bit), 0 without a protocol. */
u16 fec_at(u32 proto, u16 admin)
{
	return proto ? prm::link_proto_fec((u32)__builtin_ctz(proto), admin) : 0;
}

/* fec: what this end runs at the common speed, when only the FEC kept the link down. */
u8 down_reason(const Link &me, const Link &other, bool up, u16 fec)
{
	if (up || !me.admin_up)
		return prm::kLinkDownNone;
	if (fec)
		return fec == prm::kFecNone ? prm::kLinkDownFecNoneNoLock :
		       fec == prm::kFecFirecode ? prm::kLinkDownFcNotLocked :
						  prm::kLinkDownRsNotLocked;
	if (me.an_disable)
		return prm::kLinkDownNoPartnerForced;
	if (!other.admin_up || other.an_disable)
		return prm::kLinkDownNoPartner;
	return prm::kLinkDownNoCommon;
}

/* Both ends of fn's cable take the state their settings give (link lock held). */
void link_resolve(Function *fn)
{
	Function *ends[2] = { fn, fn->peer };
	const u32 common = fn->link.admin & fn->peer->link.admin;
	const bool trained = fn->link.admin_up && fn->peer->link.admin_up && common;
	const u32 speed = trained ? fastest(common) : 0;
	/* each end's FEC at that speed: the link locks only if they are the same */
	const u16 fec[2] = { fec_at(speed, fn->link.fec_admin), fec_at(speed, fn->peer->link.fec_admin) };
	const bool up = trained && fec[0] == fec[1];
	const bool negotiated = up && !fn->link.an_disable && !fn->peer->link.an_disable;
	const u32 oper = up ? speed : 0;

	for (u32 i = 0; i < 2; i++) {
		Link &me = ends[i]->link;
		const Link &other = ends[i ^ 1]->link;

		/* a change of speed while up is no down event: the emulated link retrains at once */
		if (me.oper && !oper)
			bus_add(&ends[i]->port.link_down_events, 1);
		me.oper = oper;
		/* read by the RX engine (phy_rx_fault) without the link lock */
		__atomic_store_n(&me.fec_oper, up ? fec[i] : (u16)0, __ATOMIC_RELAXED);
		me.partner = negotiated ? other.admin : 0;
		me.down_reason = down_reason(me, other, up, trained ? fec[i] : 0);
		wire_set(ends[i], kWireUp, up);
	}
}

/* The protocols a generation's port supports. */
u32 link_cap(u8 model)
{
	return model >= prm::kModelCx7 ? kCapCx7 : model >= prm::kModelCx6Dx ? kCapCx6Dx : kCapCx4;
}

} /* namespace */

void link_init(Function *fn)
{
	fn->link.cap = link_cap(caps_of(fn).model);
	fn->link.admin = fn->link.cap;
}

void link_query(Function *fn, prm::QueryPortLinkOut *out)
{
	scx_os_lock(fn->adapter->link_lock);
	const Link l = fn->link;
	scx_os_unlock(fn->adapter->link_lock);

	out->proto_cap.set(l.cap);
	out->proto_admin.set(l.admin);
	out->proto_oper.set(l.oper);
	out->proto_partner.set(l.partner);
	out->admin_up = l.admin_up;
	out->oper_up = l.oper ? 1 : 0;
	out->an_disable = l.an_disable;
	out->down_reason = l.down_reason;
	out->connector = prm::kLinkConnectorDa;
	out->fec_cap.set(fec_cap(l.cap));
	out->fec_admin.set(l.fec_admin);
	out->fec_oper.set(l.fec_oper);
}

const char *link_modify(Function *fn, const prm::ModifyPortLinkIn &in)
{
	const u32 mask = in.modify_bitmask.get();
	const u16 fec = in.fec_admin.get();
	const char *why = nullptr;

	if (mask & ~(prm::kLinkModifyAdmin | prm::kLinkModifyProto | prm::kLinkModifyAutoneg |
		     prm::kLinkModifyFec))
		return "unknown modify_bitmask bit";
	if (((mask & prm::kLinkModifyAdmin) && in.admin_up > 1) ||
	    ((mask & prm::kLinkModifyAutoneg) && in.an_disable > 1))
		return "admin_up or an_disable is not 0 or 1";
	if ((mask & prm::kLinkModifyFec) && (fec & ~prm::kFecModes))
		return "unknown FEC mode bit in fec_admin";
	if ((mask & prm::kLinkModifyFec) && fec && !(fec & fec_cap(fn->link.cap)))
		return "no protocol of the port runs the FEC of fec_admin";

	scx_os_lock(fn->adapter->link_lock);
	Link l = fn->link;
	if (mask & prm::kLinkModifyAdmin)
		l.admin_up = in.admin_up;
	if (mask & prm::kLinkModifyAutoneg)
		l.an_disable = in.an_disable;
	if (mask & prm::kLinkModifyProto)
		l.admin = in.proto_admin.get() & l.cap;
	if (mask & prm::kLinkModifyFec)
		l.fec_admin = fec;
	if (!l.admin)
		why = "proto_admin has no supported protocol";
	else if (l.an_disable && prm::link_protos_one_speed(l.admin) == ~0u)
		why = "autoneg off with protocols of more than one speed";
	if (!why) {
		fn->link = l;
		link_resolve(fn);
	}
	scx_os_unlock(fn->adapter->link_lock);
	return why;
}

} /* namespace softcx::hw */
