// SPDX-License-Identifier: GPL-2.0
/*
 * The port's MAC counters (QUERY_PORT_COUNTERS) behind ethtool's standard
 * statistics groups: frames, octets on the wire, group addresses, MAC
 * control frames and the received length histogram, through the driver
 * core (scx_stats_mac, ethtool -S) and checked exactly.
 */
#include <cstring>

#include "en_pair.h"

using namespace enpair;
using frames::Bytes;

namespace {

/* mlx5's RMON buckets, written out here independently of src/prm. */
const scx_hist_range kMlx5Ranges[] = {
	{ 0, 64 },	   { 65, 127 },	    { 128, 255 },   { 256, 511 },   { 512, 1023 },
	{ 1024, 1518 },	   { 1519, 2047 },  { 2048, 4095 }, { 4096, 8191 }, { 8192, 10239 },
};
constexpr uint32_t kBuckets = sizeof(kMlx5Ranges) / sizeof(kMlx5Ranges[0]);

/* A MAC pads to 60 bytes and appends a 4-byte FCS. */
uint64_t on_wire(size_t len) { return (len < 60 ? 60 : len) + 4; }

uint32_t bucket_of(uint64_t wire)
{
	for (uint32_t b = 0; b < kBuckets; b++)
		if (wire >= kMlx5Ranges[b].low && wire <= kMlx5Ranges[b].high)
			return b;
	ADD_FAILURE() << "no bucket for " << wire;
	return 0;
}

/* A UDP frame of exactly len bytes (no FCS): 42 bytes of headers. */
Bytes udp_of_len(size_t len) { return udp_frame(len - 42); }

void set_dst(Bytes &f, std::initializer_list<uint8_t> mac)
{
	std::copy(mac.begin(), mac.end(), f.begin());
}

const char *const kHistNames[kBuckets] = {
	"rx_64_bytes_phy",	     "rx_65_to_127_bytes_phy",	  "rx_128_to_255_bytes_phy",
	"rx_256_to_511_bytes_phy",   "rx_512_to_1023_bytes_phy",  "rx_1024_to_1518_bytes_phy",
	"rx_1519_to_2047_bytes_phy", "rx_2048_to_4095_bytes_phy", "rx_4096_to_8191_bytes_phy",
	"rx_8192_to_10239_bytes_phy",
};

} /* namespace */

TEST(StatsGroups, HistogramRangesAreMlx5s)
{
	ASSERT_EQ((uint32_t)SCX_RX_HIST_BUCKETS, kBuckets);
	for (uint32_t b = 0; b < kBuckets; b++) {
		EXPECT_EQ(scx_rx_hist_ranges[b].low, kMlx5Ranges[b].low) << b;
		EXPECT_EQ(scx_rx_hist_ranges[b].high, kMlx5Ranges[b].high) << b;
	}
	/* ethtool stops at an all-zero range */
	EXPECT_EQ(scx_rx_hist_ranges[kBuckets].low, 0);
	EXPECT_EQ(scx_rx_hist_ranges[kBuckets].high, 0);
}

/* Frames at both edges of every bucket the port can carry: each counted once, where it belongs. */
TEST_F(Pair, MacCountsFramesByLengthOnTheWire)
{
	Options o;
	o.mtu = 9978;
	build(o);
	/* lengths without FCS; 10000 is the longest the port carries (wire 10004) */
	const size_t lens[] = { 42,   59,   60,   61,   123,  124,  251,  252,  507,  508,  1019,
				1020, 1514, 1515, 2043, 2044, 4091, 4092, 8187, 8188, 9996, 10000 };
	uint64_t want_hist[kBuckets] = {};
	uint64_t octets = 0;
	scx_mac_stats before[2];

	scx_stats_mac(p[0].port, &before[0]);
	scx_stats_mac(p[1].port, &before[1]);
	for (size_t len : lens) {
		Bytes f = udp_of_len(len);
		ASSERT_EQ(f.size(), len);
		ASSERT_EQ(send(0, f), 0) << len;
		poll(1);
		poll(0);
		want_hist[bucket_of(on_wire(len))]++;
		octets += on_wire(len);
	}
	const uint64_t n = sizeof(lens) / sizeof(lens[0]);
	EXPECT_EQ(rx_total(1), n) << "counting changes no delivery";

	scx_mac_stats s[2];
	scx_stats_mac(p[0].port, &s[0]);
	scx_stats_mac(p[1].port, &s[1]);
	EXPECT_EQ(s[0].tx_packets - before[0].tx_packets, n);
	EXPECT_EQ(s[0].tx_bytes - before[0].tx_bytes, octets);
	EXPECT_EQ(s[1].rx_packets - before[1].rx_packets, n);
	EXPECT_EQ(s[1].rx_bytes - before[1].rx_bytes, octets);
	for (uint32_t b = 0; b < kBuckets; b++) {
		EXPECT_EQ(s[1].rx_hist[b] - before[1].rx_hist[b], want_hist[b]) << kHistNames[b];
		EXPECT_EQ(s[0].rx_hist[b], before[0].rx_hist[b]) << "the sender received nothing";
	}
	/* nothing else moved */
	EXPECT_EQ(s[0].rx_packets, before[0].rx_packets);
	EXPECT_EQ(s[1].tx_packets, before[1].tx_packets);
	EXPECT_EQ(s[1].rx_multicast + s[1].rx_broadcast + s[1].rx_mac_control, 0u);

	/* ethtool -S shows the same device counters by their mlx5 names */
	EXPECT_EQ(stat(0, "tx_packets_phy"), s[0].tx_packets);
	EXPECT_EQ(stat(0, "tx_bytes_phy"), s[0].tx_bytes);
	EXPECT_EQ(stat(1, "rx_packets_phy"), s[1].rx_packets);
	EXPECT_EQ(stat(1, "rx_bytes_phy"), s[1].rx_bytes);
	for (uint32_t b = 0; b < kBuckets; b++)
		EXPECT_EQ(stat(1, kHistNames[b]), s[1].rx_hist[b]) << kHistNames[b];
}

/* The MAC counts what reached it, also frames the device then drops (port down). */
/* The MAC counts a frame the device then turns away (here: not for an address it takes). */
TEST_F(Pair, MacCountsFramesTheDeviceDrops)
{
	const uint8_t own[6] = { 0x02, 0, 0, 0, 0, 0x77 };

	ASSERT_EQ(scx_port_set_rx_filter(p[1].port, 0, own, 1, nullptr, 0), 0);
	ASSERT_EQ(send(0, udp_of_len(100)), 0);
	poll(0);
	EXPECT_EQ(stat(1, "rx_steer_missed_packets"), 1u);
	EXPECT_EQ(stat(1, "rx_packets_phy"), 1u);
	EXPECT_EQ(stat(1, "rx_65_to_127_bytes_phy"), 1u);
	EXPECT_EQ(stat(0, "tx_packets_phy"), 1u);
}

TEST_F(Pair, MacCountsGroupAddressesByDirection)
{
	struct Case {
		std::initializer_list<uint8_t> dst;
		int kind;	/* 0 unicast, 1 multicast, 2 broadcast */
	};
	const Case cases[] = {
		{ { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff }, 2 },
		{ { 0x01, 0x00, 0x5e, 0x00, 0x00, 0x01 }, 1 },	/* IPv4 multicast */
		{ { 0x33, 0x33, 0x00, 0x00, 0x00, 0x01 }, 1 },	/* IPv6 multicast */
		{ { 0xff, 0xff, 0xff, 0xff, 0xff, 0xfe }, 1 },	/* group bit, not all ones */
		{ { 0x02, 0x00, 0x00, 0x00, 0x00, 0x02 }, 0 },
		{ { 0xfe, 0xff, 0xff, 0xff, 0xff, 0xff }, 0 },	/* all ones but the group bit */
		{ { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff }, 2 },
	};
	uint64_t mc = 0, bc = 0;

	for (const Case &c : cases) {
		Bytes f = udp_of_len(200);
		set_dst(f, c.dst);
		ASSERT_EQ(send(0, f), 0);
		poll(1);
		poll(0);
		mc += c.kind == 1;
		bc += c.kind == 2;
	}
	/* one the other way: directions are kept apart */
	Bytes back = udp_of_len(80);
	set_dst(back, { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff });
	ASSERT_EQ(send(1, back), 0);
	poll(0);
	poll(1);

	scx_mac_stats s[2];
	scx_stats_mac(p[0].port, &s[0]);
	scx_stats_mac(p[1].port, &s[1]);
	EXPECT_EQ(mc, 3u);
	EXPECT_EQ(bc, 2u);
	EXPECT_EQ(s[0].tx_multicast, mc);
	EXPECT_EQ(s[0].tx_broadcast, bc);
	EXPECT_EQ(s[1].rx_multicast, mc);
	EXPECT_EQ(s[1].rx_broadcast, bc);
	EXPECT_EQ(s[1].tx_multicast, 0u);
	EXPECT_EQ(s[1].tx_broadcast, 1u);
	EXPECT_EQ(s[0].rx_multicast, 0u);
	EXPECT_EQ(s[0].rx_broadcast, 1u);
	EXPECT_EQ(s[0].tx_packets, (uint64_t)(sizeof(cases) / sizeof(cases[0])));
	EXPECT_EQ(stat(1, "rx_multicast_phy"), mc);
	EXPECT_EQ(stat(1, "rx_broadcast_phy"), bc);
	EXPECT_EQ(stat(0, "tx_multicast_phy"), mc);
	EXPECT_EQ(stat(0, "tx_broadcast_phy"), bc);
}

/*
 * EtherType 0x8808: PAUSE (opcode 1), another opcode (PFC, 0x0101) and a
 * frame too short for one; an IP frame is none of them.
 */
TEST_F(Pair, MacCountsControlFramesAndPause)
{
	auto control = [](uint16_t opcode) {
		Bytes f(60, 0);
		set_dst(f, { 0x01, 0x80, 0xc2, 0x00, 0x00, 0x01 });
		f[6] = 0x02;
		f[11] = 0x01;
		f[12] = 0x88;
		f[13] = 0x08;
		f[14] = (uint8_t)(opcode >> 8);
		f[15] = (uint8_t)opcode;
		return f;
	};

	ASSERT_EQ(send(0, control(0x0001)), 0);
	ASSERT_EQ(send(0, control(0x0101)), 0);
	ASSERT_EQ(send(0, control(0x0001)), 0);
	ASSERT_EQ(send(0, udp_of_len(60)), 0);
	/* too short to carry an opcode: not a PAUSE */
	Bytes stub = control(0x0001);
	stub.resize(15);
	ASSERT_EQ(send(0, stub), 0);
	poll(1);
	poll(0);

	scx_mac_stats s[2];
	scx_stats_mac(p[0].port, &s[0]);
	scx_stats_mac(p[1].port, &s[1]);
	EXPECT_EQ(s[0].tx_mac_control, 4u);
	EXPECT_EQ(s[0].tx_pause, 2u);
	EXPECT_EQ(s[1].rx_mac_control, 4u);
	EXPECT_EQ(s[1].rx_pause, 2u);
	EXPECT_EQ(s[1].rx_unsupported_op, 2u);
	EXPECT_EQ(s[0].rx_mac_control + s[0].rx_pause + s[1].tx_mac_control + s[1].tx_pause, 0u);
	EXPECT_EQ(s[1].rx_packets, 5u);
	EXPECT_EQ(s[1].rx_multicast, 4u) << "01:80:c2:00:00:01 is a group address";
	EXPECT_EQ(s[1].rx_hist[0], 5u);
	EXPECT_EQ(s[1].rx_bytes, 5u * 64) << "short frames are padded on the wire";
	EXPECT_EQ(stat(0, "tx_mac_control_phy"), 4u);
	EXPECT_EQ(stat(0, "tx_pause_ctrl_phy"), 2u);
	EXPECT_EQ(stat(1, "rx_mac_control_phy"), 4u);
	EXPECT_EQ(stat(1, "rx_pause_ctrl_phy"), 2u);
	EXPECT_EQ(stat(1, "rx_unsupported_op_phy"), 2u);
}
