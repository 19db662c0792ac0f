// SPDX-License-Identifier: GPL-2.0
/*
 * Target "shampo": SHAMPO (header-data split + hardware GRO, prm/cmd.h and
 * prm/cqe.h) on a ConnectX-7. Function 1 gets one SHAMPO RQ of input-chosen
 * geometry (in the valid ranges) behind an RSS object, its header ring
 * entries naming a pool of header buffers, some entries malformed by the
 * input (bad lkey, wrong byte_count, unmapped or too-short address); every
 * WQE posted. Function 0 then sends frames built from templates with input
 * changes: TCP over IPv4/IPv6 in two flows (seq advancing or not, flags,
 * timestamps, IP ID/DF/TTL/TOS changes, bad checksums, pure ACKs, fragments),
 * UDP, ICMP, other ethertypes, VLAN tags, any length; CQEs read after each
 * frame or after a few (a small CQ may overrun).
 *
 * Invariants, from this file's own reading of the CQEs (not src/hw code):
 * - every frame is completed by one packet CQE, or one error CQE, or
 *   counted once as a drop (out of buffer, oversize, CQ overrun, RQ in ERR);
 * - a completed frame: the header entry's header_size bytes + the payload at
 *   data_offset of its WQE are the frame sent (not split: the whole frame at
 *   data_offset); header_size is the frame's L2..L4 header length; nothing
 *   is named beyond the WQE buffer; the header pool changes only where a
 *   packet CQE says;
 * - header_entry_index advances by one per packet CQE, modulo the ring; an
 *   error CQE only where the entry is malformed, a split packet never from a
 *   malformed entry;
 * - match = 1 exactly when the previous packet CQE had flush = 0 and the
 *   frame continues its session by the rules of prm/cqe.h; flush exactly by
 *   those rules; a reservation never takes more packets than its limit;
 * - per WQE the strides of its CQEs (fillers included) add up exactly, each
 *   CQE starting where the previous ones ended, fillers ending on a
 *   reservation boundary.
 * ASan/UBSan silent, no leak.
 */
#include <deque>

#include "fuzz.h"

using namespace fz;

namespace {

enum {
	kPkt, kSplit, kUnsplit, kMatch, kFlushLimit, kFiller, kPureAck, kV6, kVlan, kErrLkey,
	kErrLen, kErrAddr, kOutOfBuffer, kOversize, kOverrun, kIfDown, kWqeWrap, kHdWrap, kNoMatch,
	kNrCov
};
Cov g_cov[kNrCov] = {
	{ "packet CQE", true, 0 },
	{ "split (header entry)", true, 0 },
	{ "not split", true, 0 },
	{ "match (session continued)", true, 0 },
	{ "flush by room or limit", true, 0 },
	{ "filler CQE", true, 0 },
	{ "pure ACK", true, 0 },
	{ "IPv6 split", true, 0 },
	{ "VLAN split", true, 0 },
	{ "error CQE: bad lkey", true, 0 },
	{ "error CQE: bad byte_count", true, 0 },
	{ "error CQE: bad address", true, 0 },
	{ "drop: out of buffer", true, 0 },
	{ "drop: oversize", true, 0 },
	{ "drop: CQ overrun", false, 0 },
	{ "drop: RQ in ERR", false, 0 },
	{ "WQE ring wrapped", true, 0 },
	{ "header ring wrapped", true, 0 },
	{ "match criteria NO_MATCH", true, 0 },
};

constexpr uint8_t kFin = 0x01, kSyn = 0x02, kRst = 0x04, kPsh = 0x08, kAck = 0x10, kUrg = 0x20,
		  kCwr = 0x80;
constexpr uint32_t kPool = 16;
/* SCX_FUZZ_DEBUG=1: every frame's fate and every CQE on stderr (replaying a crash). */
const bool g_debug = getenv("SCX_FUZZ_DEBUG") != nullptr;	/* header buffers; entry i uses buffer i % kPool */

uint16_t get16(const uint8_t *p) { return (uint16_t)(p[0] << 8 | p[1]); }
uint32_t get32(const uint8_t *p) { return (uint32_t)get16(p) << 16 | get16(p + 2); }
void put16(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}
void put32(uint8_t *p, uint32_t v)
{
	put16(p, v >> 16);
	put16(p + 2, v);
}

uint32_t csum_add(uint32_t acc, const uint8_t *p, uint32_t n)
{
	for (uint32_t i = 0; i + 1 < n; i += 2)
		acc += get16(p + i);
	if (n & 1)
		acc += (uint32_t)p[n - 1] << 8;
	return acc;
}
uint16_t csum_fold(uint32_t acc)
{
	while (acc >> 16)
		acc = (acc & 0xffff) + (acc >> 16);
	return (uint16_t)acc;
}

/* ---- this file's reading of a frame ---- */
struct Parsed {
	bool tcp = false;	/* TCP over IPv4 (no fragment) or IPv6 (next header 6), lengths consistent */
	bool v6 = false, vlan = false;
	uint32_t l3 = 0, l4 = 0, hdr = 0, payload = 0;
	bool ip_opts = false;
	bool csum_ok = false;	/* IPv4 header (v4) and TCP checksums verify */
};

Parsed parse(const Bytes &f)
{
	Parsed p;
	uint32_t len = (uint32_t)f.size(), off = 12;
	if (len < 14)
		return p;
	uint16_t type = get16(&f[12]);
	for (int t = 0; t < 2 && (type == 0x8100 || type == 0x88a8) && off + 6 <= len; t++) {
		type = get16(&f[off + 4]);
		off += 4;
		p.vlan = true;
	}
	off += 2;
	p.l3 = off;
	const uint8_t *ip = &f[0] + off;
	uint32_t l4len;
	uint32_t acc;
	bool ipok = true;
	if (type == 0x0800 && off + 20 <= len) {
		uint32_t ihl = (ip[0] & 0xf) * 4u, tot = get16(ip + 2);
		if (ip[0] >> 4 != 4 || ihl < 20 || tot < ihl || off + tot > len || ip[9] != 6 ||
		    (get16(ip + 6) & 0x3fff))
			return p;
		p.l4 = off + ihl;
		l4len = tot - ihl;
		p.ip_opts = ihl != 20;
		ipok = csum_fold(csum_add(0, ip, ihl)) == 0xffff;
		acc = csum_add(0, ip + 12, 8);
	} else if (type == 0x86dd && off + 40 <= len) {
		uint32_t pl = get16(ip + 4);
		if (ip[0] >> 4 != 6 || ip[6] != 6 || off + 40 + pl > len)
			return p;
		p.v6 = true;
		p.l4 = off + 40;
		l4len = pl;
		acc = csum_add(0, ip + 8, 32);
	} else {
		return p;
	}
	if (l4len < 20)
		return p;
	uint32_t doff = (f[p.l4 + 12] >> 4) * 4u;
	if (doff < 20 || doff > l4len)
		return p;
	p.tcp = true;
	p.hdr = p.l4 + doff;
	p.payload = l4len - doff;
	acc += 6 + l4len;
	acc = csum_add(acc, &f[p.l4], l4len);
	p.csum_ok = ipok && csum_fold(acc) == 0xffff;
	return p;
}

/* ---- frames ---- */
struct Flow {
	bool v6, vlan, ts, df;
	uint16_t sport;
	uint32_t seq, ack;
	uint16_t id;
	uint32_t tsval;
	uint8_t ttl, tos;
	uint32_t mss;
};

void fix_csums(Bytes &f, const Parsed &p, bool bad_ip, bool bad_l4)
{
	uint8_t *ip = &f[p.l3];
	uint32_t acc;
	uint32_t l4len;
	if (!p.v6) {
		uint32_t ihl = (ip[0] & 0xf) * 4u;
		put16(ip + 10, 0);
		put16(ip + 10, (uint16_t)~csum_fold(csum_add(0, ip, ihl)) ^ (bad_ip ? 0x1111 : 0));
		acc = csum_add(0, ip + 12, 8);
		l4len = get16(ip + 2) - ihl;
	} else {
		acc = csum_add(0, ip + 8, 32);
		l4len = get16(ip + 4);
	}
	uint8_t proto = p.v6 ? ip[6] : ip[9];
	uint32_t co = proto == 6 ? 16 : proto == 17 ? 6 : 2;
	if (co + 2 > l4len)
		return;
	uint8_t *l4 = &f[p.l4];
	put16(l4 + co, 0);
	if (proto != 1)
		acc += proto + l4len;
	else
		acc = 0;	/* ICMP: no pseudo header */
	uint16_t c = (uint16_t)~csum_fold(csum_add(acc, l4, l4len));
	put16(l4 + co, c ^ (bad_l4 ? 0x0101 : 0));
}

/* L2 + IP (+ L4 header of `l4hdr` bytes) for `payload` bytes; returns the frame. */
Bytes ip_frame(const Flow &fl, uint8_t proto, uint32_t l4hdr, uint32_t payload, uint16_t frag)
{
	Bytes f;
	static const uint8_t macs[12] = { 2, 0, 0, 0, 0, 2, 2, 0, 0, 0, 0, 1 };
	f.insert(f.end(), macs, macs + 12);
	if (fl.vlan)
		f.insert(f.end(), { 0x81, 0x00, 0x00, 0x07 });
	f.push_back(fl.v6 ? 0x86 : 0x08);
	f.push_back(fl.v6 ? 0xdd : 0x00);
	size_t l3 = f.size();
	if (fl.v6) {
		f.resize(l3 + 40);
		uint8_t *ip = &f[l3];
		put32(ip, 6u << 28 | (uint32_t)fl.tos << 20 | 0x12345);
		put16(ip + 4, l4hdr + payload);
		ip[6] = proto;
		ip[7] = fl.ttl;
		ip[8] = 0xfd;
		ip[23] = 1;
		ip[24] = 0xfd;
		ip[39] = 2;
	} else {
		f.resize(l3 + 20);
		uint8_t *ip = &f[l3];
		ip[0] = 0x45;
		ip[1] = fl.tos;
		put16(ip + 2, 20 + l4hdr + payload);
		put16(ip + 4, fl.id);
		put16(ip + 6, (fl.df ? 0x4000 : 0) | frag);
		ip[8] = fl.ttl;
		ip[9] = proto;
		ip[12] = 10;
		ip[15] = 1;
		ip[16] = 10;
		ip[19] = 2;
	}
	f.resize(f.size() + l4hdr + payload);
	return f;
}

/* ---- the RQ and what this file knows of it ---- */
struct Geo {
	uint32_t log_rq, ls, ln, log_res, log_pkts, log_entry, log_hd, seg;
	uint8_t match;
};

enum Bad : uint8_t { kGood, kBadLkey, kBadLen, kBadAddr, kBadShort };

struct Sess {
	bool open = false;	/* the previous packet CQE had flush 0 */
	Bytes head;		/* its first packet's headers */
	Parsed first;
	uint32_t mss = 0, next_seq = 0, bytes = 0, pos = 0, res_end = 0;
	uint16_t last_id = 0;
	int id_mode = 0;	/* 0 unknown, 1 increment, 2 fixed */
};

struct St {
	Fn *fn0, *fn1;
	uint32_t hw_mtu, min_inline;
	Cq txcq, rxcq;
	Sq sq;
	StridingRq rq;
	uint32_t rss = 0;
	Geo g;
	Dma hd_ring, pool;
	Bytes shadow;		/* what the header pool must hold */
	std::vector<uint8_t> bad;	/* per header entry */
	bool repost;
	std::vector<std::unique_ptr<TxBuf>> tx;
	struct Sent {
		Bytes f;
		bool clean;	/* built from a template, no byte patched */
	};
	std::deque<Sent> pending;	/* frames whose CQE is still to come */
	/* the device's position, as the CQEs tell it */
	uint32_t wqe = 0;	/* WQEs completed since the last reset */
	uint32_t stride = 0;	/* strides of the current WQE counted */
	uint32_t hd = 0;	/* packet CQEs since the last reset */
	uint32_t res_ix = ~0u, res_pkts = 0;
	uint32_t available;	/* WQEs posted and not completed */
	Sess s;
	Flow flow[2];
	bool err = false;	/* the RQ is in ERR (an error CQE came) */
	/*
	 * A frame overran the CQ: the CQ is stopped until the RQ is reset. The
	 * frame may have taken strides and a header entry already (a filler CQE
	 * took the last slot, prm/cqe.h): the CQEs before it are checked, the
	 * header pool is not.
	 */
	bool overrun = false;
};

uint32_t entry_bytes(const St &t) { return 1u << t.g.log_entry; }
uint8_t *pool_buf(St &t, uint32_t e) { return t.pool.cpu + (size_t)(e % kPool) * entry_bytes(t); }

void set_entry(St &t, uint32_t i, Bad how)
{
	prm::ShampoHdrWqe w = {};
	uint64_t addr = t.pool.dma + (uint64_t)(i % kPool) * entry_bytes(t);
	uint32_t len = entry_bytes(t), lkey = prm::kReservedLkey;
	switch (how) {
	case kBadLkey: lkey = 0x200; break;
	case kBadLen: len = entry_bytes(t) / 2; break;
	case kBadAddr: addr = host::dma_unmapped_addr(); break;
	case kBadShort: addr = t.pool.dma + t.pool.size - 16; break;	/* 16 bytes mapped */
	default: break;
	}
	w.data.byte_count.set(len);
	w.data.lkey.set(lkey);
	w.data.addr.set(addr);
	memcpy(t.hd_ring.cpu + 16 * i, &w, 16);
	t.bad[i] = how;
}

bool setup(St &t, Input &in)
{
	prm::HcaCaps caps = query_caps(t.fn0);
	t.hw_mtu = caps.max_hw_mtu.get();
	t.min_inline = caps.wqe_inline_mode ? 18 : 0;
	Geo &g = t.g;
	uint8_t b0 = in.u8(), b1 = in.u8(), b2 = in.u8(), b3 = in.u8();
	g.log_rq = b0 % 3;
	/* a WQE buffer of 4 .. 128 KiB: 64 B .. 8 KiB strides */
	uint32_t log_buf = 12 + (b0 >> 2) % 6;
	uint32_t lo_ln = caps.ext_stride_num_range ? 3 : 9;
	if (log_buf < 6 + lo_ln)
		log_buf = 6 + lo_ln;
	uint32_t max_ls = log_buf - lo_ln < 13 ? log_buf - lo_ln : 13;
	g.ls = 6 + (b1 % 8) % (max_ls - 6 + 1);
	g.ln = log_buf - g.ls;
	uint32_t hi_res = log_buf < 16 ? log_buf : 16;
	uint32_t lo_res = g.ls > 12 ? g.ls : 12;
	g.log_res = lo_res + (b1 >> 3) % (hi_res - lo_res + 1);
	uint32_t base = g.log_rq + log_buf - g.log_res;
	/* at most 2^12 header entries */
	g.log_pkts = b2 % (12 - base + 1);
	if (b2 & 0x80)
		g.log_pkts = b2 & 0x40 ? 0 : 1;	/* the packet limit within reach */
	g.log_entry = 6 + b3 % 5;
	g.log_hd = base + g.log_pkts + ((b3 >> 3) & 1);
	g.match = (b3 & 0x70) == 0x70 ? prm::kShampoNoMatch : prm::kShampoMatchExtended;
	/* data segments: 1..32 per WQE */
	uint32_t lseg = 10 + (b3 >> 7) * 3;
	g.seg = 1u << (lseg > log_buf ? log_buf : lseg < log_buf - 5 ? log_buf - 5 : lseg);
	uint8_t b4 = in.u8();
	t.repost = !(b4 & 0x80);
	uint32_t log_cq = b4 & 0x40 ? 1 + b4 % 3 : 10;

	t.hd_ring.alloc(16u << g.log_hd);
	t.pool.alloc(kPool * entry_bytes(t));
	memset(t.pool.cpu, 0xee, t.pool.size);
	t.shadow.assign(t.pool.cpu, t.pool.cpu + t.pool.size);
	t.bad.assign(1u << g.log_hd, kGood);
	for (uint32_t i = 0; i < 1u << g.log_hd; i++)
		set_entry(t, i, kGood);
	uint32_t nbad = in.u8() % 4;
	for (uint32_t k = 0; k < nbad; k++) {
		uint16_t e = in.u16();
		set_entry(t, e & ((1u << g.log_hd) - 1), (Bad)(1 + (e >> 14) % 4));
	}

	FZ_CHECK(t.txcq.create(t.fn0, 8, 1) == prm::kStatOk, "TX CQ");
	FZ_CHECK(t.sq.create(t.fn0, t.txcq.cqn, 6, 0, false) == prm::kStatOk, "SQ");
	FZ_CHECK(t.sq.modify(prm::kQueueRst, prm::kQueueRdy) == prm::kStatOk, "SQ RDY");
	FZ_CHECK(t.rxcq.create(t.fn1, log_cq, 2) == prm::kStatOk, "RX CQ");
	prm::CreateRqIn sh = shampo_in(g.match, g.log_res, g.log_pkts, g.log_entry, g.log_hd,
				       t.hd_ring.dma, in.u16());
	t.rq.shampo = &sh;
	uint8_t st = t.rq.create(t.fn1, t.rxcq.cqn, g.log_rq, g.ls, g.ln, g.seg);
	t.rq.shampo = nullptr;
	if (g_debug)
		fprintf(stderr, "RQ: %u WQEs of 2^%u strides of 2^%u B, reservation 2^%u, 2^%u packets, "
			"entries 2^%u of 2^%u B, match %u, CQ 2^%u, repost %d\n", 1u << g.log_rq, g.ln,
			g.ls, g.log_res, g.log_pkts, g.log_hd, g.log_entry, g.match, log_cq, t.repost);
	FZ_CHECK(st == prm::kStatOk, "SHAMPO RQ (rq %u stride %u strides %u res %u pkts %u entry %u "
		 "entries %u): status 0x%x", g.log_rq, g.ls, g.ln, g.log_res, g.log_pkts, g.log_entry,
		 g.log_hd, st);
	FZ_CHECK(modify_queue(t.fn1, prm::kCmdModifyRq, t.rq.rqn, prm::kQueueRst, prm::kQueueRdy) ==
		 prm::kStatOk, "RQ RDY");
	t.rq.post(1u << g.log_rq);
	t.available = 1u << g.log_rq;
	FZ_CHECK(rss_cmd(t.fn1, prm::kCmdCreateRss, 0, { t.rq.rqn }, kFields4, kMsKey, &t.rss) ==
		 prm::kStatOk, "RSS");
	if (g.match == prm::kShampoNoMatch)
		hit(g_cov[kNoMatch]);

	for (int i = 0; i < 2; i++) {
		uint8_t fb = in.u8();
		Flow &f = t.flow[i];
		f.v6 = fb & 1;
		f.vlan = fb & 2;
		f.ts = fb & 4;
		f.df = !(fb & 8);
		f.sport = (uint16_t)(1000 + i);
		f.seq = 1000u * (i + 1) + (fb & 0x30) * 0x1000000u;
		f.ack = 5000;
		f.id = 100;
		f.tsval = 7;
		f.ttl = 64;
		f.tos = 0;
		uint8_t m = in.u8();
		f.mss = fb & 0x40 ? 1 + m * 8 : fb & 0x80 ? 1 + m % 64 : 1448;
	}
	return true;
}

/*
 * The RQ back to work after an error CQE or a CQ overrun (which stops the
 * CQ until its queue is reset): RST, RDY, every WQE posted anew from slot 0.
 */
void recover(St &t)
{
	/* RDY, or ERR (an error CQE, written or lost to the overrun) */
	if (modify_queue(t.fn1, prm::kCmdModifyRq, t.rq.rqn, prm::kQueueRdy, prm::kQueueRst) !=
	    prm::kStatOk)
		FZ_CHECK(modify_queue(t.fn1, prm::kCmdModifyRq, t.rq.rqn, prm::kQueueErr,
				      prm::kQueueRst) == prm::kStatOk, "RQ ERR -> RST");
	FZ_CHECK(modify_queue(t.fn1, prm::kCmdModifyRq, t.rq.rqn, prm::kQueueRst, prm::kQueueRdy) ==
		 prm::kStatOk, "RQ RST -> RDY");
	t.rq.posted = 0;
	t.rq.post(1u << t.g.log_rq);
	t.available = 1u << t.g.log_rq;
	t.wqe = t.stride = t.hd = 0;
	t.res_ix = ~0u;
	t.res_pkts = 0;
	t.s.open = false;
	t.err = false;
}

/* The WQE is done: its strides all counted. */
void wqe_done(St &t)
{
	t.wqe++;
	t.stride = 0;
	t.res_ix = ~0u;
	t.res_pkts = 0;
	t.available--;
	if (t.wqe == (1u << t.g.log_rq) + 1)
		hit(g_cov[kWqeWrap]);
	if (t.repost) {
		t.rq.post(1);
		t.available++;
	}
}

/* Strides a CQE counts, checked against where the previous ones ended. */
void count_strides(St &t, const prm::Cqe64 &c, uint32_t n)
{
	uint32_t mask = (1u << t.g.log_rq) - 1;
	FZ_CHECK(c.wqe_id.get() == (t.wqe & mask), "CQE names WQE %u, expected %u", c.wqe_id.get(),
		 t.wqe & mask);
	FZ_CHECK(c.wqe_counter.get() == t.stride, "CQE starts at stride %u, %u counted before",
		 c.wqe_counter.get(), t.stride);
	FZ_CHECK(t.stride + n <= 1u << t.g.ln, "strides %u + %u beyond the WQE's %u", t.stride, n,
		 1u << t.g.ln);
	t.stride += n;
}

/* Does packet f (split, payload p) continue the session by prm/cqe.h's rules? */
bool continues(const St &t, const Bytes &f, const Parsed &p, bool mergeable, int *id_mode)
{
	const Sess &s = t.s;
	*id_mode = s.id_mode;
	if (!s.open || !mergeable || p.hdr != s.first.hdr || p.l3 != s.first.l3 ||
	    p.l4 != s.first.l4 || p.payload > s.mss)
		return false;
	if (s.pos + p.payload > s.res_end || t.res_pkts >= 1u << t.g.log_pkts ||
	    s.first.hdr + s.bytes + p.payload > 0xffff)
		return false;
	const uint8_t *a = &f[0], *b = s.head.data();
	if (memcmp(a, b, p.l3))
		return false;
	const uint8_t *ip = a + p.l3, *ip0 = b + p.l3;
	if (p.v6) {
		if (memcmp(ip, ip0, 4) || ip[6] != ip0[6] || ip[7] != ip0[7] || memcmp(ip + 8, ip0 + 8, 32))
			return false;
	} else {
		if (ip[0] != ip0[0] || ip[1] != ip0[1] || ip[8] != ip0[8] || ip[9] != ip0[9] ||
		    memcmp(ip + 12, ip0 + 12, 8) || ((ip[6] ^ ip0[6]) & 0x40))
			return false;
		uint16_t id = get16(ip + 4);
		bool df = ip[6] & 0x40;
		if (s.id_mode != 2 && id == (uint16_t)(s.last_id + 1))
			*id_mode = 1;
		else if (s.id_mode != 1 && id == s.last_id && df)
			*id_mode = 2;
		else
			return false;
	}
	const uint8_t *tc = a + p.l4, *tc0 = b + p.l4;
	return !memcmp(tc, tc0, 4) && get32(tc + 4) == s.next_seq && !memcmp(tc + 8, tc0 + 8, 5) &&
	       !((tc[13] ^ tc0[13]) & ~(kCwr | kFin | kPsh) & 0xff) && !(tc[13] & kCwr) &&
	       !memcmp(tc + 14, tc0 + 14, 2) && !memcmp(tc + 20, tc0 + 20, p.hdr - p.l4 - 20);
}

void packet_cqe(St &t, const prm::Cqe64 &c)
{
	FZ_CHECK(!t.pending.empty(), "a packet CQE with no frame outstanding");
	Bytes f = std::move(t.pending.front().f);
	bool clean = t.pending.front().clean;
	t.pending.pop_front();
	hit(g_cov[kPkt]);
	const prm::CqeShampo &sh = c.shampo;
	uint32_t bc = c.byte_cnt.get();
	uint32_t n = (bc >> prm::kMpwrqCqeStridesShift) & prm::kMpwrqCqeStridesMask;
	uint32_t len = bc & prm::kMpwrqCqeLenMask;
	uint32_t h = sh.header_size, off = sh.data_offset.get();
	bool match = sh.flags & prm::kCqeShampoMatch, flush = sh.flags & prm::kCqeShampoFlush;
	uint32_t entries = 1u << t.g.log_hd, e = t.hd % entries;
	FZ_CHECK(sh.header_entry_index.get() == e, "header entry %u, expected %u",
		 sh.header_entry_index.get(), e);
	if (t.hd == entries)
		hit(g_cov[kHdWrap]);
	t.hd++;
	uint32_t start = t.stride;
	count_strides(t, c, n);
	uint32_t ls = t.g.ls, buf = 1u << (t.g.ls + t.g.ln);

	Parsed p = parse(f);
	uint32_t pay;
	if (clean && p.tcp && p.hdr <= entry_bytes(t) && p.hdr <= 255)
		FZ_CHECK(h, "a well-formed TCP frame (headers %u) not split", p.hdr);
	if (h) {
		hit(g_cov[kSplit]);
		FZ_CHECK(p.tcp && h == p.hdr, "header_size %u, the frame's TCP headers end at %u (tcp %d)",
			 h, p.hdr, p.tcp);
		FZ_CHECK(h <= entry_bytes(t) && h <= 255, "header_size %u beyond the entry", h);
		FZ_CHECK(t.bad[e] == kGood, "split packet written to malformed entry %u (%u)", e, t.bad[e]);
		pay = p.payload;
		FZ_CHECK(len == h + pay, "byte_cnt %u, headers %u + payload %u", len, h, pay);
		FZ_CHECK(!memcmp(pool_buf(t, e), &f[0], h), "header entry %u differs from the frame", e);
		memcpy(t.shadow.data() + (size_t)(e % kPool) * entry_bytes(t), &f[0], h);
		if (p.v6)
			hit(g_cov[kV6]);
		if (p.vlan)
			hit(g_cov[kVlan]);
		if (!pay)
			hit(g_cov[kPureAck]);
	} else {
		hit(g_cov[kUnsplit]);
		pay = len;
		FZ_CHECK(len == f.size(), "unsplit byte_cnt %u of a %zu-byte frame", len, f.size());
		FZ_CHECK(!match && flush, "unsplit packet with match %d flush %d", match, flush);
	}
	FZ_CHECK((uint64_t)off + pay <= buf, "data at %u + %u beyond the %u-byte WQE buffer", off, pay,
		 buf);
	{
		/* the payload, byte for byte, from data_offset */
		uint32_t slot = t.wqe & ((1u << t.g.log_rq) - 1);
		for (uint32_t i = 0; i < pay; i++) {
			uint32_t o = off + i;
			uint8_t v = t.rq.bufs[slot][o / t.g.seg].cpu[o % t.g.seg];
			FZ_CHECK(v == f[h + i], "payload byte %u (WQE offset %u) differs", i, o);
		}
	}
	/* strides: a new session from a stride boundary, a continuation after the last byte */
	uint32_t end = (off + pay + (1u << ls) - 1) >> ls;
	FZ_CHECK(n == (end > start ? end - start : 0), "CQE counts %u strides, data ends in stride %u, "
		 "%u counted before", n, end, start);
	if (!match)
		FZ_CHECK(off == start << ls, "new session at %u, next free stride at %u", off, start << ls);
	else
		FZ_CHECK(off == t.s.pos, "continuation at %u, the session ended at %u", off, t.s.pos);

	/* match by the rules (the session's reservation: the previous packet's) */
	uint8_t flags = h ? f[p.l4 + 13] : 0;
	bool mergeable = h && t.g.match == prm::kShampoMatchExtended && pay && p.csum_ok && !p.ip_opts;
	int id_mode = 0;
	bool want_match = h && continues(t, f, p, mergeable, &id_mode);
	FZ_CHECK(match == want_match, "match %d, the rules say %d (session open %d, mergeable %d)",
		 match, want_match, t.s.open, mergeable);
	if (match)
		hit(g_cov[kMatch]);

	/* the reservation and its packet limit */
	uint32_t r = off >> t.g.log_res;
	if (r != t.res_ix) {
		FZ_CHECK(!match, "a continuation in another reservation");
		t.res_ix = r;
		t.res_pkts = 0;
	}
	FZ_CHECK(t.res_pkts < 1u << t.g.log_pkts, "reservation %u takes packet %u, limit %u", r,
		 t.res_pkts + 1, 1u << t.g.log_pkts);
	Sess &s = t.s;
	if (!match) {
		s.open = mergeable;
		if (mergeable) {
			s.head.assign(f.begin(), f.begin() + h);
			s.first = p;
			s.mss = pay;
			s.bytes = 0;
			s.res_end = (r + 1) << t.g.log_res;
			id_mode = 0;
		}
	}
	if (s.open) {
		s.id_mode = id_mode;
		if (!p.v6)
			s.last_id = get16(&f[p.l3 + 4]);
		s.bytes += pay;
		s.next_seq = get32(&f[p.l4 + 4]) + pay;
		s.pos = off + pay;
	}
	bool room = s.open && s.pos + s.mss <= s.res_end && t.res_pkts + 1 < 1u << t.g.log_pkts &&
		    s.first.hdr + s.bytes + s.mss <= 0xffff;
	bool wqe_end = t.stride == 1u << t.g.ln;
	bool want_flush = !s.open || (flags & (kFin | kPsh | kUrg | kRst | kSyn)) ||
			  (match && pay < s.mss) || !room || wqe_end;
	FZ_CHECK(flush == want_flush, "flush %d, the rules say %d (open %d, flags 0x%x, payload %u, "
		 "mss %u, room %d, WQE end %d)", flush, want_flush, s.open, flags, pay, s.mss, room,
		 wqe_end);
	if (s.open && !room && !(flags & (kFin | kPsh | kUrg | kRst | kSyn)))
		hit(g_cov[kFlushLimit]);
	if (flush)
		s.open = false;
	t.res_pkts++;
	if (wqe_end)
		wqe_done(t);
}

void filler_cqe(St &t, const prm::Cqe64 &c)
{
	uint32_t bc = c.byte_cnt.get();
	uint32_t n = (bc >> prm::kMpwrqCqeStridesShift) & prm::kMpwrqCqeStridesMask;
	hit(g_cov[kFiller]);
	FZ_CHECK(n > 0, "filler of no stride");
	count_strides(t, c, n);
	uint32_t endb = t.stride << t.g.ls;
	FZ_CHECK(t.stride == 1u << t.g.ln || !(endb & ((1u << t.g.log_res) - 1)),
		 "filler ends at %u, not a reservation boundary", endb);
	t.s.open = false;
	if (t.stride == 1u << t.g.ln)
		wqe_done(t);
}

void error_cqe(St &t, const prm::Cqe64 &c)
{
	FZ_CHECK(!t.pending.empty(), "an error CQE with no frame outstanding");
	t.pending.pop_front();
	prm::ErrCqe ec;
	memcpy(&ec, &c, sizeof(ec));
	uint32_t e = t.hd % (1u << t.g.log_hd);
	uint8_t bad = t.bad[e];
	FZ_CHECK(bad != kGood, "error CQE (syndrome 0x%x) with header entry %u well formed",
		 ec.syndrome, e);
	uint8_t want = bad == kBadLen ? prm::kSyndLocalLengthErr : prm::kSyndLocalProtErr;
	FZ_CHECK(ec.syndrome == want, "error syndrome 0x%x for entry %u malformed (%u), expected 0x%x",
		 ec.syndrome, e, bad, want);
	hit(g_cov[bad == kBadLkey ? kErrLkey : bad == kBadLen ? kErrLen : kErrAddr]);
	t.err = true;
}

/* Every CQE the RX CQ has; then the header pool as the packet CQEs say. */
void drain(St &t)
{
	prm::Cqe64 c;
	while (t.rxcq.poll(&c)) {
		if (g_debug)
			fprintf(stderr, "CQE op %x wqe %u stride %u byte_cnt 0x%x hd %u/%u flags %x off %u\n",
				c.opcode(), c.wqe_id.get(), c.wqe_counter.get(), c.byte_cnt.get(),
				c.shampo.header_entry_index.get(), c.shampo.header_size, c.shampo.flags,
				c.shampo.data_offset.get());
		FZ_CHECK(!t.err, "a CQE after the error CQE");
		uint8_t op = c.opcode();
		if (op == prm::kCqeRespErr)
			error_cqe(t, c);
		else if (op != prm::kCqeRespSend)
			fz::fail("RX CQE opcode 0x%x", op);
		else if (c.byte_cnt.get() & prm::kMpwrqCqeFiller)
			filler_cqe(t, c);
		else
			packet_cqe(t, c);
	}
	FZ_CHECK(t.pending.empty(), "%zu frames without a CQE", t.pending.size());
	if (t.overrun) {
		memcpy(t.shadow.data(), t.pool.cpu, t.shadow.size());
		recover(t);
		t.overrun = false;
		return;
	}
	for (size_t i = 0; i < t.shadow.size(); i++)
		FZ_CHECK(t.pool.cpu[i] == t.shadow[i], "header pool byte %zu (buffer %zu) written where "
			 "no packet CQE says (%u packet CQEs)", i, i / entry_bytes(t), t.hd);
	if (t.err)
		recover(t);
}

/* One frame from the input. */
Bytes make_frame(St &t, Input &in, bool *clean)
{
	*clean = true;
	uint8_t op = in.u8();
	Flow &fl = t.flow[(op >> 2) & 1];
	uint8_t kind = op & 3;
	uint8_t mods = op & 0x10 ? in.u8() : 0;
	uint8_t lc = op >> 5;
	Bytes f;
	if (kind == 3) {
		/* not TCP: UDP, ICMP, an IPv4 fragment of TCP, another ethertype */
		uint8_t k = in.u8();
		uint32_t len = in.u16() % 2000;
		switch (k & 3) {
		case 0: f = ip_frame(fl, 17, 8, len, 0); break;
		case 1: f = ip_frame(fl, 1, 8, len, 0); break;
		case 2: f = ip_frame(fl, 6, 20, len, 0x2000); break;
		default:
			f.assign(60 + len, 0x33);
			f[12] = 0x88;
			f[13] = 0xb5;
			break;
		}
		for (size_t i = 14; i < f.size(); i++)
			if (f[i] == 0 && i > 60)
				f[i] = (uint8_t)(i * 7);
		Parsed p;
		p.v6 = fl.v6;
		p.l3 = fl.vlan ? 18 : 14;
		p.l4 = p.l3 + (fl.v6 ? 40 : 20);
		if ((k & 3) == 0 || (k & 3) == 1) {
			uint8_t *l4 = &f[p.l4];
			put16(l4, 53);
			put16(l4 + 2, 53);
			if ((k & 3) == 0)
				put16(l4 + 4, 8 + len);
			fix_csums(f, p, false, k & 4);
		}
	} else {
		uint32_t pay;
		if (kind == 2 || lc == 7)
			pay = 0;
		else if (lc < 5)
			pay = fl.mss;
		else if (lc == 5)
			pay = 1 + in.u8() % (fl.mss);
		else
			pay = in.u16() % 9100;
		uint32_t opt = fl.ts ? 12 : 0;
		f = ip_frame(fl, 6, 20 + opt, pay, 0);
		Parsed p;
		p.v6 = fl.v6;
		p.l3 = fl.vlan ? 18 : 14;
		p.l4 = p.l3 + (fl.v6 ? 40 : 20);
		uint8_t *tc = &f[p.l4];
		put16(tc, fl.sport);
		put16(tc + 2, 80);
		uint32_t seq = fl.seq;
		uint8_t flags = kAck;
		uint8_t *ip = &f[p.l3];
		if (mods & 1) {
			uint8_t fb = in.u8();
			flags = fb & 0x80 ? (uint8_t)(fb << 1) : (uint8_t)(kAck | (fb & (kPsh | kFin)));
		}
		if (mods & 2) {
			uint16_t d = in.u16();
			seq += d & 0x8000 ? (uint32_t)(int16_t)d : 0;	/* not advancing, or a jump */
			if (!(d & 0x8000))
				seq -= fl.mss;
		}
		if (mods & 4) {
			uint8_t ib = in.u8();
			if (ib & 1)
				fl.id = (uint16_t)(fl.id + (ib >> 1));	/* a gap */
			if (ib & 2)
				fl.df = !fl.df;
			if (ib & 4)
				fl.id--;	/* the same ID again */
		}
		if (mods & 8) {
			uint8_t tb = in.u8();
			if (tb & 1)
				fl.ttl = (uint8_t)(fl.ttl + 1);
			if (tb & 2)
				fl.tos ^= (uint8_t)(tb & 0xfc);
			if (tb & 0x80)
				fl.ack += tb;
		}
		if (!fl.v6) {
			put16(ip + 4, fl.id);
			put16(ip + 6, fl.df ? 0x4000 : 0);
			ip[1] = fl.tos;
			ip[8] = fl.ttl;
		} else {
			put32(ip, 6u << 28 | (uint32_t)fl.tos << 20 | 0x12345);
			ip[7] = fl.ttl;
		}
		put32(tc + 4, seq);
		put32(tc + 8, fl.ack);
		tc[12] = (uint8_t)((20 + opt) / 4 << 4);
		tc[13] = flags;
		put16(tc + 14, 0x4000);
		if (fl.ts) {
			tc[20] = 1;
			tc[21] = 1;
			tc[22] = 8;
			tc[23] = 10;
			put32(tc + 24, fl.tsval);
			put32(tc + 28, 99);
			if (mods & 0x40)
				fl.tsval++;
		}
		for (uint32_t i = 0; i < pay; i++)
			tc[20 + opt + i] = (uint8_t)((seq + i) * 13 + 5);
		fix_csums(f, p, (mods & 0x20) && (in.u8() & 1), mods & 0x20);
		fl.seq = seq + pay;
		fl.id++;
	}
	if (mods & 0x80) {
		/* a few raw bytes patched, or Ethernet padding */
		uint8_t pb = in.u8();
		if (pb & 1) {
			f.insert(f.end(), pb >> 4, 0);
		} else {
			*clean = false;
			for (uint32_t k = 0; k < 1 + (pb >> 6); k++) {
				uint16_t o = in.u16();
				f[o % f.size()] = in.u8();
			}
		}
	}
	if (f.size() < 60)
		f.resize(60, 0);
	if (f.size() > t.hw_mtu) {
		f.resize(t.hw_mtu);
		*clean = false;
	}
	return f;
}

void one_frame(St &t, Input &in)
{
	bool clean;
	Bytes f = make_frame(t, in, &clean);
	bool defer = in.u8() & 1;
	bool had_pending = !t.pending.empty();
	SendWqe w;
	w.ce = true;
	uint32_t ihs = t.min_inline;
	w.inline_hdr.assign(f.begin(), f.begin() + ihs);
	t.tx.push_back(std::make_unique<TxBuf>(f));
	Seg sg;
	sg.addr = t.tx.back()->dma + ihs;
	sg.len = (uint32_t)f.size() - ihs;
	w.segs.push_back(sg);
	prm::QueryQCounterOut before = query_q(t.fn1);
	t.sq.pad_for(1);
	t.sq.post(w);
	t.sq.doorbell();
	prm::Cqe64 c;
	while (t.txcq.poll(&c))
		FZ_CHECK(c.opcode() == prm::kCqeReq, "TX CQE opcode 0x%x", c.opcode());
	prm::QueryQCounterOut after = query_q(t.fn1);
	uint64_t oob = after.rx_out_of_buffer.get() - before.rx_out_of_buffer.get();
	uint64_t over = after.rx_oversize_pkts_buffer.get() - before.rx_oversize_pkts_buffer.get();
	uint64_t cqo = after.rx_cq_overrun.get() - before.rx_cq_overrun.get();
	uint64_t down = after.rx_if_down_packets.get() - before.rx_if_down_packets.get();
	FZ_CHECK(oob + over + cqo + down <= 1, "one frame counted as %llu drops",
		 (unsigned long long)(oob + over + cqo + down));
	if (oob)
		hit(g_cov[kOutOfBuffer]);
	if (over)
		hit(g_cov[kOversize]);
	if (cqo) {
		hit(g_cov[kOverrun]);
		t.overrun = true;
	}
	if (down)
		hit(g_cov[kIfDown]);
	/*
	 * with every completed WQE posted anew, only with CQEs not read yet, or
	 * when the one WQE of the ring was filled up by this frame
	 */
	FZ_CHECK(!oob || !t.repost || had_pending || t.g.log_rq == 0,
		 "out of buffer with every WQE posted");
	if (over) {
		Parsed p = parse(f);
		uint32_t data = p.tcp && p.hdr <= entry_bytes(t) && p.hdr <= 255 ? p.payload :
									    (uint32_t)f.size();
		FZ_CHECK(data > 1u << t.g.log_res, "oversize drop of %u bytes, reservation %u", data,
			 1u << t.g.log_res);
	}
	if (g_debug)
		fprintf(stderr, "frame %zu bytes: drops oob %llu over %llu cqo %llu down %llu, %zu pending\n",
			f.size(), (unsigned long long)oob, (unsigned long long)over,
			(unsigned long long)cqo, (unsigned long long)down, t.pending.size());
	if (!(oob + over + cqo + down))
		t.pending.push_back({ std::move(f), clean });
	if (!defer || t.pending.size() >= 8 || down || cqo)
		drain(t);
}

} /* namespace */

extern "C" int LLVMFuzzerInitialize(int *, char ***)
{
	cov_init("shampo", g_cov, kNrCov);
	return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	Input in(data, size);
	begin_input();
	scx_hw_adapter *a = adapter_get(prm::kModelCx7);
	{
		St t;
		t.fn0 = scx_hw_function(a, 0);
		t.fn1 = scx_hw_function(a, 1);
		setup(t, in);
		for (int i = 0; i < 48 && !in.empty(); i++)
			one_frame(t, in);
		drain(t);

		FZ_CHECK(destroy(t.fn1, prm::kCmdDestroyRss, t.rss) == prm::kStatOk, "destroy RSS");
		FZ_CHECK(destroy(t.fn1, prm::kCmdDestroyRq, t.rq.rqn) == prm::kStatOk, "destroy RQ");
		FZ_CHECK(t.rxcq.destroy() == prm::kStatOk, "destroy RX CQ");
		FZ_CHECK(t.sq.destroy() == prm::kStatOk, "destroy SQ");
		FZ_CHECK(t.txcq.destroy() == prm::kStatOk, "destroy TX CQ");
	}
	adapter_put(a);
	check_clean("shampo");
	return 0;
}
