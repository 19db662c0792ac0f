/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What crossed one function's emulated PCIe link, and the drops its RX
 * engine counted (the "Q counter"). Engines of different queues update
 * them under different locks, so every update is an atomic add; readers
 * (QUERY_* commands) take a relaxed snapshot.
 */
#pragma once

#include "prm/types.h"

namespace softcx::hw {

struct BusCounters {
	u64 rd_desc_bytes;	/* WQEs the device fetched (TX and RX) */
	u64 rd_data_bytes;	/* packet data gathered by TX engines */
	u64 wr_data_bytes;	/* packet data placed in RX buffers */
	u64 wr_cqe_bytes;	/* CQEs written */
	u64 rd_dbr_bytes;	/* doorbell record words read */
	u64 doorbells;		/* MMIO doorbell writes (SQ and CQ arm) */
	u64 emul_ns;		/* time spent emulating those writes (timing on) */
	u64 dma_faults;		/* DMA accesses the OS's view refused (not mapped for us) */
};

struct QCounters {
	u64 rx_out_of_buffer;
	u64 rx_if_down_packets;
	u64 rx_oversize_pkts_buffer;
	u64 rx_malformed;
};

inline void bus_add(u64 *ctr, u64 v) { __atomic_fetch_add(ctr, v, __ATOMIC_RELAXED); }
inline u64 bus_read(const u64 *ctr) { return __atomic_load_n(ctr, __ATOMIC_RELAXED); }

} /* namespace softcx::hw */
