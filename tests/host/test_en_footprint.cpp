// SPDX-License-Identifier: GPL-2.0
/*
 * scx_port_mem_estimate() against what a port really allocates: one port
 * opened at the largest MTU, then a second set prepared next to it (the
 * peak of a safe switch), measured by the host OS layer.
 */
#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "hw/rss.h"
#include "os_host.h"
#include "softcx/core.h"

namespace {

scx_port_params port_params(uint32_t nch, uint32_t log_sq, uint32_t log_rq, uint32_t mtu,
			    bool striding, bool xdp = false)
{
	scx_port_params prm = {};

	prm.nch = nch;
	prm.mtu = mtu;
	prm.log_sq_size = log_sq;
	prm.log_rq_size = log_rq;
	prm.rx_striding = striding;
	prm.xdp = prm.xdp_frags = xdp;
	return prm;
}

/* Peak bytes of one port from before its first open to a prepared second set. */
uint64_t measure_switch_peak(uint32_t nch, uint32_t log_sq, uint32_t log_rq, uint32_t mtu,
			     bool striding, bool xdp = false)
{
	int os_dev = 0, irq_ctx = 0;
	std::vector<int> os_ch(nch);
	std::vector<void *> chans;
	scx_hw_adapter *adapter = nullptr;
	scx_port *port = nullptr;
	uint64_t base, peak = 0;

	for (auto &c : os_ch)
		chans.push_back(&c);
	host::reset();
	EXPECT_EQ(scx_hw_adapter_create(7, 2, &os_dev, &adapter), 0);
	if (!adapter)
		return 0;
	scx_hw_set_irq_ctx(scx_hw_function(adapter, 0), &irq_ctx);
	EXPECT_EQ(scx_port_create(scx_hw_function(adapter, 0), &os_dev, nullptr, nch, &host::kOsLayout, &port), 0);
	if (port) {
		base = host::mem_peak_reset();
		scx_port_params prm = port_params(nch, log_sq, log_rq, mtu, striding, xdp);
		EXPECT_EQ(scx_port_open(port, &prm, chans.data()), 0);
		EXPECT_EQ(scx_port_prepare(port, &prm, chans.data()), 0);
		peak = host::mem_peak() - base;
		scx_port_commit(port);
		scx_port_destroy(port);
	}
	scx_hw_adapter_destroy(adapter);
	EXPECT_EQ(host::rx_buffers_outstanding(), 0u);
	EXPECT_EQ(host::zalloc_outstanding(), 0);
	EXPECT_EQ(host::errors(), 0);
	return peak;
}

} /* namespace */

/*
 * What the emulated device itself allocates for two sets without XDP: a
 * frame scratch per SQ (2 per channel) and a Toeplitz table per RSS object.
 * The NIC's own memory, not the driver's: left out of the estimate (about
 * 0.1 % of it at the shim's geometry).
 */
uint64_t device_bytes(uint32_t nch)
{
	return 2 * (2 * nch * sizeof(softcx::hw::SqScratch) + sizeof(softcx::hw::ToeplitzTable));
}

/*
 * The estimate covers what the driver's two sets take and is not far above
 * it: the XDP_TX SQ it counts exists only with a program, and the kernel
 * rounds allocations to powers of two where the host layer does not.
 */
TEST(Footprint, EstimateBoundsTwoSetsAtTheLargestMtu)
{
	struct Geo { uint32_t nch, log_sq, log_rq; };

	for (Geo g : {Geo{1, 6, 4}, Geo{2, 10, 10}, Geo{3, 8, 6}}) {
		uint64_t est = scx_port_mem_estimate(g.nch, g.log_sq, g.log_rq, &host::kOsLayout);
		/* the larger of the two RQ types (the striding one at this MTU) */
		uint64_t all = std::max(measure_switch_peak(g.nch, g.log_sq, g.log_rq, SCX_MAX_MTU, false),
					measure_switch_peak(g.nch, g.log_sq, g.log_rq, SCX_MAX_MTU, true));
		/* a multi-buffer XDP set: a page a fragment, and the XDP_TX SQ */
		uint64_t xdp = measure_switch_peak(g.nch, g.log_sq, g.log_rq, SCX_MAX_MTU, true, true);

		EXPECT_GE(est, xdp - device_bytes(g.nch)) << g.nch << " channels, XDP";

		ASSERT_GT(all, device_bytes(g.nch));
		uint64_t got = all - device_bytes(g.nch);
		EXPECT_GE(est, got) << g.nch << " channels, log_sq " << g.log_sq << ", log_rq " << g.log_rq;
		EXPECT_LE(est, got * 3 / 2) << g.nch << " channels, log_sq " << g.log_sq << ", log_rq " << g.log_rq;
	}
}

/*
 * The shim's geometry at the largest MTU (9978), two sets: a striding RQ posts 16 KiB of
 * pages per packet of its 1024 (a cyclic RQ 10 KiB: four fragments).
 */
TEST(Footprint, ShimDefaultsScaleWithChannels)
{
	uint64_t one = scx_port_mem_estimate(1, 10, 10, &host::kOsLayout);
	uint64_t rx_bufs = 2ull * 1024 * 16384;

	EXPECT_GE(one, rx_bufs);
	/* with its larger CQ (a CQE per 256-byte stride) */
	EXPECT_LE(one, rx_bufs * 12 / 10);
	/* linear in channels, up to the channel array */
	for (uint32_t n : {2u, 8u, 64u}) {
		uint64_t e = scx_port_mem_estimate(n, 10, 10, &host::kOsLayout);

		EXPECT_GE(e, n * one - 2 * 8192) << n;
		EXPECT_LE(e, n * one + 2 * 65536) << n;
	}
	/* nr_pairs=8 channels=64 (16 ports): beyond any 2 GiB guest, tens of GiB */
	EXPECT_GT(16 * scx_port_mem_estimate(64, 10, 10, &host::kOsLayout), 32ull << 30);
}

TEST(Footprint, InvalidGeometryGivesZero)
{
	EXPECT_EQ(scx_port_mem_estimate(0, 10, 10, &host::kOsLayout), 0u);
	EXPECT_EQ(scx_port_mem_estimate(SCX_MAX_CHANNELS + 1, 10, 10, &host::kOsLayout), 0u);
	EXPECT_EQ(scx_port_mem_estimate(1, 5, 10, &host::kOsLayout), 0u);
	EXPECT_EQ(scx_port_mem_estimate(1, 10, 0, &host::kOsLayout), 0u);
	EXPECT_EQ(scx_port_mem_estimate(1, 10, 17, &host::kOsLayout), 0u);
	/* no page holds even the smallest MTU with this much headroom */
	scx_os_layout big = host::kOsLayout;
	big.rx_headroom = 30000;
	EXPECT_EQ(scx_port_mem_estimate(1, 10, 10, &big), 0u);
}
