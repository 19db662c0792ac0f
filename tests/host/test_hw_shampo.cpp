// SPDX-License-Identifier: GPL-2.0
/*
 * The device's SHAMPO (header-data split + hardware GRO) on a striding RQ:
 * CREATE_RQ checks per model and field, then input sequences through the
 * wire (in order, out of order, TCP flag and option changes, IP ID, TTL
 * and ECN changes, bad checksums, mixed flows, IPv4 and IPv6, the session
 * limits, non-TCP frames and pure ACKs) with every CQE field, header entry
 * and stride byte asserted. The rules are in prm/cqe.h.
 */
#include <random>

#include "frames.h"
#include "gro_cases.h"
#include "gro_ref.h"
#include "hw_harness.h"
#include "prm/packet.h"

using namespace hwt;

namespace {

constexpr uint8_t kAck = prm::kTcpAck, kPsh = prm::kTcpPsh;

/* Byte k of the test TCP stream: segments cut from it join into it. */
uint8_t stream_byte(uint32_t k) { return (uint8_t)(k * 13 + (k >> 8) * 7 + 5); }
frames::Bytes stream(uint32_t seq, size_t len)
{
	frames::Bytes b(len);
	for (size_t i = 0; i < len; i++)
		b[i] = stream_byte(seq + (uint32_t)i);
	return b;
}

/* One TCP segment of the test flow, every field a merge rule looks at settable. */
struct Seg {
	uint32_t seq = 1000;
	size_t len = 1000;		/* payload */
	uint8_t flags = kAck;
	bool v6 = false;
	uint16_t sport = 1000;
	uint16_t id = 100;		/* IPv4 ID */
	bool df = true;
	uint8_t ttl = 64;
	uint8_t tos = 0;		/* IPv4 TOS, IPv6 traffic class */
	uint32_t flow_label = 0;	/* IPv6 */
	uint32_t ack = 5000;
	uint16_t window = 4000;
	frames::Bytes opts;		/* TCP options, a multiple of 4 bytes */
	frames::Bytes ip_opts;		/* IPv4 options, a multiple of 4 bytes */
	int vlan = -1;
	bool bad_l4_csum = false;
	uint8_t proto = 6;		/* 17: a UDP datagram of `len` bytes instead */
	size_t pad = 0;			/* Ethernet padding after the IP packet */
};

void put32(frames::Bytes &f, size_t off, uint32_t v)
{
	frames::put16(f, off, (uint16_t)(v >> 16));
	frames::put16(f, off + 2, (uint16_t)v);
}

frames::Bytes make(const Seg &s)
{
	frames::Spec sp;
	sp.v6 = s.v6;
	if (s.v6) {
		sp.src = "fd00::1";
		sp.dst = "fd00::2";
	}
	sp.proto = s.proto;
	sp.sport = s.sport;
	sp.tcp_flags = s.flags;
	sp.tcp_seq = s.seq;
	sp.vlan = s.vlan;
	sp.payload = stream(s.seq, s.len);
	sp.good_csums = false;
	frames::Bytes f = frames::build(sp);
	size_t l3 = frames::l3_off(f);
	if (!s.ip_opts.empty()) {
		f.insert(f.begin() + (long)l3 + 20, s.ip_opts.begin(), s.ip_opts.end());
		f[l3] = (uint8_t)(0x40 | (20 + s.ip_opts.size()) / 4);
		frames::put16(f, l3 + 2, (uint16_t)(frames::get16(f, l3 + 2) + s.ip_opts.size()));
	}
	size_t l4 = frames::l4_off(f);
	if (s.proto == 6 && !s.opts.empty()) {
		f.insert(f.begin() + (long)l4 + 20, s.opts.begin(), s.opts.end());
		f[l4 + 12] = (uint8_t)((20 + s.opts.size()) / 4 << 4);
		size_t lenoff = s.v6 ? l3 + 4 : l3 + 2;
		frames::put16(f, lenoff, (uint16_t)(frames::get16(f, lenoff) + s.opts.size()));
	}
	if (s.v6) {
		put32(f, l3, 6u << 28 | (uint32_t)s.tos << 20 | s.flow_label);
		f[l3 + 7] = s.ttl;
	} else {
		f[l3 + 1] = s.tos;
		frames::put16(f, l3 + 4, s.id);
		frames::put16(f, l3 + 6, s.df ? 0x4000 : 0);
		f[l3 + 8] = s.ttl;
	}
	if (s.proto == 6) {
		put32(f, l4 + 8, s.ack);
		frames::put16(f, l4 + 14, s.window);
	}
	frames::fill_reference_csums(f);
	if (s.bad_l4_csum)
		f[l4 + (s.proto == 6 ? 16 : 6)] ^= 0x5a;
	f.insert(f.end(), s.pad, 0);
	return f;
}

/* A SHAMPO RQ's parameters (CREATE_RQ encoding in shampo_fields()). */
struct Geo {
	uint32_t log_rq = 2, log_stride = 8, log_num = 8;	/* 4 WQEs of 256 x 256 B = 64 KiB */
	uint32_t log_res = 14;					/* 16 KiB reservations */
	uint32_t log_pkts = 4;					/* 16 packets each */
	uint32_t log_entry = 8;					/* 256-byte header entries */
	uint32_t log_hd = 8;		/* 4 WQEs x 4 reservations x 16 packets */
	uint32_t seg = 4096;		/* data segment size of the WQEs */
	uint8_t match = prm::kShampoMatchExtended;
};

/* What a test expects of one CQE. */
struct Want {
	bool match, flush;
	uint32_t data_offset, strides;
	uint16_t wqe = 0;
};

struct Got {
	bool filler, match, flush;
	uint16_t wqe, stride, hd_ix;
	uint8_t hdr;
	uint32_t strides, len, off;
};

Got decode(const prm::Cqe64 &c)
{
	uint32_t b = c.byte_cnt.get();
	return { (b & prm::kMpwrqCqeFiller) != 0, (c.shampo.flags & prm::kCqeShampoMatch) != 0,
		 (c.shampo.flags & prm::kCqeShampoFlush) != 0, c.wqe_id.get(), c.wqe_counter.get(),
		 c.shampo.header_entry_index.get(), c.shampo.header_size,
		 (b >> prm::kMpwrqCqeStridesShift) & prm::kMpwrqCqeStridesMask,
		 b & prm::kMpwrqCqeLenMask, c.shampo.data_offset.get() };
}

class HwShampo : public HwTest {
protected:
	int model() const override { return prm::kModelCx7; }

	prm::CreateRqIn shampo_fields(const Geo &g) const
	{
		return shampo_in(g.match, g.log_res, g.log_pkts, g.log_entry, g.log_hd, hd_ring.dma);
	}

	/* Header ring entry i names hd_bufs at i x entry size. */
	void alloc_headers(const Geo &g)
	{
		hd_ring.alloc(16u << g.log_hd);
		hd_bufs.alloc(1u << (g.log_hd + g.log_entry));
		for (uint32_t i = 0; i < 1u << g.log_hd; i++)
			set_hd(i, hd_bufs.dma + ((uint64_t)i << g.log_entry), 1u << g.log_entry);
	}
	void set_hd(uint32_t i, uint64_t addr, uint32_t len, uint32_t lkey = prm::kReservedLkey)
	{
		prm::ShampoHdrWqe w = {};
		w.data.byte_count.set(len);
		w.data.lkey.set(lkey);
		w.data.addr.set(addr);
		memcpy(hd_ring.cpu + 16 * i, &w, sizeof(w));
	}
	const uint8_t *hd_entry(uint32_t i) const { return hd_bufs.cpu + ((size_t)i << geo.log_entry); }

	/* fn0's SQ -> fn1, RSS steered to a SHAMPO RQ on its own CQ, every WQE posted. */
	void setup(const Geo &g = Geo(), uint32_t log_cq = 10)
	{
		geo = g;
		l.setup(fn0, fn1);
		ASSERT_EQ(cq.create(fn1, log_cq, 3), prm::kStatOk);
		alloc_headers(g);
		prm::CreateRqIn sh = shampo_fields(g);
		rq.shampo = &sh;
		ASSERT_EQ(rq.create(fn1, cq.cqn, g.log_rq, g.log_stride, g.log_num, g.seg), prm::kStatOk);
		rq.shampo = nullptr;
		ASSERT_EQ(modify_queue(fn1, prm::kCmdModifyRq, rq.rqn, prm::kQueueRst, prm::kQueueRdy),
			  prm::kStatOk);
		rq.post(1u << g.log_rq);
		steer_rx(fn1, l, rq.rqn);
	}
	void TearDown() override
	{
		teardown_rx(fn1, l, rq.rqn, cq);
		HwTest::TearDown();
	}

	/* Create with these fields (and geometry), expect `st`; destroy what was created. */
	uint8_t try_create(const prm::CreateRqIn &sh, const Geo &g, int wq_log_stride = -1)
	{
		StridingRq r;
		r.shampo = &sh;
		uint8_t st = r.create(fn1, cq.cqn, g.log_rq, g.log_stride, g.log_num, 4096,
				      wq_log_stride);
		if (st == prm::kStatOk) {
			EXPECT_EQ(destroy(fn1, prm::kCmdDestroyRq, r.rqn), prm::kStatOk);
		}
		return st;
	}

	/* Send frames, one doorbell each; their CQEs. */
	std::vector<prm::Cqe64> run(const std::vector<frames::Bytes> &fs)
	{
		for (const frames::Bytes &f : fs)
			l.send(f, 0, 0, false);
		return cq.poll_all();
	}

	/*
	 * One packet CQE for frame f, as `w` says, header entry `hd` holding its
	 * headers (split: hdr > 0) and the WQE buffer at data_offset its payload
	 * (or the whole frame when not split).
	 */
	void expect_pkt(const prm::Cqe64 &c, const frames::Bytes &f, size_t hdr, const Want &w,
			uint32_t hd, size_t payload)
	{
		Got g = decode(c);
		EXPECT_EQ(c.opcode(), prm::kCqeRespSend);
		EXPECT_FALSE(g.filler);
		EXPECT_EQ(g.match, w.match);
		EXPECT_EQ(g.flush, w.flush);
		EXPECT_EQ(g.off, w.data_offset);
		EXPECT_EQ(g.strides, w.strides);
		EXPECT_EQ(g.wqe, w.wqe);
		/* the strides counted before it: data_offset rounded up to a stride */
		EXPECT_EQ(g.stride, (w.data_offset + (1u << geo.log_stride) - 1) >> geo.log_stride);
		EXPECT_EQ(g.hd_ix, hd);
		EXPECT_EQ(g.hdr, hdr);
		EXPECT_EQ(g.len, hdr ? hdr + payload : f.size());
		EXPECT_EQ(c.srqn.get() >> 24, 0u) << "lro_num_seg stays 0";
		if (hdr) {
			EXPECT_EQ(frames::Bytes(hd_entry(hd), hd_entry(hd) + hdr),
				  frames::Bytes(f.begin(), f.begin() + (long)hdr))
				<< "header entry " << hd;
			frames::Bytes got = rq.read(w.wqe, 0, w.data_offset + (uint32_t)payload);
			EXPECT_EQ(frames::Bytes(got.begin() + w.data_offset, got.end()),
				  frames::Bytes(f.begin() + (long)hdr, f.begin() + (long)(hdr + payload)))
				<< "payload at " << w.data_offset;
		} else {
			frames::Bytes got = rq.read(w.wqe, w.data_offset >> geo.log_stride,
						    (uint32_t)f.size());
			EXPECT_EQ(got, f) << "frame at " << w.data_offset;
		}
	}
	/* A TCP segment built by make(): headers 54 (+ options, VLAN; IPv6: 74). */
	void expect_seg(const prm::Cqe64 &c, const Seg &s, const Want &w, uint32_t hd)
	{
		frames::Bytes f = make(s);
		size_t hdr = (s.v6 ? 74 : 54) + s.opts.size() + s.ip_opts.size() + (s.vlan >= 0 ? 4 : 0);
		expect_pkt(c, f, hdr, w, hd, s.len);
	}
	void expect_filler(const prm::Cqe64 &c, uint16_t wqe, uint16_t stride, uint32_t n)
	{
		Got g = decode(c);
		EXPECT_TRUE(g.filler);
		EXPECT_EQ(g.wqe, wqe);
		EXPECT_EQ(g.stride, stride);
		EXPECT_EQ(g.strides, n);
	}
	/* A sequence of segments of which each CQE is as `want` says, header entries from hd0. */
	void expect_run(const std::vector<Seg> &segs, const std::vector<Want> &want, uint32_t hd0 = 0)
	{
		std::vector<frames::Bytes> fs;
		for (const Seg &s : segs)
			fs.push_back(make(s));
		auto rx = run(fs);
		ASSERT_EQ(rx.size(), want.size());
		for (size_t i = 0; i < rx.size(); i++) {
			SCOPED_TRACE("segment " + std::to_string(i));
			expect_seg(rx[i], segs[i], want[i], hd0 + (uint32_t)i);
		}
	}

	Geo geo;
	Link l;
	Cq cq;
	StridingRq rq;
	Dma hd_ring, hd_bufs;
};

/* n in-order segments of `len` from seq0 (ACK only), every field else default. */
std::vector<Seg> in_order(size_t n, size_t len = 1000, uint32_t seq0 = 1000)
{
	std::vector<Seg> v;
	for (size_t i = 0; i < n; i++) {
		Seg s;
		s.seq = seq0 + (uint32_t)(i * len);
		s.len = len;
		s.id = (uint16_t)(100 + i);
		v.push_back(s);
	}
	return v;
}

class HwShampoCx6dx : public HwShampo {
protected:
	int model() const override { return prm::kModelCx6Dx; }
};

TEST_F(HwShampoCx6dx, RefusedWithoutTheCap)
{
	EXPECT_EQ(query_caps(fn1).shampo, 0);
	ASSERT_EQ(cq.create(fn1, 8, 3), prm::kStatOk);
	Geo g;
	alloc_headers(g);
	EXPECT_EQ(try_create(shampo_fields(g), g), prm::kStatBadParam);
	/* the same striding RQ without SHAMPO is fine */
	EXPECT_EQ(try_create(prm::CreateRqIn{}, g), prm::kStatOk);
}

TEST_F(HwShampo, CreateChecksEveryField)
{
	EXPECT_EQ(query_caps(fn1).shampo, 1);
	ASSERT_EQ(cq.create(fn1, 8, 3), prm::kStatOk);
	Geo g;
	alloc_headers(g);
	const prm::CreateRqIn good = shampo_fields(g);
	EXPECT_EQ(try_create(good, g), prm::kStatOk);

	auto bad = [&](const char *what, void (*edit)(prm::CreateRqIn *), Geo gg) {
		prm::CreateRqIn in = good;
		edit(&in);
		EXPECT_EQ(try_create(in, gg), prm::kStatBadParam) << what;
	};
	bad("enable 2", [](prm::CreateRqIn *in) { in->shampo_enable = 2; }, g);
	bad("fields without enable", [](prm::CreateRqIn *in) { in->shampo_enable = 0; }, g);
	bad("five-tuple match", [](prm::CreateRqIn *in) { in->shampo_match_criteria_type = 2; }, g);
	bad("byte alignment",
	    [](prm::CreateRqIn *in) { in->shampo_no_match_alignment_granularity = 0; }, g);
	bad("page alignment",
	    [](prm::CreateRqIn *in) { in->shampo_no_match_alignment_granularity = 2; }, g);
	bad("reservation 128 KiB", [](prm::CreateRqIn *in) { in->log_reservation_size = 5; }, g);
	bad("127 Ki packets",
	    [](prm::CreateRqIn *in) { in->log_max_num_of_packets_per_reservation = 13; }, g);
	bad("2 KiB header entries", [](prm::CreateRqIn *in) { in->log_headers_entry_size = 5; }, g);
	bad("header ring one entry short",
	    [](prm::CreateRqIn *in) { in->log_headers_buffer_entry_num = 7; }, g);
	bad("header ring above 64 Ki",
	    [](prm::CreateRqIn *in) { in->log_headers_buffer_entry_num = 17; }, g);
	bad("header ring not DMA memory",
	    [](prm::CreateRqIn *in) { in->headers_pas.set(0xdead0000ull); }, g);
	bad("header ring unaligned",
	    [](prm::CreateRqIn *in) { in->headers_pas.set(in->headers_pas.get() + 8); }, g);
	/* a reservation larger than the WQE buffer (16 strides of 256 B = 4 KiB; 16 KiB) */
	Geo small = g;
	small.log_num = 4;
	bad("reservation above the WQE", [](prm::CreateRqIn *) {}, small);
	/* a reservation smaller than a stride (8 KiB strides, 4 KiB reservation) */
	Geo big = g;
	big.log_stride = 13;
	big.log_num = 4;
	bad("reservation below a stride",
	    [](prm::CreateRqIn *in) { in->log_reservation_size = 0; }, big);

	/* a cyclic RQ with SHAMPO */
	prm::CreateRqIn in = good;
	in.hdr.opcode.set(prm::kCmdCreateRq);
	Rq cyc;
	cyc.ring.alloc(16 * 4);
	cyc.dbr.alloc(8);
	in.cqn.set(cq.cqn);
	in.log_wq_sz = 2;
	in.log_wq_stride = 4;
	in.wq_type = prm::kWqCyclic;
	in.dbr_addr.set(cyc.dbr.dma);
	in.pas.set(cyc.ring.dma);
	prm::CreateObjOut out;
	EXPECT_EQ(exec(fn1, in, &out), prm::kStatBadParam);
	/* the same without SHAMPO */
	constexpr size_t from = offsetof(prm::CreateRqIn, shampo_enable);
	memset(reinterpret_cast<uint8_t *>(&in) + from, 0, sizeof(in) - from);
	ASSERT_EQ(exec(fn1, in, &out), prm::kStatOk);
	EXPECT_EQ(destroy(fn1, prm::kCmdDestroyRq, out.obj_num.get()), prm::kStatOk);

	/* a CQ that compresses */
	Cq ccq;
	ccq.comp_en = 1;
	ASSERT_EQ(ccq.create(fn1, 8, 4), prm::kStatOk);
	StridingRq r;
	r.shampo = &good;
	EXPECT_EQ(r.create(fn1, ccq.cqn, g.log_rq, g.log_stride, g.log_num), prm::kStatBadParam);
	EXPECT_EQ(ccq.destroy(), prm::kStatOk);
	EXPECT_EQ(cq.destroy(), prm::kStatOk);
	cq.cqn = 0;
}

/* Five in-order segments, the last with PSH: one session, payloads back to back. */
TEST_F(HwShampo, InOrderSegmentsMerge)
{
	setup();
	auto segs = in_order(5);
	segs[4].flags = kAck | kPsh;
	expect_run(segs, {
				 { false, false, 0, 4 },	/* strides 0..3 */
				 { true, false, 1000, 4 },	/* ends at 2000: stride 7 */
				 { true, false, 2000, 4 },	/* 3000: stride 11 */
				 { true, false, 3000, 4 },	/* 4000: stride 15 */
				 { true, true, 4000, 4 },	/* 5000: stride 19; PSH */
			 });
	/* the stream as sent, byte for byte, from stride 0 */
	EXPECT_EQ(rq.read(0, 0, 5000), stream(1000, 5000));
	/* the next segment starts a session at stride 20 */
	Seg next;
	next.seq = 6000;
	next.id = 105;
	expect_run({ next }, { { false, false, 20 * 256, 4 } }, 5);
}

/* A gap in sequence ends the session; a segment continuing the new one joins it. */
TEST_F(HwShampo, OutOfOrderStartsANewSession)
{
	setup();
	auto segs = in_order(5);
	std::swap(segs[1], segs[2]);	/* 1000, 3000, 2000, 4000, 5000 */
	/* a retransmission of the last one; IDs in wire order */
	segs.push_back(segs[4]);
	for (size_t i = 0; i < segs.size(); i++)
		segs[i].id = (uint16_t)(100 + i);
	expect_run(segs, {
				 { false, false, 0, 4 },
				 { false, false, 1024, 4 },	/* 3000: stride 4 */
				 { false, false, 2048, 4 },	/* 2000 after 3000: stride 8 */
				 { false, false, 3072, 4 },	/* 4000 after 2000: stride 12 */
				 { true, false, 4072, 4 },	/* 5000 after 4000 */
				 { false, false, 5120, 4 },	/* seq 5000 again: stride 20 */
			 });
}

/* FIN and PSH join and end the session; CWR starts one; SYN/RST/URG/ECE never join. */
TEST_F(HwShampo, TcpFlagsEndOrBreakSessions)
{
	setup();
	auto segs = in_order(9);
	segs[1].flags = kAck | prm::kTcpFin;	/* joins, ends */
	segs[2].flags = kAck | prm::kTcpCwr;	/* starts a session */
	segs[3].flags = kAck;			/* joins it (CWR may differ) */
	segs[4].flags = kAck | prm::kTcpCwr;	/* CWR never joins */
	segs[5].flags = kAck | prm::kTcpEce;	/* flags differ */
	segs[6].flags = kAck | prm::kTcpUrg;	/* ends its own session */
	segs[7].flags = kAck | prm::kTcpRst;
	segs[8].flags = kAck;
	expect_run(segs, {
				 { false, false, 0, 4 },
				 { true, true, 1000, 4 },
				 { false, false, 2048, 4 },
				 { true, false, 3048, 4 },
				 { false, false, 4096, 4 },
				 { false, false, 5120, 4 },
				 { false, true, 6144, 4 },
				 { false, true, 7168, 4 },
				 { false, false, 8192, 4 },
			 });
}

/* Options must be byte-identical to the first segment's (a new TSval breaks the session). */
TEST_F(HwShampo, TcpOptionChangeBreaksTheSession)
{
	setup();
	auto ts = [](uint32_t val) {
		frames::Bytes o = { 1, 1, 8, 10, 0, 0, 0, 0, 0, 0, 0, 1 };
		o[4] = (uint8_t)(val >> 24);
		o[7] = (uint8_t)val;
		return o;
	};
	auto segs = in_order(5);
	segs[0].opts = ts(7);
	segs[1].opts = ts(7);
	segs[2].opts = ts(8);
	segs[3].opts = ts(8);
	segs[4].opts = {};		/* no options at all */
	segs[3].window = 4001;		/* window differs: breaks too */
	expect_run(segs, {
				 { false, false, 0, 4 },
				 { true, false, 1000, 4 },
				 { false, false, 2048, 4 },
				 { false, false, 3072, 4 },
				 { false, false, 4096, 4 },
			 });
}

/* IPv4 ID: +1 per segment, or fixed with DF, the second segment choosing; TTL must stay. */
TEST_F(HwShampo, IpIdAndTtlRules)
{
	setup();
	auto segs = in_order(10);
	/* 100, 101, 103 (gap) */
	segs[2].id = 103;
	/* fixed: 7, 7, 7, then 8 breaks */
	segs[3].id = segs[4].id = segs[5].id = 7;
	segs[6].id = 8;
	/* 9 then 9 without DF: no fixed ID without DF */
	segs[7].id = 9;
	segs[7].df = false;
	segs[8].id = 9;
	segs[8].df = false;
	/* 10 after 9 (no DF, incrementing) joins, then a TTL change breaks */
	segs[9].id = 10;
	segs[9].df = false;
	Seg ttl = segs[9];
	ttl.seq += 1000;
	ttl.id = 11;
	ttl.ttl = 63;
	segs.push_back(ttl);
	expect_run(segs, {
				 { false, false, 0, 4 },
				 { true, false, 1000, 4 },
				 { false, false, 2048, 4 },	/* 103 after 101 */
				 { false, false, 3072, 4 },	/* 7 after 103 */
				 { true, false, 4072, 4 },	/* 7, 7: fixed */
				 { true, false, 5072, 4 },
				 { false, false, 6144, 4 },	/* 8 in a fixed session */
				 { false, false, 7168, 4 },	/* DF differs */
				 { false, false, 8192, 4 },	/* 9, 9 without DF */
				 { true, false, 9192, 4 },	/* 10 after 9 */
				 { false, false, 10240, 4 },	/* TTL 63 */
			 });
}

/* A TOS change, ECN CE included, breaks the session (IPv4 and IPv6). */
TEST_F(HwShampo, EcnCeBreaksTheSession)
{
	setup();
	auto segs = in_order(4);
	for (Seg &s : segs)
		s.tos = 0x02;		/* ECT(0) */
	segs[2].tos = 0x03;		/* CE */
	segs[3].tos = 0x03;
	std::vector<Seg> v6 = in_order(3, 1000, 90000);
	for (Seg &s : v6) {
		s.v6 = true;
		s.tos = 0x02;
	}
	v6[2].tos = 0x03;
	segs.insert(segs.end(), v6.begin(), v6.end());
	expect_run(segs, {
				 { false, false, 0, 4 },
				 { true, false, 1000, 4 },
				 { false, false, 2048, 4 },
				 { true, false, 3048, 4 },	/* CE, CE */
				 { false, false, 4096, 4 },
				 { true, false, 5096, 4 },
				 { false, false, 6144, 4 },
			 });
}

/* A segment with a bad TCP checksum is split but stands alone; the next one starts anew. */
TEST_F(HwShampo, BadChecksumStandsAlone)
{
	setup();
	auto segs = in_order(4);
	segs[1].bad_l4_csum = true;
	std::vector<frames::Bytes> fs;
	for (const Seg &s : segs)
		fs.push_back(make(s));
	auto rx = run(fs);
	ASSERT_EQ(rx.size(), 4u);
	expect_seg(rx[0], segs[0], { false, false, 0, 4 }, 0);
	expect_pkt(rx[1], fs[1], 54, { false, true, 1024, 4 }, 1, 1000);
	EXPECT_EQ(rx[1].hds_ip_ext, prm::kCqeL3Ok) << "L4 not OK";
	expect_seg(rx[2], segs[2], { false, false, 2048, 4 }, 2);
	expect_seg(rx[3], segs[3], { true, false, 3048, 4 }, 3);
	EXPECT_EQ(rx[3].hds_ip_ext, prm::kCqeL3Ok | prm::kCqeL4Ok);
}

/* Interleaved flows: each packet breaks the other's session; a flow's run merges. */
TEST_F(HwShampo, MixedFlows)
{
	setup();
	auto a = in_order(4), b = in_order(4, 1000, 70000);
	for (Seg &s : b)
		s.sport = 1001;
	b[0].id = b[1].id = 300;	/* fixed ID, DF */
	b[2].id = b[3].id = 300;
	expect_run({ a[0], b[0], a[1], b[1], b[2], b[3], a[2], a[3] },
		   {
			   { false, false, 0, 4 },
			   { false, false, 1024, 4 },
			   { false, false, 2048, 4 },	/* a[1]: flow A's session ended */
			   { false, false, 3072, 4 },	/* b[1] */
			   { true, false, 4072, 4 },	/* b[2] continues b[1] */
			   { true, false, 5072, 4 },
			   { false, false, 6144, 4 },	/* a[2] */
			   { true, false, 7144, 4 },
		   });
}

/* IPv6: in order merges; flow label and hop limit changes break; VLAN-tagged IPv4 too. */
TEST_F(HwShampo, Ipv6AndVlan)
{
	setup();
	auto segs = in_order(6, 1200);
	for (Seg &s : segs)
		s.v6 = true;
	segs[3].flow_label = 0x12345;
	segs[4].flow_label = 0x12345;
	segs[5].flow_label = 0x12345;
	segs[5].ttl = 1;
	auto vl = in_order(2, 1000, 50000);
	for (Seg &s : vl)
		s.vlan = 5;
	segs.insert(segs.end(), vl.begin(), vl.end());
	expect_run(segs, {
				 { false, false, 0, 5 },	/* 1200: strides 0..4 */
				 { true, false, 1200, 5 },	/* 2400: ..9 */
				 { true, false, 2400, 5 },	/* 3600: ..14 */
				 { false, false, 3840, 5 },	/* flow label */
				 { true, false, 5040, 5 },
				 { false, false, 6400, 5 },	/* hop limit */
				 { false, false, 7680, 4 },	/* VLAN IPv4 */
				 { true, false, 8680, 4 },
			 });
}

/*
 * vsd 0: the tag is stripped before the split, so the header entry holds
 * the untagged headers, yet a session stays within one VLAN: the same
 * flow continuing under another TCI starts a new session, and every CQE
 * reports its own TCI.
 */
TEST_F(HwShampo, StrippedVlanKeepsSessionsPerTci)
{
	rq.vsd = 0;
	setup();
	auto segs = in_order(4, 1000);
	for (size_t i = 0; i < segs.size(); i++)
		segs[i].vlan = i < 2 ? 5 : 6;
	std::vector<frames::Bytes> fs;
	for (const Seg &sg : segs)
		fs.push_back(make(sg));
	auto rx = run(fs);
	ASSERT_EQ(rx.size(), 4u);
	const bool match[] = { false, true, false, true };
	for (size_t i = 0; i < rx.size(); i++) {
		SCOPED_TRACE("segment " + std::to_string(i));
		Got g = decode(rx[i]);
		EXPECT_EQ(g.match, match[i]);
		EXPECT_TRUE(rx[i].has_vlan());
		EXPECT_EQ(rx[i].vlan_info.get(), i < 2 ? 5 : 6);
		EXPECT_EQ(g.hdr, 54u) << "headers without the tag";
		frames::Bytes stripped = frames::vlan_strip(fs[i]);
		EXPECT_EQ(frames::Bytes(hd_entry(g.hd_ix), hd_entry(g.hd_ix) + 54),
			  frames::Bytes(stripped.begin(), stripped.begin() + 54));
	}
}

/* Strides a payload of len at byte off newly touches, given the strides counted before it. */
uint32_t strides_of(uint32_t off, uint32_t len, uint32_t log_stride)
{
	uint32_t s = 1u << log_stride;
	return (off + len + s - 1) / s - (off + s - 1) / s;
}

/* A session ends when the next MSS would not fit its reservation; the next starts after a filler. */
TEST_F(HwShampo, ReservationRoomEndsTheSession)
{
	Geo g;
	g.log_res = 12;		/* 4 KiB: 16 reservations per WQE */
	g.log_hd = 2 + 4 + 4;
	setup(g);
	auto segs = in_order(4, 1400);
	std::vector<frames::Bytes> fs;
	for (const Seg &s : segs)
		fs.push_back(make(s));
	auto rx = run(fs);
	ASSERT_EQ(rx.size(), 5u);
	expect_seg(rx[0], segs[0], { false, false, 0, 6 }, 0);		/* strides 0..5 */
	expect_seg(rx[1], segs[1], { true, true, 1400, 5 }, 1);		/* to 2800: 4200 > 4096 */
	expect_filler(rx[2], 0, 11, 5);					/* 2816 + 1400 > 4096 */
	expect_seg(rx[3], segs[2], { false, false, 4096, 6 }, 2);
	expect_seg(rx[4], segs[3], { true, true, 5496, 5 }, 3);		/* to 6896: 8296 > 8192 */
}

/* A reservation takes 2^log_max_num_of_packets_per_reservation packets: the last one flushes. */
TEST_F(HwShampo, PacketLimitPerReservation)
{
	Geo g;
	g.log_pkts = 2;
	g.log_hd = 2 + 2 + 2;
	setup(g);
	auto segs = in_order(6);
	std::vector<frames::Bytes> fs;
	for (const Seg &s : segs)
		fs.push_back(make(s));
	auto rx = run(fs);
	ASSERT_EQ(rx.size(), 7u);
	expect_seg(rx[0], segs[0], { false, false, 0, 4 }, 0);
	expect_seg(rx[1], segs[1], { true, false, 1000, 4 }, 1);
	expect_seg(rx[2], segs[2], { true, false, 2000, 4 }, 2);
	expect_seg(rx[3], segs[3], { true, true, 3000, 4 }, 3);
	expect_filler(rx[4], 0, 16, 48);	/* the rest of reservation 0 */
	expect_seg(rx[5], segs[4], { false, false, 16384, 4 }, 4);
	expect_seg(rx[6], segs[5], { true, false, 17384, 4 }, 5);
}

/*
 * First headers + payload <= 65535: with 98 bytes of headers (VLAN, 40
 * bytes of TCP options) and an MSS of 1310, the 49th segment ends the
 * session though its 64 KiB reservation has room for a 50th.
 */
TEST_F(HwShampo, SessionOf64KiB)
{
	Geo g;
	g.log_rq = 1;
	g.log_stride = 10;
	g.log_num = 8;		/* 256 KiB */
	g.log_res = 16;
	g.log_pkts = 6;
	g.log_hd = 1 + 2 + 6;
	g.seg = 8192;
	setup(g);
	auto segs = in_order(50, 1310);
	for (Seg &s : segs) {
		s.vlan = 7;
		s.opts.assign(40, 1);	/* NOPs */
	}
	std::vector<frames::Bytes> fs;
	for (const Seg &s : segs)
		fs.push_back(make(s));
	auto rx = run(fs);
	ASSERT_EQ(rx.size(), 51u);
	uint32_t off = 0;
	for (uint32_t i = 0; i < 49; i++) {
		SCOPED_TRACE("segment " + std::to_string(i));
		expect_seg(rx[i], segs[i], { i > 0, i == 48, off, strides_of(off, 1310, 10) }, i);
		off += 1310;
	}
	EXPECT_EQ(off, 64190u);
	expect_filler(rx[49], 0, 63, 1);	/* 64512 + 1310 > 65536 */
	expect_seg(rx[50], segs[49], { false, false, 65536, 2 }, 49);
	EXPECT_EQ(rq.read(0, 0, 64190), stream(1000, 64190));
}

/* Non-TCP frames, IPv4 fragments: whole at a stride; IPv4 options: split, alone. */
TEST_F(HwShampo, NonTcpIsNotSplit)
{
	setup();
	Seg a0, udp, a1, icmp, frag, opts;
	udp.proto = 17;
	udp.len = 300;
	a1.seq = 2000;
	a1.id = 101;
	icmp.proto = 1;
	icmp.len = 100;
	frag.seq = 3000;
	opts.seq = 4000;
	opts.ip_opts = { 1, 1, 1, 0 };
	frames::Bytes ff = make(frag);
	size_t l3 = frames::l3_off(ff);
	frames::put16(ff, l3 + 6, 0x2000);	/* MF */
	frames::fill_reference_csums(ff);
	std::vector<frames::Bytes> fs = { make(a0), make(udp), make(a1), make(icmp), ff, make(opts) };
	auto rx = run(fs);
	ASSERT_EQ(rx.size(), 6u);
	expect_seg(rx[0], a0, { false, false, 0, 4 }, 0);
	expect_pkt(rx[1], fs[1], 0, { false, true, 1024, 2 }, 1, 0);	/* 342 bytes */
	expect_seg(rx[2], a1, { false, false, 1536, 4 }, 2);
	expect_pkt(rx[3], fs[3], 0, { false, true, 2560, 1 }, 3, 0);	/* 134 bytes */
	expect_pkt(rx[4], fs[4], 0, { false, true, 2816, 5 }, 4, 0);	/* 1054 bytes */
	expect_seg(rx[5], opts, { false, true, 4096, 4 }, 5);		/* 58 bytes of headers */
}

/* A pure ACK: headers only (padding not written), no stride, alone; it ends its flow's session. */
TEST_F(HwShampo, PureAckIsHeaderOnly)
{
	setup();
	Seg a0, ack, a1, ack2;
	ack.seq = 2000;
	ack.len = 0;
	ack.pad = 6;		/* a 60-byte frame */
	ack.id = 101;
	a1.seq = 2000;
	a1.id = 102;
	ack2.seq = 3000;
	ack2.len = 0;
	ack2.id = 103;
	std::vector<frames::Bytes> fs = { make(a0), make(ack), make(a1), make(ack2) };
	EXPECT_EQ(fs[1].size(), 60u);
	auto rx = run(fs);
	ASSERT_EQ(rx.size(), 4u);
	expect_seg(rx[0], a0, { false, false, 0, 4 }, 0);
	expect_seg(rx[1], ack, { false, true, 1024, 0 }, 1);
	EXPECT_EQ(decode(rx[1]).len, 54u) << "padding is not counted";
	EXPECT_EQ(rx[1].l4_type(), prm::kCqeL4TcpAckNoData);
	expect_seg(rx[2], a1, { false, false, 1024, 4 }, 2);
	expect_seg(rx[3], ack2, { false, true, 2048, 0 }, 3);
}

/* A session ends at the WQE's end; the next packet goes to the next WQE after a filler. */
TEST_F(HwShampo, WqeEndEndsTheSession)
{
	Geo g;
	g.log_num = 6;		/* 64 strides of 256 B = 16 KiB = one reservation */
	g.log_hd = 2 + 0 + 4;
	setup(g);
	auto segs = in_order(13, 1400);
	std::vector<frames::Bytes> fs;
	for (const Seg &s : segs)
		fs.push_back(make(s));
	auto rx = run(fs);
	ASSERT_EQ(rx.size(), 14u);
	uint32_t off = 0;
	for (uint32_t i = 0; i < 11; i++) {
		SCOPED_TRACE("segment " + std::to_string(i));
		expect_seg(rx[i], segs[i], { i > 0, i == 10, off, strides_of(off, 1400, 8) }, i);
		off += 1400;
	}
	expect_filler(rx[11], 0, 61, 3);	/* 15616 + 1400 > 16384 */
	expect_seg(rx[12], segs[11], { false, false, 0, 6, 1 }, 11);
	expect_seg(rx[13], segs[12], { true, false, 1400, 5, 1 }, 12);
	/* WQE 0's CQEs count each of its 64 strides once, each from where the last left off */
	uint32_t sum = 0;
	for (size_t i = 0; i < 12; i++) {
		EXPECT_EQ(decode(rx[i]).stride, sum);
		sum += decode(rx[i]).strides;
	}
	EXPECT_EQ(sum, 64u);
}

/*
 * A packet that takes the WQE's last stride ends its session (flush), even
 * with room left in the reservation for another MSS: the next packet goes
 * to the next WQE (found by tests/fuzz fuzz_shampo: flush was 0 there).
 * 64 strides of 64 B, MSS 20: segment 201 ends at 4040, in stride 63.
 */
TEST_F(HwShampo, LastStrideEndsTheSession)
{
	Geo g;
	g.log_stride = 6;
	g.log_num = 6;
	g.log_res = 12;
	g.log_pkts = 8;
	g.log_hd = 2 + 0 + 8;
	setup(g);
	auto segs = in_order(203, 20);
	std::vector<frames::Bytes> fs;
	for (const Seg &s : segs)
		fs.push_back(make(s));
	auto rx = run(fs);
	ASSERT_EQ(rx.size(), 203u);
	Got before = decode(rx[200]), last = decode(rx[201]), next = decode(rx[202]);
	EXPECT_TRUE(before.match);
	EXPECT_FALSE(before.flush);
	EXPECT_EQ(last.off, 4020u);
	EXPECT_EQ(last.stride + last.strides, 64u) << "the WQE's last stride";
	EXPECT_TRUE(last.match);
	EXPECT_TRUE(last.flush) << "4040 + 20 fits the reservation, but the WQE is done";
	EXPECT_FALSE(next.match);
	EXPECT_EQ(next.wqe, 1);
	EXPECT_EQ(next.off, 0u);
}

/* Headers longer than a header entry: the packet is not split. */
TEST_F(HwShampo, HeadersLongerThanTheEntryAreNotSplit)
{
	Geo g;
	g.log_entry = 6;	/* 64 bytes */
	setup(g);
	auto segs = in_order(3);
	segs[1].opts = { 1, 1, 8, 10, 0, 0, 0, 1, 0, 0, 0, 2 };	/* 66 bytes of headers */
	std::vector<frames::Bytes> fs;
	for (const Seg &s : segs)
		fs.push_back(make(s));
	auto rx = run(fs);
	ASSERT_EQ(rx.size(), 3u);
	expect_seg(rx[0], segs[0], { false, false, 0, 4 }, 0);
	expect_pkt(rx[1], fs[1], 0, { false, true, 1024, 5 }, 1, 0);	/* 1066 bytes whole */
	expect_seg(rx[2], segs[2], { false, false, 2304, 4 }, 2);
}

/* A data segment the device may not reach: error CQE, the RQ in ERR. */
TEST_F(HwShampo, UnmappedDataIsADmaFault)
{
	setup();
	rq.set_seg(0, 0, 0xdead0000ull, 4096);
	auto segs = in_order(1);
	auto rx = run({ make(segs[0]) });
	ASSERT_EQ(rx.size(), 1u);
	EXPECT_EQ(rx[0].opcode(), prm::kCqeRespErr);
	EXPECT_EQ(reinterpret_cast<const prm::ErrCqe &>(rx[0]).syndrome, prm::kSyndLocalProtErr);
	EXPECT_EQ(rx[0].wqe_id.get(), 0);
	EXPECT_EQ(run({ make(segs[0]) }).size(), 0u);
	EXPECT_EQ(query_q(fn1).rx_if_down_packets.get(), 1u);
}

/*
 * The header ring: an entry per packet CQE in ring order (none for a
 * filler), wrapping; the device runs out of WQEs, not entries.
 */
TEST_F(HwShampo, HeaderRingWrapsWithTheWqes)
{
	Geo g;
	g.log_rq = 1;
	g.log_num = 4;		/* 16 strides of 256 B = one 4 KiB reservation */
	g.log_res = 12;
	g.log_pkts = 2;
	g.log_hd = 1 + 0 + 2;	/* 8 entries */
	setup(g);
	std::vector<Seg> acks(9);
	for (uint32_t i = 0; i < acks.size(); i++) {
		acks[i].len = 0;
		acks[i].seq = 1000 + i;
		acks[i].id = (uint16_t)(100 + i);
	}
	std::vector<frames::Bytes> fs;
	for (const Seg &s : acks)
		fs.push_back(make(s));
	auto rx = run(fs);
	ASSERT_EQ(rx.size(), 10u);
	for (uint32_t i = 0; i < 4; i++)
		expect_seg(rx[i], acks[i], { false, true, 0, 0, 0 }, i);
	expect_filler(rx[4], 0, 0, 16);
	for (uint32_t i = 4; i < 8; i++)
		expect_seg(rx[i + 1], acks[i], { false, true, 0, 0, 1 }, i);
	/* the 9th: WQE 1 has its 4 packets, a filler retires it, no WQE 2: dropped */
	expect_filler(rx[9], 1, 0, 16);
	EXPECT_EQ(query_q(fn1).rx_out_of_buffer.get(), 1u);
	/* the driver posts WQE 0 again: its packet takes entry 8 & 7 = 0 */
	rq.post(2);
	rx = run({ fs[8] });
	ASSERT_EQ(rx.size(), 1u);
	expect_seg(rx[0], acks[8], { false, true, 0, 0, 0 }, 0);
	EXPECT_EQ(query_q(fn1).rx_out_of_buffer.get(), 1u);
}

/* A bad header WQE or buffer: error CQE, the RQ in ERR; recovery starts at entry 0 again. */
TEST_F(HwShampo, HeaderEntryErrorsAndRecovery)
{
	setup();
	struct Case {
		const char *what;
		uint32_t len, lkey;
		uint64_t addr;
		uint8_t synd;
	} cases[] = {
		{ "lkey", 256, 0x1234, 0, prm::kSyndLocalProtErr },
		{ "size", 128, prm::kReservedLkey, 0, prm::kSyndLocalLengthErr },
		{ "unmapped", 256, prm::kReservedLkey, 0xdead0000ull, prm::kSyndLocalProtErr },
	};
	uint64_t faults = query_bus(fn1).dma_faults.get();
	for (const Case &c : cases) {
		SCOPED_TRACE(c.what);
		set_hd(1, c.addr ? c.addr : hd_bufs.dma + 256, c.len, c.lkey);
		auto segs = in_order(2);
		auto rx = run({ make(segs[0]), make(segs[1]) });
		ASSERT_EQ(rx.size(), 2u);
		expect_seg(rx[0], segs[0], { false, false, 0, 4 }, 0);
		EXPECT_EQ(rx[1].opcode(), prm::kCqeRespErr);
		EXPECT_EQ(reinterpret_cast<const prm::ErrCqe &>(rx[1]).syndrome, c.synd);
		EXPECT_EQ(rx[1].wqe_id.get(), 0);
		/* in ERR: dropped */
		EXPECT_EQ(run({ make(segs[1]) }).size(), 0u);
		set_hd(1, hd_bufs.dma + 256, 256);
		rq.reset(prm::kQueueErr, 4);
	}
	EXPECT_EQ(query_bus(fn1).dma_faults.get(), faults + 1);
	/* after the recovery: WQE 0, stride 0, entry 0, and entries 0 and 1 work */
	auto segs = in_order(2);
	expect_run(segs, { { false, false, 0, 4 }, { true, false, 1000, 4 } });
}

/*
 * An error CQE that finds the CQ full (the packet's filler CQE took the last
 * slot): the frame is lost with the RQ in ERR, and rx_cq_overrun counts it
 * (found by tests/fuzz fuzz_shampo: the frame was counted nowhere).
 */
TEST_F(HwShampo, ErrorCqeOverrunIsCounted)
{
	Geo g;
	g.log_pkts = 0;		/* one packet per reservation: the next needs a filler */
	g.log_hd = 2 + 2;
	setup(g, 1);		/* a CQ of 2 CQEs */
	set_hd(1, hd_bufs.dma + 256, 256, 0x1234);
	auto segs = in_order(2);
	uint64_t overrun = query_q(fn1).rx_cq_overrun.get();
	l.send(make(segs[0]), 0, 0, false);
	l.send(make(segs[1]), 0, 0, false);
	auto rx = cq.poll_all();
	ASSERT_EQ(rx.size(), 2u);
	expect_seg(rx[0], segs[0], { false, true, 0, 4 }, 0);
	expect_filler(rx[1], 0, 4, 60);	/* the rest of reservation 0; its error CQE overran */
	EXPECT_EQ(query_q(fn1).rx_cq_overrun.get(), overrun + 1);
	/* the CQ works again once the RQ is reset */
	set_hd(1, hd_bufs.dma + 256, 256);
	rq.reset(prm::kQueueErr, 4);
	expect_run({ segs[1] }, { { false, true, 0, 4 } });
}

/* NO_MATCH: headers split, every packet its own session. */
TEST_F(HwShampo, NoMatchSplitsOnly)
{
	Geo g;
	g.match = prm::kShampoNoMatch;
	setup(g);
	expect_run(in_order(3), {
					{ false, true, 0, 4 },
					{ false, true, 1024, 4 },
					{ false, true, 2048, 4 },
				});
}

/*
 * Random traffic under ASan/UBSan: a few flows with random flag, option,
 * sequence, ID, TTL, TOS, length and checksum changes, random header bytes
 * and truncated frames, the WQEs posted again as they retire. Every CQE
 * must keep the format's promises: strides counted once and in order,
 * header entries in ring order, the headers and payload where the CQE
 * says, a match continuing the previous packet's payload byte for byte.
 */
TEST_F(HwShampo, RandomTrafficKeepsTheFormat)
{
	setup();
	std::mt19937 rng(1414);
	const uint32_t nstrides = 1u << geo.log_num, buf = 1u << (geo.log_stride + geo.log_num);
	uint32_t counted = 0, wqe = 0, hd = 0, flows_seq[3] = { 1000, 50000, 90000 };
	uint16_t ids[3] = { 1, 1, 1 };
	bool prev_pkt = false, prev_flush = true;
	uint32_t prev_end = 0, matches = 0, splits = 0;

	for (int iter = 0; iter < 1500; iter++) {
		std::vector<frames::Bytes> fs;
		for (uint32_t n = 1 + rng() % 6; n; n--) {
			uint32_t fl = rng() % 3;
			Seg sg;
			sg.sport = (uint16_t)(1000 + fl);
			sg.v6 = fl == 2;
			sg.seq = flows_seq[fl];
			sg.len = rng() % 8 ? 1000 : rng() % 1400;
			sg.id = ids[fl]++;
			if (rng() % 10 == 0)
				sg.flags = (uint8_t)(kAck | (1u << (rng() % 8)));
			if (rng() % 10 == 0)
				sg.opts = { 1, 1, 8, 10, 0, 0, 0, (uint8_t)(rng() % 2), 0, 0, 0, 1 };
			if (rng() % 20 == 0)
				sg.seq += 1000;
			if (rng() % 20 == 0)
				sg.ttl = 1;
			if (rng() % 20 == 0)
				sg.tos = 3;
			if (rng() % 30 == 0)
				sg.bad_l4_csum = true;
			if (rng() % 30 == 0)
				sg.proto = 17;
			flows_seq[fl] = sg.seq + (uint32_t)sg.len;
			frames::Bytes f = make(sg);
			if (rng() % 25 == 0)
				f[rng() % 60] ^= (uint8_t)(1u << (rng() % 8));	/* a header bit */
			if (rng() % 40 == 0)
				f.resize(14 + rng() % (f.size() - 14));	/* truncated */
			fs.push_back(f);
		}
		auto rx = run(fs);
		size_t next = 0;
		for (const prm::Cqe64 &c : rx) {
			ASSERT_EQ(c.opcode(), prm::kCqeRespSend);
			Got g = decode(c);
			ASSERT_EQ(g.wqe, wqe & ((1u << geo.log_rq) - 1));
			ASSERT_EQ(g.stride, counted);
			ASSERT_LE(counted + g.strides, nstrides);
			if (g.filler) {
				prev_pkt = false;
			} else {
				ASSERT_LT(next, fs.size()) << "a CQE for every frame, no more";
				const frames::Bytes &f = fs[next++];
				ASSERT_EQ(g.hd_ix, hd++ & ((1u << geo.log_hd) - 1));
				uint32_t data = g.len - g.hdr;
				ASSERT_LE(g.off + data, buf);
				ASSERT_EQ(g.hdr ? frames::Bytes(hd_entry(g.hd_ix), hd_entry(g.hd_ix) + g.hdr) :
						  frames::Bytes(),
					  frames::Bytes(f.begin(), f.begin() + g.hdr));
				frames::Bytes got = rq.read(g.wqe, 0, g.off + data);
				ASSERT_EQ(frames::Bytes(got.begin() + g.off, got.end()),
					  frames::Bytes(f.begin() + g.hdr, f.begin() + g.hdr + data));
				if (g.match) {
					ASSERT_TRUE(prev_pkt && !prev_flush) << "a match continues an open session";
					ASSERT_EQ(g.off, prev_end);
					ASSERT_GT(g.hdr, 0);
					matches++;
				}
				splits += g.hdr > 0;
				prev_pkt = true;
				prev_flush = g.flush;
				prev_end = g.off + data;
			}
			counted += g.strides;
			if (counted == nstrides) {
				counted = 0;
				wqe++;
				prev_pkt = false;
				rq.post(1);
			}
		}
		ASSERT_EQ(next, fs.size()) << "no frame dropped";
	}
	EXPECT_GT(matches, 400u);
	EXPECT_GT(splits, 4000u);
	EXPECT_GT(wqe, 20u);
}


/*
 * The device's sessions (a packet CQE without match opens one, one with
 * match continues it) against the software GRO reference (gro_ref.h) on
 * the shared cases (gro_cases.h), with mlx5e's geometry (64 KiB
 * reservations of 64 packets): every session's segments are ones Linux
 * merges into one skb; where no device limit is in play the sessions are
 * the skbs of software GRO over the whole poll.
 */
class HwShampoVsGro : public HwShampo {
protected:
	void expect_within_reference(const std::vector<frames::Bytes> &fs, bool exact);
};
class HwShampoRef : public HwShampoVsGro, public ::testing::WithParamInterface<gro_cases::Case> {};
class HwShampoRandom : public HwShampoVsGro, public ::testing::WithParamInterface<uint32_t> {};

void HwShampoVsGro::expect_within_reference(const std::vector<frames::Bytes> &fs, bool exact)
{
	Geo g;
	g.log_res = 16;
	g.log_pkts = 6;
	setup(g);
	ASSERT_FALSE(HasFatalFailure());
	std::vector<std::vector<frames::Bytes>> sessions;
	size_t k = 0;
	bool open = false;

	for (const prm::Cqe64 &c : run(fs)) {
		Got d = decode(c);
		if (d.filler)
			continue;
		ASSERT_LT(k, fs.size());
		if (d.match)
			EXPECT_TRUE(open) << "frame " << k << ": a match continues an open session";
		else
			sessions.emplace_back();
		sessions.back().push_back(fs[k++]);
		open = !d.flush;
	}
	EXPECT_EQ(k, fs.size());
	for (const std::vector<frames::Bytes> &s : sessions) {
		std::vector<gro::Skb> sw = gro::receive(s);
		EXPECT_EQ(sw.size(), 1u) << "a session Linux does not merge: " << gro::describe(sw[0]) << " and "
					 << sw.size() - 1 << " more";
	}
	if (exact) {
		std::vector<gro::Skb> ref = gro::receive(fs);
		std::vector<size_t> of = gro::skb_of_frames(fs, ref);
		EXPECT_EQ(sessions.size(), ref.size()) << "software GRO hands up as many skbs";
		for (size_t i = 0, f = 0; i < sessions.size(); f += sessions[i++].size())
			for (size_t j = 1; j < sessions[i].size(); j++)
				EXPECT_EQ(of[f + j], of[f]) << "frame " << f + j << " merged beyond software GRO";
	}
}

TEST_P(HwShampoRef, SessionsLieWithinSoftwareGro)
{
	expect_within_reference(GetParam().frames(), GetParam().exact);
}

/* Random traffic of three flows (gro_cases::random_traffic), one seed a test. */
TEST_P(HwShampoRandom, SessionsLieWithinSoftwareGro)
{
	expect_within_reference(gro_cases::random_traffic(GetParam()), false);
}

INSTANTIATE_TEST_SUITE_P(Cases, HwShampoRef, ::testing::ValuesIn(gro_cases::cases()),
			 [](const ::testing::TestParamInfo<gro_cases::Case> &i) { return std::string(i.param.name); });
INSTANTIATE_TEST_SUITE_P(Seeds, HwShampoRandom, ::testing::Range(1u, 41u));

} /* namespace */
