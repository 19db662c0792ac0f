// SPDX-License-Identifier: GPL-2.0
/*
 * Target "rx": the RX engine with frames up to the hardware MTU (and a
 * little beyond, which the TX side must refuse). The input sets up 1..4
 * RQs on function 1 (ring and buffer sizes), an RSS object over them (table,
 * hash fields, key; optionally one RQ destroyed behind the table's back),
 * then sends frames from function 0: header templates or raw bytes, patched
 * by the input, padded to any length, with or without TX checksum offload.
 *
 * Invariants, checked against references written here (not src/hw):
 * every frame is either received once, counted as a drop (out of buffer,
 * oversize, if down) or refused by TX; a received frame is byte for byte
 * the one sent, in the RQ the RSS table names for its hash, with the
 * Toeplitz hash of the fields its hash type claims, a raw checksum equal
 * to the one's-complement sum from L3 to the end, and L3/L4 "checksum ok"
 * flags only where the checksums verify; well-formed frames with offload
 * come back with both flags set. No leak or misuse; ASan/UBSan silent.
 */
#include "fuzz.h"
#include "headers.h"

using namespace fz;

namespace {

enum {
	kFrames, kMaxMtu, kL3None, kL3V4, kL3V6, kL4Tcp, kL4Udp, kL4None, kL3Ok, kL4Ok, kL3Bad,
	kL4Bad, kHashV4, kHashV6, kHashTcp, kHashUdp, kHashNone, kVlan, kOutOfBuffer, kOversize,
	kIfDown, kTxRefused, kSpread, kNrCov
};
Cov g_cov[kNrCov] = {
	{ "frames received", true, 0 },
	{ "frame > 9000 bytes received", true, 0 },
	{ "L3 none", true, 0 },
	{ "L3 IPv4", true, 0 },
	{ "L3 IPv6", true, 0 },
	{ "L4 TCP", true, 0 },
	{ "L4 UDP", true, 0 },
	{ "L4 none", true, 0 },
	{ "L3 checksum ok", true, 0 },
	{ "L4 checksum ok", true, 0 },
	{ "IPv4 header checksum bad", true, 0 },
	{ "L4 checksum bad", true, 0 },
	{ "hash IPv4", true, 0 },
	{ "hash IPv6", true, 0 },
	{ "hash TCP", true, 0 },
	{ "hash UDP", true, 0 },
	{ "no hash", true, 0 },
	{ "VLAN tagged", true, 0 },
	{ "drop: out of buffer", true, 0 },
	{ "drop: oversize for buffer", true, 0 },
	{ "drop: RQ destroyed (if down)", true, 0 },
	{ "TX refused (length)", true, 0 },
	{ "received on RQ other than 0", true, 0 },
};

constexpr uint32_t kFrameMax = 10100;	/* max_hw_mtu + 31 and some */
uint8_t g_frame[kFrameMax];
uint8_t g_pattern[kFrameMax];

/* ---- references ---- */
uint32_t fold(uint64_t acc)
{
	while (acc >> 16)
		acc = (acc & 0xffff) + (acc >> 16);
	return (uint32_t)acc;
}

uint64_t sum16(const uint8_t *p, uint32_t n)
{
	uint64_t acc = 0;
	for (uint32_t i = 0; i + 1 < n; i += 2)
		acc += (uint32_t)(p[i] << 8 | p[i + 1]);
	if (n & 1)
		acc += (uint32_t)p[n - 1] << 8;
	return acc;
}

/* Bit by bit: for every set input bit, the 32 key bits starting there. */
uint32_t toeplitz(const uint8_t *key, const uint8_t *in, uint32_t n)
{
	uint32_t h = 0;
	for (uint32_t bit = 0; bit < n * 8; bit++) {
		if (!(in[bit / 8] & (0x80 >> (bit % 8))))
			continue;
		uint32_t w = 0;
		for (uint32_t k = 0; k < 32; k++) {
			uint32_t kb = bit + k;
			w = w << 1 | ((key[kb / 8] >> (7 - kb % 8)) & 1);
		}
		h ^= w;
	}
	return h;
}

uint16_t be16(const uint8_t *p) { return (uint16_t)(p[0] << 8 | p[1]); }

/* Where L3 starts: after the Ethernet header and at most two VLAN tags. */
uint32_t l3_offset(const uint8_t *f, uint32_t len, bool *tagged)
{
	uint32_t off = 14;
	uint16_t type = be16(f + 12);
	*tagged = false;
	for (int t = 0; t < 2 && (type == 0x8100 || type == 0x88a8) && off + 4 <= len; t++) {
		type = be16(f + off + 2);
		off += 4;
		*tagged = true;
	}
	return off;
}

struct Setup {
	Fn *fn0, *fn1;
	uint32_t hw_mtu;
	Cq txcq;
	Sq sq;
	uint32_t nrq;
	Cq rxcq[4];
	Rq rq[4];
	bool rq_live[4];
	uint32_t cc[4];		/* frames each RQ completed */
	uint32_t rss = 0;
	uint32_t fields = 0;
	uint8_t key[prm::kRssKeySize];
	uint32_t table_log = 0;
	uint8_t table[8];	/* RQ index per entry */
	uint8_t min_inline;
	bool repost;		/* give each buffer back after its frame (else: out of buffers) */
};

void check_rx(Setup &s, uint32_t r, const prm::Cqe64 &c, const uint8_t *sent, uint32_t len,
	      bool intact, bool wellformed)
{
	uint32_t got = c.byte_cnt.get();
	FZ_CHECK(got == len, "received %u bytes of a %u-byte frame", got, len);
	FZ_CHECK(c.wqe_counter.get() == (uint16_t)s.cc[r], "RX CQE for WQE %u, expected %u",
		 c.wqe_counter.get(), s.cc[r]);
	const uint8_t *buf = s.rq[r].buffer(s.cc[r]);
	const uint8_t *f = buf;
	if (intact)
		FZ_CHECK(!memcmp(buf, sent, len), "received bytes differ from the frame sent");
	s.cc[r]++;
	hit(g_cov[kFrames]);
	if (len > 9000)
		hit(g_cov[kMaxMtu]);
	if (r)
		hit(g_cov[kSpread]);

	/* RSS: the table entry the hash names is this RQ */
	uint32_t hash = c.rss_hash_result.get();
	uint32_t entry = hash & ((1u << s.table_log) - 1);
	FZ_CHECK(s.table[entry] == r, "hash 0x%x names entry %u (RQ %u), received on RQ %u", hash,
		 entry, s.table[entry], r);

	bool tagged;
	uint32_t l3 = l3_offset(f, len, &tagged);
	if (tagged)
		hit(g_cov[kVlan]);
	FZ_CHECK(fold(sum16(f + l3, len - l3)) == c.check_sum.get(),
		 "raw checksum 0x%x, reference 0x%x", c.check_sum.get(), fold(sum16(f + l3, len - l3)));

	uint8_t l3t = c.l3_type(), l4t = c.l4_type();
	bool v4 = l3t == prm::kCqeL3Ipv4, v6 = l3t == prm::kCqeL3Ipv6;
	FZ_CHECK(l3t != 3, "L3 type 3");
	hit(g_cov[v4 ? kL3V4 : v6 ? kL3V6 : kL3None]);
	uint32_t ihl = 0;
	if (v4) {
		ihl = (f[l3] & 0xf) * 4u;
		FZ_CHECK(l3 + 20 <= len && f[l3] >> 4 == 4 && ihl >= 20 && l3 + ihl <= len,
			 "IPv4 claimed for a frame without an IPv4 header");
	}
	if (v6)
		FZ_CHECK(l3 + 40 <= len && f[l3] >> 4 == 6, "IPv6 claimed without an IPv6 header");
	if (!v4 && !v6)
		FZ_CHECK(l4t == prm::kCqeL4None && !(c.hds_ip_ext & (prm::kCqeL3Ok | prm::kCqeL4Ok)),
			 "L4 type or checksum verdicts without L3");

	bool l3ok = c.hds_ip_ext & prm::kCqeL3Ok, l4ok = c.hds_ip_ext & prm::kCqeL4Ok;
	/*
	 * A tunneled CQE's verdicts cover the inner frame too (GRE and IP in
	 * IP here: the setup configures no UDP tunnel port). This reference
	 * does not parse inner frames (HwIpTunnel.* in
	 * tests/host/test_hw_vxlan.cpp check those verdicts): it holds the
	 * device to the outer headers only, a verdict of ok never over a bad
	 * outer checksum.
	 */
	bool tun = c.tls_outer_l3_tunneled & prm::kCqeTunneled;
	if (tun) {
		uint8_t proto = v4 ? f[l3 + 9] : v6 ? f[l3 + 6] : 0;
		FZ_CHECK(proto == 47 || proto == 4 || proto == 41,
			 "tunneled with IP protocol %u, no GRE or IP in IP", proto);
	}
	if (v4) {
		bool good = fold(sum16(f + l3, ihl)) == 0xffff;
		FZ_CHECK(tun ? good || !l3ok : good == l3ok, "IPv4 header checksum %s, CQE says %s",
			 good ? "right" : "wrong", l3ok ? "ok" : "bad");
		hit(g_cov[good ? kL3Ok : kL3Bad]);
	}
	if (v6)
		FZ_CHECK(l3ok || tun, "IPv6 without L3 ok");

	bool tcp = l4t == prm::kCqeL4TcpNoAck || l4t == prm::kCqeL4TcpAckNoData ||
		   l4t == prm::kCqeL4TcpAckData;
	bool udp = l4t == prm::kCqeL4Udp;
	FZ_CHECK(l4t <= prm::kCqeL4TcpAckData, "L4 type %u", l4t);
	hit(g_cov[tcp ? kL4Tcp : udp ? kL4Udp : kL4None]);
	uint32_t l4 = l3 + (v4 ? ihl : 40);
	uint32_t l4len = 0;
	if (tcp || udp) {
		l4len = v4 ? be16(f + l3 + 2) - ihl : be16(f + l3 + 4);
		FZ_CHECK(l4 + l4len <= len && l4len >= (tcp ? 20u : 8u), "L4 claimed past the frame");
		FZ_CHECK(f[v4 ? l3 + 9 : l3 + 6] == (tcp ? 6 : 17), "L4 type not the IP protocol");
		uint64_t acc = v4 ? sum16(f + l3 + 12, 8) : sum16(f + l3 + 8, 32);
		acc += (tcp ? 6 : 17) + l4len + sum16(f + l4, l4len);
		bool good = fold(acc) == 0xffff || (udp && be16(f + l4 + 6) == 0);
		FZ_CHECK(good == l4ok, "L4 checksum %s, CQE says %s", good ? "right" : "wrong",
			 l4ok ? "ok" : "bad");
		hit(g_cov[good ? kL4Ok : kL4Bad]);
	} else {
		FZ_CHECK(!l4ok || tun, "L4 ok without L4");
	}
	if (wellformed)
		FZ_CHECK(l4ok && (l3ok || v6) && (tcp || udp),
			 "a well-formed frame with checksum offload was not verified");

	/* the hash of exactly the fields its type claims */
	uint8_t ht = c.rss_hash_type;
	uint8_t in[36];
	uint32_t n = 0;
	if (ht & prm::kRssHashIpMask) {
		FZ_CHECK((ht & prm::kRssHashIpMask) == (v4 ? prm::kRssHashIpv4 : prm::kRssHashIpv6) &&
			 (v4 || v6), "hash type 0x%x for L3 type %u", ht, l3t);
		uint32_t alen = v4 ? 4 : 16;
		const uint8_t *src = f + l3 + (v4 ? 12 : 8);
		if (s.fields & prm::kRssFieldSrcIp) {
			memcpy(in + n, src, alen);
			n += alen;
		}
		if (s.fields & prm::kRssFieldDstIp) {
			memcpy(in + n, src + alen, alen);
			n += alen;
		}
		hit(g_cov[v4 ? kHashV4 : kHashV6]);
	}
	if (ht & prm::kRssHashL4Mask) {
		FZ_CHECK((ht & prm::kRssHashL4Mask) == (tcp ? prm::kRssHashTcp : prm::kRssHashUdp) &&
			 (tcp || udp), "hash type 0x%x for L4 type %u", ht, l4t);
		if (s.fields & prm::kRssFieldL4SPort) {
			memcpy(in + n, f + l4, 2);
			n += 2;
		}
		if (s.fields & prm::kRssFieldL4DPort) {
			memcpy(in + n, f + l4 + 2, 2);
			n += 2;
		}
		hit(g_cov[tcp ? kHashTcp : kHashUdp]);
	}
	if (!ht)
		hit(g_cov[kHashNone]);
	FZ_CHECK(toeplitz(s.key, in, n) == hash, "hash 0x%x, reference 0x%x over %u bytes", hash,
		 toeplitz(s.key, in, n), n);
	/* the claims are complete: what could be hashed was */
	if ((v4 || v6) && (s.fields & (prm::kRssFieldSrcIp | prm::kRssFieldDstIp)))
		FZ_CHECK(ht & prm::kRssHashIpMask, "IP frame not IP-hashed");
	if ((tcp || udp) && (s.fields & (prm::kRssFieldL4SPort | prm::kRssFieldL4DPort)))
		FZ_CHECK(ht & prm::kRssHashL4Mask, "TCP/UDP frame not L4-hashed");
}

prm::QueryQCounterOut qcounters(Fn *fn) { return query_q(fn); }

/* Send one frame from the input; check where it went. */
void one_frame(Setup &s, Input &in, uint64_t frame_dma)
{
	uint32_t len = in.u16() % (s.hw_mtu + 32);
	uint8_t tsel = in.u8();
	uint8_t cs = in.u8() & (prm::kCsL3 | prm::kCsL4);
	memcpy(g_frame, g_pattern, sizeof(g_frame));
	uint8_t hdr[96];
	uint32_t hlen = 0;
	if (tsel & 0x80) {
		hlen = build_headers(tsel & 0x7f, len > 80 ? len - 80 : 0, hdr);
		/* the payload length the template was built for: make it the real one */
		uint32_t payload = len > hlen ? len - hlen : 0;
		hlen = build_headers(tsel & 0x7f, payload, hdr);
		memcpy(g_frame, hdr, hlen < len ? hlen : len);
	}
	uint32_t raw = in.u8() % 97;
	in.bytes(g_frame + hlen, raw);
	uint32_t npatch = in.u8() % 8;
	for (uint32_t i = 0; i < npatch; i++) {
		uint16_t off = in.u16();
		uint8_t v = in.u8();
		g_frame[off % kFrameMax] = v;
	}
	bool wellformed = (tsel & 0x80) && !raw && !npatch && len >= hlen &&
			  cs == (prm::kCsL3 | prm::kCsL4);

	SendWqe w;
	w.cs_flags = cs;
	w.ce = true;
	uint32_t ihs = len < s.min_inline ? len : s.min_inline;
	w.inline_hdr.assign(g_frame, g_frame + ihs);
	if (len > ihs) {
		Seg sg;
		sg.addr = frame_dma + ihs;
		sg.len = len - ihs;
		w.segs.push_back(sg);
	}
	prm::QueryQCounterOut before = qcounters(s.fn1);
	uint32_t nbb = (uint32_t)(build_wqe(w, 0, 0).size() / 64);
	s.sq.pad_for(nbb);
	s.sq.post(w);
	s.sq.doorbell();

	/* where did it go? exactly one place */
	int places = 0;
	prm::Cqe64 c;
	while (s.txcq.poll(&c)) {
		if (c.opcode() == prm::kCqeReqErr) {
			FZ_CHECK(len < 14 || len > s.hw_mtu, "TX refused a %u-byte frame", len);
			FZ_CHECK(s.sq.modify(prm::kQueueErr, prm::kQueueRst) == prm::kStatOk, "SQ ERR");
			FZ_CHECK(s.sq.modify(prm::kQueueRst, prm::kQueueRdy) == prm::kStatOk, "SQ RDY");
			hit(g_cov[kTxRefused]);
			places++;
		} else {
			FZ_CHECK(c.opcode() == prm::kCqeReq, "TX CQE opcode 0x%x", c.opcode());
		}
	}
	for (uint32_t r = 0; r < s.nrq; r++) {
		while (s.rq_live[r] && s.rxcq[r].poll(&c)) {
			FZ_CHECK(c.opcode() == prm::kCqeRespSend, "RX CQE opcode 0x%x", c.opcode());
			check_rx(s, r, c, g_frame, len, !cs, wellformed);
			if (s.repost)
				s.rq[r].post(1);
			places++;
		}
	}
	prm::QueryQCounterOut after = qcounters(s.fn1);
	uint64_t oob = after.rx_out_of_buffer.get() - before.rx_out_of_buffer.get();
	uint64_t over = after.rx_oversize_pkts_buffer.get() - before.rx_oversize_pkts_buffer.get();
	uint64_t down = after.rx_if_down_packets.get() - before.rx_if_down_packets.get();
	FZ_CHECK(after.rx_malformed.get() == before.rx_malformed.get(), "runt on the wire");
	if (oob)
		hit(g_cov[kOutOfBuffer]);
	if (over)
		hit(g_cov[kOversize]);
	if (down)
		hit(g_cov[kIfDown]);
	places += (int)(oob + over + down);
	FZ_CHECK(places == 1, "a %u-byte frame went to %d places (rx/tx-error + %llu oob, %llu "
		 "oversize, %llu if-down)", len, places, (unsigned long long)oob,
		 (unsigned long long)over, (unsigned long long)down);
}

} /* namespace */

extern "C" int LLVMFuzzerInitialize(int *, char ***)
{
	cov_init("rx", g_cov, kNrCov);
	for (uint32_t i = 0; i < kFrameMax; i++)
		g_pattern[i] = (uint8_t)(i * 13 + (i >> 7));
	return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	Input in(data, size);
	begin_input();
	scx_hw_adapter *a = adapter_get(model_of(in.u8()));
	{
		Setup s;
		s.fn0 = scx_hw_function(a, 0);
		s.fn1 = scx_hw_function(a, 1);
		prm::HcaCaps caps = query_caps(s.fn0);
		s.hw_mtu = caps.max_hw_mtu.get();
		s.min_inline = caps.wqe_inline_mode ? 18 : 0;
		uint64_t frame_dma = host::dma_map(g_frame, kFrameMax);
		FZ_CHECK(s.txcq.create(s.fn0, 8, 1) == prm::kStatOk, "TX CQ");
		FZ_CHECK(s.sq.create(s.fn0, s.txcq.cqn, 6, 0, false) == prm::kStatOk, "SQ");
		FZ_CHECK(s.sq.modify(prm::kQueueRst, prm::kQueueRdy) == prm::kStatOk, "SQ RDY");

		uint8_t nb = in.u8();
		s.nrq = 1 + nb % 4;
		s.repost = !(nb & 0x80);
		static const uint32_t bufs[8] = { 10240, 10240, 10240, 10240, 2048, 1536, 256, 64 };
		for (uint32_t r = 0; r < s.nrq; r++) {
			uint8_t b = in.u8();
			FZ_CHECK(s.rxcq[r].create(s.fn1, 6, 2 + r) == prm::kStatOk, "RX CQ");
			FZ_CHECK(s.rq[r].create(s.fn1, s.rxcq[r].cqn, 1 + b % 4, bufs[(b >> 4) & 7]) ==
				 prm::kStatOk, "RQ");
			FZ_CHECK(s.rq[r].modify(prm::kQueueRst, prm::kQueueRdy) == prm::kStatOk, "RQ RDY");
			s.rq[r].post(s.rq[r].size());
			s.rq_live[r] = true;
			s.cc[r] = 0;
		}
		uint8_t rb = in.u8();
		s.table_log = rb % 4;
		s.fields = (rb >> 2) & 0xf;
		if (rb & 0x40)
			in.bytes(s.key, sizeof(s.key));
		else
			memcpy(s.key, kMsKey, sizeof(s.key));
		std::vector<uint32_t> table;
		for (uint32_t i = 0; i < (1u << s.table_log); i++) {
			s.table[i] = (uint8_t)(in.u8() % s.nrq);
			table.push_back(s.rq[s.table[i]].rqn);
		}
		FZ_CHECK(rss_cmd(s.fn1, prm::kCmdCreateRss, 0, table, s.fields, s.key, &s.rss) ==
			 prm::kStatOk, "RSS");
		if (rb & 0x80 && s.nrq > 1) {
			/* the last RQ goes while the table still names it */
			uint32_t r = s.nrq - 1;
			FZ_CHECK(s.rq[r].destroy() == prm::kStatOk, "destroy RQ in use by RSS");
			s.rq_live[r] = false;
		}

		for (int i = 0; i < 32 && !in.empty(); i++)
			one_frame(s, in, frame_dma);

		FZ_CHECK(destroy(s.fn1, prm::kCmdDestroyRss, s.rss) == prm::kStatOk, "destroy RSS");
		for (uint32_t r = 0; r < s.nrq; r++) {
			if (s.rq_live[r])
				FZ_CHECK(s.rq[r].destroy() == prm::kStatOk, "destroy RQ");
			FZ_CHECK(s.rxcq[r].destroy() == prm::kStatOk, "destroy RX CQ");
		}
		FZ_CHECK(s.sq.destroy() == prm::kStatOk, "destroy SQ");
		FZ_CHECK(s.txcq.destroy() == prm::kStatOk, "destroy TX CQ");
		scx_os_dma_unmap(&hwt::g_os_dev, frame_dma, kFrameMax, SCX_DMA_SINGLE);
	}
	adapter_put(a);
	check_clean("rx");
	return 0;
}
