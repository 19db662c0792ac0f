// SPDX-License-Identifier: GPL-2.0
/* bench_os.h over the host tests' OS layer (tests/host/os_host.cpp), used as is. */
#include "bench_os.h"

#include "os_host.h"

namespace {
int g_errors;	/* host::reset() clears host::errors(): keep a running total */
}

uint64_t bench_dma_map(const void *cpu, uint32_t len)
{
	return host::dma_map(cpu, len, SCX_DMA_SINGLE);
}

void bench_os_collect(void *rx_ch, void *tx_ch, uint64_t *rx_delivered, uint64_t *tx_freed)
{
	*rx_delivered += host::rx_delivered(rx_ch).size();
	*tx_freed += host::tx_freed(tx_ch).size();
	g_errors += host::errors();
	/* Drops the delivery/free records (they grow with every packet); allocations stay. */
	host::reset();
}

uint64_t bench_os_take_cq_events(void *irq_ctx)
{
	return host::take_cq_events(irq_ctx, 0);
}

int bench_os_errors()
{
	return g_errors + host::errors();
}

const char *bench_os_name()
{
	return "os_host";
}
