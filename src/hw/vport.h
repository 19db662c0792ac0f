/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The function's RX address filter (prm::ModifyNicVportIn): which frames
 * the port takes by destination MAC, and by outer VLAN tag. The usual
 * frame, untagged to the first unicast address (the driver's own), costs
 * one load and a compare (and the parser's tag test); the rest go through
 * the lists out of line (vport.cpp).
 */
#pragma once

#include "hw/adapter.h"

namespace softcx::hw {

/* A destination MAC (network order) as VportFilter words hold it: bits 47:0. */
[[gnu::always_inline]] inline u64 vport_word(const u8 *mac)
{
	u64 w = 0;

	__builtin_memcpy(&w, mac, 6);
	return w;
}

/* Past the first unicast address: broadcast, the lists, the promiscuous modes. */
bool vport_match(Function *fn, const u8 *frame);

/* Does the filter let a frame to frame[0..5] in? */
[[gnu::always_inline]] inline bool vport_accepts(Function *fn, const u8 *frame)
{
	u64 w = __atomic_load_n(&fn->vport.fast, __ATOMIC_RELAXED);

	if (__builtin_expect(w == (vport_word(frame) | kVportFirstUc), 1) || (w & kVportPassAll))
		return true;
	return vport_match(fn, frame);
}

/* Is frame[0..5] an address of fn's own unicast list (its local loopback's test)? */
bool vport_own_unicast(Function *fn, const u8 *frame);

/*
 * A frame with an outer VLAN tag (a C-tag or an S-tag: the parser found
 * one) that the address filter let in: does the VLAN filter?
 */
bool vport_vlan_accepts(Function *fn, const u8 *frame);

/*
 * MODIFY_NIC_VPORT_CONTEXT, checked: the new context (command lock held).
 * list: n_uc unicast then n_mc multicast prm::VportMac, as in the inbox.
 */
void vport_set(Function *fn, u8 promisc, const u8 *list, u32 n_uc, u32 n_mc);
/* The VLAN filter: prm::VportVlan bits, the C-tag and S-tag maps as in the inbox. */
void vport_set_vlans(Function *fn, u8 vlan, const u8 *maps);

} /* namespace softcx::hw */
