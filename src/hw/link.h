/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The port's link: its protocols, autoneg and administrative state, and
 * the state of the cable they give (prm::QueryPortLinkOut). Both ends of
 * a cable change together under the adapter's link lock.
 */
#pragma once

#include "hw/adapter.h"

namespace softcx::hw {

/* A port as the adapter creates it: administratively down, every protocol offered, autoneg on. */
void link_init(Function *fn);

void link_query(Function *fn, prm::QueryPortLinkOut *out);

/* MODIFY_PORT_LINK; null when done, else why it was refused (nothing changed). */
const char *link_modify(Function *fn, const prm::ModifyPortLinkIn &in);

/*
 * QUERY_MODULE_EEPROM of the module at fn's end of its cable (hw/module.cpp):
 * null when the device reached the module (out->module_status says whether
 * it answered, out->data holds the bytes if so), else why it was refused.
 */
const char *module_read(Function *fn, const prm::QueryModuleEepromIn &in,
			prm::QueryModuleEepromOut *out);

/*
 * What happens to the frames a function sends (Function::wire, one load
 * on the TX path): kWireUp, its cable's link is up; kWireLocalLb, its
 * unicast local loopback is on (prm::kVportSelectLocalLb). Only kWireUp
 * alone is the plain path to the peer.
 */
enum Wire : u32 {
	kWireUp = 1u << 0,
	kWireLocalLb = 1u << 1,
};

/* Set or clear bit of fn's wire state (each bit has its own writer's lock). */
inline void wire_set(Function *fn, u32 bit, bool on)
{
	if (on)
		__atomic_fetch_or(&fn->wire, bit, __ATOMIC_RELAXED);
	else
		__atomic_fetch_and(&fn->wire, ~bit, __ATOMIC_RELAXED);
}

} /* namespace softcx::hw */
