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
#include "hw/link.h"

namespace softcx::hw {

/* TX: a doorbell for sqn arrived on fn. */
void sq_schedule(Function *fn, u32 sqn);
/* TX: execute sqn's WQEs up to its doorbell record (takes the SQ lock). */
void sq_run(Function *fn, u32 sqn);

/*
 * RX: a frame arrives at fn from the wire, damaged or not (fault: a
 * WireFault, hw/mac.h), at timer value ts.
 * Takes the chosen RQ's lock; interrupts it decides on are queued in irqs
 * for the caller to raise. buf is the receiver's to write: len +
 * prm::kFcsLen bytes. The frame is either already there (frame == buf) or
 * read where the sender keeps it, and copied to buf only when the RQ
 * changes it (a VLAN strip, the FCS an RQ with scatter_fcs places).
 */
void rx_receive(Function *fn, const u8 *frame, u8 *buf, u32 len, u32 fault, u64 ts,
		IrqBatch *irqs);

/*
 * RX of a frame fn sent to itself (its unicast local loopback): as
 * rx_receive(), but the frame never crossed a MAC, so no port counter
 * sees it and its FCS is right.
 */
void rx_loopback(Function *fn, const u8 *frame, u8 *buf, u32 len, u64 ts, IrqBatch *irqs);

/*
 * A frame fn sends while its wire state is not just kWireUp: looped back
 * (true), dropped at a link that is down (true, tx_discards_phy), or
 * false: it goes on to the wire after all.
 */
bool wire_xmit_slow(Function *fn, u32 wire, const u8 *frame, u8 *buf, u32 len, u64 ts,
		    IrqBatch *irqs);

/*
 * The cable: what fn's MAC transmits, its peer receives. buf: room for len
 * + prm::kFcsLen bytes the receiver may change (rx_receive), frame itself
 * or the sender's scratch. ts: the timer value its WQE started at, read
 * once by the TX engine (both ends of a pair share the adapter's timer),
 * which is also when the frame arrives.
 */
inline void wire_xmit(Function *fn, const u8 *frame, u8 *buf, u32 len, u64 ts, IrqBatch *irqs)
{
	u32 wire = __atomic_load_n(&fn->wire, __ATOMIC_RELAXED);

	if (__builtin_expect(wire != kWireUp, 0) &&
	    wire_xmit_slow(fn, wire, frame, buf, len, ts, irqs))
		return;
	mac_tx(fn, frame, len);
	rx_receive(fn->peer, frame, buf, len, mac_tx_fault(fn), ts, irqs);
}

} /* namespace softcx::hw */
