// SPDX-License-Identifier: GPL-2.0
/*
 * Checksum offload against the reference implementation in frames.cpp:
 * TX fills IPv4 header and TCP/UDP checksums from scratch; RX reports the
 * raw sum and the L3/L4 verdicts.
 */
#include <random>

#include "frames.h"
#include "hw/checksum.h"
#include "hw_harness.h"

using namespace hwt;

namespace {

struct Case {
	const char *name;
	bool v6;
	uint8_t proto;
	size_t payload;
	int vlan;
};

const Case kCases[] = {
	{ "tcp4", false, 6, 100, -1 },	   { "tcp4_odd", false, 6, 333, -1 },
	{ "udp4", false, 17, 64, -1 },	   { "udp4_odd", false, 17, 1, -1 },
	{ "tcp6", true, 6, 1000, -1 },	   { "tcp6_odd", true, 6, 1001, -1 },
	{ "udp6", true, 17, 512, -1 },	   { "udp6_odd", true, 17, 77, -1 },
	{ "tcp4_vlan", false, 6, 99, 5 },  { "udp6_vlan", true, 17, 300, 100 },
	{ "tcp4_empty", false, 6, 0, -1 }, { "udp4_jumbo", false, 17, 8000, -1 },
};

frames::Bytes make(const Case &c, bool good, uint8_t seed)
{
	frames::Spec s;
	s.v6 = c.v6;
	s.proto = c.proto;
	if (c.v6) {
		s.src = "2001:db8:1::" + std::to_string(seed);
		s.dst = "2001:db8:2::99";
	}
	s.vlan = c.vlan;
	s.payload = frames::payload(c.payload, seed);
	s.good_csums = good;
	return frames::build(s);
}

class HwCsum : public HwTest {};

TEST_F(HwCsum, TxOffloadMatchesReference)
{
	Link l;
	l.setup(fn0, fn1);
	uint16_t n = 0;
	for (const Case &c : kCases) {
		frames::Bytes f = make(c, /*good=*/false, (uint8_t)n);	/* garbage checksums */
		l.send(f, 18, prm::kCsL3 | prm::kCsL4);
		auto rx = l.rxcq.poll_all();
		ASSERT_EQ(rx.size(), 1u) << c.name;
		frames::Bytes got(l.rq.buffer(n), l.rq.buffer(n) + f.size());
		frames::Bytes want = f;
		frames::fill_reference_csums(want);
		EXPECT_EQ(got, want) << c.name;
		if (!c.v6) {
			EXPECT_EQ(frames::get16(got, frames::l3_off(got) + 10), frames::ref_ipv4_hdr_csum(got));
		}
		EXPECT_EQ(rx[0].hds_ip_ext, prm::kCqeL3Ok | prm::kCqeL4Ok) << c.name;
		n++;
	}
}

TEST_F(HwCsum, OnlyTheRequestedChecksums)
{
	Link l;
	l.setup(fn0, fn1);
	frames::Bytes f = make(kCases[0], false, 1);
	size_t l3 = frames::l3_off(f), l4 = frames::l4_off(f);

	l.send(f, 0, prm::kCsL3);
	frames::Bytes got(l.rq.buffer(0), l.rq.buffer(0) + f.size());
	EXPECT_EQ(frames::get16(got, l3 + 10), frames::ref_ipv4_hdr_csum(f));
	EXPECT_EQ(frames::get16(got, l4 + 16), 0xdead) << "L4 untouched";

	l.send(f, 0, prm::kCsL4);
	got.assign(l.rq.buffer(1), l.rq.buffer(1) + f.size());
	EXPECT_EQ(frames::get16(got, l3 + 10), 0xabcd) << "L3 untouched";
	EXPECT_EQ(frames::get16(got, l4 + 16), frames::ref_l4_csum(f));

	l.send(f, 0, 0);
	got.assign(l.rq.buffer(2), l.rq.buffer(2) + f.size());
	EXPECT_EQ(got, f);
	auto rx = l.rxcq.poll_all();
	ASSERT_EQ(rx.size(), 3u);
	EXPECT_EQ(rx[0].hds_ip_ext, prm::kCqeL3Ok);
	EXPECT_EQ(rx[1].hds_ip_ext, prm::kCqeL4Ok);
	EXPECT_EQ(rx[2].hds_ip_ext, 0);
}

/* A UDP checksum that computes to 0 goes on the wire as 0xffff. */
TEST_F(HwCsum, UdpZeroChecksumBecomesFfff)
{
	Link l;
	l.setup(fn0, fn1);
	frames::Spec s;
	s.proto = 17;
	s.payload = frames::payload(20, 4);
	s.payload[18] = s.payload[19] = 0;
	frames::Bytes f = frames::build(s);
	/* Choose the last two payload bytes so that the one's-complement sum is 0xffff. */
	size_t l4 = frames::l4_off(f);
	uint16_t c = frames::get16(f, l4 + 6);	/* reference checksum with the two bytes 0 */
	if (c == 0xffff)
		c = 0;	/* reference mapped 0 to 0xffff already */
	/* adding word W to the data turns checksum ~S into ~(S+W); we want S+W = 0xffff */
	uint16_t sum = (uint16_t)~c;
	frames::put16(f, f.size() - 2, (uint16_t)(0xffff - sum));
	frames::put16(f, l4 + 6, 0x1111);
	ASSERT_EQ(frames::ref_l4_csum(f), 0xffff) << "test construction";

	l.send(f, 0, prm::kCsL3 | prm::kCsL4);
	frames::Bytes got(l.rq.buffer(0), l.rq.buffer(0) + f.size());
	EXPECT_EQ(frames::get16(got, l4 + 6), 0xffff);
	auto rx = l.rxcq.poll_all();
	ASSERT_EQ(rx.size(), 1u);
	EXPECT_TRUE(rx[0].hds_ip_ext & prm::kCqeL4Ok);
}

TEST_F(HwCsum, RxVerdictsAndRawSum)
{
	Link l;
	l.setup(fn0, fn1);
	uint16_t n = 0;
	for (const Case &c : kCases) {
		frames::Bytes good = make(c, true, (uint8_t)n);
		l.send(good);
		frames::Bytes bad_l4 = good;
		bad_l4[bad_l4.size() - 1] ^= 0x40;	/* payload bit flip */
		if (c.payload == 0)
			bad_l4[frames::l4_off(bad_l4) + 14] ^= 1;	/* the TCP window then */
		l.send(bad_l4);
		frames::Bytes bad_l3 = good;
		if (!c.v6)
			bad_l3[frames::l3_off(bad_l3) + 10] ^= 0x01;	/* header checksum */
		l.send(bad_l3);

		auto rx = l.rxcq.poll_all();
		ASSERT_EQ(rx.size(), 3u) << c.name;
		const frames::Bytes *sent[3] = { &good, &bad_l4, &bad_l3 };
		for (int i = 0; i < 3; i++)
			EXPECT_EQ(rx[i].check_sum.get(), frames::ref_sum(*sent[i], frames::l3_off(*sent[i])))
				<< c.name << " frame " << i;
		uint8_t l3ok = prm::kCqeL3Ok;
		EXPECT_EQ(rx[0].hds_ip_ext, l3ok | prm::kCqeL4Ok) << c.name;
		EXPECT_EQ(rx[1].hds_ip_ext, l3ok) << c.name;
		uint8_t want2 = c.v6 ? (uint8_t)(l3ok | prm::kCqeL4Ok) : prm::kCqeL4Ok;
		EXPECT_EQ(rx[2].hds_ip_ext, want2) << c.name;
		EXPECT_EQ(rx[0].l3_type(), c.v6 ? prm::kCqeL3Ipv6 : prm::kCqeL3Ipv4);
		n += 3;
	}
}

TEST_F(HwCsum, UdpWithoutChecksumIsOk)
{
	Link l;
	l.setup(fn0, fn1);
	frames::Spec s;
	s.proto = 17;
	s.payload = frames::payload(50);
	frames::Bytes f = frames::build(s);
	frames::put16(f, frames::l4_off(f) + 6, 0);
	l.send(f);
	auto rx = l.rxcq.poll_all();
	ASSERT_EQ(rx.size(), 1u);
	EXPECT_EQ(rx[0].hds_ip_ext, prm::kCqeL3Ok | prm::kCqeL4Ok);
}

/* Ethernet padding after the IP packet: the L4 checksum covers the IP payload only. */
TEST_F(HwCsum, PaddedShortFrame)
{
	Link l;
	l.setup(fn0, fn1);
	frames::Spec s;
	s.proto = 17;
	s.payload = frames::payload(2);
	frames::Bytes f = frames::build(s);
	ASSERT_EQ(f.size(), 44u);
	frames::Bytes padded = f;
	padded.resize(60, 0xee);
	frames::put16(padded, frames::l4_off(padded) + 6, 0x5555);
	l.send(padded, 0, prm::kCsL4);
	frames::Bytes got(l.rq.buffer(0), l.rq.buffer(0) + padded.size());
	EXPECT_EQ(frames::get16(got, frames::l4_off(got) + 6), frames::get16(f, frames::l4_off(f) + 6));
	EXPECT_EQ(0, memcmp(got.data() + 44, padded.data() + 44, 16)) << "padding kept";
	auto rx = l.rxcq.poll_all();
	ASSERT_EQ(rx.size(), 1u);
	EXPECT_EQ(rx[0].hds_ip_ext, prm::kCqeL3Ok | prm::kCqeL4Ok);
	EXPECT_EQ(rx[0].byte_cnt.get(), 60u);
	EXPECT_EQ(rx[0].check_sum.get(), frames::ref_sum(got, 14)) << "sum runs to the frame end";
}

/* An odd-length UDP segment followed by padding: the raw sum still runs to the frame end. */
TEST_F(HwCsum, PaddedShortFrameOddSegment)
{
	Link l;
	l.setup(fn0, fn1);
	frames::Spec s;
	s.proto = 17;
	s.payload = frames::payload(3);
	s.good_csums = true;
	frames::Bytes f = frames::build(s);
	ASSERT_EQ(f.size(), 45u);
	f.resize(60, 0xa5);
	l.send(f);
	auto rx = l.rxcq.poll_all();
	ASSERT_EQ(rx.size(), 1u);
	EXPECT_EQ(rx[0].hds_ip_ext, prm::kCqeL3Ok | prm::kCqeL4Ok);
	EXPECT_EQ(rx[0].check_sum.get(), frames::ref_sum(f, 14));
}

/* The word-order-independent sum against big-endian 16-bit words, piece by piece. */
TEST(HwCsumAdd, MatchesTheBigEndianWordSum)
{
	auto ref = [](uint64_t acc, const uint8_t *p, uint32_t len) {
		for (uint32_t i = 0; i < len; i++)
			acc += i & 1 ? p[i] : (uint32_t)p[i] << 8;
		return acc;
	};
	std::mt19937 rng(7);
	std::vector<uint8_t> buf(9100);
	for (int round = 0; round < 3000; round++) {
		uint32_t len = round < 64 ? (uint32_t)round : rng() % (uint32_t)buf.size();
		uint32_t off = rng() % 8;
		len = std::min(len, (uint32_t)buf.size() - off);
		int fill = round % 4;	/* random, zeros, 0xff, sparse */
		for (uint8_t &b : buf)
			b = fill == 0 ? (uint8_t)rng() : fill == 1 ? 0 : fill == 2 ? 0xff
				: (rng() % 97 ? 0 : (uint8_t)rng());
		uint64_t acc = round % 3 ? rng() % 0x30000 : 0;
		ASSERT_EQ(softcx::hw::csum_fold(softcx::hw::csum_add(acc, buf.data() + off, len)),
			  softcx::hw::csum_fold(ref(acc, buf.data() + off, len)))
			<< "round " << round << " len " << len << " off " << off;
		/* split at an even point: the pieces add up */
		uint32_t cut = len ? (rng() % len) & ~1u : 0;
		uint64_t two = softcx::hw::csum_add(softcx::hw::csum_add(acc, buf.data() + off, cut),
						    buf.data() + off + cut, len - cut);
		ASSERT_EQ(softcx::hw::csum_fold(two), softcx::hw::csum_fold(ref(acc, buf.data() + off, len)))
			<< "round " << round << " cut " << cut;
	}
}

/* Frames the parser cannot make sense of go out unchanged, whatever cs_flags say. */
TEST_F(HwCsum, UnparseableFramesAreLeftAlone)
{
	Link l;
	l.setup(fn0, fn1);
	frames::Bytes f = make(kCases[0], false, 3);
	frames::put16(f, frames::l3_off(f) + 2, 2000);	/* IP total length beyond the frame */
	l.send(f, 0, prm::kCsL4);
	frames::Bytes got(l.rq.buffer(0), l.rq.buffer(0) + f.size());
	EXPECT_EQ(got, f);
	frames::Bytes g = make(kCases[0], false, 4);
	g[frames::l3_off(g)] = 0x44;	/* IHL 4: invalid */
	l.send(g, 0, prm::kCsL3 | prm::kCsL4);
	got.assign(l.rq.buffer(1), l.rq.buffer(1) + g.size());
	EXPECT_EQ(got, g);
	auto rx = l.rxcq.poll_all();
	ASSERT_EQ(rx.size(), 2u);
	EXPECT_EQ(rx[1].l3_type(), prm::kCqeL3None);
}

} /* namespace */

namespace {

/* Big-endian 16-bit word sum, folded: the textbook definition, byte by byte. */
uint16_t be_fold(const uint8_t *p, size_t len, uint64_t acc = 0)
{
	for (size_t i = 0; i < len; i++)
		acc += i & 1 ? p[i] : (uint32_t)p[i] << 8;
	while (acc >> 16)
		acc = (acc & 0xffff) + (acc >> 16);
	return (uint16_t)acc;
}

} /* namespace */

/*
 * csum_rx() against the definitions, on random frames of every shape it
 * takes apart (its one-pass path for plain IPv4/IPv6 TCP/UDP up to the
 * frame end, and the general one for options, padding, other protocols):
 * random payloads and lengths, right and damaged checksums, random bytes
 * in the checksum fields (0 included: a UDP sender that did not checksum).
 */
TEST(HwCsumRx, VerdictsAndRawSumMatchTheDefinitions)
{
	std::mt19937 rng(12);
	int fast = 0, general = 0;

	for (int round = 0; round < 4000; round++) {
		frames::Spec s;
		s.v6 = rng() & 1;
		s.proto = (uint8_t[]){ 6, 17, 17, 6, 47 }[rng() % 5];
		if (s.v6) {
			s.src = "2001:db8::" + std::to_string(rng() % 9000 + 1);
			s.dst = "fe80::" + std::to_string(rng() % 9000 + 1);
		} else {
			s.src = "10.1." + std::to_string(rng() % 250) + "." + std::to_string(rng() % 250);
		}
		s.sport = (uint16_t)rng();
		s.dport = (uint16_t)rng();
		s.payload = frames::payload(round < 80 ? round : rng() % 1600, (uint8_t)rng());
		s.good_csums = rng() % 3 != 0;
		frames::Bytes f = frames::build(s);
		size_t l3 = frames::l3_off(f);
		uint32_t pad = rng() % 4 == 0 ? rng() % 7 : 0;
		f.resize(f.size() + pad, (uint8_t)rng());
		if (rng() % 5 == 0)	/* any damage, in the headers too */
			f[l3 + rng() % (f.size() - l3)] ^= (uint8_t)(1u << (rng() % 8));
		if (s.proto == 17 && rng() % 8 == 0)
			frames::put16(f, frames::l4_off(f) + 6, 0);

		softcx::hw::PacketInfo pi;
		softcx::hw::parse_frame(f.data(), (uint32_t)f.size(), &pi);
		softcx::hw::RxCsum got;
		softcx::hw::csum_rx(f.data(), (uint32_t)f.size(), pi, &got);

		bool plain = pi.l4_proto && pi.l4_off + pi.l4_len == f.size() &&
			     pi.l3_hdr_len == (pi.l3 == softcx::hw::L3::Ipv4 ? 20u : 40u);
		(plain ? fast : general)++;
		ASSERT_EQ(got.raw, be_fold(f.data() + pi.l3_off, f.size() - pi.l3_off)) << "round " << round;
		if (pi.l3 == softcx::hw::L3::None)
			continue;
		bool l3_ok = pi.l3 == softcx::hw::L3::Ipv6 ||
			     be_fold(f.data() + pi.l3_off, pi.l3_hdr_len) == 0xffff;
		ASSERT_EQ(got.l3_ok, l3_ok) << "round " << round;
		if (!pi.l4_proto)
			continue;
		const uint8_t *ip = f.data() + pi.l3_off;
		uint64_t pseudo = pi.l4_proto + pi.l4_len;
		pseudo += pi.l3 == softcx::hw::L3::Ipv4 ? be_fold(ip + 12, 8) : be_fold(ip + 8, 32);
		size_t csum_at = pi.l4_off + (pi.l4_proto == 6 ? 16 : 6);
		bool l4_ok = (pi.l4_proto == 17 && frames::get16(f, csum_at) == 0) ||
			     be_fold(f.data() + pi.l4_off, pi.l4_len, pseudo) == 0xffff;
		ASSERT_EQ(got.l4_ok, l4_ok) << "round " << round << " proto " << (int)pi.l4_proto;
	}
	EXPECT_GT(fast, 1500);
	EXPECT_GT(general, 800);
}
