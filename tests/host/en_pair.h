/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A device pair driven by the real driver core, as the shim drives it:
 * two ports of one emulated adapter, each opened with its channels; TX
 * through scx_channel_xmit/doorbell, RX and TX completions through
 * scx_channel_poll. Frames are host::dma_map'ed like skb data.
 */
#pragma once

#include <gtest/gtest.h>

#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "frames.h"
#include "os_host.h"
#include "softcx/core.h"

namespace enpair {

struct PortCtx {
	scx_port *port = nullptr;
	std::vector<int> os_ch;	/* addresses serve as os_channel handles */
	int irq_ctx = 0;
	std::vector<void *> os_channels()
	{
		std::vector<void *> v;
		for (auto &c : os_ch)
			v.push_back(&c);
		return v;
	}
};

struct Options {
	int model = 7;
	uint32_t nch = 1;
	uint32_t mtu = 1500;
	uint32_t log_sq = 6;
	uint32_t log_rq = 4;
	bool tx_mpwqe = false;
	uint32_t xdp_ports = 0;		/* bit i: port i runs with an XDP program */
	bool xdp_mpwqe = false;		/* xdp_tx_mpwqe (both ports) */
	bool xdp_frags = false;		/* the XDP programs take multi-buffer frames */
	bool rx_striding = false;	/* rx_striding_rq (both ports) */
	bool rx_cqe_compress = false;	/* rx_cqe_compress (both ports) */
	bool rx_hw_gro = false;		/* rx-gro-hw: SHAMPO (both ports; needs rx_striding) */
	bool rx_tstamp = false;		/* RX hardware timestamps (both ports) */
};

/* One TX buffer the test owns until its completion. */
struct TxBuf {
	frames::Bytes data;
	std::vector<uint64_t> dmas;
};

frames::Bytes udp_frame(size_t payload, uint16_t sport = 1000, uint8_t seed = 1);

class Pair : public ::testing::Test {
protected:
	void SetUp() override;
	void TearDown() override;

	/* (Re)build the pair with options; SetUp builds the defaults. */
	void build(const Options &o);
	void destroy();
	scx_port_params params(uint32_t mtu, int port = 0) const;

	scx_channel *ch(int port, uint32_t ix = 0) { return scx_port_channel(p[port].port, ix); }
	/* Post one frame on port's channel, split into `split` mappings; no doorbell. */
	int post(int port, const frames::Bytes &f, uint32_t ch_ix = 0, uint32_t csum = 0,
		 std::vector<size_t> cuts = {});
	/* Post with extra packet attributes (GSO, VLAN flag): `tmpl` gives them. */
	int post_pkt(int port, const frames::Bytes &f, const scx_tx_pkt &tmpl,
		     std::vector<size_t> cuts = {}, uint32_t ch_ix = 0);
	void doorbell(int port, uint32_t ch_ix = 0) { scx_channel_doorbell(ch(port, ch_ix)); }
	/* Post + doorbell. */
	int send(int port, const frames::Bytes &f, uint32_t ch_ix = 0, uint32_t csum = 0);
	/* Poll every channel of a port until idle; returns RX packets handled. */
	int poll(int port, int budget = 64);
	/* Arm every channel of a port. */
	void arm(int port);
	const std::vector<host::RxRecord> &rx(int port, uint32_t ch_ix = 0)
	{
		return host::rx_delivered(&p[port].os_ch[ch_ix]);
	}
	size_t rx_total(int port);
	/* Send f from port 0 and poll both ports: the packet port 1 delivered. */
	const host::RxRecord &cross(const frames::Bytes &f)
	{
		size_t before = rx(1).size();
		EXPECT_EQ(send(0, f), 0);
		poll(1);
		poll(0);
		EXPECT_EQ(rx(1).size(), before + 1);
		return rx(1).back();
	}
	uint64_t stat(int port, const std::string &name);
	/*
	 * A frame from port 0 while the link is down: it stops at port 0's
	 * MAC (tx_discards_phy then `discards`), nothing reaches port 1.
	 */
	void send_while_down(uint64_t discards)
	{
		ASSERT_EQ(send(0, udp_frame(100)), 0);
		poll(0);
		poll(1);
		EXPECT_EQ(stat(0, "tx_discards_phy"), discards);
		EXPECT_EQ(rx_total(1), 0u);
	}
	std::map<std::string, uint64_t> stats(int port);

	Options opt;
	scx_hw_adapter *adapter = nullptr;
	PortCtx p[2];
	std::vector<TxBuf *> tx_bufs;
	int os_dev = 0;
	scx_tx_done last_done = {};
	uint64_t tx_done_packets[2] = {};
};


/*
 * A packet delivered with CHECKSUM_COMPLETE, whose csum_raw is the sum of
 * its bytes as delivered from l3 (its IP header) to the end, checked
 * against the reference (the CQE field's bytes, network order), as the
 * kernel would check it.
 */
inline void expect_complete(const host::RxRecord &r, size_t l3)
{
	uint16_t ref = frames::ref_sum(r.data, l3);
	uint8_t be[2] = { (uint8_t)(ref >> 8), (uint8_t)ref };
	uint16_t raw;

	memcpy(&raw, be, sizeof(raw));
	EXPECT_EQ(r.meta.csum, SCX_CSUM_COMPLETE);
	EXPECT_EQ(r.meta.csum_raw, raw) << "the sum of the bytes from the IP header on";
}
inline void expect_complete(const host::RxRecord &r) { expect_complete(r, frames::l3_off(r.data)); }
/* A good TCP/UDP packet as mlx5 hands it up: the sum over 64 bytes, else the verdict. */
inline void expect_csum_ok(const host::RxRecord &r)
{
	if (r.data.size() > 64)
		expect_complete(r);
	else
		EXPECT_EQ(r.meta.csum, SCX_CSUM_UNNECESSARY) << "a short frame: the verdict";
}

} /* namespace enpair */
