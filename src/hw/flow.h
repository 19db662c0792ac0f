/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The function's flow table (prm::SetFlowEntryIn): entries matched against
 * every received frame before the default RSS object, lowest index first.
 */
#pragma once

#include "hw/adapter.h"
#include "hw/packet.h"
#include "hw/rss.h"

namespace softcx::hw {

enum class FlowVerdict : u8 {
	Miss,		/* no entry matched: the default RSS object decides */
	Steered,	/* *out names the RQ (kFlowFwdRq, kFlowFwdRss) */
	Drop,		/* a kFlowDrop entry matched */
	Dead,		/* the entry's RSS object is gone (it cannot be: DESTROY_RSS refuses) */
};

/* A frame's match fields (FlowEntry words). */
void flow_key(const u8 *frame, const PacketInfo &pi, u32 *key);
/* prm::FlowFields (mask or value) as FlowEntry words. */
void flow_fields_words(const prm::FlowFields &f, u32 *w);

/* Look the frame up; only called when fn->flows.n is not 0. */
FlowVerdict flow_steer(Function *fn, const u8 *frame, const PacketInfo &pi, RssResult *out);

/* Writers (command lock), between seq_write_begin/end(&t->seq): 1 + the highest used index. */
void flow_update_n(FlowTable *t);

} /* namespace softcx::hw */
