/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the host microbenchmark needs from an OS layer beyond
 * include/softcx/os.h. Two implementations:
 *   glue_os_host.cpp  over tests/host/os_host.cpp (the host tests' layer)
 *   os_lean.cpp       a minimal layer shaped like the kernel shim
 */
#pragma once

#include <cstdint>

#include "softcx/os.h"

/* Map one TX buffer for the device, as the shim's dma_map_single on skb data. */
uint64_t bench_dma_map(const void *cpu, uint32_t len);
/*
 * Count what the "stack" got on rx_ch (delivered packets) and on tx_ch
 * (released TX buffers) since the last call, and forget the records so
 * memory stays bounded.
 */
void bench_os_collect(void *rx_ch, void *tx_ch, uint64_t *rx_delivered, uint64_t *tx_freed);
/*
 * The CQ events of irq_ctx's vector 0 since the last take, bit cqn % 64 each
 * (for scx_channel_arm). A benchmark's irq_ctx points to a uint64_t, zeroed:
 * the lean layer keeps the bits there.
 */
uint64_t bench_os_take_cq_events(void *irq_ctx);
/* Misuse detected by the layer (0 for the lean layer, which checks nothing). */
int bench_os_errors();
const char *bench_os_name();
