/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Flow rules (ethtool ntuple filters) and RSS contexts: the port remembers
 * them by channel index; every channel set gets them with its own RQ
 * numbers (device flow table entries, flow-only RSS objects).
 */
#pragma once

#include "en/port.h"

namespace softcx::en {

/* The port's flow rule memory (scx_port_create); 0 or -ENOMEM. */
int flows_init(Port *p);
void flows_free(Port *p);
/*
 * A new set (scx_port_prepare, after its RSS object): its context objects,
 * then every rule's device entry re-pointed at its RQs (they steer to the
 * set from now on). On failure the rules stay with the live set (or are
 * removed when there is none) and the set's context objects are gone.
 */
int flows_attach(Port *p, ChannelSet *set);
/* Point every rule back at the live set (the prepared one is dropped), or remove them. */
void flows_reattach_live(Port *p);
/* Remove every rule's device entry (the port closes). */
void flows_detach(Port *p);
/* Destroy the set's context objects; no device entry names them any more. */
void flows_ctx_destroy(Port *p, ChannelSet *set);
/* The live set's context objects take the port's new hash fields. */
int flows_ctx_refresh(Port *p);
/* The fewest channels the rules and contexts need; *what says which needs them. */
u32 flows_min_channels(const Port *p, const char **what);

} /* namespace softcx::en */
