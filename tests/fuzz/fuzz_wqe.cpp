// SPDX-License-Identifier: GPL-2.0
/*
 * Target "wqe": the device's WQE execution. The input is a small SQ
 * configuration followed by WQE descriptions (NOP, SEND, LSO, enhanced
 * MPWQE or a raw opcode; inline headers raw or from a template, data
 * pointers good or bad, inline data segments, a DS count override, raw
 * WQE bytes), posted without padding so WQEs wrap around the ring end.
 * The peer function receives what goes on the wire.
 *
 * Invariants: every CQE is a success for a WQE that asked for one (with
 * its opcode and index) or an error CQE after which the SQ is in ERR and
 * recovers (ERR -> RST -> RDY); every frame received is 14..max_hw_mtu
 * bytes; no leak or misuse in the OS layer; ASan/UBSan silent.
 */
#include "fuzz.h"
#include "headers.h"

using namespace fz;

namespace {

enum {
	kOkNop, kOkSend, kOkLso, kOkMpw, kOkSendInline, kOkSendInlineSeg, kOkMpwInline,
	kOkLsoMultiSeg, kOkLsoUdp, kOkLsoV6, kOkCsum, kOkWrap, kErrLength, kErrQpOp, kErrProt,
	kErrOpcode, kErrDbOverrun, kRecovered, kRxFrames, kRxMaxMtu, kNoCe, kModelCx4, kOkVxlan,
	kNrCov
};
Cov g_cov[kNrCov] = {
	{ "op NOP ok", true, 0 },
	{ "op SEND ok", true, 0 },
	{ "op LSO ok", true, 0 },
	{ "op ENHANCED_MPSW ok", true, 0 },
	{ "SEND inline headers ok", true, 0 },
	{ "SEND inline data seg ok", true, 0 },
	{ "MPSW inline packet ok", true, 0 },
	{ "LSO >1 segment ok", true, 0 },
	{ "LSO UDP ok", true, 0 },
	{ "LSO IPv6 ok", true, 0 },
	{ "checksum offload ok", true, 0 },
	{ "WQE across ring end ok", true, 0 },
	{ "error: local length", true, 0 },
	{ "error: local QP op", true, 0 },
	{ "error: local protection", true, 0 },
	{ "error: unknown opcode", true, 0 },
	{ "error: pc beyond ring", true, 0 },
	{ "SQ recovered", true, 0 },
	{ "frames received", true, 0 },
	{ "frame > 9000 bytes", true, 0 },
	{ "WQE without CQE", false, 0 },
	{ "model cx4", false, 0 },
	{ "VXLAN, GENEVE or GRE inner offloads ok", false, 0 },
};

constexpr uint32_t kDataSize = 64 * 1024;
uint8_t *g_data;	/* gathered from by pointers: a pattern, input headers at 0 */

struct Posted {
	bool valid;
	uint8_t opcode;
	bool ce;
	uint32_t feat;	/* kOk* bits beyond the opcode */
};

/* ADD/DELETE_VXLAN_UDP_DPORT; returns the status */
uint8_t vxlan_port(Fn *fn, uint16_t op, uint16_t port)
{
	prm::VxlanUdpDportIn in = {};
	prm::CmdOut out = {};
	in.hdr.opcode.set(op);
	in.vxlan_udp_port.set(port);
	FZ_CHECK(bus::cmd_exec(fn, &in, sizeof(in), &out, sizeof(out)), "VXLAN command delivered");
	return out.status;
}

struct Tx {
	Fn *fn0, *fn1;
	uint32_t hw_mtu;
	Cq txcq, rxcq;
	Sq sq;
	Rq rq;
	uint32_t rss = 0;
	uint64_t data_dma = 0;
	uint32_t unexec = 0;	/* WQEBBs posted since the last doorbell */
	uint64_t ctrl8 = 0;	/* first 8 bytes of the last WQE posted */
	Posted posted[64];	/* by WQEBB index within the ring */
};

void reset_posted(Tx &t) { memset(t.posted, 0, sizeof(t.posted)); }

/* Post whole WQEBBs at pc (wrapping) and remember the ctrl segment for the doorbell. */
void post(Tx &t, const uint8_t *img, uint32_t nbb)
{
	memcpy(&t.ctrl8, img, sizeof(t.ctrl8));
	t.sq.post_bytes(Bytes(img, img + nbb * prm::kSendWqeBB));
}

/*
 * Sq::doorbell() reads the ctrl segment back from the ring, which a WQE
 * longer than the ring has overwritten: ring with the one posted.
 */
void doorbell(Tx &t)
{
	prm::be32 v;
	v.set(t.sq.pc);
	__atomic_thread_fence(__ATOMIC_RELEASE);
	memcpy(t.sq.dbr.cpu + prm::kSndDbr * 4, &v, 4);
	bus::mmio_write64(t.sq.fn, prm::kUarSqDoorbell, t.ctrl8);
}

void drain(Tx &t)
{
	prm::Cqe64 c;
	bool recover = false;
	while (t.txcq.poll(&c)) {
		if (c.opcode() == prm::kCqeReqErr) {
			auto *e = reinterpret_cast<const prm::ErrCqe *>(&c);
			uint8_t op = (uint8_t)(e->s_wqe_opcode_qpn.get() >> 24);
			if (op != prm::kOpNop && op != prm::kOpSend && op != prm::kOpLso &&
			    op != prm::kOpEnhancedMpsw)
				hit(g_cov[kErrOpcode]);
			switch (e->syndrome) {
			case prm::kSyndLocalLengthErr:
				hit(g_cov[kErrLength]);
				break;
			case prm::kSyndLocalQpOpErr:
				hit(g_cov[kErrQpOp]);
				break;
			case prm::kSyndLocalProtErr:
				hit(g_cov[kErrProt]);
				break;
			default:
				fail("error CQE with syndrome 0x%x", e->syndrome);
			}
			recover = true;
			continue;
		}
		FZ_CHECK(c.opcode() == prm::kCqeReq, "TX CQE opcode 0x%x", c.opcode());
		FZ_CHECK(!recover, "success CQE after an error CQE");
		uint32_t ix = c.wqe_counter.get() & (t.sq.size() - 1);
		Posted &p = t.posted[ix];
		FZ_CHECK(p.valid && p.ce, "CQE for WQE %u that was not posted with CE",
			 c.wqe_counter.get());
		FZ_CHECK((c.sop_drop_qpn.get() >> 24) == p.opcode && (c.sop_drop_qpn.get() & 0xffffff) ==
			 t.sq.sqn, "CQE opcode/sqn 0x%x, posted opcode 0x%x sqn 0x%x",
			 c.sop_drop_qpn.get(), p.opcode, t.sq.sqn);
		switch (p.opcode) {
		case prm::kOpNop: hit(g_cov[kOkNop]); break;
		case prm::kOpSend: hit(g_cov[kOkSend]); break;
		case prm::kOpLso: hit(g_cov[kOkLso]); break;
		case prm::kOpEnhancedMpsw: hit(g_cov[kOkMpw]); break;
		default: fail("success CQE for opcode 0x%x", p.opcode);
		}
		for (uint32_t b = 0; b < kNrCov; b++)
			if (p.feat & (1u << b))
				hit(g_cov[b]);
		p.valid = false;
	}
	if (recover) {
		FZ_CHECK(t.sq.modify(prm::kQueueErr, prm::kQueueRst) == prm::kStatOk,
			 "SQ not in ERR after an error CQE");
		FZ_CHECK(t.sq.modify(prm::kQueueRst, prm::kQueueRdy) == prm::kStatOk,
			 "SQ RST -> RDY failed");
		reset_posted(t);
		hit(g_cov[kRecovered]);
	}
	while (t.rxcq.poll(&c)) {
		FZ_CHECK(c.opcode() == prm::kCqeRespSend, "RX CQE opcode 0x%x", c.opcode());
		uint32_t len = c.byte_cnt.get();
		FZ_CHECK(len >= 14 && len <= t.hw_mtu, "received a %u-byte frame", len);
		hit(g_cov[kRxFrames]);
		if (len > 9000)
			hit(g_cov[kRxMaxMtu]);
		t.rq.post(1);
	}
}

/* One WQE from the input into img (1 KiB); returns its WQEBBs, 0 when the input ran out. */
uint32_t build_wqe(Tx &t, Input &in, uint8_t *img, Posted *p)
{
	uint8_t sel = in.u8();
	uint8_t fl = in.u8();
	static const uint8_t ops[4] = { prm::kOpNop, prm::kOpSend, prm::kOpLso,
					prm::kOpEnhancedMpsw };
	uint8_t opcode = sel & 0x80 ? in.u8() : ops[sel & 3];
	memset(img, 0, prm::kMaxSendWqeBBs * prm::kSendWqeBB);

	if (fl & 0x80) {
		/* raw: the input's bytes behind a ctrl segment naming the SQ */
		in.bytes(img, (1 + (in.u8() & 3)) * 64);
		prm::CtrlSeg ctrl;
		memcpy(&ctrl, img, sizeof(ctrl));
		ctrl.set(opcode, t.sq.pc, t.sq.sqn, ctrl.ds_count());
		memcpy(img, &ctrl, sizeof(ctrl));
		*p = Posted{ true, opcode, (img[11] & prm::kCtrlCqUpdate) != 0, 0 };
		/* exactly the WQEBBs the device will read: it must not see stale ring bytes */
		return ctrl.ds_count() ? (ctrl.ds_count() + 3) / 4 : 1;
	}

	uint32_t feat = 0;
	prm::EthSeg eth = {};
	eth.cs_flags = (uint8_t)((fl & 0x04 ? prm::kCsL3 : 0) | (fl & 0x08 ? prm::kCsL4 : 0));
	if (eth.cs_flags)
		feat |= 1u << kOkCsum;
	eth.mss.set(in.u16());

	uint8_t hdr[256];
	uint32_t ihs;
	if (fl & 0x10) {
		uint8_t tsel = in.u8();
		ihs = build_headers(tsel, 0, hdr);
		if ((fl & 0x0e) == 0x0a) {
			/*
			 * inside VXLAN (IPv4/UDP to 4789, the port the session
			 * adds) or, tsel's top bit set, GENEVE (6081) with 0 to
			 * 3 words of options, or GRE: inner offloads
			 */
			const bool geneve = tsel & 0x80, gre = !geneve && (tsel & 0x40);
			const uint32_t th = geneve ? 8 + 4 * ((tsel >> 4) & 3) : gre ? 0 : 8;
			uint8_t inner[128];
			memcpy(inner, hdr, ihs);
			uint32_t o = build_headers(kV4Udp, th + ihs, hdr);
			hdr[o - 6] = geneve ? 0x17 : 0x12;	/* UDP destination port 6081 / 4789 */
			hdr[o - 5] = geneve ? 0xc1 : 0xb5;
			memset(hdr + o, 0, th);
			if (gre) {
				/* tsel's bit 6 instead: GRE with a key (8 bytes, UDP's place), Ethernet */
				static const uint8_t g[8] = { 0x20, 0, 0x65, 0x58, 0, 0, 0, 9 };
				hdr[o - 8 - 20 + 9] = 47;
				memcpy(hdr + o - 8, g, sizeof(g));
			} else if (geneve) {
				hdr[o] = (uint8_t)((th - 8) / 4);	/* version 0, option words */
				hdr[o + 2] = 0x65;		/* Ethernet */
				hdr[o + 3] = 0x58;
			} else {
				hdr[o] = 0x08;		/* I flag */
			}
			memcpy(hdr + o + th, inner, ihs);
			ihs += o + th;
			eth.cs_flags |= prm::kCsL3Inner | prm::kCsL4Inner;
			feat |= 1u << kOkVxlan;
		}
		if (opcode == prm::kOpLso) {
			uint8_t tt = tsel % kNrTmpl;
			if (tt == kV4Udp || tt == kV6Udp || tt == kQinQV6Udp)
				feat |= 1u << kOkLsoUdp;
			if (tt == kV6Tcp || tt == kV6Udp || tt == kQinQV6Udp)
				feat |= 1u << kOkLsoV6;
		}
		/* one byte of the template patched */
		uint8_t at = in.u8(), v = in.u8();
		if (at < ihs && (fl & 0x40))
			hdr[at] = v;
	} else {
		ihs = in.u8();
		in.bytes(hdr, ihs);
	}
	if (opcode == prm::kOpSend && ihs)
		feat |= 1u << kOkSendInline;
	eth.inline_hdr_sz.set((uint16_t)ihs);
	memcpy(eth.inline_hdr_start, hdr, ihs < 2 ? ihs : 2);
	memcpy(img + 16, &eth, sizeof(eth));
	uint32_t d = 2;
	if (ihs > 2) {
		uint32_t room = prm::kMaxSendWqeBBs * prm::kSendWqeBB - 32;
		memcpy(img + 32, hdr + 2, ihs - 2 < room ? ihs - 2 : room);
		d += (ihs - 2 + 15) / 16;
	}

	uint32_t nseg = in.u8() % 20;
	uint32_t lso_total = 0;
	for (uint32_t i = 0; i < nseg && d < prm::kMaxDsCount; i++) {
		uint8_t kind = in.u8();
		uint8_t *ds = img + d * 16;
		if (kind & 1) {
			/* inline data segment */
			uint32_t n = in.u8() | (kind & 0x80 ? (kind & 0x0e) << 7 : 0);
			uint32_t nds = (4 + n + 15) / 16;
			if (d + nds > prm::kMaxDsCount)
				break;
			prm::be32 bc;
			bc.set(n | prm::kInlineSegFlag);
			memcpy(ds, &bc, 4);
			in.bytes(ds + 4, n);
			d += nds;
			feat |= 1u << (opcode == prm::kOpEnhancedMpsw ? kOkMpwInline : kOkSendInlineSeg);
			continue;
		}
		uint32_t len = in.u16();
		uint32_t off = in.u16();
		if (opcode == prm::kOpLso) {
			len %= lso_total < 8192 ? 8192 : 2048;
			lso_total += len;
		} else {
			len %= t.hw_mtu + 64;
		}
		off %= kDataSize - len + 1;
		prm::DataSeg seg;
		seg.byte_count.set(len);
		seg.lkey.set(kind & 2 ? in.u32() : prm::kReservedLkey);
		seg.addr.set(kind & 4 ? host::dma_unmapped_addr() + off : t.data_dma + off);
		memcpy(ds, &seg, sizeof(seg));
		d++;
	}
	uint32_t ds_real = d;
	uint32_t ds = fl & 0x20 ? in.u8() & 0x3f : ds_real & 0x3f;
	if (opcode == prm::kOpNop && !(fl & 0x20))
		ds = 1;
	bool ce = !(fl & 0x01);
	prm::CtrlSeg ctrl = {};
	ctrl.set(opcode, t.sq.pc, t.sq.sqn, ds);
	ctrl.fm_ce_se = ce ? prm::kCtrlCqUpdate : 0;
	memcpy(img, &ctrl, sizeof(ctrl));
	/* exactly the WQEBBs the device will read (a shorter DS count cuts the WQE) */
	uint32_t nbb = ds ? (ds + 3) / 4 : 1;
	if ((t.sq.pc & (t.sq.size() - 1)) + (ds + 3) / 4 > t.sq.size())
		feat |= 1u << kOkWrap;
	if (opcode == prm::kOpLso && eth.mss.get() && lso_total > eth.mss.get())
		feat |= 1u << kOkLsoMultiSeg;
	if (!ce)
		hit(g_cov[kNoCe]);
	*p = Posted{ true, opcode, ce, feat };
	return nbb;
}

} /* namespace */

extern "C" int LLVMFuzzerInitialize(int *, char ***)
{
	cov_init("wqe", g_cov, kNrCov);
	g_data = static_cast<uint8_t *>(malloc(kDataSize));
	for (uint32_t i = 0; i < kDataSize; i++)
		g_data[i] = (uint8_t)(i * 7 + (i >> 8));
	return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	Input in(data, size);
	begin_input();

	uint8_t m = in.u8();
	uint8_t log_sq = 3 + in.u8() % 4;	/* 8..64 WQEBBs */
	uint8_t sqfl = in.u8();
	scx_hw_adapter *a = adapter_get(model_of(m));
	if ((m & 3) == 0)
		hit(g_cov[kModelCx4]);
	{
		Tx t;
		t.fn0 = scx_hw_function(a, 0);
		t.fn1 = scx_hw_function(a, 1);
		prm::HcaCaps caps = query_caps(t.fn0);
		t.hw_mtu = caps.max_hw_mtu.get();
		/* frame headers the pointers gather, from the input */
		in.bytes(g_data, 96);
		t.data_dma = host::dma_map(g_data, kDataSize);

		FZ_CHECK(t.txcq.create(t.fn0, 8, 1) == prm::kStatOk, "TX CQ");
		bool mpw = (sqfl & 4) && caps.enhanced_mpw;
		FZ_CHECK(t.sq.create(t.fn0, t.txcq.cqn, log_sq, sqfl & 3, mpw) == prm::kStatOk, "SQ");
		FZ_CHECK(t.sq.modify(prm::kQueueRst, prm::kQueueRdy) == prm::kStatOk, "SQ RDY");
		uint8_t vx = vxlan_port(t.fn0, prm::kCmdAddVxlanUdpDport, 4789);
		FZ_CHECK(vx == prm::kStatOk || vx == prm::kStatBadResState, "VXLAN port");
		FZ_CHECK(t.rxcq.create(t.fn1, 8, 2) == prm::kStatOk, "RX CQ");
		FZ_CHECK(t.rq.create(t.fn1, t.rxcq.cqn, 3, 10240) == prm::kStatOk, "RQ");
		FZ_CHECK(t.rq.modify(prm::kQueueRst, prm::kQueueRdy) == prm::kStatOk, "RQ RDY");
		t.rq.post(t.rq.size());
		FZ_CHECK(rss_cmd(t.fn1, prm::kCmdCreateRss, 0, { t.rq.rqn }, kFields4, kMsKey, &t.rss) ==
			 prm::kStatOk, "RSS");
		reset_posted(t);

		alignas(64) uint8_t img[prm::kMaxSendWqeBBs * prm::kSendWqeBB];
		for (int w = 0; w < 64 && !in.empty(); w++) {
			Posted p;
			uint32_t nbb = build_wqe(t, in, img, &p);
			t.posted[t.sq.pc & (t.sq.size() - 1)] = p;
			post(t, img, nbb);
			t.unexec += nbb;
			/* a doorbell now (flag in the next byte), else keep posting */
			if (in.u8() & 1 || in.empty()) {
				uint32_t recovered = (uint32_t)g_cov[kRecovered].count;
				bool overrun = t.unexec > t.sq.size();
				doorbell(t);
				drain(t);
				t.unexec = 0;
				if (overrun) {
					/* the producer counter is more than a ring ahead: length error first */
					FZ_CHECK(g_cov[kRecovered].count == recovered + 1,
						 "pc beyond the ring did not fail the SQ");
					hit(g_cov[kErrDbOverrun]);
				}
			}
		}

		FZ_CHECK(destroy(t.fn1, prm::kCmdDestroyRss, t.rss) == prm::kStatOk, "destroy RSS");
		FZ_CHECK(destroy(t.fn1, prm::kCmdDestroyRq, t.rq.rqn) == prm::kStatOk, "destroy RQ");
		FZ_CHECK(destroy(t.fn0, prm::kCmdDestroySq, t.sq.sqn) == prm::kStatOk, "destroy SQ");
		FZ_CHECK(t.rxcq.destroy() == prm::kStatOk, "destroy RX CQ");
		FZ_CHECK(t.txcq.destroy() == prm::kStatOk, "destroy TX CQ");
		scx_os_dma_unmap(&hwt::g_os_dev, t.data_dma, kDataSize, SCX_DMA_SINGLE);
	}
	adapter_put(a);
	check_clean("wqe");
	return 0;
}
