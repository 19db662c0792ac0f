// SPDX-License-Identifier: GPL-2.0
/*
 * Hardware timestamps through the driver core: the raw CQE timestamp
 * reaches the OS only where it is wanted (RX: the RQ's flag, switched on a
 * live port; TX: the packet's request), reading the device clock, the
 * counters, and the rule against CQE compression.
 */
#include <functional>

#include "en_pair.h"
#include "softcx/errno.h"

using namespace enpair;
using frames::Bytes;

namespace {

class Tstamp : public Pair {
protected:
	/* Send f from port 0 (tmpl: packet attributes), poll both ports. */
	void cross(const Bytes &f, const scx_tx_pkt &tmpl = {})
	{
		ASSERT_EQ(post_pkt(0, f, tmpl), 0);
		doorbell(0);
		poll(1);
		poll(0);
	}
	const std::vector<host::TxTstamp> &tx_ts() { return host::tx_tstamps(&p[0].os_ch[0]); }
};

constexpr uint64_t kMs = 1000000;

/* The driver reads the device clock: high, low, high; cx7 runs at 1 GHz (+20 ppm). */
TEST_F(Tstamp, ReadClock)
{
	scx_port_caps caps;
	scx_port_get_caps(p[0].port, &caps);
	EXPECT_EQ(caps.timer_khz, 1000000u);
	uint64_t t0 = scx_port_read_clock(p[0].port);
	host::clock_advance(1000 * kMs);
	EXPECT_NEAR((double)(scx_port_read_clock(p[0].port) - t0), 1000020000.0, 1.0);
	EXPECT_EQ(scx_port_read_clock(p[1].port), scx_port_read_clock(p[0].port));
}

/*
 * RX: off by default (ts 0); switched on the live port each packet
 * carries the device clock at its arrival, increasing; off again, 0.
 * Cyclic, striding and SHAMPO RQs.
 */
void rx_on_off(std::function<const std::vector<host::RxRecord> &()> rx,
	       std::function<void(const Bytes &)> cross, scx_port *rx_port)
{
	Bytes f = udp_frame(200);

	cross(f);
	ASSERT_FALSE(rx().empty());
	EXPECT_EQ(rx().back().meta.ts, 0u) << "RX timestamps are off by default";

	scx_port_set_rx_tstamp(rx_port, 1);
	uint64_t last = 0;
	for (int i = 0; i < 4; i++) {
		host::clock_advance(3 * kMs);
		uint64_t now = scx_port_read_clock(rx_port);
		size_t before = rx().size();
		cross(f);
		ASSERT_EQ(rx().size(), before + 1);
		EXPECT_EQ(rx().back().meta.ts, now);
		EXPECT_GT(rx().back().meta.ts, last);
		last = rx().back().meta.ts;
	}
	scx_port_set_rx_tstamp(rx_port, 0);
	host::clock_advance(kMs);
	cross(f);
	EXPECT_EQ(rx().back().meta.ts, 0u) << "off again";
}

TEST_F(Tstamp, RxOnlyWhenWanted)
{
	for (bool striding : { false, true }) {
		Options o;
		o.rx_striding = striding;
		build(o);
		rx_on_off([this]() -> const std::vector<host::RxRecord> & { return rx(1); },
			  [this](const Bytes &f) { cross(f); }, p[1].port);
	}
}

/* A set built with rx_tstamp stamps from its first packet; SHAMPO stamps a session with its first packet's. */
TEST_F(Tstamp, RxFromParamsAndShampoSession)
{
	Options o;
	o.rx_striding = true;
	o.rx_hw_gro = true;
	o.rx_tstamp = true;
	build(o);

	host::clock_advance(2 * kMs);
	uint64_t now = scx_port_read_clock(p[1].port);
	Bytes f = udp_frame(100);
	cross(f);
	ASSERT_EQ(rx(1).size(), 1u);
	EXPECT_EQ(rx(1).back().meta.ts, now);

	/* a TCP session of 4 segments arriving 1 ms apart: the first one's stamp */
	frames::Flow flow;
	uint64_t first = 0;
	for (int i = 0; i < 4; i++) {
		host::clock_advance(kMs);
		if (!i)
			first = scx_port_read_clock(p[1].port);
		ASSERT_EQ(send(0, flow.next(1000)), 0);	/* each arrives at its doorbell */
	}
	poll(1);
	poll(0);
	ASSERT_EQ(rx(1).size(), 2u) << "one session";
	EXPECT_EQ(rx(1).back().gso.segs, 4u);
	EXPECT_EQ(rx(1).back().meta.ts, first);
}

/*
 * TX: a packet that asks for a stamp gets the device clock of its
 * completion, right before its release; one that does not, none. With
 * MPWQE on, a stamped packet still goes in a WQE of its own.
 */
TEST_F(Tstamp, TxOnlyWhenRequested)
{
	for (bool mpwqe : { false, true }) {
		Options o;
		o.tx_mpwqe = mpwqe;
		build(o);
		Bytes f = udp_frame(300);
		scx_tx_pkt want = {};
		want.tstamp = 1;

		size_t ts0 = tx_ts().size(), rx0 = rx(1).size();	/* records outlive a rebuild */
		cross(f);
		EXPECT_EQ(tx_ts().size(), ts0);
		uint64_t mpw_pkts = stat(0, "tx_mpwqe_pkts");
		uint64_t last = 0;
		for (int i = 0; i < 3; i++) {
			host::clock_advance(5 * kMs);
			uint64_t now = scx_port_read_clock(p[0].port);
			cross(f, want);
			ASSERT_EQ(tx_ts().size(), ts0 + i + 1);
			EXPECT_EQ(tx_ts().back().ts, now);
			EXPECT_GT(tx_ts().back().ts, last);
			last = now;
			const auto &freed = host::tx_freed(&p[0].os_ch[0]);
			EXPECT_EQ(tx_ts().back().skb, freed.back()) << "stamped, then released";
		}
		EXPECT_EQ(stat(0, "tx_mpwqe_pkts"), mpw_pkts) << "never in a session";
		cross(f);
		EXPECT_EQ(tx_ts().size(), ts0 + 3);
		EXPECT_EQ(stat(0, "tx_timestamps"), 3u);
		EXPECT_EQ(stat(0, "tx_timestamps_delivered"), 3u);
		EXPECT_EQ(stat(0, "tx_timestamps_lost"), 0u);
		EXPECT_EQ(rx(1).size(), rx0 + 5) << "traffic intact";
	}
}

/* A stamped packet that never went out (flushed by a recovery) is counted lost, not stamped. */
TEST_F(Tstamp, TxFlushedIsLost)
{
	scx_tx_pkt want = {};
	want.tstamp = 1;

	scx_channel_inject_tx_stall(ch(0));
	ASSERT_EQ(post_pkt(0, udp_frame(60), want), 0);
	doorbell(0);
	poll(1);
	EXPECT_EQ(scx_channel_tx_recover(ch(0), 1), 0);
	EXPECT_TRUE(tx_ts().empty());
	EXPECT_EQ(stat(0, "tx_timestamps"), 1u);
	EXPECT_EQ(stat(0, "tx_timestamps_delivered"), 0u);
	EXPECT_EQ(stat(0, "tx_timestamps_lost"), 1u);
	EXPECT_EQ(host::tx_freed(&p[0].os_ch[0]).size(), 1u);
}

/* Mini CQEs carry no timestamp: RX timestamps and CQE compression are refused together. */
TEST_F(Tstamp, ConflictsWithCqeCompression)
{
	scx_port_params prm = params(1500);
	prm.rx_tstamp = 1;
	EXPECT_EQ(scx_params_conflict(p[0].port, &prm), nullptr);
	prm.rx_tstamp = 0;
	prm.rx_cqe_compress = 1;
	EXPECT_EQ(scx_params_conflict(p[0].port, &prm), nullptr);
	prm.rx_tstamp = 1;
	const char *why = scx_params_conflict(p[0].port, &prm);
	ASSERT_NE(why, nullptr);
	EXPECT_NE(std::string(why).find("compression"), std::string::npos) << why;

	scx_port_close(p[0].port);
	auto chans = p[0].os_channels();
	EXPECT_EQ(scx_port_open(p[0].port, &prm, chans.data()), -SCX_EOPNOTSUPP);
	prm.rx_cqe_compress = 0;
	EXPECT_EQ(scx_port_open(p[0].port, &prm, chans.data()), 0);
}

} /* namespace */
