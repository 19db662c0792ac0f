// SPDX-License-Identifier: GPL-2.0
/*
 * Driver core TX offloads end to end: LSO (TCPv4/v6, UDP L4) against a
 * reference segmentation written here, enhanced multi-packet WQE session
 * rules, bus bytes per packet, and recovery from error CQEs.
 */
#include <cstring>
#include <string>

#include "en_pair.h"
#include "softcx/errno.h"

using namespace enpair;
using frames::Bytes;

namespace {

constexpr uint32_t kMpwFull = 58;	/* packets per session on 64-byte cachelines */

void put32(Bytes &f, size_t off, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		f[off + i] = (uint8_t)(v >> (24 - 8 * i));
}

uint32_t get32(const Bytes &f, size_t off)
{
	return (uint32_t)f[off] << 24 | (uint32_t)f[off + 1] << 16 | (uint32_t)f[off + 2] << 8 |
	       f[off + 3];
}

bool is_v6(const Bytes &f) { return f[frames::l3_off(f)] >> 4 == 6; }

uint8_t l4_proto(const Bytes &f)
{
	size_t l3 = frames::l3_off(f);
	return is_v6(f) ? f[l3 + 6] : f[l3 + 9];
}

/* Insert n bytes of TCP options (NOPs, then a timestamp) after the base header. */
void add_tcp_options(Bytes &f, size_t n)
{
	size_t l3 = frames::l3_off(f), l4 = frames::l4_off(f);
	Bytes opt(n, 0x01);

	if (n >= 10) {
		opt[n - 10] = 8;
		opt[n - 9] = 10;
		for (int i = 0; i < 8; i++)
			opt[n - 8 + i] = (uint8_t)(0x10 + i);
	}
	f.insert(f.begin() + (long)l4 + 20, opt.begin(), opt.end());
	f[l4 + 12] = (uint8_t)(((20 + n) / 4) << 4);
	if (is_v6(f))
		frames::put16(f, l3 + 4, (uint16_t)(frames::get16(f, l3 + 4) + n));
	else
		frames::put16(f, l3 + 2, (uint16_t)(frames::get16(f, l3 + 2) + n));
	frames::fill_reference_csums(f);
}

size_t header_len(const Bytes &f)
{
	size_t l4 = frames::l4_off(f);
	return l4_proto(f) == 17 ? l4 + 8 : l4 + (size_t)(f[l4 + 12] >> 4) * 4;
}

/* Reference segmentation: what the wire must carry for an LSO of f. */
std::vector<Bytes> ref_segment(const Bytes &f, size_t ihs, uint32_t mss)
{
	size_t l3 = frames::l3_off(f), l4 = frames::l4_off(f);
	size_t payload = f.size() - ihs;
	size_t segs = (payload + mss - 1) / mss;
	std::vector<Bytes> out;

	for (size_t k = 0; k < segs; k++) {
		size_t chunk = payload - k * mss < mss ? payload - k * mss : mss;
		Bytes s(f.begin(), f.begin() + (long)ihs);

		s.insert(s.end(), f.begin() + (long)(ihs + k * mss),
			 f.begin() + (long)(ihs + k * mss + chunk));
		if (is_v6(f)) {
			frames::put16(s, l3 + 4, (uint16_t)(ihs - l3 - 40 + chunk));
		} else {
			frames::put16(s, l3 + 2, (uint16_t)(ihs - l3 + chunk));
			frames::put16(s, l3 + 4, (uint16_t)(frames::get16(f, l3 + 4) + k));
		}
		if (l4_proto(f) == 17) {
			frames::put16(s, l4 + 4, (uint16_t)(8 + chunk));
		} else {
			put32(s, l4 + 4, get32(f, l4 + 4) + (uint32_t)(k * mss));
			uint8_t fl = f[l4 + 13];
			if (k + 1 < segs)
				fl &= (uint8_t)~0x09;	/* FIN, PSH only on the last */
			if (k)
				fl &= (uint8_t)~0x80;	/* CWR only on the first */
			s[l4 + 13] = fl;
		}
		frames::fill_reference_csums(s);
		out.push_back(s);
	}
	return out;
}

struct LsoCase {
	const char *name;
	bool v6;
	uint8_t proto;
	size_t payload;
	uint32_t mss;
	size_t opts;
	int vlan;
	uint8_t tcp_flags;
};

const LsoCase kLsoCases[] = {
	{ "tcp4 last short", false, 6, 4000, 1448, 0, -1, 0x18 },
	{ "tcp6 exact multiple", true, 6, 4344, 1448, 0, -1, 0x18 },
	{ "tcp4 options odd mss", false, 6, 5000, 1001, 12, -1, 0x18 },
	{ "tcp6 options odd mss", true, 6, 3000, 777, 20, -1, 0x18 },
	{ "tcp4 FIN PSH CWR", false, 6, 3000, 1000, 0, -1, 0x99 },
	{ "tcp4 vlan in data", false, 6, 2900, 1400, 0, 7, 0x18 },
	{ "tcp4 single segment", false, 6, 500, 1448, 0, -1, 0x18 },
	{ "udp4 uso", false, 17, 3000, 1000, 0, -1, 0 },
	{ "udp6 uso odd last short", true, 17, 2500, 999, 0, -1, 0 },
};

Bytes lso_frame(const LsoCase &c)
{
	frames::Spec s;

	s.v6 = c.v6;
	if (c.v6) {
		s.src = "fd00::1";
		s.dst = "fd00::2";
	}
	s.proto = c.proto;
	s.vlan = c.vlan;
	s.tcp_flags = c.tcp_flags;
	s.tcp_seq = 0xfffff000u;	/* the sequence wraps inside the send */
	s.payload = frames::payload(c.payload, (uint8_t)c.payload);
	Bytes f = frames::build(s);
	if (c.opts)
		add_tcp_options(f, c.opts);
	return f;
}

scx_tx_pkt lso_attrs(const Bytes &f, const LsoCase &c)
{
	scx_tx_pkt t = {};
	size_t ihs = header_len(f);

	t.csum = SCX_TX_CSUM_L3 | SCX_TX_CSUM_L4;
	t.gso_type = c.proto == 17 ? SCX_TX_GSO_UDP_L4 : c.v6 ? SCX_TX_GSO_TCPV6 : SCX_TX_GSO_TCPV4;
	t.gso_size = c.mss;
	t.gso_segs = (uint32_t)((f.size() - ihs + c.mss - 1) / c.mss);
	t.ihs = (uint32_t)ihs;
	return t;
}

} /* namespace */

class Lso : public Pair, public ::testing::WithParamInterface<bool> {};

/* Every case, with three layouts of the skb: linear, headers-only head, head + frags. */
TEST_P(Lso, MatchesReferenceSegmentation)
{
	Options o;
	o.log_sq = 8;
	o.log_rq = 6;
	o.tx_mpwqe = GetParam();
	build(o);

	uint64_t wire_pkts = 0, wire_bytes = 0, tso_bytes = 0, n_lso = 0;
	for (const LsoCase &c : kLsoCases) {
		Bytes f = lso_frame(c);
		scx_tx_pkt t = lso_attrs(f, c);
		auto want = ref_segment(f, t.ihs, c.mss);
		std::vector<std::vector<size_t>> layouts = {
			{}, { t.ihs }, { t.ihs + 100, t.ihs + 100 + (f.size() - t.ihs - 100) / 2 } };

		for (auto &cuts : layouts) {
			SCOPED_TRACE(std::string(c.name) + " cuts " + std::to_string(cuts.size()));
			size_t before = rx(1).size();

			ASSERT_EQ(post_pkt(0, f, t, cuts), 0);
			doorbell(0);
			poll(1);
			ASSERT_EQ(rx(1).size() - before, want.size());
			for (size_t k = 0; k < want.size(); k++) {
				const auto &got = rx(1)[before + k];
				/* the receiver strips the tag (rx-vlan-offload): as the stack sees it */
				Bytes gd = got.meta.vlan ? frames::vlan_insert(got.data, got.meta.vlan_tci) :
							   got.data;
				EXPECT_EQ(got.meta.vlan, c.vlan >= 0) << "segment " << k;
				ASSERT_EQ(gd.size(), want[k].size()) << "segment " << k;
				EXPECT_EQ(0, memcmp(gd.data(), want[k].data(), want[k].size()))
					<< "segment " << k;
				SCOPED_TRACE("segment " + std::to_string(k));
				expect_csum_ok(got);
			}
			scx_tx_done done = {};
			scx_channel_poll(ch(0), 64, &done);
			EXPECT_EQ(done.packets, 1u);
			EXPECT_EQ(done.bytes, f.size() + (want.size() - 1) * t.ihs) << "BQL bytes";
			wire_pkts += want.size();
			wire_bytes += f.size() + (want.size() - 1) * t.ihs;
			tso_bytes += f.size() - t.ihs;
			n_lso++;
		}
	}
	EXPECT_EQ(stat(0, "tx_packets"), wire_pkts);
	EXPECT_EQ(stat(0, "tx_bytes"), wire_bytes);
	EXPECT_EQ(stat(0, "tx_tso_packets"), n_lso);
	EXPECT_EQ(stat(0, "tx_tso_bytes"), tso_bytes);
	EXPECT_EQ(stat(0, "tx_tso_inner_packets"), 0u);
	EXPECT_EQ(stat(0, "tx_mpwqe_blks"), 0u) << "LSO never goes into a session";
	EXPECT_EQ(stat(0, "tx_cqe_err"), 0u);
	EXPECT_EQ(stat(1, "rx_packets"), wire_pkts);
	EXPECT_EQ(host::dma_tx_mappings(), 0u);
}

INSTANTIATE_TEST_SUITE_P(MpwqeOffOn, Lso, ::testing::Bool());

/*
 * VXLAN (a port the core put in the device's table): an encapsulated
 * packet with inner checksum offload (mlx5's L3 | L3_INNER | L4_INNER)
 * arrives with its inner IPv4 and TCP checksums filled, and an LSO of TCP
 * inside VXLAN as the reference segmentation of the inner frame, each
 * segment wrapped with its own outer lengths and IPv4 id. Counted as
 * csum_partial_inner and tso_inner_*, not as the plain ones. With MPWQE
 * on, the checksum-offloaded packet rides a session of its own flags.
 */
TEST_P(Lso, VxlanInnerChecksumAndTunnelSegmentation)
{
	Options o;
	o.tx_mpwqe = GetParam();
	build(o);
	ASSERT_EQ(scx_port_vxlan_port(p[0].port, 4789, 1), 0);
	EXPECT_LT(scx_port_vxlan_port(p[0].port, 4789, 1), 0) << "already in the table";

	frames::Spec is;
	is.src = "192.168.7.1";
	is.dst = "192.168.7.2";
	is.payload = frames::payload(300, 4);
	is.good_csums = false;
	Bytes inner = frames::build(is);
	Bytes want_inner = inner;
	frames::fill_reference_csums(want_inner);
	scx_tx_pkt t = {};
	t.csum = SCX_TX_CSUM_L3 | SCX_TX_CSUM_L3_INNER | SCX_TX_CSUM_L4_INNER;
	ASSERT_EQ(post_pkt(0, frames::vxlan(inner), t), 0);
	doorbell(0);
	poll(1);
	ASSERT_EQ(rx(1).size(), 1u);
	EXPECT_EQ(rx(1)[0].data, frames::vxlan(want_inner)) << "inner checksums filled";
	EXPECT_EQ(stat(0, "tx_csum_partial_inner"), 1u);
	EXPECT_EQ(stat(0, "tx_csum_partial"), 0u);

	/* LSO: the inner frame's reference segmentation, each in its own outer headers */
	is.good_csums = true;
	is.payload = frames::payload(4000, 6);
	is.tcp_flags = 0x19;	/* FIN PSH ACK */
	Bytes whole_inner = frames::build(is);
	Bytes f = frames::vxlan(whole_inner);
	const uint32_t mss = 1400;
	size_t inner_ihs = header_len(whole_inner);
	auto want = ref_segment(whole_inner, inner_ihs, mss);
	t.gso_type = SCX_TX_GSO_TUNNEL;
	t.gso_size = mss;
	t.gso_segs = (uint32_t)want.size();
	t.ihs = (uint32_t)(frames::kVxlanInnerOff + inner_ihs);
	ASSERT_EQ(post_pkt(0, f, t, { t.ihs + 1000 }), 0);
	doorbell(0);
	poll(1);
	ASSERT_EQ(rx(1).size(), 1 + want.size());
	for (size_t k = 0; k < want.size(); k++)
		EXPECT_EQ(rx(1)[1 + k].data, frames::vxlan(want[k], 4789, (uint16_t)(0x1234 + k)))
			<< "segment " << k;
	scx_tx_done done = {};
	scx_channel_poll(ch(0), 64, &done);
	EXPECT_EQ(done.packets, 2u);
	EXPECT_EQ(stat(0, "tx_tso_inner_packets"), 1u);
	EXPECT_EQ(stat(0, "tx_tso_inner_bytes"), f.size() - t.ihs);
	EXPECT_EQ(stat(0, "tx_tso_packets"), 0u);
	EXPECT_EQ(stat(0, "tx_csum_partial_inner"), 2u);
	EXPECT_EQ(stat(0, "tx_packets"), 1 + want.size());
	EXPECT_EQ(stat(0, "tx_cqe_err"), 0u);
	EXPECT_EQ(scx_port_vxlan_port(p[0].port, 4789, 0), 0);
	EXPECT_LT(scx_port_vxlan_port(p[0].port, 4789, 0), 0) << "no longer there";
	EXPECT_EQ(host::dma_tx_mappings(), 0u);
}

/*
 * LSO with the tag in metadata (tx-vlan-offload): the driver writes it into
 * the inline template, so every segment on the wire carries it, byte for
 * byte as segmenting the tagged frame; BQL and tx_bytes count it per
 * segment. The receiver's stripping is off: the frames as they were sent.
 */
TEST_F(Pair, LsoInsertsTheVlanTagInEverySegment)
{
	Options o;
	o.log_sq = 8;
	o.log_rq = 6;
	build(o);
	ASSERT_EQ(scx_port_set_rx_vlan_strip(p[1].port, 0), 0);
	uint64_t wire_bytes = 0, n = 0;
	for (const LsoCase &c : kLsoCases) {
		if (c.vlan >= 0)
			continue;
		SCOPED_TRACE(c.name);
		LsoCase tagged_case = c;
		tagged_case.vlan = 0x0ffe;
		Bytes f = lso_frame(c), tagged = lso_frame(tagged_case);
		scx_tx_pkt t = lso_attrs(f, c);
		t.vlan = 1;
		t.vlan_tci = 0x0ffe;
		auto want = ref_segment(tagged, t.ihs + 4, c.mss);
		size_t before = rx(1).size();

		ASSERT_EQ(post_pkt(0, f, t, { t.ihs }), 0);
		doorbell(0);
		poll(1);
		ASSERT_EQ(rx(1).size() - before, want.size());
		for (size_t k = 0; k < want.size(); k++)
			EXPECT_EQ(rx(1)[before + k].data, want[k]) << "segment " << k;
		scx_tx_done done = {};
		scx_channel_poll(ch(0), 64, &done);
		EXPECT_EQ(done.bytes, f.size() + (want.size() - 1) * t.ihs + want.size() * 4);
		wire_bytes += tagged.size() + (want.size() - 1) * (t.ihs + 4);
		n++;
	}
	EXPECT_EQ(stat(0, "tx_bytes"), wire_bytes);
	EXPECT_EQ(stat(0, "tx_added_vlan_packets"), n);
	EXPECT_EQ(stat(0, "tx_cqe_err"), 0u);
}

/* Header lengths the WQE cannot carry are refused before anything is posted. */
TEST_F(Pair, LsoRefusesWhatItCannotExpress)
{
	Bytes f = lso_frame(kLsoCases[0]);
	scx_tx_pkt t = lso_attrs(f, kLsoCases[0]);
	scx_tx_pkt bad = t;

	bad.ihs = 257;
	EXPECT_EQ(post_pkt(0, f, bad), -SCX_EINVAL) << "header above the inline limit";
	bad = t;
	EXPECT_EQ(post_pkt(0, f, bad, { 40 }), -SCX_EINVAL) << "headers not in the linear part";
	bad = t;
	bad.gso_size = 0;
	EXPECT_EQ(post_pkt(0, f, bad), -SCX_EINVAL) << "no MSS";
	EXPECT_EQ(stat(0, "tx_packets"), 0u);
}

/*
 * IPv6 BIG TCP: the stack puts a hop-by-hop jumbo header between IPv6 and
 * TCP and leaves the payload length 0. The core leaves it out of the LSO
 * template: the wire carries exactly the segments of the same send without
 * it. Before that the device refused the template and the SQ went to ERR.
 */
TEST_F(Pair, BigTcpJumboHeaderIsLeftOut)
{
	Options o;
	o.log_sq = 10;
	o.log_rq = 8;
	build(o);

	for (size_t payload : { (size_t)4344, (size_t)70000 }) {
		SCOPED_TRACE(payload);
		LsoCase c = { "tcp6 big", true, 6, payload, 1440, 0, -1, 0x18 };
		Bytes plain = lso_frame(c);
		scx_tx_pkt t = lso_attrs(plain, c);
		size_t l3 = frames::l3_off(plain), ihs = t.ihs;
		auto want = ref_segment(plain, ihs, c.mss);

		/* next header 6 (TCP), length 0, jumbo option 0xc2 with the 32-bit length */
		Bytes big(plain.begin(), plain.begin() + (long)(l3 + 40));
		uint32_t jumbo = (uint32_t)(plain.size() - l3 - 40 + 8);
		Bytes hbh = { 6, 0, 0xc2, 4, (uint8_t)(jumbo >> 24), (uint8_t)(jumbo >> 16),
			      (uint8_t)(jumbo >> 8), (uint8_t)jumbo };
		big.insert(big.end(), hbh.begin(), hbh.end());
		big.insert(big.end(), plain.begin() + (long)(l3 + 40), plain.end());
		big[l3 + 6] = 0;	/* next header: hop-by-hop */
		frames::put16(big, l3 + 4, 0);
		t.ihs = (uint32_t)(ihs + 8);
		t.hbh_off = (uint8_t)(l3 + 40);

		size_t before = rx(1).size();
		uint64_t cqe_err = stat(0, "tx_cqe_err");
		ASSERT_EQ(post_pkt(0, big, t, { t.ihs, t.ihs + (big.size() - t.ihs) / 2 }), 0);
		doorbell(0);
		poll(1);
		ASSERT_EQ(rx(1).size() - before, want.size());
		for (size_t k = 0; k < want.size(); k++) {
			const auto &got = rx(1)[before + k];
			ASSERT_EQ(got.data, want[k]) << "segment " << k;
			SCOPED_TRACE("segment " + std::to_string(k));
			expect_csum_ok(got);
		}
		scx_tx_done done = {};
		scx_channel_poll(ch(0), 64, &done);
		EXPECT_EQ(done.tx_error, 0u);
		EXPECT_EQ(stat(0, "tx_cqe_err"), cqe_err);
		EXPECT_EQ(done.bytes, plain.size() + (want.size() - 1) * ihs) << "BQL: wire bytes";
	}
	EXPECT_EQ(host::dma_tx_mappings(), 0u);

	/* a hop-by-hop header that is not the jumbo one (next header not TCP) is refused */
	LsoCase c = { "tcp6", true, 6, 3000, 1440, 0, -1, 0x18 };
	Bytes f = lso_frame(c);
	scx_tx_pkt t = lso_attrs(f, c);
	t.hbh_off = (uint8_t)(frames::l3_off(f) + 40);
	EXPECT_EQ(post_pkt(0, f, t), -SCX_EINVAL);
}

/* ---- MPWQE session rules ---- */

struct MpwCase {
	const char *name;
	std::string steps;	/* e eligible, c eligible+csum, f fragmented, v VLAN tag, g GSO, D doorbell */
	uint64_t blks, pkts;
};

class MpwRules : public Pair, public ::testing::WithParamInterface<MpwCase> {};

TEST_P(MpwRules, SessionsAndFallbacks)
{
	const MpwCase &c = GetParam();
	Options o;
	o.log_sq = 8;
	o.log_rq = 7;
	o.tx_mpwqe = true;
	build(o);

	std::vector<Bytes> want;
	int i = 0;
	for (char s : c.steps) {
		if (s == 'D') {
			doorbell(0);
			continue;
		}
		Bytes f = udp_frame(18 + i % 7, (uint16_t)(1000 + i), (uint8_t)i);
		scx_tx_pkt t = {};
		std::vector<size_t> cuts;
		i++;
		switch (s) {
		case 'c':
			t.csum = SCX_TX_CSUM_L3 | SCX_TX_CSUM_L4;
			frames::fill_reference_csums(f);
			break;
		case 'f':
			cuts = { 30 };
			break;
		case 'v':
			t.vlan = 1;
			break;
		case 'g': {
			LsoCase lc = { "g", false, 6, 1500, 1000, 0, -1, 0x18 };
			f = lso_frame(lc);
			t = lso_attrs(f, lc);
			for (auto &seg : ref_segment(f, t.ihs, lc.mss))
				want.push_back(seg);
			break;
		}
		}
		if (s != 'g')
			want.push_back(f);
		ASSERT_EQ(post_pkt(0, f, t, cuts), 0) << "step " << i;
	}
	poll(1);
	ASSERT_EQ(rx(1).size(), want.size());
	for (size_t k = 0; k < want.size(); k++) {
		ASSERT_EQ(rx(1)[k].data.size(), want[k].size()) << "frame " << k;
		EXPECT_EQ(0, memcmp(rx(1)[k].data.data(), want[k].data(), want[k].size()))
			<< "frame " << k;
	}
	poll(0);
	EXPECT_EQ(stat(0, "tx_mpwqe_blks"), c.blks);
	EXPECT_EQ(stat(0, "tx_mpwqe_pkts"), c.pkts);
	EXPECT_EQ(stat(0, "tx_cqe_err"), 0u);
	EXPECT_EQ(host::dma_tx_mappings(), 0u);
	EXPECT_EQ(host::tx_freed(&p[0].os_ch[0]).size(), (size_t)i);
	EXPECT_EQ(tx_done_packets[0], (uint64_t)i);
}

INSTANTIATE_TEST_SUITE_P(
	Table, MpwRules,
	::testing::Values(
		MpwCase{ "one_session", "eeeeeeeeeeD", 1, 10 },
		MpwCase{ "nonlinear_closes", "eeefeeeD", 2, 6 },
		MpwCase{ "vlan_closes", "eeveeD", 2, 4 },
		MpwCase{ "gso_closes", "eegeeD", 2, 4 },
		MpwCase{ "eseg_change_reopens", "eeccceeD", 3, 7 },
		MpwCase{ "no_xmit_more_closes", "eDeDeD", 3, 3 },
		MpwCase{ "only_fallbacks", "fvgD", 0, 0 },
		MpwCase{ "session_full", std::string(kMpwFull, 'e') + "eD", 2, kMpwFull + 1 },
		MpwCase{ "two_full_sessions", std::string(2 * kMpwFull, 'e') + "D", 2, 2 * kMpwFull }),
	[](const ::testing::TestParamInfo<MpwCase> &i) { return std::string(i.param.name); });

/* A full session is completed but not announced: only the caller's doorbell sends it. */
TEST_F(Pair, MpwFullSessionWaitsForTheDoorbell)
{
	Options o;
	o.log_sq = 8;
	o.log_rq = 7;
	o.tx_mpwqe = true;
	build(o);

	for (uint32_t i = 0; i < kMpwFull; i++)
		ASSERT_EQ(post(0, udp_frame(20, (uint16_t)(1000 + i))), 0);
	poll(1);
	EXPECT_EQ(rx(1).size(), 0u) << "a full session must not ring by itself";
	EXPECT_EQ(stat(0, "tx_doorbells"), 0u);
	ASSERT_EQ(post(0, udp_frame(20, 7)), 0);
	EXPECT_EQ(stat(0, "tx_mpwqe_blks"), 2u);
	doorbell(0);
	poll(1);
	EXPECT_EQ(rx(1).size(), kMpwFull + 1u);
	poll(0);
	EXPECT_EQ(stat(0, "tx_cqes"), 1u);
	EXPECT_EQ(stat(0, "tx_xmit_more"), kMpwFull + 0u);
}

/* Sessions wrap around the ring: NOP padding keeps each one contiguous. */
TEST_F(Pair, MpwSessionsWrapTheRing)
{
	Options o;
	o.log_sq = 6;	/* 64 WQEBBs: a 15-WQEBB session rarely fits at the edge */
	o.log_rq = 7;
	o.tx_mpwqe = true;
	build(o);

	size_t sent = 0;
	for (int round = 0; round < 200; round++) {
		int n = 1 + round % 40;
		for (int i = 0; i < n; i++, sent++) {
			int r = post(0, udp_frame(20 + i % 30, (uint16_t)i, (uint8_t)round), 0,
				     i % 11 == 5 ? SCX_TX_CSUM_L3 | SCX_TX_CSUM_L4 : 0,
				     i % 13 == 7 ? std::vector<size_t>{ 20 } : std::vector<size_t>{});
			ASSERT_GE(r, 0) << "round " << round << " packet " << i;
		}
		doorbell(0);
		poll(1);
		poll(0);
		ASSERT_TRUE(scx_channel_tx_room(ch(0)));
	}
	EXPECT_EQ(rx(1).size(), sent);
	EXPECT_GT(stat(0, "tx_nop"), 0u);
	EXPECT_EQ(stat(0, "tx_cqe_err"), 0u);
	EXPECT_EQ(tx_done_packets[0], sent);
}

/* cx4 needs L2 headers inlined: no skb MPWQE, and asking for it is refused. */
TEST_F(Pair, MpwNotOnCx4)
{
	for (int model : { 4, 5, 6, 7 }) {
		Options o;
		o.model = model;
		build(o);
		scx_port_caps caps = {};
		scx_port_get_caps(p[0].port, &caps);
		EXPECT_EQ(caps.tx_mpwqe, model == 4 ? 0u : 1u) << "cx" << model;
		EXPECT_EQ(caps.max_lso_hdr, 256u);
		scx_port_close(p[0].port);
		scx_port_params prm = params(1500);
		prm.tx_mpwqe = 1;
		auto chans = p[0].os_channels();
		EXPECT_EQ(scx_port_open(p[0].port, &prm, chans.data()),
			  model == 4 ? -SCX_EOPNOTSUPP : 0);
		if (model == 4) {
			prm.tx_mpwqe = 0;
			ASSERT_EQ(scx_port_open(p[0].port, &prm, chans.data()), 0);
		}
		for (int i = 0; i < 10; i++)
			ASSERT_EQ(post(0, udp_frame(20, (uint16_t)i)), 0);
		doorbell(0);
		poll(1);
		poll(0);
		EXPECT_EQ(rx(1).size(), 10u);
		EXPECT_EQ(stat(0, "tx_mpwqe_blks"), model == 4 ? 0u : 1u);
		host::reset();
	}
}

/* Bus bytes per 60-byte packet, doorbell every 32 packets: MPWQE vs single SENDs. */
TEST_F(Pair, MpwCutsBusBytesPerPacket)
{
	double per_pkt[2] = {};
	const int n = 32 * 58;

	for (int on = 0; on < 2; on++) {
		Options o;
		o.log_sq = 10;
		o.log_rq = 10;
		o.tx_mpwqe = on;
		build(o);
		for (int i = 0; i < n; i++) {
			ASSERT_EQ(post(0, udp_frame(18, (uint16_t)i)), 0);
			if (i % 32 == 31)
				doorbell(0);
			if (i % 256 == 255) {
				poll(1);
				poll(0);
			}
		}
		doorbell(0);
		poll(1);
		poll(0);
		ASSERT_EQ(rx(1).size(), (size_t)n);
		uint64_t bytes = 0;
		for (const char *c : { "bus_rd_desc_bytes", "bus_rd_data_bytes", "bus_wr_cqe_bytes",
				       "bus_rd_dbr_bytes" })
			bytes += stat(0, c);
		per_pkt[on] = (double)bytes / n;
		printf("[ bus      ] skb_tx_mpwqe %s: %.2f TX-side bus bytes per 60-byte packet "
		       "(desc %.2f)\n", on ? "on " : "off", per_pkt[on],
		       (double)stat(0, "bus_rd_desc_bytes") / n);
		host::reset();
	}
	double cut = 1.0 - per_pkt[1] / per_pkt[0];
	printf("[ bus      ] cut: %.1f %%\n", cut * 100);
	EXPECT_GE(cut, 0.26);
}

/* ---- error CQE -> recovery ---- */

class Recovery : public Pair, public ::testing::WithParamInterface<bool> {};

TEST_P(Recovery, InjectedBadLkeyFlushesAndResumes)
{
	Options o;
	o.log_sq = 7;
	o.log_rq = 6;
	o.tx_mpwqe = GetParam();
	build(o);

	for (int i = 0; i < 5; i++)
		ASSERT_EQ(post(0, udp_frame(30, (uint16_t)i)), 0);
	ASSERT_EQ(post(0, udp_frame(300, 99), 0, 0, { 40 }), 0);
	scx_channel_inject_tx_error(ch(0));
	for (int i = 0; i < 3; i++)
		ASSERT_EQ(post(0, udp_frame(30, (uint16_t)(50 + i))), 0);
	doorbell(0);
	poll(1);
	EXPECT_EQ(rx(1).size(), 6u) << "WQEs before the bad one are sent";

	scx_tx_done done = {};
	scx_channel_poll(ch(0), 64, &done);
	EXPECT_EQ(done.tx_error, 1u);
	EXPECT_EQ(stat(0, "tx_cqe_err"), 1u);
	EXPECT_FALSE(scx_channel_tx_room(ch(0))) << "no wake while recovering";
	/* the 6 WQEs before the failed one were sent: completed, counted; the rest waits */
	EXPECT_EQ(host::dma_tx_mappings(), 3u) << "only what the device never sent is held";
	EXPECT_EQ(host::tx_freed(&p[0].os_ch[0]).size(), 6u);
	EXPECT_EQ(stat(0, "tx_packets"), 6u);

	/* doorbells while in ERR are ignored by the device */
	ASSERT_EQ(post(0, udp_frame(30, 77)), 0);
	doorbell(0);
	poll(1);
	EXPECT_EQ(rx(1).size(), 6u);

	EXPECT_EQ(scx_channel_tx_recover(ch(0), 0), 0);
	EXPECT_EQ(host::dma_tx_mappings(), 0u) << "recovery releases every mapping";
	EXPECT_EQ(host::tx_freed(&p[0].os_ch[0]).size(), 10u);
	EXPECT_EQ(stat(0, "tx_recover"), 1u);
	/* every packet posted is sent or flushed, never both */
	EXPECT_EQ(stat(0, "tx_packets"), 6u);
	EXPECT_EQ(stat(0, "tx_flushed"), 4u);
	EXPECT_TRUE(scx_channel_tx_room(ch(0)));
	EXPECT_EQ(scx_channel_tx_recover(ch(0), 0), 1) << "nothing left to recover";

	/* traffic resumes, from counter 0 on both sides */
	for (int round = 0; round < 20; round++) {
		for (int i = 0; i < 8; i++)
			ASSERT_EQ(post(0, udp_frame(30 + i, (uint16_t)i, (uint8_t)round)), 0);
		doorbell(0);
		poll(1);
		scx_tx_done d = {};
		scx_channel_poll(ch(0), 64, &d);
		EXPECT_EQ(d.tx_error, 0u);
		EXPECT_EQ(d.packets, 8u);
	}
	EXPECT_EQ(rx(1).size(), 6u + 160u);
	EXPECT_EQ(stat(0, "tx_cqe_err"), 1u);
}

INSTANTIATE_TEST_SUITE_P(MpwqeOffOn, Recovery, ::testing::Bool());

/*
 * A TX mapping the device can no longer reach (what inject_dma_fault does
 * in the kernel): error CQE, tx_cqe_err and bus_dma_faults in the counter
 * table, recovery releases every mapping (the revoked one too), and
 * traffic resumes.
 */
TEST_P(Recovery, UnreachableMappingIsADmaFaultAndRecovers)
{
	Options o;
	o.tx_mpwqe = GetParam();
	build(o);

	ASSERT_EQ(post(0, udp_frame(30, 1)), 0);
	ASSERT_EQ(post(0, udp_frame(30, 2)), 0);
	host::dma_revoke(tx_bufs.back()->dmas[0]);
	ASSERT_EQ(post(0, udp_frame(30, 3)), 0);
	doorbell(0);
	poll(1);
	EXPECT_EQ(rx(1).size(), 1u) << "the WQE (or session) before the fault is sent";

	scx_tx_done done = {};
	scx_channel_poll(ch(0), 64, &done);
	EXPECT_EQ(done.tx_error, 1u);
	EXPECT_EQ(stat(0, "tx_cqe_err"), 1u);
	EXPECT_EQ(stat(0, "bus_dma_faults"), 1u);
	EXPECT_EQ(stat(1, "bus_dma_faults"), 0u);
	EXPECT_EQ(scx_channel_tx_recover(ch(0), 0), 0);
	EXPECT_EQ(host::dma_tx_mappings(), 0u) << "recovery releases every mapping";
	EXPECT_EQ(host::errors(), 0);

	for (int i = 0; i < 8; i++)
		ASSERT_EQ(post(0, udp_frame(40, (uint16_t)(10 + i))), 0);
	doorbell(0);
	poll(1);
	scx_tx_done d = {};
	scx_channel_poll(ch(0), 64, &d);
	EXPECT_EQ(d.tx_error, 0u);
	EXPECT_EQ(rx(1).size(), 1u + 8u);
	EXPECT_EQ(stat(0, "bus_dma_faults"), 1u);
}

/* An LSO header that does not end at the L4 header's end: the device refuses, the SQ recovers. */
TEST_F(Pair, MalformedLsoGivesErrorCqeAndRecovers)
{
	Bytes f = lso_frame(kLsoCases[0]);
	scx_tx_pkt t = lso_attrs(f, kLsoCases[0]);

	t.ihs -= 4;
	ASSERT_EQ(post_pkt(0, f, t), 0);
	doorbell(0);
	poll(1);
	EXPECT_EQ(rx(1).size(), 0u);
	scx_tx_done done = {};
	scx_channel_poll(ch(0), 64, &done);
	EXPECT_EQ(done.tx_error, 1u);
	EXPECT_EQ(scx_channel_tx_recover(ch(0), 0), 0);
	EXPECT_EQ(host::dma_tx_mappings(), 0u);
	ASSERT_EQ(send(0, udp_frame(100)), 0);
	poll(1);
	EXPECT_EQ(rx(1).size(), 1u);
	poll(0);
}
