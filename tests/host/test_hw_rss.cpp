// SPDX-License-Identifier: GPL-2.0
/*
 * RSS through the bus: the hash in RX CQEs against the published Microsoft
 * Toeplitz verification vectors, and RQ selection by the indirection table.
 * The device's table-driven Toeplitz hash against a bit-serial reference on
 * random keys and inputs, and its table rebuilt when a command changes the key.
 */
#include <random>

#include "frames.h"
#include "hw/rss.h"
#include "hw_harness.h"

using namespace hwt;

namespace {

struct Vector {
	const char *dst;
	uint16_t dport;
	const char *src;
	uint16_t sport;
	uint32_t hash_l3;
	uint32_t hash_l4;
};

/* "Verifying the RSS Hash Calculation", Windows driver documentation. */
const Vector kIpv4[] = {
	{ "161.142.100.80", 1766, "66.9.149.187", 2794, 0x323e8fc2, 0x51ccc178 },
	{ "65.69.140.83", 4739, "199.92.111.2", 14230, 0xd718262a, 0xc626b0ea },
	{ "12.22.207.184", 38024, "24.19.198.95", 12898, 0xd2d0a5de, 0x5c2b394a },
	{ "209.142.163.6", 2217, "38.27.205.30", 48228, 0x82989176, 0xafc7327f },
	{ "202.188.127.2", 1303, "153.39.163.191", 44251, 0x5d1809c5, 0x10e828a2 },
};
const Vector kIpv6[] = {
	{ "3ffe:2501:200:3::1", 1766, "3ffe:2501:200:1fff::7", 2794, 0x2cc18cd5, 0x40207d3d },
	{ "ff02::1", 4739, "3ffe:501:8::260:97ff:fe40:efab", 14230, 0x0f0c461c, 0xdde51bbf },
	{ "fe80::200:f8ff:fe21:67cf", 38024, "3ffe:1900:4545:3:200:f8ff:fe21:67cf", 44251,
	  0x4b61e985, 0x02d1feef },
};

frames::Bytes flow_frame(const Vector &v, bool v6, uint8_t proto)
{
	frames::Spec s;
	s.v6 = v6;
	s.proto = proto;
	s.src = v.src;
	s.dst = v.dst;
	s.sport = v.sport;
	s.dport = v.dport;
	s.payload = frames::payload(32);
	return frames::build(s);
}

/* The Toeplitz input of a vector's flow: addresses, then (ports) its ports. */
frames::Bytes tuple_of(const Vector &v, bool ports)
{
	frames::Bytes in = frames::ip_bytes(v.src), d = frames::ip_bytes(v.dst);
	in.insert(in.end(), d.begin(), d.end());
	if (ports)
		in.insert(in.end(), { (uint8_t)(v.sport >> 8), (uint8_t)v.sport, (uint8_t)(v.dport >> 8),
				      (uint8_t)v.dport });
	return in;
}

class HwRss : public HwTest {
protected:
	/* A second RQ on fn1 with a CQ of its own, ready, 64 buffers posted. */
	void second_rq(Cq *cq, Rq *rq)
	{
		ASSERT_EQ(cq->create(fn1, 8, 5), prm::kStatOk);
		ASSERT_EQ(rq->create(fn1, cq->cqn, 6, 9216), prm::kStatOk);
		ASSERT_EQ(rq->modify(prm::kQueueRst, prm::kQueueRdy), prm::kStatOk);
		rq->post(64);
	}

	prm::Cqe64 send_one(uint32_t fields, const frames::Bytes &f)
	{
		Link l;
		l.setup(fn0, fn1, 6, 6, 8, fields);
		l.send(f);
		auto rx = l.rxcq.poll_all();
		EXPECT_EQ(rx.size(), 1u);
		return rx.empty() ? prm::Cqe64{} : rx[0];
	}
};

TEST(HwRssReference, ReferenceToeplitzMatchesTheVectors)
{
	/* Guards the reference itself: src ip, dst ip, src port, dst port. */
	for (const Vector &v : kIpv4) {
		frames::Bytes in = frames::ip_bytes(v.src), d = frames::ip_bytes(v.dst);
		in.insert(in.end(), d.begin(), d.end());
		EXPECT_EQ(ref_toeplitz(kMsKey, in), v.hash_l3);
		in.insert(in.end(), { (uint8_t)(v.sport >> 8), (uint8_t)v.sport, (uint8_t)(v.dport >> 8),
				      (uint8_t)v.dport });
		EXPECT_EQ(ref_toeplitz(kMsKey, in), v.hash_l4);
	}
}

/* The device's byte tables against the bit-serial reference: random keys, every input length. */
TEST(HwRssTable, MatchesTheBitSerialReference)
{
	std::mt19937 rng(20261129);
	auto t = std::make_unique<softcx::hw::ToeplitzTable>();
	for (int k = 0; k < 200; k++) {
		uint8_t key[prm::kRssKeySize];
		for (uint8_t &b : key)
			b = (uint8_t)rng();
		if (k == 0)
			std::memset(key, 0xff, sizeof(key));	/* every window bit set */
		if (k == 1)
			std::memcpy(key, kMsKey, sizeof(key));
		softcx::hw::toeplitz_build(key, t.get());
		for (uint32_t len = 0; len <= softcx::hw::kToeplitzMaxInput; len++) {
			frames::Bytes in(len);
			for (uint8_t &b : in)
				b = (uint8_t)rng();
			if (k == 0 && len)
				in[len - 1] = 0xff;
			ASSERT_EQ(softcx::hw::toeplitz_hash(t.get(), in.data(), len), ref_toeplitz(key, in))
				<< "key " << k << " len " << len;
		}
	}
	/* Single bits: each table entry of a one-bit value is one key window. */
	softcx::hw::toeplitz_build(kMsKey, t.get());
	for (uint32_t i = 0; i < softcx::hw::kToeplitzMaxInput; i++)
		for (int b = 0; b < 8; b++) {
			frames::Bytes in(i + 1, 0);
			in[i] = (uint8_t)(0x80 >> b);
			EXPECT_EQ(softcx::hw::toeplitz_hash(t.get(), in.data(), i + 1), ref_toeplitz(kMsKey, in));
		}
}

TEST_F(HwRss, Ipv4VectorsAddressesOnly)
{
	for (const Vector &v : kIpv4) {
		prm::Cqe64 c = send_one(kFields2, flow_frame(v, false, 6));
		EXPECT_EQ(c.rss_hash_result.get(), v.hash_l3) << v.src;
		EXPECT_EQ(c.rss_hash_type, prm::kRssHashIpv4);
	}
}

TEST_F(HwRss, Ipv4VectorsWithTcpPorts)
{
	for (const Vector &v : kIpv4) {
		prm::Cqe64 c = send_one(kFields4, flow_frame(v, false, 6));
		EXPECT_EQ(c.rss_hash_result.get(), v.hash_l4) << v.src;
		EXPECT_EQ(c.rss_hash_type, prm::kRssHashIpv4 | prm::kRssHashTcp);
	}
}

TEST_F(HwRss, Ipv4VectorsWithUdpPorts)
{
	for (const Vector &v : kIpv4) {
		prm::Cqe64 c = send_one(kFields4, flow_frame(v, false, 17));
		EXPECT_EQ(c.rss_hash_result.get(), v.hash_l4) << v.src;
		EXPECT_EQ(c.rss_hash_type, prm::kRssHashIpv4 | prm::kRssHashUdp);
	}
}

TEST_F(HwRss, Ipv6Vectors)
{
	for (const Vector &v : kIpv6) {
		prm::Cqe64 c = send_one(kFields2, flow_frame(v, true, 6));
		EXPECT_EQ(c.rss_hash_result.get(), v.hash_l3) << v.src;
		EXPECT_EQ(c.rss_hash_type, prm::kRssHashIpv6);
		c = send_one(kFields4, flow_frame(v, true, 6));
		EXPECT_EQ(c.rss_hash_result.get(), v.hash_l4) << v.src;
		EXPECT_EQ(c.rss_hash_type, prm::kRssHashIpv6 | prm::kRssHashTcp);
	}
}

TEST_F(HwRss, NonTcpUdpAndNonIpHashing)
{
	/* ICMP-like: 4-tuple fields fall back to the addresses */
	prm::Cqe64 c = send_one(kFields4, flow_frame(kIpv4[0], false, 1));
	EXPECT_EQ(c.rss_hash_result.get(), kIpv4[0].hash_l3);
	EXPECT_EQ(c.rss_hash_type, prm::kRssHashIpv4);
	EXPECT_EQ(c.l4_type(), prm::kCqeL4None);

	/* ARP-like frame: no hash, table entry 0 */
	frames::Bytes arp(60, 0);
	arp[12] = 0x08;
	arp[13] = 0x06;
	c = send_one(kFields4, arp);
	EXPECT_EQ(c.rss_hash_result.get(), 0u);
	EXPECT_EQ(c.rss_hash_type, 0);
	EXPECT_EQ(c.l3_type(), prm::kCqeL3None);
	EXPECT_EQ(c.byte_cnt.get(), 60u);
}

TEST_F(HwRss, FragmentsHashOnAddressesOnly)
{
	frames::Bytes f = flow_frame(kIpv4[1], false, 6);
	frames::put16(f, 14 + 6, 0x2000);	/* MF */
	frames::fill_reference_csums(f);
	prm::Cqe64 c = send_one(kFields4, f);
	EXPECT_EQ(c.rss_hash_result.get(), kIpv4[1].hash_l3);
	EXPECT_EQ(c.l4_type(), prm::kCqeL4None);
	EXPECT_EQ(c.hds_ip_ext & prm::kCqeL4Ok, 0);
}

/*
 * Per traffic type fields (ethtool rx-flow-hash): a type with its own byte
 * hashes those fields, the others rx_hash_fields; MODIFY changes them in
 * place; unknown bits in a type's byte are refused.
 */
TEST_F(HwRss, TypeFieldsOverrideTheCommonFields)
{
	Link l;
	l.setup(fn0, fn1, 6, 6, 8, kFields4);
	auto one = [&](const frames::Bytes &f) {
		l.send(f);
		auto rx = l.rxcq.poll_all();
		EXPECT_EQ(rx.size(), 1u);
		return rx.empty() ? prm::Cqe64{} : rx[0];
	};
	uint8_t tf[prm::kRssTypes] = {};
	tf[prm::kRssUdp4] = prm::kRssTypeOwn | kFields2;	/* udp4: addresses only */
	tf[prm::kRssTcp6] = prm::kRssTypeOwn;			/* tcp6: nothing */
	tf[prm::kRssIp4] = prm::kRssTypeOwn | prm::kRssFieldDstIp;
	ASSERT_EQ(rss_cmd(fn1, prm::kCmdModifyRss, l.rss, { l.rq.rqn }, kFields4, kMsKey, nullptr,
			  -1, tf),
		  prm::kStatOk);
	for (const Vector &v : kIpv4) {
		prm::Cqe64 c = one(flow_frame(v, false, 17));
		EXPECT_EQ(c.rss_hash_result.get(), v.hash_l3) << v.src;
		EXPECT_EQ(c.rss_hash_type, prm::kRssHashIpv4);
		c = one(flow_frame(v, false, 6));	/* tcp4: the common 4-tuple */
		EXPECT_EQ(c.rss_hash_result.get(), v.hash_l4) << v.src;
		EXPECT_EQ(c.rss_hash_type, prm::kRssHashIpv4 | prm::kRssHashTcp);
		c = one(flow_frame(v, false, 1));	/* other ipv4: the destination alone */
		EXPECT_EQ(c.rss_hash_result.get(), ref_toeplitz(kMsKey, frames::ip_bytes(v.dst)))
			<< v.src;
	}
	for (const Vector &v : kIpv6) {
		prm::Cqe64 c = one(flow_frame(v, true, 6));
		EXPECT_EQ(c.rss_hash_result.get(), 0u) << v.src;
		EXPECT_EQ(c.rss_hash_type, 0);
		c = one(flow_frame(v, true, 17));	/* udp6: the common 4-tuple */
		EXPECT_EQ(c.rss_hash_result.get(), v.hash_l4) << v.src;
	}
	tf[prm::kRssUdp6] = prm::kRssTypeOwn | 0x10;
	EXPECT_EQ(rss_cmd(fn1, prm::kCmdModifyRss, l.rss, { l.rq.rqn }, kFields4, kMsKey, nullptr, -1,
			  tf),
		  prm::kStatBadParam);
	/* the refused command changed nothing */
	prm::Cqe64 c = one(flow_frame(kIpv4[0], false, 17));
	EXPECT_EQ(c.rss_hash_result.get(), kIpv4[0].hash_l3);
}

/* 4 RQs behind an 8-entry table: each flow lands on table[hash & 7]. */
TEST_F(HwRss, IndirectionTableSelectsTheRq)
{
	Cq txcq;
	Sq sq;
	ASSERT_EQ(txcq.create(fn0, 10, 0), prm::kStatOk);
	ASSERT_EQ(sq.create(fn0, txcq.cqn, 10), prm::kStatOk);
	ASSERT_EQ(sq.modify(prm::kQueueRst, prm::kQueueRdy), prm::kStatOk);
	Cq cq[4];
	Rq rq[4];
	for (int i = 0; i < 4; i++) {
		ASSERT_EQ(cq[i].create(fn1, 8, (uint32_t)i), prm::kStatOk);
		ASSERT_EQ(rq[i].create(fn1, cq[i].cqn, 8, 256), prm::kStatOk);
		ASSERT_EQ(rq[i].modify(prm::kQueueRst, prm::kQueueRdy), prm::kStatOk);
		rq[i].post(256);
	}
	const int table_ix[8] = { 2, 0, 3, 1, 1, 2, 0, 3 };
	std::vector<uint32_t> table;
	for (int t : table_ix)
		table.push_back(rq[t].rqn);
	uint8_t key[40];
	for (int i = 0; i < 40; i++)
		key[i] = (uint8_t)(i * 37 + 11);
	uint32_t rss;
	ASSERT_EQ(rss_cmd(fn1, prm::kCmdCreateRss, 0, table, kFields4, key, &rss), prm::kStatOk);

	int expect_count[4] = {};
	for (int i = 0; i < 200; i++) {
		frames::Spec s;
		s.proto = i % 2 ? 17 : 6;
		s.src = "192.168.1." + std::to_string(i % 250);
		s.sport = (uint16_t)(1000 + i * 7);
		s.payload = frames::payload(20);
		frames::Bytes f = frames::build(s);

		frames::Bytes in = frames::ip_bytes(s.src), d = frames::ip_bytes(s.dst);
		in.insert(in.end(), d.begin(), d.end());
		in.insert(in.end(), { (uint8_t)(s.sport >> 8), (uint8_t)s.sport, (uint8_t)(s.dport >> 8),
				      (uint8_t)s.dport });
		uint32_t h = ref_toeplitz(key, in);
		int want = table_ix[h & 7];
		expect_count[want]++;

		sq.send_inline(f);
		prm::Cqe64 c;
		ASSERT_TRUE(cq[want].poll(&c)) << "flow " << i << " not on RQ " << want;
		EXPECT_EQ(c.rss_hash_result.get(), h);
	}
	for (int i = 0; i < 4; i++) {
		EXPECT_EQ(cq[i].poll_all().size(), 0u);
		EXPECT_GT(expect_count[i], 10) << "the key should spread flows over every RQ";
	}
}

/*
 * kRssInner: GRE (carrying IPv4, IPv6 or Ethernet) and IP-in-IP frames
 * hash by their inner addresses and ports, with the inner packet's type,
 * as mlx5's inner TTC; the same frames without the flag (MODIFY_RSS drops
 * it) hash their outer addresses alone; a UDP tunnel keeps its outer hash
 * either way.
 */
TEST_F(HwRss, InnerHashOfIpTunnels)
{
	Link l;
	l.setup(fn0, fn1);
	uint32_t rss;
	ASSERT_EQ(rss_cmd(fn1, prm::kCmdCreateRss, 0, { l.rq.rqn }, kFields4, kMsKey, &rss, -1,
			  nullptr, prm::kRssInner),
		  prm::kStatOk);
	auto cqe_of = [&](const frames::Bytes &f) {
		l.send(f);
		auto rx = l.rxcq.poll_all();
		EXPECT_EQ(rx.size(), 1u);
		return rx.empty() ? prm::Cqe64{} : rx[0];
	};
	const uint8_t tcp4 = prm::kRssHashIpv4 | prm::kRssHashTcp;
	const uint8_t udp6 = prm::kRssHashIpv6 | prm::kRssHashUdp;
	/* the outer headers: frames::gre()'s 10.0.0.1 -> 10.0.0.2 */
	const uint32_t outer = ref_toeplitz(kMsKey, { 10, 0, 0, 1, 10, 0, 0, 2 });
	for (const Vector &v : kIpv4) {
		const frames::Bytes in = flow_frame(v, false, 6);
		for (const frames::Bytes &f : { frames::gre(in, 0x0800), frames::gre(in, 0x6558, frames::kGreKey),
						frames::ipip(in) }) {
			prm::Cqe64 c = cqe_of(f);
			EXPECT_EQ(c.rss_hash_result.get(), v.hash_l4) << v.src;
			EXPECT_EQ(c.rss_hash_type, tcp4) << v.src;
		}
	}
	for (const Vector &v : kIpv6) {
		prm::Cqe64 c = cqe_of(frames::gre(flow_frame(v, true, 17), 0x86dd));
		EXPECT_EQ(c.rss_hash_result.get(), v.hash_l4) << v.src;
		EXPECT_EQ(c.rss_hash_type, udp6) << v.src;
	}
	prm::Cqe64 c = cqe_of(frames::vxlan(flow_frame(kIpv4[0], false, 6)));
	EXPECT_EQ(c.rss_hash_type, prm::kRssHashIpv4 | prm::kRssHashUdp) << "VXLAN: the outer hash";
	/* GRE the device does not parse: the outer hash */
	c = cqe_of(frames::gre(flow_frame(kIpv4[0], false, 6), 0x0800, 0x4000));
	EXPECT_EQ(c.rss_hash_result.get(), outer);
	EXPECT_EQ(c.rss_hash_type, prm::kRssHashIpv4);

	ASSERT_EQ(rss_cmd(fn1, prm::kCmdModifyRss, rss, { l.rq.rqn }, kFields4, kMsKey, nullptr),
		  prm::kStatOk);
	c = cqe_of(frames::gre(flow_frame(kIpv4[1], false, 6), 0x0800));
	EXPECT_EQ(c.rss_hash_result.get(), outer) << "without kRssInner";
	EXPECT_EQ(c.rss_hash_type, prm::kRssHashIpv4);
	ASSERT_EQ(destroy(fn1, prm::kCmdDestroyRss, rss), prm::kStatOk);
}

/* The newest RSS object steers; MODIFY redirects in place; destroying it falls back. */
TEST_F(HwRss, NewestObjectSteersAndModifyRedirects)
{
	Link l;
	l.setup(fn0, fn1);
	Cq cq2;
	Rq rq2;
	second_rq(&cq2, &rq2);
	frames::Bytes f = flow_frame(kIpv4[0], false, 6);

	l.send(f);
	EXPECT_EQ(l.rxcq.poll_all().size(), 1u);
	uint32_t rss2;
	ASSERT_EQ(rss_cmd(fn1, prm::kCmdCreateRss, 0, { rq2.rqn }, kFields4, kMsKey, &rss2),
		  prm::kStatOk);
	l.send(f);
	EXPECT_EQ(cq2.poll_all().size(), 1u) << "the new object took over";
	EXPECT_EQ(l.rxcq.poll_all().size(), 0u);

	ASSERT_EQ(rss_cmd(fn1, prm::kCmdModifyRss, rss2, { l.rq.rqn }, kFields4, kMsKey, nullptr),
		  prm::kStatOk);
	l.send(f);
	EXPECT_EQ(l.rxcq.poll_all().size(), 1u) << "modify redirected";

	ASSERT_EQ(rss_cmd(fn1, prm::kCmdModifyRss, l.rss, { rq2.rqn }, kFields4, kMsKey, nullptr),
		  prm::kStatOk);
	ASSERT_EQ(destroy(fn1, prm::kCmdDestroyRss, rss2), prm::kStatOk);
	l.send(f);
	EXPECT_EQ(cq2.poll_all().size(), 1u) << "back to the older object";

	/* an RQ destroyed under the table: its packets are if_down drops */
	ASSERT_EQ(rq2.destroy(), prm::kStatOk);
	l.send(f);
	EXPECT_EQ(query_q(fn1).rx_if_down_packets.get(), 1u);
	/* a new RQ in the same slot is not reached through the stale entry */
	Rq rq3;
	ASSERT_EQ(rq3.create(fn1, cq2.cqn, 6, 9216), prm::kStatOk);
	ASSERT_EQ(rq3.modify(prm::kQueueRst, prm::kQueueRdy), prm::kStatOk);
	rq3.post(64);
	l.send(f);
	EXPECT_EQ(cq2.poll_all().size(), 0u);
	EXPECT_EQ(query_q(fn1).rx_if_down_packets.get(), 2u);
}

/*
 * The RX engine keeps the last RSS answer per sending SQ (RssCache). From
 * one SQ: flows that differ in one port, an address, the protocol or the
 * IP version, in turns, each get their own hash; the same flow again after
 * MODIFY_RSS (fields, then the table) gets the object's new answer, not
 * the cached one. Every hash against the bit-serial reference.
 */
TEST_F(HwRss, CachedAnswersFollowFlowsAndCommands)
{
	Link l;
	l.setup(fn0, fn1, 6, 6, 8, kFields4);
	Cq cq2;
	Rq rq2;
	second_rq(&cq2, &rq2);
	auto hash_of = [&](const frames::Bytes &f, Cq *cq) {
		l.send(f);
		auto rx = cq->poll_all();
		EXPECT_EQ(rx.size(), 1u);
		return rx.empty() ? 0u : rx[0].rss_hash_result.get();
	};
	Vector a = kIpv4[0], b = a, c = a;
	b.sport++;				/* one port apart */
	c.dst = kIpv4[1].dst;			/* one address apart */
	const Vector &a6 = kIpv6[0];
	for (int round = 0; round < 3; round++) {
		SCOPED_TRACE(round);
		EXPECT_EQ(hash_of(flow_frame(a, false, 6), &l.rxcq), a.hash_l4);
		EXPECT_EQ(hash_of(flow_frame(a, false, 6), &l.rxcq), a.hash_l4);
		EXPECT_EQ(hash_of(flow_frame(b, false, 6), &l.rxcq),
			  ref_toeplitz(kMsKey, tuple_of(b, true)));
		EXPECT_EQ(hash_of(flow_frame(c, false, 6), &l.rxcq),
			  ref_toeplitz(kMsKey, tuple_of(c, true)));
		EXPECT_EQ(hash_of(flow_frame(a6, true, 6), &l.rxcq), a6.hash_l4);
		EXPECT_EQ(hash_of(flow_frame(a, false, 17), &l.rxcq), a.hash_l4);
	}
	/* the protocol is part of the answer: TCP then UDP of one tuple, types apart */
	l.send(flow_frame(a, false, 6));
	l.send(flow_frame(a, false, 17));
	auto rx = l.rxcq.poll_all();
	ASSERT_EQ(rx.size(), 2u);
	EXPECT_EQ(rx[0].rss_hash_type, prm::kRssHashIpv4 | prm::kRssHashTcp);
	EXPECT_EQ(rx[1].rss_hash_type, prm::kRssHashIpv4 | prm::kRssHashUdp);

	/* MODIFY_RSS of the fields: the same flow now hashes on its addresses only */
	ASSERT_EQ(rss_cmd(fn1, prm::kCmdModifyRss, l.rss, { l.rq.rqn }, kFields2, kMsKey, nullptr),
		  prm::kStatOk);
	EXPECT_EQ(hash_of(flow_frame(a, false, 6), &l.rxcq), a.hash_l3);
	EXPECT_EQ(hash_of(flow_frame(a, false, 6), &l.rxcq), a.hash_l3);
	/* MODIFY_RSS of the table: the same flow goes to the other RQ */
	ASSERT_EQ(rss_cmd(fn1, prm::kCmdModifyRss, l.rss, { rq2.rqn }, kFields2, kMsKey, nullptr),
		  prm::kStatOk);
	EXPECT_EQ(hash_of(flow_frame(a, false, 6), &cq2), a.hash_l3);
	EXPECT_EQ(l.rxcq.poll_all().size(), 0u);
	ASSERT_EQ(rss_cmd(fn1, prm::kCmdModifyRss, l.rss, { l.rq.rqn }, kFields4, kMsKey, nullptr),
		  prm::kStatOk);
	EXPECT_EQ(hash_of(flow_frame(a, false, 6), &l.rxcq), a.hash_l4);
	EXPECT_EQ(cq2.poll_all().size(), 0u);
}

/* A new key through MODIFY_RSS rebuilds the table; a reused slot starts from its old key. */
TEST_F(HwRss, KeyChangesRebuildTheTable)
{
	const Vector &v = kIpv4[2];
	frames::Bytes f = flow_frame(v, false, 6);
	frames::Bytes in = tuple_of(v, true);
	uint8_t key2[prm::kRssKeySize], key3[prm::kRssKeySize];
	for (uint32_t i = 0; i < sizeof(key2); i++) {
		key2[i] = (uint8_t)(i * 91 + 5);
		key3[i] = (uint8_t)~kMsKey[i];
	}

	Link l;
	l.setup(fn0, fn1);
	auto hash_of_send = [&]() {
		l.send(f);
		auto rx = l.rxcq.poll_all();
		EXPECT_EQ(rx.size(), 1u);
		return rx.empty() ? 0u : rx[0].rss_hash_result.get();
	};
	EXPECT_EQ(hash_of_send(), v.hash_l4);
	ASSERT_EQ(rss_cmd(fn1, prm::kCmdModifyRss, l.rss, { l.rq.rqn }, kFields4, key2, nullptr),
		  prm::kStatOk);
	EXPECT_EQ(hash_of_send(), ref_toeplitz(key2, in));
	/* the table only: same key, same hash */
	ASSERT_EQ(rss_cmd(fn1, prm::kCmdModifyRss, l.rss, { l.rq.rqn, l.rq.rqn }, kFields4, key2,
			  nullptr),
		  prm::kStatOk);
	EXPECT_EQ(hash_of_send(), ref_toeplitz(key2, in));

	/* destroy and create again: the same slot, its table rebuilt for each key */
	ASSERT_EQ(destroy(fn1, prm::kCmdDestroyRss, l.rss), prm::kStatOk);
	uint32_t rss;
	ASSERT_EQ(rss_cmd(fn1, prm::kCmdCreateRss, 0, { l.rq.rqn }, kFields4, key3, &rss),
		  prm::kStatOk);
	EXPECT_EQ(hash_of_send(), ref_toeplitz(key3, in));
	ASSERT_EQ(destroy(fn1, prm::kCmdDestroyRss, rss), prm::kStatOk);
	ASSERT_EQ(rss_cmd(fn1, prm::kCmdCreateRss, 0, { l.rq.rqn }, kFields4, key3, &rss),
		  prm::kStatOk);
	EXPECT_EQ(hash_of_send(), ref_toeplitz(key3, in));
	ASSERT_EQ(rss_cmd(fn1, prm::kCmdModifyRss, rss, { l.rq.rqn }, kFields4, kMsKey, nullptr),
		  prm::kStatOk);
	EXPECT_EQ(hash_of_send(), v.hash_l4);
	l.rss = rss;	/* for the Link's teardown */
}

} /* namespace */
