/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The data-path engines and the wire between them.
 *
 * A doorbell only *schedules* an SQ (sq_schedule); running it (sq_run) is a
 * separate step. The engine here is synchronous and runs the SQ in the
 * doorbell writer's context, but an asynchronous engine can replace
 * sq_schedule with "queue sqn to a worker that calls sq_run" without
 * touching the TX or RX code.
 */
#pragma once

#include "hw/adapter.h"
#include "hw/cq.h"
#include "hw/mac.h"

namespace softcx::hw {

/* TX: a doorbell for sqn arrived on fn. */
void sq_schedule(Function *fn, u32 sqn);
/* TX: execute sqn's WQEs up to its doorbell record (takes the SQ lock). */
void sq_run(Function *fn, u32 sqn);

/*
 * RX: a frame arrives at fn from the wire, its FCS right or not (bad_fcs),
 * at timer value ts.
 * Takes the chosen RQ's lock; interrupts it decides on are queued in irqs
 * for the caller to raise. The frame is the receiver's to change (VLAN
 * strip works in place), and prm::kFcsLen bytes after it too (the FCS an
 * RQ with scatter_fcs places).
 */
void rx_receive(Function *fn, u8 *frame, u32 len, bool bad_fcs, u64 ts, IrqBatch *irqs);

/*
 * The cable: what fn's MAC transmits, its peer receives (and may change:
 * rx_receive). frame has room for len + prm::kFcsLen bytes. ts: the timer
 * value its WQE started at, read once by the TX engine (both ends of a pair
 * share the adapter's timer), which is also when the frame arrives.
 */
inline void wire_xmit(Function *fn, u8 *frame, u32 len, u64 ts, IrqBatch *irqs)
{
	mac_tx(fn, frame, len);
	rx_receive(fn->peer, frame, len, mac_tx_fcs_error(fn), ts, irqs);
}

} /* namespace softcx::hw */
