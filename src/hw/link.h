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

/* Whether frames cross fn's cable now (any context). */
[[gnu::always_inline]] inline bool link_up(const Function *fn)
{
	return __atomic_load_n(&fn->link_up, __ATOMIC_RELAXED) != 0;
}

} /* namespace softcx::hw */
