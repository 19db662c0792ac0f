// SPDX-License-Identifier: GPL-2.0
/* Driver core + device model end to end: TX -> wire -> RX, completions, counters. */
#include <cstring>
#include <fstream>
#include <set>
#include <sstream>

#include "en_pair.h"
#include "prm/counter_list.h"
#include "softcx/errno.h"

using namespace enpair;
using frames::Bytes;

namespace {

void expect_same(const Bytes &sent, const host::RxRecord &got)
{
	ASSERT_EQ(got.data.size(), sent.size());
	EXPECT_EQ(0, memcmp(got.data.data(), sent.data(), sent.size()));
}

} /* namespace */

TEST_F(Pair, FrameCrossesIntactAndCompletes)
{
	Bytes f = udp_frame(200);

	ASSERT_EQ(send(0, f), 0);
	EXPECT_EQ(poll(1), 1);
	ASSERT_EQ(rx(1).size(), 1u);
	expect_same(f, rx(1)[0]);
	expect_complete(rx(1)[0]);	/* an IP frame over 64 bytes: the CQE's sum, as mlx5 */
	EXPECT_EQ(rx(1)[0].meta.hash_type, SCX_HASH_L4);

	/* the sender's completion releases the skb and its mapping */
	EXPECT_EQ(host::dma_tx_mappings(), 1u);
	poll(0);
	EXPECT_EQ(host::tx_freed(&p[0].os_ch[0]).size(), 1u);
	EXPECT_EQ(host::dma_tx_mappings(), 0u);
	EXPECT_EQ(tx_done_packets[0], 1u);
	EXPECT_EQ(stat(0, "tx_packets"), 1u);
	EXPECT_EQ(stat(0, "tx_bytes"), f.size());
	EXPECT_EQ(stat(1, "rx_packets"), 1u);
	EXPECT_EQ(stat(1, "rx_bytes"), f.size());
	EXPECT_EQ(stat(1, "rx0_packets"), 1u);
	EXPECT_EQ(stat(1, "rx_csum_complete"), 1u);
	EXPECT_EQ(stat(1, "rx_csum_unnecessary"), 0u);
}

TEST_F(Pair, DoorbellBatchingOneCqePerDoorbell)
{
	std::vector<Bytes> sent;

	for (int i = 0; i < 10; i++) {
		sent.push_back(udp_frame(64 + i, 1000, (uint8_t)i));
		ASSERT_EQ(post(0, sent.back()), 0);
	}
	poll(1);
	EXPECT_EQ(rx(1).size(), 0u) << "nothing may leave before the doorbell";
	doorbell(0);
	poll(1);
	ASSERT_EQ(rx(1).size(), 10u);
	for (int i = 0; i < 10; i++)
		expect_same(sent[i], rx(1)[i]);
	poll(0);
	EXPECT_EQ(stat(0, "tx_cqes"), 1u);
	EXPECT_EQ(stat(0, "tx_xmit_more"), 9u);
	EXPECT_EQ(stat(0, "tx_doorbells"), 1u);
	EXPECT_EQ(host::tx_freed(&p[0].os_ch[0]).size(), 10u);
}

/* Small rings, many laps: WQ counters and CQE ownership wrap many times. */
TEST_F(Pair, CountersWrapAndOwnershipLaps)
{
	Options o;
	o.log_sq = 6;	/* 64 WQEBBs */
	o.log_rq = 3;	/* 8 buffers, CQ of 8 */
	build(o);
	for (int i = 0; i < 70000; i++) {	/* > 65536: the u16 counters wrap */
		Bytes f = udp_frame(20 + i % 50, 1000, (uint8_t)i);
		/* multi-fragment every few packets so WQE sizes vary and NOP padding occurs */
		std::vector<size_t> cuts;
		if (i % 4 == 0)
			cuts = {30, 40, 50};	/* 6 DS: 2 WQEBBs; 5 WQEBBs per 4 packets hits the edge */
		ASSERT_GE(post(0, f, 0, 0, cuts), 0) << i;
		doorbell(0);
		poll(1);
		ASSERT_EQ(rx(1).size(), 1u) << i;
		expect_same(f, rx(1)[0]);
		host::reset();
		poll(0);
		if (i % 1000 == 999) {
			for (auto *b : tx_bufs)
				delete b;
			tx_bufs.clear();
		}
	}
	EXPECT_GT(stat(0, "tx_nop"), 0u);
	EXPECT_EQ(stat(0, "tx_packets"), 70000u);
	EXPECT_EQ(stat(1, "rx_packets"), 70000u);
	EXPECT_EQ(stat(1, "rx_out_of_buffer"), 0u);
}

TEST_F(Pair, OutOfBufferDropsAreCounted)
{
	/* RQ of 16: without polling the receiver, the 17th frame finds no buffer */
	for (int i = 0; i < 20; i++)
		ASSERT_EQ(send(0, udp_frame(100, 1000, (uint8_t)i)), 0);
	EXPECT_EQ(stat(1, "rx_out_of_buffer"), 4u);
	poll(1);
	EXPECT_EQ(rx(1).size(), 16u);
	EXPECT_EQ(stat(1, "rx_packets"), 16u);
	/* refilled: traffic flows again */
	ASSERT_EQ(send(0, udp_frame(100)), 0);
	poll(1);
	EXPECT_EQ(rx(1).size(), 17u);
}

TEST_F(Pair, ChecksumOffloadFillsChecksums)
{
	for (bool v6 : {false, true}) {
		for (uint8_t proto : {6, 17}) {
			host::reset();
			frames::Spec s;
			s.v6 = v6;
			s.proto = proto;
			if (v6) {
				s.src = "fd00::1";
				s.dst = "fd00::2";
			}
			s.payload = frames::payload(333);
			s.good_csums = false;
			Bytes f = frames::build(s);
			Bytes ref = f;
			frames::fill_reference_csums(ref);

			ASSERT_EQ(send(0, f, 0, SCX_TX_CSUM_L3 | SCX_TX_CSUM_L4), 0);
			poll(1);
			ASSERT_EQ(rx(1).size(), 1u);
			expect_same(ref, rx(1)[0]);
			expect_complete(rx(1)[0]);
			/* the sum of a segment with a right checksum and its pseudo header: all ones */
			poll(0);
		}
	}
	EXPECT_EQ(stat(0, "tx_csum_partial"), 4u);
}

TEST_F(Pair, BadChecksumWithoutOffloadIsNotTrusted)
{
	frames::Spec s;
	s.proto = 17;
	s.payload = frames::payload(100);
	s.good_csums = false;
	Bytes f = frames::build(s);
	frames::put16(f, frames::l4_off(f) + 6, 0x1234);	/* wrong, non-zero */

	ASSERT_EQ(send(0, f), 0);
	poll(1);
	ASSERT_EQ(rx(1).size(), 1u);
	expect_same(f, rx(1)[0]);
	/* the sum as it is: the stack's check of it finds the bad checksum */
	expect_complete(rx(1)[0]);
	EXPECT_EQ(stat(1, "rx_csum_complete"), 1u);
	EXPECT_EQ(stat(0, "tx_csum_none"), 1u);

	/* rx_no_csum_complete: the CQE's verdict, which is no verdict */
	scx_port_set_rx_no_csum_complete(p[1].port, 1);
	ASSERT_EQ(send(0, f), 0);
	poll(1);
	ASSERT_EQ(rx(1).size(), 2u);
	EXPECT_EQ(rx(1)[1].meta.csum, SCX_CSUM_NONE);
	EXPECT_EQ(stat(1, "rx_csum_none"), 1u);
	EXPECT_EQ(stat(1, "rx_csum_unnecessary"), 0u);
}

/* The RX checksum verdicts scx1 hands up, a frame from scx0 at a time (Pair::cross). */
class RxCsum : public Pair {};

/*
 * Which packets get the CQE's sum (CHECKSUM_COMPLETE), as mlx5e_handle_csum
 * decides: IP frames over 64 bytes whatever follows the IP header (no
 * TCP/UDP, padding after the IP packet: counted in the sum); 64 bytes or
 * fewer: the verdict; not IP: nothing. rx_no_csum_complete hands the
 * verdict up instead, in place and for sets opened later.
 */
TEST_F(RxCsum, CompleteForIpOver64Bytes)
{
	Bytes b60 = udp_frame(18), b64 = udp_frame(22), b65 = udp_frame(23);
	ASSERT_EQ(b60.size(), 60u);
	ASSERT_EQ(b64.size(), 64u);
	frames::Spec icmp;
	icmp.proto = 1;
	icmp.payload = frames::payload(100);
	Bytes raw = frames::build(icmp);
	frames::Spec s6;
	s6.v6 = true;
	s6.proto = 17;
	s6.src = "fd00::1";
	s6.dst = "fd00::2";
	s6.payload = frames::payload(200);
	Bytes v6 = frames::build(s6);
	Bytes padded = udp_frame(100);
	padded.insert(padded.end(), { 0x11, 0x22, 0x33, 0x44, 0x55 });	/* after the IP packet */
	Bytes other(padded.begin(), padded.begin() + 12);
	other.insert(other.end(), { 0x88, 0xb5 });	/* a local experimental ethertype */
	other.resize(120, 0x5a);

	EXPECT_EQ(cross(b60).meta.csum, SCX_CSUM_UNNECESSARY);
	EXPECT_EQ(cross(b64).meta.csum, SCX_CSUM_UNNECESSARY);
	expect_complete(cross(b65));
	expect_complete(cross(raw));
	expect_complete(cross(v6));
	{
		const host::RxRecord &r = cross(padded);
		EXPECT_EQ(r.data, padded);
		expect_complete(r);	/* the padding's bytes too: the whole skb past the MAC header */
	}
	EXPECT_EQ(cross(other).meta.csum, SCX_CSUM_NONE);
	EXPECT_EQ(stat(1, "rx_csum_complete"), 4u);
	EXPECT_EQ(stat(1, "rx_csum_unnecessary"), 2u);
	EXPECT_EQ(stat(1, "rx_csum_none"), 1u);

	scx_port_set_rx_no_csum_complete(p[1].port, 1);
	EXPECT_EQ(cross(b65).meta.csum, SCX_CSUM_UNNECESSARY);
	EXPECT_EQ(cross(raw).meta.csum, SCX_CSUM_NONE) << "no TCP/UDP: no verdict";
	scx_port_close(p[1].port);
	auto chans = p[1].os_channels();
	scx_port_params prm = params(1500, 1);
	ASSERT_EQ(scx_port_open(p[1].port, &prm, chans.data()), 0);
	EXPECT_EQ(cross(v6).meta.csum, SCX_CSUM_UNNECESSARY) << "kept by a set opened later";
	scx_port_set_rx_no_csum_complete(p[1].port, 0);
	expect_complete(cross(v6));
	EXPECT_EQ(stat(1, "rx_csum_complete"), 5u);
	EXPECT_EQ(stat(1, "rx_csum_unnecessary"), 4u);
	EXPECT_EQ(stat(1, "rx_csum_none"), 2u);
}

/* A TCP frame for a tunnel to carry: 192.168.net.1 -> .2, `len` payload bytes of `seed`. */
static Bytes inner_tcp(int net, size_t len, uint8_t seed)
{
	frames::Spec is;
	is.src = "192.168." + std::to_string(net) + ".1";
	is.dst = "192.168." + std::to_string(net) + ".2";
	is.payload = frames::payload(len, seed);
	return frames::build(is);
}

/* The frame with its last payload byte changed: the TCP checksum no longer right. */
static Bytes bad_l4(Bytes f)
{
	f.back() ^= 0x20;
	return f;
}

/*
 * A VXLAN frame to one of the port's VXLAN ports, when the verdict is
 * handed up (rx_no_csum_complete): CHECKSUM_UNNECESSARY one level deeper
 * (csum_inner: csum_level 1, encapsulated), counted as
 * rx_csum_unnecessary_inner, as mlx5e; a wrong inner checksum: no
 * verdict. The sum is handed up as for any frame; a port outside the
 * table: the plain verdict.
 */
TEST_F(RxCsum, VxlanVerdictCoversTheInnerFrame)
{
	const Bytes inner = inner_tcp(7, 200, 5), bad_inner = bad_l4(inner);

	ASSERT_EQ(scx_port_vxlan_port(p[1].port, 4789, 1), 0);
	scx_port_set_rx_no_csum_complete(p[1].port, 1);
	{
		const host::RxRecord &r = cross(frames::vxlan(inner));
		EXPECT_EQ(r.data, frames::vxlan(inner));
		EXPECT_EQ(r.meta.csum, SCX_CSUM_UNNECESSARY);
		EXPECT_EQ(r.meta.csum_inner, 1);
	}
	EXPECT_EQ(cross(frames::vxlan(bad_inner)).meta.csum, SCX_CSUM_NONE) << "inner TCP checksum wrong";
	EXPECT_EQ(cross(frames::vxlan(bad_inner)).meta.csum_inner, 0);
	EXPECT_EQ(stat(1, "rx_csum_unnecessary_inner"), 1u);
	EXPECT_EQ(stat(1, "rx_csum_unnecessary"), 0u);
	EXPECT_EQ(stat(1, "rx_csum_none"), 2u);

	scx_port_set_rx_no_csum_complete(p[1].port, 0);
	{
		const host::RxRecord &r = cross(frames::vxlan(inner));
		expect_complete(r);
		EXPECT_EQ(r.meta.csum_inner, 0);
	}
	EXPECT_EQ(stat(1, "rx_csum_complete"), 1u);

	scx_port_set_rx_no_csum_complete(p[1].port, 1);
	ASSERT_EQ(scx_port_vxlan_port(p[1].port, 4789, 0), 0);
	{
		const host::RxRecord &r = cross(frames::vxlan(bad_inner));
		EXPECT_EQ(r.meta.csum, SCX_CSUM_UNNECESSARY) << "outer checksums only";
		EXPECT_EQ(r.meta.csum_inner, 0);
	}
	EXPECT_EQ(stat(1, "rx_csum_unnecessary"), 1u);
	EXPECT_EQ(stat(1, "rx_csum_unnecessary_inner"), 1u);
}

/*
 * GRE and IP in IP, whose frames have no outer TCP/UDP header: the
 * device's inner verdict alone makes them CHECKSUM_UNNECESSARY one level
 * deeper when the verdict is handed up (mlx5e_handle_csum looks at L3_OK
 * and L4_OK, not at the L4 type); a wrong inner checksum, or IP in IP on
 * cx4, which does not parse it: no verdict.
 */
TEST_F(RxCsum, IpTunnelVerdictCoversTheInnerFrame)
{
	const Bytes inner = inner_tcp(8, 300, 6), bad_inner = bad_l4(inner);

	scx_port_set_rx_no_csum_complete(p[1].port, 1);
	for (const Bytes &f : { frames::gre(inner, 0x6558), frames::gre(inner, 0x0800, frames::kGreCsum),
				frames::ipip(inner) }) {
		const host::RxRecord &r = cross(f);
		EXPECT_EQ(r.data, f);
		EXPECT_EQ(r.meta.csum, SCX_CSUM_UNNECESSARY);
		EXPECT_EQ(r.meta.csum_inner, 1);
	}
	EXPECT_EQ(cross(frames::gre(bad_inner, 0x0800)).meta.csum, SCX_CSUM_NONE);
	EXPECT_EQ(cross(frames::ipip(bad_inner)).meta.csum, SCX_CSUM_NONE);
	EXPECT_EQ(stat(1, "rx_csum_unnecessary_inner"), 3u);
	EXPECT_EQ(stat(1, "rx_csum_none"), 2u);

	scx_port_set_rx_no_csum_complete(p[1].port, 0);
	expect_complete(cross(frames::gre(inner, 0x0800)));
	EXPECT_EQ(stat(1, "rx_csum_complete"), 1u);
}

/*
 * rx-checksum off (scx_port_set_rx_csum): the verdict of a good CQE is not
 * handed over, the packets count as rx_csum_none; on a live port, kept by
 * a set opened later, for every RQ type with and without CQE compression.
 */
TEST_F(Pair, RxChecksumOffHandsNoVerdictOver)
{
	struct Case {
		bool striding, compress;
	};
	for (Case c : { Case{ false, false }, Case{ true, false }, Case{ false, true },
			Case{ true, true } }) {
		SCOPED_TRACE(std::string(c.striding ? "striding" : "cyclic") +
			     (c.compress ? " compressed" : ""));
		Options o;
		o.rx_striding = c.striding;
		o.rx_cqe_compress = c.compress;
		build(o);
		auto burst = [&](int n) {
			size_t before = rx(1).size();
			for (int i = 0; i < n; i++)
				ASSERT_EQ(post(0, udp_frame(100, (uint16_t)(1000 + i))), 0);
			doorbell(0);
			poll(1);
			poll(0);
			ASSERT_EQ(rx(1).size(), before + n);
		};
		burst(4);
		scx_port_set_rx_csum(p[1].port, 0);
		burst(8);
		for (size_t i = 0; i < 4; i++)
			expect_complete(rx(1)[i]);
		for (size_t i = 4; i < 12; i++)
			EXPECT_EQ(rx(1)[i].meta.csum, SCX_CSUM_NONE) << i;
		EXPECT_EQ(stat(1, "rx_csum_complete"), 4u);
		EXPECT_EQ(stat(1, "rx_csum_none"), 8u);

		/* a set opened later keeps the setting */
		scx_port_close(p[1].port);
		auto chans = p[1].os_channels();
		scx_port_params prm = params(1500, 1);
		ASSERT_EQ(scx_port_open(p[1].port, &prm, chans.data()), 0);
		burst(2);
		EXPECT_EQ(rx(1).back().meta.csum, SCX_CSUM_NONE);
		EXPECT_EQ(stat(1, "rx_csum_none"), 10u);

		scx_port_set_rx_csum(p[1].port, 1);
		burst(3);
		expect_complete(rx(1).back());
		EXPECT_EQ(stat(1, "rx_csum_complete"), 7u);
		EXPECT_EQ(stat(1, "rx_csum_none"), 10u);
		EXPECT_EQ(stat(1, "rx_packets"), 17u);
	}
}

TEST_F(Pair, Cx4InlinesL2HeadersAndFramesStayIntact)
{
	Options o;
	o.model = 4;
	build(o);
	scx_port_caps caps;
	scx_port_get_caps(p[0].port, &caps);
	EXPECT_EQ(caps.min_inline, 18u);

	std::vector<Bytes> sent;
	sent.push_back(udp_frame(300));
	ASSERT_EQ(post(0, sent.back(), 0, 0, {14, 100}), 0);	/* head shorter than the inline size */
	sent.push_back(udp_frame(300, 1001));
	ASSERT_EQ(post(0, sent.back(), 0, 0, {18}), 0);	/* head exactly inlined */
	sent.push_back(udp_frame(5, 1002));
	ASSERT_EQ(post(0, sent.back()), 0);
	doorbell(0);
	poll(1);
	ASSERT_EQ(rx(1).size(), sent.size());
	for (size_t i = 0; i < sent.size(); i++)
		expect_same(sent[i], rx(1)[i]);
	poll(0);
	EXPECT_EQ(host::dma_tx_mappings(), 0u);
}

TEST_F(Pair, JumboFramesNeedAJumboReceiver)
{
	Options o;
	o.mtu = 9000;
	build(o);
	Bytes big = udp_frame(8900);
	ASSERT_EQ(send(0, big), 0);
	poll(1);
	ASSERT_EQ(rx(1).size(), 1u);
	expect_same(big, rx(1)[0]);
	poll(0);

	/* receiver back at 1500: the device cannot place the frame and says so */
	scx_port_close(p[1].port);
	auto chans = p[1].os_channels();
	scx_port_params prm = params(1500);
	ASSERT_EQ(scx_port_open(p[1].port, &prm, chans.data()), 0);
	ASSERT_EQ(send(0, big), 0);
	poll(1);
	EXPECT_EQ(rx(1).size(), 1u);
	EXPECT_EQ(stat(1, "rx_oversize_pkts_buffer"), 1u);
	poll(0);
}

/*
 * mlx5's largest MTU, 9978 (a hardware MTU of 10000): the longest frame
 * the port carries arrives intact on every RQ kind (cyclic fragments,
 * striding, SHAMPO), one byte more is refused by the sender.
 */
TEST_F(Pair, MaxMtuFrameOnEveryRqKind)
{
	struct {
		const char *what;
		bool striding, hw_gro;
	} kinds[] = { { "cyclic", false, false }, { "striding", true, false }, { "shampo", true, true } };

	for (const auto &k : kinds) {
		SCOPED_TRACE(k.what);
		Options o;
		o.mtu = 9978;
		o.rx_striding = k.striding;
		o.rx_hw_gro = k.hw_gro;
		build(o);
		Bytes big = udp_frame(10000 - 42, 1000, 0x5a);
		ASSERT_EQ(big.size(), 10000u);
		const size_t before = rx(1).size();	/* the records outlive a rebuild */
		ASSERT_EQ(send(0, big), 0);
		poll(1);
		ASSERT_EQ(rx(1).size(), before + 1);
		expect_same(big, rx(1).back());
		EXPECT_EQ(stat(1, "rx_packets"), 1u);
		EXPECT_EQ(stat(1, "rx_oversize_pkts_buffer"), 0u);
		EXPECT_EQ(send(0, udp_frame(10000 - 42 + 1)), -SCX_EMSGSIZE);
		poll(0);
	}
}

/*
 * The cyclic RQ's fragments (mlx5's legacy RQ layout): at MTU 9000 a WQE
 * is three 2 KiB fragments and a 4 KiB one, and a frame's skb holds only
 * those it filled; the rest go back to the pool from NAPI. Before, every
 * frame held a 16 KiB buffer, and a 64 KiB GRO packet of small frames
 * outgrew a socket's default receive buffer.
 */
TEST_F(Pair, CyclicJumboFrameHoldsOnlyTheFragmentsItFills)
{
	Options o;
	o.mtu = 9000;
	build(o);
	/* frame bytes, then the truesize its fragments make */
	const std::pair<uint32_t, uint32_t> rows[] = {
		{ 60, 2048 }, { 2048, 2048 }, { 2049, 4096 }, { 6144, 6144 },
		{ 6145, 10240 }, { 9014, 10240 },
	};
	std::vector<Bytes> sent;
	uint64_t unused = 0;

	for (const auto &r : rows) {
		sent.push_back(udp_frame(r.first - 42, 1000, (uint8_t)sent.size()));
		ASSERT_EQ(sent.back().size(), r.first);
		ASSERT_EQ(send(0, sent.back()), 0);
		unused += 4 - (r.second == 10240 ? 4 : r.second / 2048);
	}
	uint64_t napi0 = host::rx_recycled(true), other0 = host::rx_recycled(false);
	EXPECT_EQ(poll(1), (int)sent.size());
	ASSERT_EQ(rx(1).size(), sent.size());
	for (size_t i = 0; i < sent.size(); i++) {
		expect_same(sent[i], rx(1)[i]);
		EXPECT_EQ(rx(1)[i].truesize, rows[i].second) << sent[i].size() << "-byte frame";
	}
	EXPECT_EQ(host::rx_recycled(true) - napi0, unused) << "unfilled fragments go back from NAPI";
	EXPECT_EQ(host::rx_recycled(false), other0);
	EXPECT_EQ(stat(1, "rx_packets"), sent.size());
	poll(0);
}

/*
 * A non-linear cyclic refill whose pages run out part-way through a WQE.
 * At MTU 6000 a WQE takes three 2 KiB fragments, two a page, carved across
 * WQEs: after a refill of 9 WQEs (27 fragments) the carving page has one
 * left, so the next refill's first WQE takes it and then finds no page.
 * That WQE is not posted, the fragment it took goes back (outside NAPI's
 * recycling), the failure is counted; once pages come again frames arrive
 * intact, and the pool has none out at teardown.
 */
TEST_F(Pair, CyclicPartWqeGivesItsFragmentsBack)
{
	Options o;
	o.mtu = 6000;
	build(o);
	std::vector<Bytes> sent;
	auto burst = [&](int n) {
		for (int i = 0; i < n; i++) {
			sent.push_back(udp_frame(6014 - 42, 1000, (uint8_t)sent.size()));
			ASSERT_EQ(send(0, sent.back()), 0);
		}
	};
	burst(9);
	poll(1);	/* refills 9 WQEs: one fragment left on the carving page */
	host::rx_fail_next_allocs(1000);
	burst(9);
	const uint64_t back0 = host::rx_recycled(false);
	scx_tx_done done = {};
	EXPECT_EQ(scx_channel_poll(ch(1), 64, &done), 64) << "short of buffers: stays scheduled";
	EXPECT_EQ(stat(1, "rx_buff_alloc_err"), 1u);
	EXPECT_EQ(host::rx_recycled(false) - back0, 1u) << "the part-filled WQE's fragment";
	host::rx_fail_next_allocs(0);
	poll(1);
	for (int i = 0; i < 8; i++) {
		burst(1);
		poll(1);
	}
	ASSERT_EQ(rx(1).size(), sent.size());
	for (size_t i = 0; i < sent.size(); i++)
		expect_same(sent[i], rx(1)[i]);
	EXPECT_EQ(stat(1, "rx_out_of_buffer"), 0u);
	poll(0);
}

/* Below a page the cyclic RQ is linear: 2 KiB strides at MTU 1500, two frames a page. */
TEST_F(Pair, CyclicLinearFramesShareAPage)
{
	std::vector<Bytes> sent;

	for (int i = 0; i < 8; i++) {
		sent.push_back(udp_frame(1458, 1000, (uint8_t)i));	/* 1500-byte IP packet */
		ASSERT_EQ(send(0, sent.back()), 0);
	}
	EXPECT_EQ(poll(1), 8);
	ASSERT_EQ(rx(1).size(), 8u);
	for (size_t i = 0; i < sent.size(); i++) {
		const host::RxRecord &r = rx(1)[i];

		expect_same(sent[i], r);
		EXPECT_EQ(r.truesize, 2048u);
		EXPECT_EQ(r.meta.buf_off, i % 2 ? 2048u : 0u);
		if (i % 2) {
			EXPECT_EQ(r.meta.page, rx(1)[i - 1].meta.page) << "frame " << i;
		} else if (i) {
			EXPECT_NE(r.meta.page, rx(1)[i - 1].meta.page) << "frame " << i;
		}
	}
	poll(0);
}

/*
 * The link through the core: open ports run the fastest protocol (cx7:
 * 400G) with autoneg; a forced speed the peer does not offer takes the
 * link down (frames stop at the sender); bad settings come back with a
 * reason and reach no device command; closing a port takes the link down.
 */
TEST_F(Pair, LinkSettingsThroughTheCore)
{
	scx_link l;
	const char *why = nullptr;

	ASSERT_EQ(scx_port_link_get(p[0].port, &l), 0);
	EXPECT_EQ(l.up, 1);
	EXPECT_EQ(l.admin_up, 1);
	EXPECT_EQ(l.autoneg, 1);
	EXPECT_EQ(l.oper, 1u << SCX_LINK_400GBASE_R4);
	EXPECT_EQ(scx_link_proto_mbps(SCX_LINK_400GBASE_R4), 400000u);
	EXPECT_EQ(l.partner, l.cap);

	EXPECT_EQ(scx_port_link_set(p[0].port, 0, 1, &why), -SCX_EINVAL);
	EXPECT_STREQ(why, "no supported link mode");
	why = nullptr;
	EXPECT_EQ(scx_port_link_set(p[0].port,
				    (1u << SCX_LINK_25GBASE_R) | (1u << SCX_LINK_10GBASE_R), 0, &why),
		  -SCX_EINVAL);
	EXPECT_STREQ(why, "autoneg off needs link modes of one speed");
	EXPECT_EQ(host::errors(), 0);

	ASSERT_EQ(scx_port_link_set(p[1].port, 1u << SCX_LINK_25GBASE_R, 0, &why), 0);
	ASSERT_EQ(scx_port_link_get(p[0].port, &l), 0);
	EXPECT_EQ(l.oper, 1u << SCX_LINK_25GBASE_R) << "negotiated against a forced peer";
	ASSERT_EQ(scx_port_link_set(p[0].port, 1u << SCX_LINK_10GBASE_R, 0, &why), 0);
	ASSERT_EQ(scx_port_link_get(p[0].port, &l), 0);
	EXPECT_EQ(l.up, 0);
	EXPECT_EQ(l.down_reason, SCX_LINK_DOWN_NO_PARTNER_FORCED);
	send_while_down(1);

	ASSERT_EQ(scx_port_link_set(p[0].port, l.cap, 1, &why), 0);
	ASSERT_EQ(scx_port_link_get(p[1].port, &l), 0);
	EXPECT_EQ(l.oper, 1u << SCX_LINK_25GBASE_R);
	ASSERT_EQ(send(0, udp_frame(100)), 0);
	poll(1);
	EXPECT_EQ(rx_total(1), 1u);

	scx_port_close(p[0].port);
	ASSERT_EQ(scx_port_link_get(p[1].port, &l), 0);
	EXPECT_EQ(l.up, 0);
	EXPECT_EQ(l.down_reason, SCX_LINK_DOWN_NO_PARTNER_FORCED);
	ASSERT_EQ(scx_port_link_get(p[0].port, &l), 0);
	EXPECT_EQ(l.admin_up, 0);
	EXPECT_EQ(l.down_reason, SCX_LINK_DOWN_NONE);
}

/*
 * FEC through the core (cx7): RS(544,514) at 400G under auto; one end off
 * takes the link down with the FEC that did not lock at each end, frames
 * stop at the sender; off at both ends still runs RS at 400G (PAM4 lanes
 * run nothing else); a policy no speed runs, or a bit that is no mode,
 * comes back with a reason and reaches no device command.
 */
TEST_F(Pair, FecThroughTheCore)
{
	scx_link l;
	const char *why = nullptr;

	ASSERT_EQ(scx_port_link_get(p[0].port, &l), 0);
	EXPECT_EQ(l.fec_admin, 0);
	EXPECT_EQ(l.fec_oper, SCX_FEC_RS_544);
	EXPECT_EQ(l.fec_cap, SCX_FEC_NONE | SCX_FEC_FIRECODE | SCX_FEC_RS_528 | SCX_FEC_RS_544 |
				     SCX_FEC_LLRS);

	ASSERT_EQ(scx_port_link_set(p[0].port, 1u << SCX_LINK_100GBASE_R4, 0, &why), 0);
	ASSERT_EQ(scx_port_fec_set(p[0].port, SCX_FEC_NONE, &why), 0);
	ASSERT_EQ(scx_port_link_get(p[0].port, &l), 0);
	EXPECT_EQ(l.up, 0);
	EXPECT_EQ(l.fec_admin, SCX_FEC_NONE);
	EXPECT_EQ(l.fec_oper, 0);
	EXPECT_EQ(l.down_reason, SCX_LINK_DOWN_FEC_NONE_NO_LOCK);
	ASSERT_EQ(scx_port_link_get(p[1].port, &l), 0);
	EXPECT_EQ(l.down_reason, SCX_LINK_DOWN_RS_NOT_LOCKED);
	send_while_down(1);

	ASSERT_EQ(scx_port_fec_set(p[1].port, SCX_FEC_NONE, &why), 0);
	ASSERT_EQ(scx_port_link_get(p[1].port, &l), 0);
	EXPECT_EQ(l.oper, 1u << SCX_LINK_100GBASE_R4);
	EXPECT_EQ(l.fec_oper, SCX_FEC_NONE);
	ASSERT_EQ(send(0, udp_frame(100)), 0);
	poll(1);
	EXPECT_EQ(rx_total(1), 1u);
	ASSERT_EQ(scx_port_link_set(p[0].port, l.cap, 1, &why), 0);
	ASSERT_EQ(scx_port_link_get(p[0].port, &l), 0);
	EXPECT_EQ(l.oper, 1u << SCX_LINK_400GBASE_R4);
	EXPECT_EQ(l.fec_oper, SCX_FEC_RS_544) << "400G runs RS whatever the policy";

	EXPECT_EQ(scx_port_fec_set(p[0].port, 1u << 3, &why), -SCX_EINVAL);
	EXPECT_STREQ(why, "not a FEC mode");
	EXPECT_EQ(host::errors(), 0);
	ASSERT_EQ(scx_port_link_get(p[0].port, &l), 0);
	EXPECT_EQ(l.fec_admin, SCX_FEC_NONE) << "nothing changed";
}

/* cx4 runs no PAM4 lanes: LLRS is no mode any of its speeds runs. */
TEST_F(Pair, FecNoSpeedRunsIsNotSupported)
{
	Options o;
	o.model = 4;
	build(o);
	scx_link l;
	const char *why = nullptr;

	ASSERT_EQ(scx_port_link_get(p[0].port, &l), 0);
	EXPECT_EQ(l.fec_cap, SCX_FEC_NONE | SCX_FEC_FIRECODE | SCX_FEC_RS_528);
	EXPECT_EQ(l.fec_oper, SCX_FEC_RS_528);
	EXPECT_EQ(scx_port_fec_set(p[0].port, SCX_FEC_LLRS, &why), -SCX_EOPNOTSUPP);
	EXPECT_STREQ(why, "no speed of the port runs that FEC mode");
	ASSERT_EQ(scx_port_fec_set(p[0].port, SCX_FEC_RS_528 | SCX_FEC_RS_544, &why), 0);
	ASSERT_EQ(scx_port_link_get(p[0].port, &l), 0);
	EXPECT_EQ(l.fec_oper, SCX_FEC_RS_528);
	EXPECT_EQ(l.up, 1);
}

/*
 * ethtool -m: the core reads the module in the device's 32-byte pieces;
 * what the module cannot answer is -EINVAL with the reason, and nothing
 * is asked of the device for a read past the page.
 */
TEST_F(Pair, ModuleMemoryThroughTheCore)
{
	uint8_t page[256] = {}, again[256] = {};
	const char *why = nullptr;

	ASSERT_EQ(scx_port_module_read(p[0].port, SCX_MODULE_I2C_ADDR, 0, 0, 0, 256, page, &why), 256);
	EXPECT_EQ(page[0], 0x1e) << "cx7: a CMIS module";
	EXPECT_EQ(0, memcmp(page + 129, "SOFTCX          ", 16));
	ASSERT_EQ(scx_port_module_read(p[1].port, SCX_MODULE_I2C_ADDR, 0, 0, 0, 256, again, &why), 256);
	EXPECT_EQ(0, memcmp(page, again, 256)) << "the other end of the same cable";
	/* a piece across the 32-byte boundaries and the half page */
	ASSERT_EQ(scx_port_module_read(p[0].port, SCX_MODULE_I2C_ADDR, 0, 0, 100, 60, again, &why), 60);
	EXPECT_EQ(0, memcmp(page + 100, again, 60));

	const struct {
		uint8_t addr, page, bank;
		uint32_t off, len;
		const char *why;
	} bad[] = {
		{ SCX_MODULE_I2C_ADDR, 0, 0, 200, 57, "within the 256 bytes" },
		{ SCX_MODULE_I2C_ADDR, 0, 0, 0, 0, "within the 256 bytes" },
		{ 0x51, 0, 0, 0, 128, "does not answer" },
		{ SCX_MODULE_I2C_ADDR, 3, 0, 128, 128, "page 00h of bank 0 only" },
		{ SCX_MODULE_I2C_ADDR, 0, 1, 128, 128, "page 00h of bank 0 only" },
	};
	for (const auto &b : bad) {
		why = nullptr;
		EXPECT_EQ(scx_port_module_read(p[0].port, b.addr, b.page, b.bank, b.off, b.len, again, &why),
			  -SCX_EINVAL);
		ASSERT_NE(why, nullptr);
		EXPECT_NE(std::string(why).find(b.why), std::string::npos) << why;
	}
}

/*
 * The port's local loopback (the self-test's): a frame to its own address
 * comes back to its own RX, link or no link, unseen by the MAC.
 */
TEST_F(Pair, LocalLoopbackThroughTheCore)
{
	Bytes f = udp_frame(100);
	const uint8_t *own = f.data();	/* the frame's destination: port 0's address */
	const char *why = nullptr;

	ASSERT_EQ(scx_port_set_rx_filter(p[0].port, 0, own, 1, nullptr, 0), 0);
	ASSERT_EQ(scx_port_set_local_lb(p[0].port, 1), 0);
	ASSERT_EQ(send(0, f), 0);
	poll(0);
	poll(1);
	ASSERT_EQ(rx_total(0), 1u);
	EXPECT_EQ(rx(0)[0].data, f) << "back intact";
	EXPECT_EQ(rx_total(1), 0u);
	EXPECT_EQ(stat(0, "tx_packets_phy"), 0u);
	EXPECT_EQ(stat(0, "rx_packets_phy"), 0u);
	EXPECT_EQ(stat(0, "tx_packets"), 1u);
	EXPECT_EQ(stat(0, "rx_packets"), 1u);

	/* the peer forced to another speed: no link, the loopback still runs */
	ASSERT_EQ(scx_port_link_set(p[1].port, 1u << SCX_LINK_25GBASE_R, 0, &why), 0);
	ASSERT_EQ(scx_port_link_set(p[0].port, 1u << SCX_LINK_10GBASE_R, 0, &why), 0);
	ASSERT_EQ(send(0, f), 0);
	poll(0);
	EXPECT_EQ(rx_total(0), 2u);
	EXPECT_EQ(stat(0, "tx_discards_phy"), 0u);

	ASSERT_EQ(scx_port_set_local_lb(p[0].port, 0), 0);
	ASSERT_EQ(send(0, f), 0);
	poll(0);
	EXPECT_EQ(rx_total(0), 2u);
	EXPECT_EQ(stat(0, "tx_discards_phy"), 1u) << "off: to the wire, whose link is down";
}

/*
 * A closed port takes the cable's link down: what its peer sends then
 * stops at the peer's MAC (tx_discards_phy) and still completes.
 */
TEST_F(Pair, PortDownDropsAreCounted)
{
	scx_port_close(p[1].port);
	ASSERT_EQ(send(0, udp_frame(100)), 0);
	EXPECT_EQ(stat(0, "tx_discards_phy"), 1u);
	EXPECT_EQ(stat(0, "tx_packets_phy"), 0u);
	EXPECT_EQ(stat(1, "rx_packets_phy"), 0u);
	EXPECT_EQ(stat(1, "rx_65_to_127_bytes_phy"), 0u);
	EXPECT_EQ(stat(1, "rx_if_down_packets"), 0u);
	poll(0);
	EXPECT_EQ(host::tx_freed(&p[0].os_ch[0]).size(), 1u);
}

/* Link stats run no command: the device's counters as of the last refresh or ethtool -S. */
TEST_F(Pair, LinkStatsReadCachedDeviceCounters)
{
	scx_link_stats ls;

	scx_port_close(p[1].port);
	ASSERT_EQ(send(0, udp_frame(100)), 0);	/* tx_discards_phy: the link is down */
	scx_stats_link(p[0].port, &ls);
	EXPECT_EQ(ls.tx_aborted_errors, 0u) << "the cache predates the drop";
	scx_stats_refresh(p[0].port);
	scx_stats_link(p[0].port, &ls);
	EXPECT_EQ(ls.tx_aborted_errors, 1u);
	ASSERT_EQ(send(0, udp_frame(100)), 0);
	EXPECT_EQ(stat(0, "tx_discards_phy"), 2u);
	scx_stats_link(p[0].port, &ls);
	EXPECT_EQ(ls.tx_aborted_errors, 2u)
		<< "ethtool -S queried the device and updated the cache";
	poll(0);
}

TEST_F(Pair, RssSpreadsFlowsOverChannels)
{
	Options o;
	o.nch = 4;
	build(o);
	for (uint16_t sport = 1000; sport < 1064; sport++) {
		ASSERT_EQ(send(0, udp_frame(64, sport)), 0);
		poll(0);
	}
	poll(1);
	EXPECT_EQ(rx_total(1), 64u);
	int used = 0;
	for (uint32_t i = 0; i < 4; i++) {
		used += !rx(1, i).empty();
		for (auto &r : rx(1, i)) {
			/* a flow always lands on the channel the table names */
			EXPECT_EQ(r.meta.hash_type, SCX_HASH_L4);
		}
	}
	EXPECT_GE(used, 3);
	uint64_t sum = 0;
	for (int i = 0; i < 4; i++)
		sum += stat(1, "rx" + std::to_string(i) + "_packets");
	EXPECT_EQ(sum, stat(1, "rx_packets"));
	poll(0);
}

TEST_F(Pair, OneInterruptPerArm)
{
	scx_port_moder off = {};

	ASSERT_EQ(scx_port_set_moder(p[1].port, &off, nullptr), 0);	/* every CQE may signal */
	arm(1);
	uint64_t before = host::irq_count(&p[1].irq_ctx, 0);
	ASSERT_EQ(send(0, udp_frame(60)), 0);
	ASSERT_EQ(send(0, udp_frame(60)), 0);
	EXPECT_EQ(host::irq_count(&p[1].irq_ctx, 0), before + 1);
	poll(1);
	ASSERT_EQ(send(0, udp_frame(60)), 0);
	EXPECT_EQ(host::irq_count(&p[1].irq_ctx, 0), before + 1) << "not re-armed yet";
	arm(1);
	EXPECT_EQ(host::irq_count(&p[1].irq_ctx, 0), before + 2) << "arming with a CQE pending fires";
	poll(1);
	poll(0);
}

/*
 * NAPI completion arms again only the CQs that had an event or were consumed
 * from since their last arm: only an event takes a CQ's arm, so the others
 * still hold theirs, and still interrupt.
 */
TEST_F(Pair, ArmSkipsCqsThatStillHoldTheirArm)
{
	scx_port_moder off = {};

	ASSERT_EQ(scx_port_set_moder(p[0].port, &off, nullptr), 0);
	poll(0);
	arm(0);
	uint64_t db = stat(0, "bus_doorbells");
	arm(0);
	arm(0);
	EXPECT_EQ(stat(0, "bus_doorbells"), db) << "no event, nothing consumed: no arm doorbell";
	uint64_t before = host::irq_count(&p[0].irq_ctx, 0);
	ASSERT_EQ(send(0, udp_frame(60)), 0);
	EXPECT_EQ(host::irq_count(&p[0].irq_ctx, 0), before + 1) << "the TX CQ still held its arm";
	ASSERT_EQ(send(0, udp_frame(60)), 0);
	EXPECT_EQ(host::irq_count(&p[0].irq_ctx, 0), before + 1) << "one interrupt per arm";
	poll(0);
	db = stat(0, "bus_doorbells");
	arm(0);
	EXPECT_EQ(stat(0, "bus_doorbells"), db + 1) << "the TX CQ alone is armed again";
	ASSERT_EQ(send(0, udp_frame(60)), 0);
	EXPECT_EQ(host::irq_count(&p[0].irq_ctx, 0), before + 2);
	poll(0);
	arm(0);
	poll(1);
}

/*
 * An event may take an arm the driver gave after consuming everything: the
 * device's timer found a CQE pending since the old arm, the driver consumed
 * it and armed again (another CPU), then the timer took that fresh arm. The
 * NAPI run of that event consumes nothing, yet must arm the CQ again: by
 * the consumer counter alone the CQ looks armed, and its next CQE would
 * never interrupt.
 */
TEST_F(Pair, ArmAfterAnEventForWorkAlreadyConsumed)
{
	scx_port_moder m = {};

	m.tx = scx_cq_moder{ 100, 64, 1 };	/* the TX CQ: a 100 us period from the CQE */
	ASSERT_EQ(scx_port_set_moder(p[0].port, &m, nullptr), 0);
	poll(0);
	arm(0);
	uint64_t before = host::irq_count(&p[0].irq_ctx, 0);
	ASSERT_EQ(send(0, udp_frame(60)), 0);
	EXPECT_EQ(host::irq_count(&p[0].irq_ctx, 0), before) << "the period runs";
	poll(0);	/* its CQE consumed, as a NAPI run for another CQ would */
	poll(1);
	/* the timer has seen the CQE pending; the driver arms before it takes the arm */
	host::on_next_timer_now([&] { arm(0); });
	host::clock_advance(100 * 1000);
	ASSERT_EQ(host::irq_count(&p[0].irq_ctx, 0), before + 1) << "the timer took the fresh arm";
	EXPECT_EQ(poll(0), 0);
	arm(0);
	ASSERT_EQ(send(0, udp_frame(60)), 0);
	host::clock_advance(100 * 1000);
	EXPECT_EQ(host::irq_count(&p[0].irq_ctx, 0), before + 2) << "the CQ was armed again";
	poll(0);
	arm(0);
	poll(1);
}

TEST_F(Pair, CloseReleasesOutstandingWork)
{
	for (int i = 0; i < 5; i++)
		ASSERT_EQ(post(0, udp_frame(100, 1000, (uint8_t)i)), 0);
	doorbell(0);
	ASSERT_EQ(post(0, udp_frame(100)), 0);	/* never rung */
	/* no polls at all: completions and received packets are pending */
	scx_port_close(p[0].port);
	scx_port_close(p[1].port);
	EXPECT_EQ(host::tx_freed(&p[0].os_ch[0]).size(), 6u);
	EXPECT_EQ(host::dma_tx_mappings(), 0u);
	EXPECT_EQ(host::rx_buffers_outstanding(), 0u);
}

TEST_F(Pair, CountersSurviveCloseOpen)
{
	for (int i = 0; i < 3; i++)
		ASSERT_EQ(send(0, udp_frame(100)), 0);
	poll(1);
	poll(0);
	for (int port = 0; port < 2; port++) {
		scx_port_close(p[port].port);
		auto chans = p[port].os_channels();
		scx_port_params prm = params(1500);
		ASSERT_EQ(scx_port_open(p[port].port, &prm, chans.data()), 0);
	}
	ASSERT_EQ(send(0, udp_frame(100)), 0);
	poll(1);
	poll(0);
	EXPECT_EQ(stat(0, "tx_packets"), 4u);
	EXPECT_EQ(stat(1, "rx_packets"), 4u);
	scx_link_stats ls;
	scx_stats_link(p[1].port, &ls);
	EXPECT_EQ(ls.rx_packets, 4u);
	EXPECT_EQ(ls.rx_bytes, stat(1, "rx_bytes"));
	scx_stats_link(p[0].port, &ls);
	EXPECT_EQ(ls.tx_packets, 4u);
}

TEST_F(Pair, BadParamsAreRefused)
{
	scx_port_close(p[0].port);
	auto chans = p[0].os_channels();
	for (uint32_t mtu : {0u, 67u, 9979u}) {
		scx_port_params prm = params(mtu);
		EXPECT_EQ(scx_port_open(p[0].port, &prm, chans.data()), -SCX_EINVAL) << mtu;
	}
	scx_port_params prm = params(1500);
	prm.nch = 2;	/* more than the port was created with */
	EXPECT_EQ(scx_port_open(p[0].port, &prm, chans.data()), -SCX_EINVAL);
	prm = params(1500);
	prm.log_sq_size = 30;
	EXPECT_EQ(scx_port_open(p[0].port, &prm, chans.data()), -SCX_EINVAL);
	scx_port *dummy;
	EXPECT_EQ(scx_port_create(scx_hw_function(adapter, 0), &os_dev, nullptr, 0, &host::kOsLayout, &dummy), -SCX_EINVAL);
	prm = params(1500);
	ASSERT_EQ(scx_port_open(p[0].port, &prm, chans.data()), 0);
	EXPECT_EQ(scx_port_open(p[0].port, &prm, chans.data()), -SCX_EBUSY);
}

TEST_F(Pair, RxAllocFailureIsCountedAndRecovers)
{
	/* drain the ring, make refills fail, check the counter, then recover */
	host::rx_fail_next_allocs(1000);
	for (int i = 0; i < 16; i++)
		ASSERT_EQ(send(0, udp_frame(60)), 0);
	scx_tx_done done = {};
	/* a refill that falls short keeps NAPI scheduled (returns the budget) */
	EXPECT_EQ(scx_channel_poll(ch(1), 64, &done), 64);
	EXPECT_EQ(rx(1).size(), 16u);
	EXPECT_GT(stat(1, "rx_buff_alloc_err"), 0u);
	ASSERT_EQ(send(0, udp_frame(60)), 0);
	EXPECT_EQ(stat(1, "rx_out_of_buffer"), 1u);
	host::rx_fail_next_allocs(0);
	poll(1);
	ASSERT_EQ(send(0, udp_frame(60)), 0);
	poll(1);
	EXPECT_EQ(rx(1).size(), 17u);
	poll(0);
}

TEST_F(Pair, StackRefusingAPacketIsCounted)
{
	host::rx_fail_next_deliveries(1);
	ASSERT_EQ(send(0, udp_frame(60)), 0);
	ASSERT_EQ(send(0, udp_frame(61)), 0);
	poll(1);
	EXPECT_EQ(rx(1).size(), 1u);
	EXPECT_EQ(stat(1, "rx_packets"), 1u);
	EXPECT_EQ(stat(1, "rx_skb_err"), 1u);
	EXPECT_EQ(stat(1, "rx_buff_alloc_err"), 0u) << "no buffer allocation failed";
	scx_link_stats ls;
	scx_stats_link(p[1].port, &ls);
	EXPECT_EQ(ls.rx_dropped, 1u);
	poll(0);
}

/* The counter table, ethtool strings and Documentation/counters.rst agree. */
TEST_F(Pair, CounterTableMatchesDocumentation)
{
	Options o;
	o.nch = 3;
	build(o);
	uint32_t n = scx_stats_count(p[0].port);
	std::vector<char> names(n * SCX_STAT_NAME_LEN);
	scx_stats_names(p[0].port, names.data());
	std::set<std::string> seen;
	for (uint32_t i = 0; i < n; i++) {
		const char *s = &names[i * SCX_STAT_NAME_LEN];
		ASSERT_LT(strnlen(s, SCX_STAT_NAME_LEN), (size_t)SCX_STAT_NAME_LEN);
		ASSERT_GT(strlen(s), 0u);
		EXPECT_TRUE(seen.insert(s).second) << "duplicate " << s;
	}
	for (const char *must : {"rx_packets", "rx_bytes", "tx_packets", "tx_bytes",
				 "rx_out_of_buffer", "rx0_packets", "rx2_bytes", "tx1_packets",
				 "tx0_bytes"})
		EXPECT_TRUE(seen.count(must)) << must;

	std::ifstream doc(std::string(SOFTCX_ROOT) + "/Documentation/counters.rst");
	ASSERT_TRUE(doc.good());
	std::stringstream ss;
	ss << doc.rdbuf();
	std::string text = ss.str();
	std::set<std::string> documented;
	std::istringstream lines(text);
	for (std::string line; std::getline(lines, line);) {
		const std::string tag = "   * - ";
		if (line.rfind(tag, 0) == 0 && line.substr(tag.size()) != "name")
			documented.insert(line.substr(tag.size()));
	}
	/* every total name (no channel number) is documented, and nothing else is */
	std::set<std::string> totals;
	for (auto &s : seen)
		if (!std::isdigit((unsigned char)s[2]))
			totals.insert(s);
	EXPECT_EQ(totals, documented);
	/* per channel: every total but the device counters (rx_out_of_buffer .. *_phy) */
#define SCX_ONE(field, name) +1
	constexpr size_t kDevice = 0 SCX_PRM_Q_COUNTERS(SCX_ONE) SCX_PRM_BUS_COUNTERS(SCX_ONE)
		SCX_PRM_PORT_COUNTERS(SCX_ONE);
#undef SCX_ONE
	EXPECT_EQ(seen.size(), totals.size() + 3 * (totals.size() - kDevice));
}

TEST_F(Pair, ModerationDefaultsAreMlx5s)
{
	scx_port_moder m;
	scx_port_caps caps;

	scx_port_get_caps(p[1].port, &caps);
	EXPECT_EQ(caps.cq_moderation, 1u);
	EXPECT_EQ(caps.cq_period_from_cqe, 1u);
	scx_port_get_moder(p[1].port, &m);
	EXPECT_EQ(m.rx.usecs, 3u);
	EXPECT_EQ(m.rx.frames, 32u);
	EXPECT_EQ(m.rx.from_cqe, 1u);
	EXPECT_EQ(m.tx.usecs, 16u);
	EXPECT_EQ(m.tx.frames, 32u);
	EXPECT_EQ(m.tx.from_cqe, 0u);
	scx_cq_moder d;
	scx_moder_default(1, 0, &d);
	EXPECT_EQ(d.usecs, 16u);
}

TEST_F(Pair, ModerationLimits)
{
	scx_port_moder m, cur;
	const char *why = nullptr;

	scx_port_get_moder(p[0].port, &cur);
	m = cur;
	m.rx.usecs = 4096;
	EXPECT_EQ(scx_port_set_moder(p[0].port, &m, &why), -SCX_EINVAL);
	ASSERT_NE(why, nullptr);
	EXPECT_NE(std::string(why).find("4095"), std::string::npos) << why;
	m = cur;
	m.tx.frames = 65536;
	EXPECT_EQ(scx_port_set_moder(p[0].port, &m, &why), -SCX_EINVAL);
	scx_port_moder now;
	scx_port_get_moder(p[0].port, &now);
	EXPECT_EQ(memcmp(&now, &cur, sizeof(now)), 0) << "refused: nothing changed";
	m.tx.frames = 65535;
	m.tx.usecs = 4095;
	EXPECT_EQ(scx_port_set_moder(p[0].port, &m, &why), 0);
}

/* MODIFY_CQ on the live CQs: the count threshold takes effect at once, and survives a rebuild. */
TEST_F(Pair, ModerationAppliesLiveAndSurvivesRebuild)
{
	scx_port_moder m = {};

	m.rx = scx_cq_moder{1000, 4, 1};
	m.tx = scx_cq_moder{1000, 4, 0};
	ASSERT_EQ(scx_port_set_moder(p[1].port, &m, nullptr), 0);
	poll(1);
	arm(1);
	uint64_t before = host::irq_count(&p[1].irq_ctx, 0);
	for (int i = 0; i < 3; i++)
		ASSERT_EQ(send(0, udp_frame(60)), 0);
	EXPECT_EQ(host::irq_count(&p[1].irq_ctx, 0), before) << "3 of 4 frames";
	ASSERT_EQ(send(0, udp_frame(60)), 0);
	EXPECT_EQ(host::irq_count(&p[1].irq_ctx, 0), before + 1) << "the 4th signals";
	poll(1);
	arm(1);
	ASSERT_EQ(send(0, udp_frame(60)), 0);
	EXPECT_EQ(host::irq_count(&p[1].irq_ctx, 0), before + 1);
	host::clock_advance(1000 * 1000);
	EXPECT_EQ(host::irq_count(&p[1].irq_ctx, 0), before + 2) << "the period";
	poll(1);
	poll(0);

	/* a new channel set (MTU change) is built with what was set */
	build(opt);
	scx_port_moder now;
	scx_port_get_moder(p[1].port, &now);
	EXPECT_EQ(now.rx.usecs, 3u) << "a new port starts from the defaults";
	ASSERT_EQ(scx_port_set_moder(p[1].port, &m, nullptr), 0);
	scx_port_params prm = params(1400, 1);
	auto chans = p[1].os_channels();
	ASSERT_EQ(scx_port_prepare(p[1].port, &prm, chans.data()), 0);
	scx_port_commit(p[1].port);
	poll(1);
	arm(1);
	before = host::irq_count(&p[1].irq_ctx, 0);
	for (int i = 0; i < 3; i++)
		ASSERT_EQ(send(0, udp_frame(60)), 0);
	EXPECT_EQ(host::irq_count(&p[1].irq_ctx, 0), before);
	ASSERT_EQ(send(0, udp_frame(60)), 0);
	EXPECT_EQ(host::irq_count(&p[1].irq_ctx, 0), before + 1);
	EXPECT_GE(stat(1, "bus_interrupts"), 1u) << "the device counts its events";
	poll(1);
	poll(0);
}
