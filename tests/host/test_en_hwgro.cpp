// SPDX-License-Identifier: GPL-2.0
/*
 * rx-gro-hw (SHAMPO) on the driver side, src/en/rq_shampo.cpp: the rules
 * that allow it, one skb per device session with the headers fixed as
 * software GRO leaves them, split packets without payload, packets the
 * device does not split, sessions cut at poll ends, recovery, and no page
 * left behind (the fixture's TearDown checks every RX buffer came back).
 * The table-driven comparison with software GRO is test_en_shampo.cpp.
 */
#include <gtest/gtest.h>

#include "en/params.h"
#include "softcx/errno.h"
#include "en_pair.h"

using namespace enpair;
using frames::Bytes;
namespace en = softcx::en;

class HwGro : public Pair {
protected:
	void SetUp() override
	{
		host::reset();
		build(opts());
	}
	static Options opts(int model = 7)
	{
		Options o;

		o.model = model;
		o.rx_striding = true;
		o.rx_hw_gro = true;
		o.log_rq = 6;
		o.log_sq = 10;	/* a burst of 50 full-size frames before the sender polls */
		return o;
	}
	/* TCP segment `i` of a flow: 1000 payload bytes, ACK only unless flags say. */
	static Bytes seg(uint32_t i, uint32_t len = 1000, uint8_t flags = 0x10, bool v6 = false)
	{
		frames::Spec s;

		s.v6 = v6;
		if (v6) {
			s.src = "fd00::1";
			s.dst = "fd00::2";
		}
		s.tcp_flags = flags;
		s.tcp_seq = 1 + i * len;
		s.payload = frames::payload(len, (uint8_t)i);
		Bytes f = frames::build(s);
		if (!v6) {
			/* IP ID i, checksum again */
			frames::put16(f, frames::l3_off(f) + 4, (uint16_t)(0x100 + i));
			frames::fill_reference_csums(f);
		}
		return f;
	}
	/* Send every frame from port 0, then poll port 1 once (one NAPI poll sees them all). */
	void burst(const std::vector<Bytes> &fs)
	{
		for (const Bytes &f : fs)
			ASSERT_EQ(send(0, f), 0);
		poll(0, 256);
		poll(1, 256);
	}
	static Bytes payload_of(const Bytes &f)
	{
		size_t l4 = frames::l4_off(f);
		return Bytes(f.begin() + l4 + (f[l4 + 12] >> 4) * 4, f.end());
	}
};

TEST_F(HwGro, RulesBetweenFeatures)
{
	scx_port_params prm = params(1500, 1);

	prm.rx_hw_gro = 1;
	prm.rx_striding = 1;
	EXPECT_EQ(scx_params_conflict(p[1].port, &prm), nullptr);
	prm.xdp = 1;
	EXPECT_STREQ(scx_params_conflict(p[1].port, &prm), "HW-GRO is incompatible with XDP");
	prm.xdp = 0;
	prm.rx_cqe_compress = 1;
	EXPECT_STREQ(scx_params_conflict(p[1].port, &prm),
		     "HW-GRO is incompatible with CQE compression");
	prm.rx_cqe_compress = 0;
	prm.rx_striding = 0;
	EXPECT_STREQ(scx_params_conflict(p[1].port, &prm),
		     "HW-GRO needs the striding RQ (private flag rx_striding_rq)");
	/* cx6dx: no SHAMPO, and the port says so */
	destroy();
	Options o = opts(6);
	o.rx_hw_gro = false;
	build(o);
	scx_port_caps caps;
	scx_port_get_caps(p[1].port, &caps);
	EXPECT_EQ(caps.rx_hw_gro, 0u);
	const char *why = nullptr;
	EXPECT_EQ(scx_port_feature_check(p[1].port, SCX_FEATURE_RX_HW_GRO, &why), -SCX_EOPNOTSUPP);
	EXPECT_STREQ(why, "no HW-GRO (SHAMPO) on this device");
	prm = params(1500, 1);
	prm.rx_hw_gro = 1;
	prm.rx_striding = 1;
	EXPECT_STREQ(scx_params_conflict(p[1].port, &prm), "no HW-GRO (SHAMPO) on this device");
	EXPECT_EQ(scx_port_prepare(p[1].port, &prm, p[1].os_channels().data()), -SCX_EOPNOTSUPP);
}

TEST_F(HwGro, InOrderSegmentsBecomeOneSkb)
{
	std::vector<Bytes> fs;
	for (uint32_t i = 0; i < 10; i++)
		fs.push_back(seg(i));
	burst(fs);

	const auto &rx = this->rx(1);
	ASSERT_EQ(rx.size(), 1u);
	const host::RxRecord &r = rx[0];
	EXPECT_EQ(r.gso.segs, 10u);
	EXPECT_EQ(r.gso.size, 1000u);
	EXPECT_EQ(r.gso.type, SCX_RX_GSO_TCPV4);
	size_t l3 = frames::l3_off(fs[0]), l4 = frames::l4_off(fs[0]);
	EXPECT_EQ(r.gso.l4_off, l4);
	ASSERT_EQ(r.data.size(), l4 + 20 + 10000);
	/* headers: the first segment's with the merged length and a right IPv4 checksum */
	Bytes want(fs[0].begin(), fs[0].begin() + l4 + 20);
	for (const Bytes &f : fs) {
		Bytes pl = payload_of(f);
		want.insert(want.end(), pl.begin(), pl.end());
	}
	frames::put16(want, l3 + 2, (uint16_t)(want.size() - l3));
	EXPECT_EQ(frames::get16(r.data, l3 + 2), want.size() - l3);
	EXPECT_EQ(frames::ref_ipv4_hdr_csum(r.data), frames::get16(r.data, l3 + 10));
	/* TCP checksum field: the pseudo-header sum (addresses, protocol, TCP length) */
	uint32_t sum = frames::get16(r.data, l3 + 12) + frames::get16(r.data, l3 + 14) +
		       frames::get16(r.data, l3 + 16) + frames::get16(r.data, l3 + 18) + 6 +
		       (uint32_t)(r.data.size() - l4);
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	EXPECT_EQ(frames::get16(r.data, l4 + 16), sum);
	/* payload byte for byte */
	EXPECT_TRUE(std::equal(want.begin() + l4 + 20, want.end(), r.data.begin() + l4 + 20));

	EXPECT_EQ(stat(1, "rx_packets"), 10u);
	EXPECT_EQ(stat(1, "rx_gro_packets"), 10u);
	EXPECT_EQ(stat(1, "rx_gro_skbs"), 1u);
	EXPECT_EQ(stat(1, "rx_gro_match_packets"), 9u);
	uint64_t wire = 0;
	for (const Bytes &f : fs)
		wire += f.size();
	EXPECT_EQ(stat(1, "rx_bytes"), wire);
	EXPECT_EQ(stat(1, "rx_gro_bytes"), wire);
}

TEST_F(HwGro, PshEndsTheSessionAndSetsTheMergedFlags)
{
	/* 0..3 with PSH on 3, then 4..5: two skbs, the first carrying PSH */
	std::vector<Bytes> fs;
	for (uint32_t i = 0; i < 6; i++)
		fs.push_back(seg(i, 1000, i == 3 ? 0x18 : 0x10));
	burst(fs);

	const auto &rx = this->rx(1);
	ASSERT_EQ(rx.size(), 2u);
	size_t l4 = frames::l4_off(fs[0]);
	EXPECT_EQ(rx[0].gso.segs, 4u);
	EXPECT_EQ(rx[0].data[l4 + 13], 0x18);
	EXPECT_EQ(rx[1].gso.segs, 2u);
	EXPECT_EQ(rx[1].data[l4 + 13], 0x10);
	EXPECT_EQ(frames::get16(rx[1].data, l4 + 4), frames::get16(fs[4], l4 + 4));
}

TEST_F(HwGro, Ipv6SessionAndFixedId)
{
	std::vector<Bytes> fs;
	for (uint32_t i = 0; i < 5; i++)
		fs.push_back(seg(i, 1200, 0x10, true));
	burst(fs);
	const auto &rx = this->rx(1);
	ASSERT_EQ(rx.size(), 1u);
	EXPECT_EQ(rx[0].gso.type, SCX_RX_GSO_TCPV6);
	EXPECT_EQ(rx[0].gso.segs, 5u);
	size_t l3 = frames::l3_off(fs[0]);
	EXPECT_EQ(frames::get16(rx[0].data, l3 + 4), rx[0].data.size() - l3 - 40);

	/* IPv4 with DF and one ID for all: FIXEDID */
	std::vector<Bytes> gs;
	for (uint32_t i = 0; i < 3; i++) {
		Bytes f = seg(i);
		size_t o = frames::l3_off(f);
		frames::put16(f, o + 4, 7);
		f[o + 6] |= 0x40;
		frames::fill_reference_csums(f);
		gs.push_back(f);
	}
	burst(gs);
	const auto &rx2 = this->rx(1);
	ASSERT_EQ(rx2.size(), 2u);
	EXPECT_EQ(rx2[1].gso.type, SCX_RX_GSO_TCPV4 | SCX_RX_GSO_FIXEDID);
}

TEST_F(HwGro, PureAckAndUdpAreSinglePackets)
{
	frames::Spec u;
	u.proto = 17;
	u.payload = frames::payload(300, 9);
	Bytes udp = frames::build(u);
	Bytes ack = seg(0, 0);
	burst({ack, udp});

	const auto &rx = this->rx(1);
	ASSERT_EQ(rx.size(), 2u);
	EXPECT_EQ(rx[0].data, ack);
	EXPECT_EQ(rx[0].gso.segs, 0u);
	EXPECT_EQ(rx[1].data, udp);
	EXPECT_EQ(rx[1].meta.csum, SCX_CSUM_UNNECESSARY);
	EXPECT_EQ(stat(1, "rx_hds_nodata_packets"), 1u);
	EXPECT_EQ(stat(1, "rx_hds_nodata_bytes"), ack.size());
	EXPECT_EQ(stat(1, "rx_hds_nosplit_packets"), 1u);
	EXPECT_EQ(stat(1, "rx_hds_nosplit_bytes"), udp.size());
	EXPECT_EQ(stat(1, "rx_gro_skbs"), 0u);
	EXPECT_EQ(stat(1, "rx_packets"), 2u);
}

TEST_F(HwGro, ASessionAcrossPollsIsTwoSkbsWithEveryByte)
{
	std::vector<Bytes> fs;
	for (uint32_t i = 0; i < 8; i++)
		fs.push_back(seg(i));
	for (const Bytes &f : fs)
		ASSERT_EQ(send(0, f), 0);
	poll(0, 256);
	/* a budget of 3: the device's one session ends up in three skbs */
	scx_tx_done done;
	while (scx_channel_poll(ch(1), 3, &done) > 0)
		;
	const auto &rx = this->rx(1);
	ASSERT_EQ(rx.size(), 3u);
	EXPECT_EQ(rx[0].gso.segs, 3u);
	EXPECT_EQ(rx[1].gso.segs, 3u);
	EXPECT_EQ(rx[2].gso.segs, 2u);
	size_t l4 = frames::l4_off(fs[0]);
	/* the second skb's headers are its own first segment's (seq of segment 3) */
	EXPECT_EQ(frames::get16(rx[1].data, l4 + 4), frames::get16(fs[3], l4 + 4));
	EXPECT_EQ(frames::get16(rx[1].data, l4 + 6), frames::get16(fs[3], l4 + 6));
	EXPECT_EQ(stat(1, "rx_gro_match_packets"), 7u);
	EXPECT_EQ(stat(1, "rx_packets"), 8u);
}

TEST_F(HwGro, ManyWqesWrapWithoutLosingAByte)
{
	/* 64 KiB sessions over many WQEs and header ring wraps */
	uint64_t sent = 0;
	for (uint32_t round = 0; round < 40; round++) {
		std::vector<Bytes> fs;
		for (uint32_t i = 0; i < 50; i++)
			fs.push_back(seg(round * 50 + i, 1448));
		burst(fs);
		sent += fs.size();
	}
	EXPECT_EQ(stat(1, "rx_packets"), sent);
	uint64_t segs = 0, bytes = 0;
	for (const host::RxRecord &r : this->rx(1)) {
		segs += r.gso.segs ? r.gso.segs : 1;
		EXPECT_LE(r.data.size(), 65535u + 14);
		bytes += r.data.size() - 54;
	}
	EXPECT_EQ(segs, sent);
	EXPECT_EQ(bytes, sent * 1448);
	EXPECT_GT(stat(1, "rx_gro_skbs"), 0u);
	EXPECT_LT(stat(1, "rx_gro_skbs") * 20, sent);
	EXPECT_EQ(stat(1, "rx_wqe_err"), 0u);
}

/* An error CQE recovers the RQ; the header ring starts again at entry 0 on both sides. */
TEST_F(HwGro, ErrorCqeRecoversAndSessionsResume)
{
	std::vector<Bytes> fs;
	for (uint32_t i = 0; i < 3; i++)
		fs.push_back(seg(i));
	burst(fs);
	ASSERT_EQ(this->rx(1).size(), 1u);
	scx_channel_inject_rx_error(ch(1));
	/* enough to need another WQE: the spoiled one gives an error CQE */
	for (uint32_t round = 0; round < 6; round++) {
		fs.clear();
		for (uint32_t i = 0; i < 40; i++)
			fs.push_back(seg(3 + round * 40 + i, 1448));
		burst(fs);
	}
	EXPECT_GE(stat(1, "rx_wqe_err"), 1u);
	EXPECT_EQ(stat(1, "rx_recover"), 1u);
	size_t before = this->rx(1).size();
	fs.clear();
	for (uint32_t i = 0; i < 10; i++)
		fs.push_back(seg(1000 + i));
	burst(fs);
	ASSERT_EQ(this->rx(1).size(), before + 1);
	EXPECT_EQ(this->rx(1).back().gso.segs, 10u);
	/* no second recovery: the header entries the CQEs name are the ones expected */
	EXPECT_EQ(stat(1, "rx_recover"), 1u);
}

/* MTU 9000: seven 8948-byte segments fill a 64 KiB reservation, one skb. */
TEST_F(HwGro, JumboSegments)
{
	Options o = opts();
	o.mtu = 9000;
	build(o);
	std::vector<Bytes> fs;
	for (uint32_t i = 0; i < 14; i++)
		fs.push_back(seg(i, 8948));
	burst(fs);
	const auto &rx = this->rx(1);
	ASSERT_EQ(rx.size(), 2u);
	size_t l4 = frames::l4_off(fs[0]);
	for (int k = 0; k < 2; k++) {
		EXPECT_EQ(rx[k].gso.segs, 7u);
		EXPECT_EQ(rx[k].gso.size, 8948u);
		ASSERT_EQ(rx[k].data.size(), l4 + 20 + 7 * 8948u);
		for (uint32_t i = 0; i < 7; i++) {
			Bytes pl = payload_of(fs[k * 7 + i]);
			EXPECT_TRUE(std::equal(pl.begin(), pl.end(),
					       rx[k].data.begin() + l4 + 20 + i * 8948));
		}
	}
	EXPECT_EQ(stat(1, "rx_packets"), 14u);
}

/*
 * VLAN stripping (on by default) with rx-gro-hw: a flow whose TCI changes
 * midway makes one session per TCI (the device keeps a session within one
 * VLAN), each skb with its TCI as metadata and the headers untagged.
 */
TEST_F(HwGro, StrippedVlanSessionPerTci)
{
	std::vector<Bytes> fs;
	for (uint32_t i = 0; i < 10; i++)
		fs.push_back(frames::vlan_insert(seg(i), i < 5 ? 10 : 20));
	burst(fs);

	const auto &rx = this->rx(1);
	ASSERT_EQ(rx.size(), 2u);
	for (size_t k = 0; k < 2; k++) {
		SCOPED_TRACE(k);
		EXPECT_EQ(rx[k].gso.segs, 5u);
		EXPECT_EQ(rx[k].meta.vlan, 1);
		EXPECT_EQ(rx[k].meta.vlan_tci, k ? 20 : 10);
		Bytes first = seg((uint32_t)(5 * k));
		size_t l4 = frames::l4_off(first);
		ASSERT_GE(rx[k].data.size(), l4 + 20);
		EXPECT_EQ(Bytes(rx[k].data.begin(), rx[k].data.begin() + 12),
			  Bytes(first.begin(), first.begin() + 12));
		EXPECT_EQ(frames::get16(rx[k].data, 12), 0x0800) << "untagged headers";
		EXPECT_EQ(rx[k].data.size(), l4 + 20 + 5000);
	}
	EXPECT_EQ(stat(1, "rx_removed_vlan_packets"), 10u);
	EXPECT_EQ(stat(1, "rx_packets"), 10u);
}
