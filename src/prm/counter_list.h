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
	X(cq_overrun, "cq_overrun")	/* CQs (TX or RX) stopped by an overrun */         \
	X(rx_steer_drop, "rx_steer_drop_packets")	/* a flow table drop entry matched */ \
	X(rx_steer_missed, "rx_steer_missed_packets")	/* not for an address it takes */

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

/*
 * QUERY_PORT_COUNTERS: the port's MAC (mlx5's PPCNT IEEE 802.3, RFC 2819
 * and MAC control groups, mlx5's "_phy" names). A frame's length on the
 * wire is what the MAC would send: padded to 60 bytes, plus the 4-byte FCS.
 * The wire damages no frame but those a test asks it to (an FCS error,
 * scx_hw_inject_fcs_errors: rx_crc_errors, not in rx_packets/rx_bytes,
 * in the histogram), every sender pads, and no TX engine sends a frame
 * longer than the ports carry (max_hw_mtu), so alignment, undersize,
 * fragment, jabber and too-long counts are always 0: not kept.
 */
#define SCX_PRM_PORT_COUNTERS(X)                                                           \
	X(tx_packets, "tx_packets_phy")	/* frames sent */                                   \
	X(rx_packets, "rx_packets_phy")	/* frames received */                               \
	X(tx_bytes, "tx_bytes_phy")	/* their octets on the wire (with pad, FCS) */        \
	X(rx_bytes, "rx_bytes_phy")                                                        \
	X(tx_multicast, "tx_multicast_phy")	/* group address, not broadcast */          \
	X(tx_broadcast, "tx_broadcast_phy")                                                \
	X(rx_multicast, "rx_multicast_phy")                                                \
	X(rx_broadcast, "rx_broadcast_phy")                                                \
	X(tx_mac_control, "tx_mac_control_phy")	/* EtherType 0x8808 */                     \
	X(rx_mac_control, "rx_mac_control_phy")                                            \
	X(rx_unsupported_op, "rx_unsupported_op_phy")	/* MAC control, not PAUSE */        \
	X(tx_pause, "tx_pause_ctrl_phy")	/* MAC control PAUSE (opcode 1) */            \
	X(rx_pause, "rx_pause_ctrl_phy")                                                   \
	X(rx_crc_errors, "rx_crc_errors_phy")	/* FCS wrong: dropped unless fcs_chk 0 */  \
	X(tx_discards, "tx_discards_phy")	/* not sent: the link was down */            \
	X(link_down_events, "link_down_events_phy")	/* the link went from up to down */  \
	SCX_PRM_RX_HIST(X, SCX_PRM_HIST_CTR)

/*
 * QUERY_PORT_COUNTERS, physical layer: FEC blocks, one per frame the wire
 * damaged (scx_hw_inject_bit_errors, scx_hw_inject_fcs_errors) while the
 * link ran a FEC. As mlx5, for ethtool's FEC statistics
 * (--show-fec -I), not ethtool -S.
 */
#define SCX_PRM_FEC_COUNTERS(X)                                                            \
	X(fec_corrected_blocks, "fec_corrected_blocks")	/* bit errors corrected */          \
	X(fec_uncorrectable_blocks, "fec_uncorrectable_blocks")	/* errors it could not */

/*
 * The received frames' length histogram,
 * in mlx5's buckets: H(X, field, ethtool name, low, high), bounds inclusive.
 * SCX_PRM_HIST_CTR makes each bucket an entry of the list above.
 */
#define SCX_PRM_RX_HIST(X, H)                                                              \
	H(X, rx_64_bytes, "rx_64_bytes_phy", 0, 64)                                        \
	H(X, rx_65_to_127_bytes, "rx_65_to_127_bytes_phy", 65, 127)                        \
	H(X, rx_128_to_255_bytes, "rx_128_to_255_bytes_phy", 128, 255)                     \
	H(X, rx_256_to_511_bytes, "rx_256_to_511_bytes_phy", 256, 511)                     \
	H(X, rx_512_to_1023_bytes, "rx_512_to_1023_bytes_phy", 512, 1023)                  \
	H(X, rx_1024_to_1518_bytes, "rx_1024_to_1518_bytes_phy", 1024, 1518)               \
	H(X, rx_1519_to_2047_bytes, "rx_1519_to_2047_bytes_phy", 1519, 2047)               \
	H(X, rx_2048_to_4095_bytes, "rx_2048_to_4095_bytes_phy", 2048, 4095)               \
	H(X, rx_4096_to_8191_bytes, "rx_4096_to_8191_bytes_phy", 4096, 8191)               \
	H(X, rx_8192_to_10239_bytes, "rx_8192_to_10239_bytes_phy", 8192, 10239)
#define SCX_PRM_HIST_CTR(X, field, name, low, high) X(field, name)

#endif /* SCX_PRM_COUNTER_LIST_H */
