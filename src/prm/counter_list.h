/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The device's counter lists (see counters.h), macros only, so that C test
 * code can expand them too (kunit/hooks.h). An entry is X(field, ethtool name).
 */
#ifndef SCX_PRM_COUNTER_LIST_H
#define SCX_PRM_COUNTER_LIST_H

/*
 * QUERY_Q_COUNTER: frames the RX engine dropped before any RQ took them,
 * and CQ overruns (a CQE due on a full CQ: the CQ stops, CQ error event).
 */
#define SCX_PRM_Q_COUNTERS(X)                                                              \
	X(rx_out_of_buffer, "rx_out_of_buffer")	/* no posted WQE in the chosen RQ */        \
	X(rx_if_down_packets, "rx_if_down_packets")	/* no ready RQ, no RSS object */    \
	X(rx_oversize_pkts_buffer, "rx_oversize_pkts_buffer")	/* longer than the buffer */ \
	X(rx_malformed, "rx_malformed")	/* runt frames */                                 \
	X(rx_cq_overrun, "rx_cq_overrun")	/* the RQ's CQ full or in overrun */        \
	X(cq_overrun, "cq_overrun")	/* CQs (TX or RX) stopped by an overrun */

/* QUERY_BUS_COUNTERS: what crossed the function's emulated PCIe link. */
#define SCX_PRM_BUS_COUNTERS(X)                                                        \
	X(rd_desc_bytes, "bus_rd_desc_bytes")	/* WQEs the device fetched (TX and RX) */ \
	X(rd_data_bytes, "bus_rd_data_bytes")	/* packet data gathered by TX */         \
	X(wr_data_bytes, "bus_wr_data_bytes")	/* packet data placed in RX buffers */   \
	X(wr_cqe_bytes, "bus_wr_cqe_bytes")	/* CQEs written */                        \
	X(wr_cqe_bytes_saved, "bus_wr_cqe_bytes_saved")	/* not written: compressed */    \
	X(rd_dbr_bytes, "bus_rd_dbr_bytes")	/* doorbell record words read */          \
	X(doorbells, "bus_doorbells")	/* MMIO doorbell writes (SQ and CQ arm) */        \
	X(interrupts, "bus_interrupts")	/* CQ events signalled (MSI-X messages) */      \
	X(emul_ns, "emul_ns")	/* ns spent emulating them (timing on), not a NIC's */    \
	X(dma_faults, "bus_dma_faults")	/* accesses refused: address not mapped for it */

#endif /* SCX_PRM_COUNTER_LIST_H */
