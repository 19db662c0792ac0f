/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The counters a function of the device keeps, declared once. Each list
 * names a counter set that one query command returns; an entry is
 * X(field, ethtool name). From these lists come the device's live counters
 * (host-order u64, hw), the query outboxes (big-endian, cmd.h), the copies
 * between the two, and the driver's ethtool -S entries (en/stats.cpp), in
 * list order. Add a counter here and in Documentation/counters.rst only.
 */
#pragma once

#include "types.h"

/* QUERY_Q_COUNTER: frames the RX engine dropped before any RQ took them. */
#define SCX_PRM_Q_COUNTERS(X)                                                              \
	X(rx_out_of_buffer, "rx_out_of_buffer")	/* no posted WQE in the chosen RQ */        \
	X(rx_if_down_packets, "rx_if_down_packets")	/* no ready RQ, no RSS object */    \
	X(rx_oversize_pkts_buffer, "rx_oversize_pkts_buffer")	/* longer than the buffer */ \
	X(rx_malformed, "rx_malformed")	/* runt frames */

/* QUERY_BUS_COUNTERS: what crossed the function's emulated PCIe link. */
#define SCX_PRM_BUS_COUNTERS(X)                                                        \
	X(rd_desc_bytes, "bus_rd_desc_bytes")	/* WQEs the device fetched (TX and RX) */ \
	X(rd_data_bytes, "bus_rd_data_bytes")	/* packet data gathered by TX */         \
	X(wr_data_bytes, "bus_wr_data_bytes")	/* packet data placed in RX buffers */   \
	X(wr_cqe_bytes, "bus_wr_cqe_bytes")	/* CQEs written */                        \
	X(rd_dbr_bytes, "bus_rd_dbr_bytes")	/* doorbell record words read */          \
	X(doorbells, "bus_doorbells")	/* MMIO doorbell writes (SQ and CQ arm) */        \
	X(emul_ns, "emul_ns")	/* ns spent emulating them (timing on), not a NIC's */    \
	X(dma_faults, "bus_dma_faults")	/* accesses refused: address not mapped for it */

#define SCX_PRM_CTR_U64(field, name) u64 field;
#define SCX_PRM_CTR_BE64(field, name) be64 field;

namespace softcx::prm {

/* Host-order values of each set: the device's live counters, a driver's snapshot. */
struct QCounters {
	SCX_PRM_Q_COUNTERS(SCX_PRM_CTR_U64)
};

struct BusCounters {
	SCX_PRM_BUS_COUNTERS(SCX_PRM_CTR_U64)
};

} /* namespace softcx::prm */
