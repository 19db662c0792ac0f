// SPDX-License-Identifier: GPL-2.0
/*
 * The device's VXLAN UDP port table, GENEVE on its IANA port (cap geneve),
 * GRE and IP in IP (cap ip_tunnels), and what they enable: inner checksums
 * of a SEND (eth segment kCsL3Inner/kCsL4Inner) and LSO of TCP inside a
 * tunnel, checked byte for byte against frames built independently, and
 * inner RX verdicts.
 */
#include <algorithm>
#include <functional>

#include "frames.h"
#include "hw_harness.h"

using namespace hwt;

namespace {

class HwVxlan : public HwTest {};

uint8_t vxlan_cmd(Fn *fn, uint16_t op, uint16_t port)
{
	prm::VxlanUdpDportIn in;
	set_op(&in, op);
	in.vxlan_udp_port.set(port);
	prm::CmdOut out;
	return exec(fn, in, &out);
}

uint8_t add_port(Fn *fn, uint16_t port) { return vxlan_cmd(fn, prm::kCmdAddVxlanUdpDport, port); }
uint8_t del_port(Fn *fn, uint16_t port) { return vxlan_cmd(fn, prm::kCmdDeleteVxlanUdpDport, port); }

/* The inner frame: TCP over IPv4 between other addresses, its own MACs and IP id. */
frames::Spec inner_spec()
{
	frames::Spec s;
	s.src = "192.168.7.1";
	s.dst = "192.168.7.2";
	s.sport = 40000;
	s.dport = 5201;
	s.ip_id = 0x4000;
	s.tcp_seq = 0x10;
	s.tcp_flags = 0x19;	/* FIN PSH ACK */
	return s;
}

/*
 * Post and ring one WQE with the inner checksum flags: a SEND of `data`,
 * or (mss != 0) an LSO of template tmpl with `data` as its payload, in
 * buffers cut at `cut` (0: one buffer).
 */
void post_tunnel(Link &l, const frames::Bytes &tmpl, const frames::Bytes &data, uint32_t mss,
		 size_t cut = 0)
{
	SendWqe w;
	w.opcode = mss ? prm::kOpLso : prm::kOpSend;
	w.mss = (uint16_t)mss;
	w.cs_flags = prm::kCsL3 | prm::kCsL3Inner | prm::kCsL4Inner;
	w.inline_hdr = tmpl;
	std::vector<frames::Bytes> parts;
	if (cut)
		parts = { frames::Bytes(data.begin(), data.begin() + (long)cut),
			  frames::Bytes(data.begin() + (long)cut, data.end()) };
	else
		parts = { data };
	for (auto &p : parts) {
		l.tx_bufs.push_back(std::make_unique<TxBuf>(p));
		w.segs.push_back(Seg{});
		w.segs.back().addr = l.tx_bufs.back()->dma;
		w.segs.back().len = (uint32_t)p.size();
	}
	w.ce = true;
	l.sq.post(w);
	l.sq.doorbell();
}

/*
 * The segments of an LSO of `pay` (mss bytes each) under the inner headers
 * `is` as the receiver got them: each the reference segment of the inner
 * frame (sequence, IPv4 id +k, FIN and PSH on the last only) in the outer
 * headers wrap(inner, k) gives; one CQE on the sender's side.
 */
template <typename Wrap>
void expect_tunnel_segments(Link &l, const frames::Spec &is, const frames::Bytes &pay, uint32_t mss,
			    Wrap wrap)
{
	const uint32_t total = (uint32_t)pay.size(), segs = (total + mss - 1) / mss;
	auto rx = l.rxcq.poll_all();
	ASSERT_EQ(rx.size(), segs);
	for (uint32_t k = 0; k < segs; k++) {
		uint32_t chunk = std::min(mss, total - k * mss);
		frames::Spec e = is;
		e.payload.assign(pay.begin() + k * mss, pay.begin() + k * mss + chunk);
		e.tcp_seq = is.tcp_seq + k * mss;
		e.ip_id = (uint16_t)(is.ip_id + k);
		if (k != segs - 1)
			e.tcp_flags &= (uint8_t)~(frames::kFin | frames::kPsh);
		frames::Bytes want = wrap(frames::build(e), k);
		EXPECT_EQ(rx[k].byte_cnt.get(), want.size()) << k;
		ASSERT_EQ(0, memcmp(l.rq.buffer(rx[k].wqe_counter.get()), want.data(), want.size()))
			<< "segment " << k;
	}
	EXPECT_EQ(l.txcq.poll_all().size(), 1u);
}

/* The frames the receiver got, in order. */
std::vector<frames::Bytes> received(Link &l)
{
	std::vector<frames::Bytes> out;
	for (const auto &c : l.rxcq.poll_all())
		out.emplace_back(l.rq.buffer(c.wqe_counter.get()),
				 l.rq.buffer(c.wqe_counter.get()) + c.byte_cnt.get());
	return out;
}

/* The first of the segments of one size an LSO cuts pay into: mss bytes, FIN and PSH off. */
frames::Spec first_segment(const frames::Spec &is, const frames::Bytes &pay, uint32_t mss)
{
	frames::Spec first = is;
	first.payload.assign(pay.begin(), pay.begin() + mss);
	first.tcp_flags &= (uint8_t)~(frames::kFin | frames::kPsh);
	return first;
}

/*
 * Send f over l: the receiver's CQE has the tunneled bit and hds_ip_ext
 * verdicts given, and the sum of the frame from its (outer) IP header.
 */
void expect_rx_verdict(Link &l, const frames::Bytes &f, uint8_t tunneled, uint8_t hds,
		       const char *what)
{
	l.send(f);
	auto rx = l.rxcq.poll_all();
	ASSERT_EQ(rx.size(), 1u) << what;
	EXPECT_EQ(rx[0].tls_outer_l3_tunneled, tunneled) << what;
	EXPECT_EQ(rx[0].hds_ip_ext, hds) << what;
	EXPECT_EQ(rx[0].check_sum.get(), frames::ref_sum(f, frames::l3_off(f))) << what;
}

/* frames::vxlan() with a wrong outer IPv4 header checksum, for the device to fill */
frames::Bytes vxlan_bad_outer(const frames::Bytes &inner, uint16_t dport)
{
	frames::Bytes f = frames::vxlan(inner, dport);
	frames::put16(f, 14 + 10, 0xdead);
	return f;
}




TEST_F(HwVxlan, PortTableCommands)
{
	EXPECT_EQ(query_caps(fn0).max_vxlan_udp_ports, 4);
	EXPECT_EQ(add_port(fn0, 0), prm::kStatBadParam);
	EXPECT_EQ(del_port(fn0, 4789), prm::kStatBadParam) << "not in the table";
	EXPECT_EQ(add_port(fn0, 4789), prm::kStatOk);
	EXPECT_EQ(add_port(fn0, 4789), prm::kStatBadResState) << "already there";
	EXPECT_EQ(add_port(fn0, 8472), prm::kStatOk);
	EXPECT_EQ(add_port(fn0, 1), prm::kStatOk);
	EXPECT_EQ(add_port(fn0, 2), prm::kStatOk);
	EXPECT_EQ(add_port(fn0, 3), prm::kStatExceedLim) << "four ports at most";
	EXPECT_EQ(add_port(fn1, 3), prm::kStatOk) << "each function has its own table";
	EXPECT_EQ(del_port(fn0, 8472), prm::kStatOk);
	EXPECT_EQ(del_port(fn0, 8472), prm::kStatBadParam);
	EXPECT_EQ(add_port(fn0, 3), prm::kStatOk) << "a freed entry is taken again";
	for (uint16_t p : { 4789, 1, 2, 3 })
		EXPECT_EQ(del_port(fn0, p), prm::kStatOk) << p;
	EXPECT_EQ(del_port(fn1, 3), prm::kStatOk);
}

/*
 * SEND with L3 | L3_INNER | L4_INNER (mlx5's flags for an encapsulated
 * CHECKSUM_PARTIAL skb): the inner IPv4 and TCP checksums and the outer
 * IPv4 checksum are filled, the outer UDP checksum (0) is left. To a port
 * the table does not hold, the device sees plain UDP: the outer IPv4
 * checksum alone.
 */
TEST_F(HwVxlan, InnerChecksumsOfASend)
{
	Link l;
	l.setup(fn0, fn1);
	ASSERT_EQ(add_port(fn0, 4789), prm::kStatOk);

	frames::Spec is = inner_spec();
	is.payload = frames::payload(700, 5);
	is.good_csums = false;
	frames::Bytes inner_bad = frames::build(is);
	frames::Bytes inner_good = inner_bad;
	frames::fill_reference_csums(inner_good);
	ASSERT_NE(inner_bad, inner_good);

	for (uint16_t dport : { 4789, 4790 }) {
		frames::Bytes sent = vxlan_bad_outer(inner_bad, dport);
		frames::Bytes want = frames::vxlan(dport == 4789 ? inner_good : inner_bad, dport);
		ASSERT_NE(sent, want);

		post_tunnel(l, {}, sent, 0);
		auto rx = l.rxcq.poll_all();
		ASSERT_EQ(rx.size(), 1u) << dport;
		EXPECT_EQ(l.txcq.poll_all().size(), 1u);
		EXPECT_EQ(rx[0].byte_cnt.get(), want.size());
		ASSERT_EQ(0, memcmp(l.rq.buffer(rx[0].wqe_counter.get()), want.data(), want.size()))
			<< "UDP port " << dport;
	}
	ASSERT_EQ(del_port(fn0, 4789), prm::kStatOk);
}

/*
 * LSO through a VXLAN tunnel: the template is outer Ethernet/IPv4/UDP,
 * VXLAN, inner Ethernet/IPv4/TCP. Per segment the device sets both IP
 * lengths, both IPv4 ids (+k), the outer UDP length, the inner TCP
 * sequence and flags, and the outer IPv4, inner IPv4 and inner TCP
 * checksums; the outer UDP checksum stays 0 (the WQE does not ask for it).
 */
TEST_F(HwVxlan, LsoSegmentsTcpInsideVxlan)
{
	Link l;
	l.setup(fn0, fn1);
	ASSERT_EQ(add_port(fn0, 4789), prm::kStatOk);

	const uint32_t mss = 1000, total = 4321;
	frames::Spec is = inner_spec();
	frames::Bytes tmpl = frames::vxlan(frames::build(is));
	ASSERT_EQ(tmpl.size(), frames::kVxlanInnerOff + 54);
	frames::Bytes pay = frames::payload(total, 11);

	post_tunnel(l, tmpl, pay, mss, 1700);
	/* the outer IP id steps too; the outer UDP checksum stays 0 */
	expect_tunnel_segments(l, is, pay, mss, [](const frames::Bytes &inner, uint32_t k) {
		return frames::vxlan(inner, 4789, (uint16_t)(0x1234 + k));
	});
	ASSERT_EQ(del_port(fn0, 4789), prm::kStatOk);
}

/*
 * A template running past a UDP header to a port not in the table is no
 * template the device can segment: error CQE, nothing on the wire. So is
 * a tunnel whose inner L4 is not TCP.
 */
TEST_F(HwVxlan, LsoTunnelTemplateTheDeviceCannotParse)
{
	for (int c = 0; c < 2; c++) {
		Link l;
		l.setup(fn0, fn1);
		ASSERT_EQ(add_port(fn0, 4789), prm::kStatOk);
		frames::Spec is = inner_spec();
		if (c == 1)
			is.proto = 17;
		frames::Bytes tmpl = frames::vxlan(frames::build(is), c == 0 ? 4790 : 4789);
		post_tunnel(l, tmpl, frames::payload(3000, 2), 1000);
		auto tx = l.txcq.poll_all();
		ASSERT_EQ(tx.size(), 1u) << c;
		EXPECT_EQ(tx[0].opcode(), prm::kCqeReqErr) << c;
		EXPECT_EQ(reinterpret_cast<const prm::ErrCqe *>(&tx[0])->syndrome,
			  prm::kSyndLocalQpOpErr) << c;
		EXPECT_EQ(l.rxcq.poll_all().size(), 0u) << c;
		ASSERT_EQ(del_port(fn0, 4789), prm::kStatOk);
	}
}

/*
 * GSO_PARTIAL (udpcsum tunnels, as mlx5 offers them): the segments are of
 * one size and the template carries the outer UDP checksum of one of
 * them; the device leaves it, and since each segment's inner checksums
 * are right, it is right for every segment (their IPv4 ids differ).
 */
TEST_F(HwVxlan, LsoKeepsTheOuterUdpChecksumOfEqualSegments)
{
	Link l;
	l.setup(fn0, fn1);
	ASSERT_EQ(add_port(fn0, 4789), prm::kStatOk);

	const uint32_t mss = 800, segs = 4;
	frames::Spec is = inner_spec();
	frames::Bytes pay = frames::payload(mss * segs, 13);
	/* the first segment, whole and with every checksum right: its outer UDP checksum */
	frames::Bytes seg0 = frames::vxlan(frames::build(first_segment(is, pay, mss)));
	const size_t udp = frames::l4_off(seg0);
	frames::put16(seg0, udp + 6, frames::ref_l4_csum(seg0));
	const uint16_t outer_csum = frames::get16(seg0, udp + 6);
	ASSERT_NE(outer_csum, 0);

	frames::Bytes tmpl = frames::vxlan(frames::build(is));
	frames::put16(tmpl, udp + 6, outer_csum);
	post_tunnel(l, tmpl, pay, mss);

	const auto rx = received(l);
	ASSERT_EQ(rx.size(), segs);
	for (uint32_t k = 0; k < segs; k++) {
		const frames::Bytes &got = rx[k];
		ASSERT_EQ(got.size(), seg0.size());
		EXPECT_EQ(frames::get16(got, udp + 6), outer_csum) << "segment " << k;
		EXPECT_EQ(frames::ref_l4_csum(got), outer_csum) << "segment " << k << ": still right";
		EXPECT_EQ(frames::get16(got, 14 + 4), (uint16_t)(0x1234 + k)) << "outer IP id";
		EXPECT_EQ(frames::ref_ipv4_hdr_csum(got), frames::get16(got, 14 + 10));
	}
	ASSERT_EQ(del_port(fn0, 4789), prm::kStatOk);
}

/*
 * RX: a frame UDP to one of the receiver's VXLAN ports gets the CQE's
 * tunneled bit, and its L3/L4 verdicts cover the inner frame too (a
 * wrong inner checksum clears them); the sum stays the outer frame's.
 * Other ports, including one whose bit in the quick test is the same as
 * 4789's (4789 + 64), and a table without the port: the outer verdicts
 * alone, no tunneled bit.
 */
TEST_F(HwVxlan, RxVerdictsCoverTheInnerFrame)
{
	Link l;
	l.setup(fn0, fn1);
	frames::Spec is = inner_spec();
	is.payload = frames::payload(300, 7);
	const frames::Bytes inner = frames::build(is);
	const uint8_t ok = prm::kCqeL3Ok | prm::kCqeL4Ok;
	struct Want {
		uint8_t tunneled, hds;
	};
	auto check = [&](const frames::Bytes &f, Want w, const char *what) {
		l.send(f);
		auto rx = l.rxcq.poll_all();
		ASSERT_EQ(rx.size(), 1u) << what;
		EXPECT_EQ(rx[0].tls_outer_l3_tunneled, w.tunneled) << what;
		EXPECT_EQ(rx[0].hds_ip_ext, w.hds) << what;
		EXPECT_EQ(rx[0].check_sum.get(), frames::ref_sum(f, frames::l3_off(f))) << what;
		EXPECT_EQ(rx[0].l4_type(), prm::kCqeL4Udp) << what;
	};
	/* the outer UDP checksum filled in, not 0 as frames::vxlan() leaves it */
	auto with_outer_csum = [&](const frames::Bytes &in, bool good) {
		frames::Spec o;
		o.proto = 17;
		o.sport = 51000;
		o.dport = 4789;
		o.payload = { 0x08, 0, 0, 0, 0x00, 0x00, 0x2a, 0 };
		o.payload.insert(o.payload.end(), in.begin(), in.end());
		o.bad_l4_csum = !good;
		return frames::build(o);
	};
	frames::Bytes bad_l4 = inner;
	bad_l4.back() ^= 0x10;
	frames::Bytes bad_l3 = inner;
	bad_l3[14 + 10] ^= 0x01;
	frames::Spec icmp = inner_spec();
	icmp.proto = 1;
	icmp.payload = frames::payload(64, 3);
	const frames::Bytes no_l4 = frames::build(icmp);

	check(frames::vxlan(inner), { 0, ok }, "no port in the table");
	ASSERT_EQ(add_port(fn1, 4789), prm::kStatOk);
	check(frames::vxlan(inner), { 1, ok }, "good inner frame, outer UDP checksum 0");
	check(with_outer_csum(inner, true), { 1, ok }, "good inner frame, outer UDP checksum right");
	check(with_outer_csum(inner, false), { 1, prm::kCqeL3Ok }, "outer UDP checksum wrong");
	check(frames::vxlan(bad_l4), { 1, prm::kCqeL3Ok }, "inner TCP checksum wrong");
	check(frames::vxlan(bad_l3), { 1, prm::kCqeL4Ok }, "inner IPv4 header checksum wrong");
	check(frames::vxlan(no_l4), { 1, prm::kCqeL3Ok }, "inner frame without TCP/UDP");
	check(frames::vxlan(bad_l4, 4789 + 64), { 0, ok }, "port outside the table, same quick-test bit");
	check(frames::vxlan(bad_l4, 8472), { 0, ok }, "port outside the table");
	ASSERT_EQ(del_port(fn1, 4789), prm::kStatOk);
	check(frames::vxlan(bad_l4), { 0, ok }, "port deleted");
	EXPECT_EQ(add_port(fn0, 4789), prm::kStatOk);
	check(frames::vxlan(bad_l4), { 0, ok }, "the sender's table does not count");
}

/* ---- GENEVE: IANA's port 6081, parsed with cap geneve (ConnectX-5 on) ---- */

class HwGeneve : public HwTest {};
class HwGeneveCx4 : public HwTest {
protected:
	int model() const override { return prm::kModelCx4; }
};

/*
 * SEND with the inner flags to GENEVE, without and with options: inner
 * IPv4 and TCP checksums and the outer IPv4 one filled, the outer UDP
 * checksum (0) left. No port command: 6081 needs none.
 */
TEST_F(HwGeneve, InnerChecksumsOfASend)
{
	EXPECT_EQ(query_caps(fn0).geneve, 1);
	Link l;
	l.setup(fn0, fn1);
	frames::Spec is = inner_spec();
	is.payload = frames::payload(500, 9);
	is.good_csums = false;
	frames::Bytes inner_bad = frames::build(is);
	frames::Bytes inner_good = inner_bad;
	frames::fill_reference_csums(inner_good);

	for (uint8_t opts : { 0, 3 }) {
		frames::Bytes sent = frames::geneve(inner_bad, opts);
		frames::put16(sent, 14 + 10, 0xdead);	/* the outer IPv4 checksum too */
		frames::Bytes want = frames::geneve(inner_good, opts);
		post_tunnel(l, {}, sent, 0);
		auto rx = l.rxcq.poll_all();
		ASSERT_EQ(rx.size(), 1u) << (int)opts;
		EXPECT_EQ(l.txcq.poll_all().size(), 1u);
		EXPECT_EQ(rx[0].byte_cnt.get(), want.size());
		ASSERT_EQ(0, memcmp(l.rq.buffer(rx[0].wqe_counter.get()), want.data(), want.size()))
			<< (int)opts << " option words";
	}
}

/* LSO of TCP inside GENEVE with options: each segment as the reference builds it. */
TEST_F(HwGeneve, LsoSegmentsTcpInsideGeneve)
{
	Link l;
	l.setup(fn0, fn1);
	const uint32_t mss = 1200, total = 3000;
	const uint8_t opts = 2;
	frames::Spec is = inner_spec();
	frames::Bytes tmpl = frames::geneve(frames::build(is), opts);
	ASSERT_EQ(tmpl.size(), frames::geneve_inner_off(opts) + 54);
	frames::Bytes pay = frames::payload(total, 12);

	post_tunnel(l, tmpl, pay, mss, 1000);
	expect_tunnel_segments(l, is, pay, mss, [&](const frames::Bytes &inner, uint32_t k) {
		return frames::geneve(inner, opts, (uint16_t)(0x1234 + k));
	});
}

/*
 * RX: GENEVE frames get the tunneled bit and inner verdicts; a GENEVE
 * header of another version, or one that carries no Ethernet frame, is
 * no tunnel the device parses: the outer verdicts alone.
 */
TEST_F(HwGeneve, RxVerdictsCoverTheInnerFrame)
{
	Link l;
	l.setup(fn0, fn1);
	frames::Spec is = inner_spec();
	is.payload = frames::payload(200, 4);
	const frames::Bytes inner = frames::build(is);
	frames::Bytes bad_l4 = inner;
	bad_l4.back() ^= 0x08;
	const uint8_t ok = prm::kCqeL3Ok | prm::kCqeL4Ok;
	auto check = [&](const frames::Bytes &f, uint8_t tunneled, uint8_t hds, const char *what) {
		expect_rx_verdict(l, f, tunneled, hds, what);
	};
	check(frames::geneve(inner, 1), 1, ok, "good inner frame, one option word");
	check(frames::geneve(bad_l4, 0), 1, prm::kCqeL3Ok, "inner TCP checksum wrong");
	frames::Bytes v1 = frames::geneve(bad_l4, 0);
	v1[frames::l4_off(v1) + 8] |= 0x40;	/* version 1 */
	check(v1, 0, ok, "GENEVE version 1");
	frames::Bytes ip = frames::geneve(bad_l4, 0);
	frames::put16(ip, frames::l4_off(ip) + 8 + 2, 0x0800);	/* IPv4, not Ethernet */
	check(ip, 0, ok, "GENEVE carrying IPv4");
	frames::Bytes huge_opts = frames::geneve(bad_l4, 0);
	huge_opts[frames::l4_off(huge_opts) + 8] = 0x3f;	/* 252 bytes of options: past the frame */
	check(huge_opts, 0, ok, "options longer than the frame");
}

/* ConnectX-4 has no GENEVE parsing: inner flags do nothing, no inner verdicts. */
TEST_F(HwGeneveCx4, NotParsed)
{
	EXPECT_EQ(query_caps(fn0).geneve, 0);
	Link l;
	l.setup(fn0, fn1);
	frames::Spec is = inner_spec();
	is.payload = frames::payload(100, 1);
	is.good_csums = false;
	frames::Bytes inner_bad = frames::build(is);
	frames::Bytes sent = frames::geneve(inner_bad, 0);
	SendWqe w;
	w.opcode = prm::kOpSend;
	w.cs_flags = prm::kCsL3 | prm::kCsL3Inner | prm::kCsL4Inner;
	w.inline_hdr.assign(sent.begin(), sent.begin() + 18);	/* cx4 wants the L2 headers inline */
	l.tx_bufs.push_back(std::make_unique<TxBuf>(frames::Bytes(sent.begin() + 18, sent.end())));
	w.segs.push_back(Seg{});
	w.segs.back().addr = l.tx_bufs.back()->dma;
	w.segs.back().len = (uint32_t)sent.size() - 18;
	w.ce = true;
	l.sq.post(w);
	l.sq.doorbell();
	auto rx = l.rxcq.poll_all();
	ASSERT_EQ(rx.size(), 1u);
	EXPECT_EQ(rx[0].tls_outer_l3_tunneled, 0);
	/* the inner frame as it was sent: the device did not see into it */
	frames::Bytes want = frames::geneve(inner_bad, 0);
	ASSERT_EQ(0, memcmp(l.rq.buffer(rx[0].wqe_counter.get()), want.data(), want.size()));
	EXPECT_EQ(rx[0].hds_ip_ext, prm::kCqeL3Ok | prm::kCqeL4Ok) << "outer verdicts only";
}

/* ---- GRE (cap kCapTunnelGre, ConnectX-4 on) and IP in IP (kCapTunnelIpOverIp, ConnectX-5 on) ---- */

class HwIpTunnel : public HwTest {};
class HwIpTunnelCx4 : public HwTest {
protected:
	int model() const override { return prm::kModelCx4; }
};

/* The inner frame over IPv6 (for GRE's 0x86dd and IPv6 in IP). */
frames::Spec inner_spec6()
{
	frames::Spec s = inner_spec();
	s.v6 = true;
	s.src = "fd00::7:1";
	s.dst = "fd00::7:2";
	return s;
}

/*
 * SEND with the inner flags through GRE carrying Ethernet, IPv4 and IPv6,
 * with a key, with a checksum (which the device leaves: the stack wrote it
 * for the inner checksums the device fills), and IPv4 and IPv6 in IP:
 * inner IPv4 and TCP checksums and the outer IPv4 one filled.
 */
TEST_F(HwIpTunnel, InnerChecksumsOfASend)
{
	EXPECT_EQ(query_caps(fn0).ip_tunnels, prm::kCapTunnelGre | prm::kCapTunnelIpOverIp);
	Link l;
	l.setup(fn0, fn1);
	struct Case {
		const char *what;
		bool v6;
		std::function<frames::Bytes(const frames::Bytes &)> wrap;
	};
	const Case cases[] = {
		{ "GRE, Ethernet", false, [](const frames::Bytes &in) { return frames::gre(in, 0x6558); } },
		{ "GRE, IPv4, key", false,
		  [](const frames::Bytes &in) { return frames::gre(in, 0x0800, frames::kGreKey); } },
		{ "GRE, IPv6", true, [](const frames::Bytes &in) { return frames::gre(in, 0x86dd); } },
		{ "GRE, IPv4, checksum and key", false,
		  [](const frames::Bytes &in) {
			  return frames::gre(in, 0x0800, frames::kGreCsum | frames::kGreKey);
		  } },
		{ "IPv4 in IP", false, [](const frames::Bytes &in) { return frames::ipip(in); } },
		{ "IPv6 in IP", true, [](const frames::Bytes &in) { return frames::ipip(in); } },
	};
	for (const Case &c : cases) {
		frames::Spec is = c.v6 ? inner_spec6() : inner_spec();
		is.payload = frames::payload(600, 3);
		is.good_csums = false;
		frames::Bytes inner_bad = frames::build(is);
		frames::Bytes inner_good = inner_bad;
		frames::fill_reference_csums(inner_good);
		frames::Bytes want = c.wrap(inner_good);
		frames::Bytes sent = c.wrap(inner_bad);
		ASSERT_EQ(sent.size(), want.size());
		/* a GRE checksum as the stack sends it: for the inner checksums to come */
		if (frames::get16(sent, 14 + 20) & frames::kGreCsum && sent[14 + 9] == 47)
			frames::put16(sent, 14 + 20 + 4, frames::get16(want, 14 + 20 + 4));
		frames::put16(sent, 14 + 10, 0xdead);
		ASSERT_NE(sent, want) << c.what;

		post_tunnel(l, {}, sent, 0);
		auto rx = l.rxcq.poll_all();
		ASSERT_EQ(rx.size(), 1u) << c.what;
		EXPECT_EQ(l.txcq.poll_all().size(), 1u);
		EXPECT_EQ(rx[0].byte_cnt.get(), want.size()) << c.what;
		ASSERT_EQ(0, memcmp(l.rq.buffer(rx[0].wqe_counter.get()), want.data(), want.size()))
			<< c.what;
		EXPECT_EQ(rx[0].tls_outer_l3_tunneled, 1) << c.what;
		EXPECT_EQ(rx[0].hds_ip_ext, prm::kCqeL3Ok | prm::kCqeL4Ok) << c.what;
	}
}

/*
 * LSO of TCP in GRE (IPv4 with a key; Ethernet) and in IP: per segment the
 * outer IPv4 length, id and checksum, and the inner headers as in a UDP
 * tunnel; the GRE header is copied as it is.
 */
TEST_F(HwIpTunnel, LsoSegmentsTcpInsideGreAndIp)
{
	const uint32_t mss = 1100, total = 4000;
	for (int c = 0; c < 3; c++) {
		Link l;
		l.setup(fn0, fn1);
		auto wrap = [c](const frames::Bytes &inner, uint16_t id) {
			return c == 0 ? frames::gre(inner, 0x0800, frames::kGreKey, id) :
			       c == 1 ? frames::gre(inner, 0x6558, 0, id) :
					frames::ipip(inner, id);
		};
		frames::Spec is = inner_spec();
		frames::Bytes pay = frames::payload(total, (uint8_t)(20 + c));
		post_tunnel(l, wrap(frames::build(is), 0x1234), pay, mss, 900);
		SCOPED_TRACE(c);
		expect_tunnel_segments(l, is, pay, mss, [&](const frames::Bytes &inner, uint32_t k) {
			return wrap(inner, (uint16_t)(0x1234 + k));
		});
	}
}

/*
 * GSO_PARTIAL with GRE checksums (mlx5 offers GSO_GRE_CSUM so): segments
 * of one size, the template with the GRE checksum of one; the device
 * leaves it, and it is right for every segment.
 */
TEST_F(HwIpTunnel, LsoKeepsTheGreChecksumOfEqualSegments)
{
	Link l;
	l.setup(fn0, fn1);
	const uint32_t mss = 700, segs = 3;
	frames::Spec is = inner_spec();
	frames::Bytes pay = frames::payload(mss * segs, 17);
	const frames::Bytes seg0 =
		frames::gre(frames::build(first_segment(is, pay, mss)), 0x0800, frames::kGreCsum);
	const size_t g = frames::l4_off(seg0);
	const uint16_t gre_csum = frames::get16(seg0, g + 4);

	frames::Bytes tmpl = frames::gre(frames::build(is), 0x0800, frames::kGreCsum);
	frames::put16(tmpl, g + 4, gre_csum);
	post_tunnel(l, tmpl, pay, mss);
	const auto rx = received(l);
	ASSERT_EQ(rx.size(), segs);
	for (uint32_t k = 0; k < segs; k++) {
		ASSERT_EQ(rx[k].size(), seg0.size());
		EXPECT_EQ(frames::get16(rx[k], g + 4), gre_csum) << "segment " << k;
		EXPECT_EQ(frames::ref_sum(rx[k], g), 0xffff) << "segment " << k << ": still right";
	}
}

/*
 * RX: GRE and IP-in-IP frames get the tunneled bit, and verdicts that
 * cover the inner frame and a GRE checksum if there is one (the outer
 * frame has no L4 checksum of its own). GRE the device does not parse
 * (routing bit, version 1, another protocol type): the outer IPv4 verdict
 * alone, as for any IP protocol but TCP and UDP.
 */
TEST_F(HwIpTunnel, RxVerdictsCoverTheInnerFrame)
{
	Link l;
	l.setup(fn0, fn1);
	frames::Spec is = inner_spec();
	is.payload = frames::payload(250, 6);
	const frames::Bytes inner = frames::build(is);
	frames::Spec is6 = inner_spec6();
	is6.payload = frames::payload(250, 8);
	const frames::Bytes inner6 = frames::build(is6);
	frames::Bytes bad_l4 = inner;
	bad_l4.back() ^= 0x20;
	frames::Bytes bad_l3 = inner;
	bad_l3[14 + 10] ^= 0x01;
	const uint8_t ok = prm::kCqeL3Ok | prm::kCqeL4Ok;
	auto check = [&](const frames::Bytes &f, uint8_t tunneled, uint8_t hds, const char *what) {
		expect_rx_verdict(l, f, tunneled, hds, what);
	};
	check(frames::gre(inner, 0x6558), 1, ok, "GRE, Ethernet");
	check(frames::gre(inner, 0x0800, frames::kGreKey | frames::kGreSeq), 1, ok,
	      "GRE, IPv4, key and sequence");
	check(frames::gre(inner6, 0x86dd), 1, ok, "GRE, IPv6");
	check(frames::gre(inner, 0x0800, frames::kGreCsum), 1, ok, "GRE checksum right");
	frames::Bytes bad_gre = frames::gre(inner, 0x0800, frames::kGreCsum);
	bad_gre[frames::l4_off(bad_gre) + 5] ^= 0x01;
	check(bad_gre, 1, prm::kCqeL3Ok, "GRE checksum wrong");
	check(frames::gre(bad_l4, 0x0800), 1, prm::kCqeL3Ok, "inner TCP checksum wrong");
	check(frames::gre(bad_l3, 0x6558), 1, prm::kCqeL4Ok, "inner IPv4 header checksum wrong");
	check(frames::gre(inner6, 0x0800), 1, 0, "GRE says IPv4, IPv6 follows: no inner verdict");
	check(frames::ipip(inner), 1, ok, "IPv4 in IP");
	check(frames::ipip(inner6), 1, ok, "IPv6 in IP");
	check(frames::ipip(bad_l4), 1, prm::kCqeL3Ok, "IPv4 in IP, inner TCP checksum wrong");
	check(frames::gre(bad_l4, 0x0800, 0x4000), 0, prm::kCqeL3Ok, "GRE routing bit");
	check(frames::gre(bad_l4, 0x0800, 0x0001), 0, prm::kCqeL3Ok, "GRE version 1");
	check(frames::gre(bad_l4, 0x880b), 0, prm::kCqeL3Ok, "GRE carrying PPP");
	frames::Bytes cut = frames::gre(inner, 0x0800, frames::kGreKey);
	cut.resize(frames::l4_off(cut) + 6);	/* the key runs past the frame */
	frames::put16(cut, 14 + 2, (uint16_t)(cut.size() - 14));
	frames::put16(cut, 14 + 10, 0);
	frames::put16(cut, 14 + 10, frames::ref_ipv4_hdr_csum(cut));
	check(cut, 0, prm::kCqeL3Ok, "GRE header longer than the frame");
}

/* ConnectX-4 parses GRE but not IP in IP: the inner flags do nothing there, no inner verdicts. */
TEST_F(HwIpTunnelCx4, GreOnly)
{
	EXPECT_EQ(query_caps(fn0).ip_tunnels, prm::kCapTunnelGre);
	Link l;
	l.setup(fn0, fn1);
	frames::Spec is = inner_spec();
	is.payload = frames::payload(120, 2);
	const frames::Bytes inner = frames::build(is);
	l.send(frames::gre(inner, 0x0800), 18);	/* cx4 wants the L2 headers inline */
	auto rx = l.rxcq.poll_all();
	ASSERT_EQ(rx.size(), 1u);
	EXPECT_EQ(rx[0].tls_outer_l3_tunneled, 1);
	l.send(frames::ipip(inner), 18);
	rx = l.rxcq.poll_all();
	ASSERT_EQ(rx.size(), 1u);
	EXPECT_EQ(rx[0].tls_outer_l3_tunneled, 0);
	EXPECT_EQ(rx[0].hds_ip_ext, prm::kCqeL3Ok) << "outer verdict only";
}

} /* namespace */
