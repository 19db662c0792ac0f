// SPDX-License-Identifier: GPL-2.0
/* TX -> wire -> RX between the two functions of a pair, byte for byte. */
#include <algorithm>

#include "frames.h"
#include "hw_harness.h"

using namespace hwt;

namespace {

class HwDatapath : public HwTest {};

frames::Bytes tcp4(size_t payload, uint8_t seed = 1)
{
	frames::Spec s;
	s.payload = frames::payload(payload, seed);
	return frames::build(s);
}

/* Check one RX CQE against the frame it should describe, and the buffer contents. */
void expect_rx(const Rq &rq, const prm::Cqe64 &cqe, const frames::Bytes &frame, uint16_t counter)
{
	EXPECT_EQ(cqe.opcode(), prm::kCqeRespSend);
	EXPECT_EQ(cqe.byte_cnt.get(), frame.size());
	EXPECT_EQ(cqe.wqe_counter.get(), counter);
	ASSERT_EQ(0, memcmp(rq.buffer(counter), frame.data(), frame.size()))
		<< "payload differs for WQE " << counter;
}

TEST_F(HwDatapath, SendOneFrameEndToEnd)
{
	Link l;
	l.setup(fn0, fn1);
	frames::Bytes f = tcp4(1000);
	l.send(f);

	auto rx = l.rxcq.poll_all();
	ASSERT_EQ(rx.size(), 1u);
	expect_rx(l.rq, rx[0], f, 0);
	EXPECT_EQ(rx[0].l3_type(), prm::kCqeL3Ipv4);
	EXPECT_EQ(rx[0].l4_type(), prm::kCqeL4TcpAckData);
	EXPECT_EQ(rx[0].hds_ip_ext, prm::kCqeL3Ok | prm::kCqeL4Ok);
	EXPECT_EQ(rx[0].rss_hash_type, prm::kRssHashIpv4 | prm::kRssHashTcp);

	auto tx = l.txcq.poll_all();
	ASSERT_EQ(tx.size(), 1u);
	EXPECT_EQ(tx[0].opcode(), prm::kCqeReq);
	EXPECT_EQ(tx[0].wqe_counter.get(), 0);
	EXPECT_EQ(tx[0].sop_drop_qpn.get() & 0xffffff, l.sq.sqn);
}

TEST_F(HwDatapath, BothDirectionsOfThePair)
{
	Link ab, ba;
	ab.setup(fn0, fn1);
	ba.setup(fn1, fn0);
	frames::Bytes f1 = tcp4(100, 1), f2 = tcp4(200, 2);
	ab.send(f1);
	ba.send(f2);
	auto r1 = ab.rxcq.poll_all(), r2 = ba.rxcq.poll_all();
	ASSERT_EQ(r1.size(), 1u);
	ASSERT_EQ(r2.size(), 1u);
	expect_rx(ab.rq, r1[0], f1, 0);
	expect_rx(ba.rq, r2[0], f2, 0);
}

TEST_F(HwDatapath, PairsAreIsolated)
{
	scx_hw_adapter *a4;
	ASSERT_EQ(scx_hw_adapter_create(prm::kModelCx6Dx, 4, &g_os_dev, &a4), 0);
	Fn *f[4];
	for (int i = 0; i < 4; i++) {
		f[i] = scx_hw_function(a4, i);
		ASSERT_EQ(link_admin(f[i], true), prm::kStatOk);
	}
	{
		Link l01, l32;
		l01.setup(f[0], f[1]);
		l32.setup(f[3], f[2]);
		frames::Bytes x = tcp4(64, 7), y = tcp4(80, 8);
		l01.send(x);
		l32.send(y);
		auto r1 = l01.rxcq.poll_all(), r2 = l32.rxcq.poll_all();
		ASSERT_EQ(r1.size(), 1u);
		ASSERT_EQ(r2.size(), 1u);
		expect_rx(l01.rq, r1[0], x, 0);
		expect_rx(l32.rq, r2[0], y, 0);
	}
	scx_hw_adapter_destroy(a4);
}

/* Inline header sizes around the DS boundaries, gathered over several segments. */
TEST_F(HwDatapath, InlineHeadersAndGatherSegments)
{
	Link l;
	l.setup(fn0, fn1);
	const uint32_t inl[] = { 0, 1, 2, 3, 14, 17, 18, 33, 34, 60 };
	uint16_t n = 0;
	for (uint32_t ihs : inl) {
		frames::Bytes f = tcp4(300 + ihs, (uint8_t)ihs);
		/* inline part + three data segments of uneven length */
		SendWqe w;
		w.inline_hdr.assign(f.begin(), f.begin() + ihs);
		size_t rest = f.size() - ihs;
		size_t cuts[] = { ihs, ihs + rest / 3, ihs + rest / 3 + 7, f.size() };
		for (int i = 0; i < 3; i++) {
			l.tx_bufs.push_back(std::make_unique<TxBuf>(
				frames::Bytes(f.begin() + cuts[i], f.begin() + cuts[i + 1])));
			Seg s;
			s.addr = l.tx_bufs.back()->dma;
			s.len = (uint32_t)l.tx_bufs.back()->data.size();
			w.segs.push_back(s);
		}
		w.ce = true;
		l.sq.post(w);
		l.sq.doorbell();
		auto rx = l.rxcq.poll_all();
		ASSERT_EQ(rx.size(), 1u) << "inline " << ihs;
		expect_rx(l.rq, rx[0], f, n++);
	}
}

TEST_F(HwDatapath, InlineDataSegmentInSend)
{
	Link l;
	l.setup(fn0, fn1);
	frames::Bytes f = tcp4(40);
	SendWqe w;
	Seg s;
	s.inl = true;
	s.data = f;
	w.segs.push_back(s);
	w.ce = true;
	l.sq.post(w);
	l.sq.doorbell();
	auto rx = l.rxcq.poll_all();
	ASSERT_EQ(rx.size(), 1u);
	expect_rx(l.rq, rx[0], f, 0);
}

/* A WQE whose WQEBBs wrap around the end of the ring still reads correctly. */
TEST_F(HwDatapath, WqeWrappingTheRing)
{
	Link l;
	l.setup(fn0, fn1, /*log_sq=*/3);
	/* 6 one-WQEBB NOPs put pc at 6: a 4-WQEBB WQE then wraps (6,7,0,1). */
	for (int i = 0; i < 6; i++)
		l.sq.post_nop();
	l.sq.doorbell();
	frames::Bytes f = tcp4(500);
	SendWqe w;
	w.inline_hdr.assign(f.begin(), f.begin() + 130);	/* 2 + 8 DS of inline */
	l.tx_bufs.push_back(std::make_unique<TxBuf>(frames::Bytes(f.begin() + 130, f.end())));
	Seg s;
	s.addr = l.tx_bufs.back()->dma;
	s.len = (uint32_t)l.tx_bufs.back()->data.size();
	w.segs.push_back(s);
	w.ce = true;
	ASSERT_EQ(build_wqe(w, 0, 0).size(), 192u);	/* 11 DS = 3 WQEBBs */
	w.inline_hdr.assign(f.begin(), f.begin() + 180);	/* 2 + 12 DS: 15 DS = 4 WQEBBs */
	l.tx_bufs.back() = std::make_unique<TxBuf>(frames::Bytes(f.begin() + 180, f.end()));
	w.segs[0].addr = l.tx_bufs.back()->dma;
	w.segs[0].len = (uint32_t)l.tx_bufs.back()->data.size();
	uint16_t idx = l.sq.post(w);
	EXPECT_EQ(idx, 6);
	EXPECT_EQ(l.sq.pc, 10);
	l.sq.doorbell();
	auto rx = l.rxcq.poll_all();
	ASSERT_EQ(rx.size(), 1u);
	expect_rx(l.rq, rx[0], f, 0);
	auto tx = l.txcq.poll_all();
	ASSERT_EQ(tx.size(), 1u);
	EXPECT_EQ(tx[0].wqe_counter.get(), 6);
}

/* Only WQEs with CE set get a CQE; the CQE names the WQE, not a count. */
TEST_F(HwDatapath, TxCqeOnlyForCeWqes)
{
	Link l;
	l.setup(fn0, fn1);
	std::vector<uint16_t> ce_idx;
	for (int i = 0; i < 10; i++) {
		bool ce = i == 3 || i == 9;
		SendWqe w;
		frames::Bytes f = tcp4(60 + i, (uint8_t)i);
		Seg s;
		s.inl = true;
		s.data = f;
		w.segs.push_back(s);
		w.ce = ce;
		uint16_t idx = l.sq.post(w);
		if (ce)
			ce_idx.push_back(idx);
		if (i == 4)
			l.sq.post_nop(1, true);	/* NOP with CE: completes too */
	}
	l.sq.doorbell();
	auto tx = l.txcq.poll_all();
	ASSERT_EQ(tx.size(), 3u);
	EXPECT_EQ(tx[0].wqe_counter.get(), ce_idx[0]);
	EXPECT_EQ(tx[1].opcode(), prm::kCqeReq);
	EXPECT_EQ(tx[2].wqe_counter.get(), ce_idx[1]);
	EXPECT_EQ(l.rxcq.poll_all().size(), 10u);
}

/* One doorbell for many WQEs; a later doorbell continues where the device stopped. */
TEST_F(HwDatapath, DoorbellBatchesAndContinues)
{
	Link l;
	l.setup(fn0, fn1, 4, 6, 8);
	std::vector<frames::Bytes> sent;
	for (int round = 0; round < 5; round++) {
		for (int i = 0; i < 5; i++) {
			sent.push_back(tcp4(100 + round * 10 + i, (uint8_t)(round * 5 + i)));
			l.send(sent.back(), 18, 0, i == 4);
		}
	}
	auto rx = l.rxcq.poll_all();
	ASSERT_EQ(rx.size(), sent.size());
	for (size_t i = 0; i < sent.size(); i++) {
		EXPECT_EQ(rx[i].byte_cnt.get(), sent[i].size());
		EXPECT_EQ(rx[i].wqe_counter.get(), i);
	}
	/* RX buffers were consumed in order: the last 25 frames are in slots 0..24. */
	for (size_t i = 0; i < sent.size(); i++)
		EXPECT_EQ(0, memcmp(l.rq.buffer((uint32_t)i), sent[i].data(), sent[i].size()));
	EXPECT_EQ(l.txcq.poll_all().size(), 5u);
}

TEST_F(HwDatapath, JumboFrameAtMaxHwMtu)
{
	Link l;
	l.setup(fn0, fn1);
	prm::HcaCaps caps = query_caps(fn0);
	frames::Bytes f = tcp4(caps.max_hw_mtu.get() - 54);	/* 14 + 20 + 20 headers */
	ASSERT_EQ(f.size(), caps.max_hw_mtu.get());
	l.send(f, 0, prm::kCsL3 | prm::kCsL4);
	auto rx = l.rxcq.poll_all();
	ASSERT_EQ(rx.size(), 1u);
	expect_rx(l.rq, rx[0], f, 0);
}

/*
 * A link whose SQ may take ENHANCED_MPSW WQEs; the RQ is created with the
 * vsd and scatter_fcs the caller set in l.rq.
 */
void setup_mpw_link(Link &l, Fn *tx, Fn *rx)
{
	l.txcq.create(tx, 6, 1);
	ASSERT_EQ(l.sq.create(tx, l.txcq.cqn, 6, 0, /*mpw=*/true), prm::kStatOk);
	ASSERT_EQ(l.sq.modify(prm::kQueueRst, prm::kQueueRdy), prm::kStatOk);
	ASSERT_EQ(l.rxcq.create(rx, 8, 2), prm::kStatOk);
	ASSERT_EQ(l.rq.create(rx, l.rxcq.cqn, 6), prm::kStatOk);
	ASSERT_EQ(l.rq.modify(prm::kQueueRst, prm::kQueueRdy), prm::kStatOk);
	l.rq.post(64);
	ASSERT_EQ(rss_cmd(rx, prm::kCmdCreateRss, 0, { l.rq.rqn }, kFields4, kMsKey, &l.rss),
		  prm::kStatOk);
}

TEST_F(HwDatapath, EnhancedMpswPacketsShareOneWqe)
{
	Link l;
	ASSERT_NO_FATAL_FAILURE(setup_mpw_link(l, fn0, fn1));

	SendWqe w;
	w.opcode = prm::kOpEnhancedMpsw;
	w.cs_flags = prm::kCsL3 | prm::kCsL4;
	std::vector<frames::Bytes> frames_sent;
	for (int i = 0; i < 5; i++) {
		frames::Spec sp;
		sp.payload = frames::payload(50 + i * 13, (uint8_t)i);
		sp.good_csums = false;
		frames::Bytes f = frames::build(sp);
		Seg s;
		if (i == 2) {
			s.inl = true;
			s.data = f;
		} else {
			l.tx_bufs.push_back(std::make_unique<TxBuf>(f));
			s.addr = l.tx_bufs.back()->dma;
			s.len = (uint32_t)f.size();
		}
		w.segs.push_back(s);
		frames::fill_reference_csums(f);
		frames_sent.push_back(f);
	}
	w.ce = true;
	l.sq.post(w);
	l.sq.doorbell();
	auto rx = l.rxcq.poll_all();
	ASSERT_EQ(rx.size(), 5u);
	for (int i = 0; i < 5; i++)
		expect_rx(l.rq, rx[i], frames_sent[i], (uint16_t)i);
	EXPECT_EQ(l.txcq.poll_all().size(), 1u);
}

/* LSO: the headers are replicated per mss of payload with lengths, ids, seq and flags fixed. */
TEST_F(HwDatapath, LsoSegmentsTcpIpv4)
{
	Link l;
	l.setup(fn0, fn1);
	frames::Spec sp;
	sp.tcp_flags = 0x19 | 0x80;	/* FIN PSH ACK CWR */
	sp.tcp_seq = 0xfffff000;	/* wraps during the send */
	const uint32_t mss = 1000, total = 4321;
	frames::Bytes hdr = frames::build(sp);	/* headers only */
	ASSERT_EQ(hdr.size(), 54u);
	frames::Bytes pay = frames::payload(total, 9);

	SendWqe w;
	w.opcode = prm::kOpLso;
	w.mss = mss;
	w.cs_flags = prm::kCsL3 | prm::kCsL4;
	w.inline_hdr = hdr;
	/* payload over two segments, split off the mss grid */
	l.tx_bufs.push_back(std::make_unique<TxBuf>(frames::Bytes(pay.begin(), pay.begin() + 1500)));
	l.tx_bufs.push_back(std::make_unique<TxBuf>(frames::Bytes(pay.begin() + 1500, pay.end())));
	for (int i = 0; i < 2; i++) {
		Seg s;
		s.addr = l.tx_bufs[i]->dma;
		s.len = (uint32_t)l.tx_bufs[i]->data.size();
		w.segs.push_back(s);
	}
	w.ce = true;
	l.sq.post(w);
	l.sq.doorbell();

	auto rx = l.rxcq.poll_all();
	ASSERT_EQ(rx.size(), 5u);
	for (uint32_t k = 0; k < 5; k++) {
		uint32_t chunk = std::min(mss, total - k * mss);
		frames::Spec e = sp;
		e.payload.assign(pay.begin() + k * mss, pay.begin() + k * mss + chunk);
		e.tcp_seq = sp.tcp_seq + k * mss;
		e.tcp_flags = sp.tcp_flags;
		if (k != 4)
			e.tcp_flags &= (uint8_t)~0x09;
		if (k != 0)
			e.tcp_flags &= (uint8_t)~0x80;
		frames::Bytes exp = frames::build(e);
		frames::put16(exp, 14 + 4, (uint16_t)(0x1234 + k));	/* IP id increments */
		frames::fill_reference_csums(exp);
		expect_rx(l.rq, rx[k], exp, (uint16_t)k);
		EXPECT_EQ(rx[k].hds_ip_ext, prm::kCqeL3Ok | prm::kCqeL4Ok);
	}
	EXPECT_EQ(l.txcq.poll_all().size(), 1u);
}

TEST_F(HwDatapath, LsoSegmentsUdpIpv6)
{
	Link l;
	l.setup(fn0, fn1);
	frames::Spec sp;
	sp.v6 = true;
	sp.proto = 17;
	sp.src = "2001:db8::1";
	sp.dst = "2001:db8::2";
	frames::Bytes hdr = frames::build(sp);
	ASSERT_EQ(hdr.size(), 62u);
	frames::Bytes pay = frames::payload(2500, 3);
	SendWqe w;
	w.opcode = prm::kOpLso;
	w.mss = 1200;
	w.inline_hdr = hdr;
	l.tx_bufs.push_back(std::make_unique<TxBuf>(pay));
	Seg s;
	s.addr = l.tx_bufs[0]->dma;
	s.len = (uint32_t)pay.size();
	w.segs.push_back(s);
	l.sq.post(w);
	l.sq.doorbell();
	auto rx = l.rxcq.poll_all();
	ASSERT_EQ(rx.size(), 3u);
	for (uint32_t k = 0; k < 3; k++) {
		frames::Spec e = sp;
		uint32_t chunk = std::min(1200u, 2500 - k * 1200);
		e.payload.assign(pay.begin() + k * 1200, pay.begin() + k * 1200 + chunk);
		expect_rx(l.rq, rx[k], frames::build(e), (uint16_t)k);
		EXPECT_EQ(rx[k].l3_type(), prm::kCqeL3Ipv6);
		EXPECT_EQ(rx[k].l4_type(), prm::kCqeL4Udp);
	}
	EXPECT_EQ(l.txcq.poll_all().size(), 0u);	/* no CE */
}

/* ---- RX drops ---- */

TEST_F(HwDatapath, OutOfBufferDropsAreCounted)
{
	Link l;
	l.setup(fn0, fn1, 6, 2);	/* RQ of 4, all posted */
	for (int i = 0; i < 7; i++)
		l.send(tcp4(100, (uint8_t)i), 0, 0, false);
	EXPECT_EQ(l.rxcq.poll_all().size(), 4u);
	EXPECT_EQ(query_q(fn1).rx_out_of_buffer.get(), 3u);
	EXPECT_EQ(query_q(fn0).rx_out_of_buffer.get(), 0u);

	/* Refill two: the next two frames land, the third is dropped again. */
	l.rq.post(2);
	for (int i = 0; i < 3; i++)
		l.send(tcp4(100, (uint8_t)(10 + i)), 0, 0, false);
	auto rx = l.rxcq.poll_all();
	ASSERT_EQ(rx.size(), 2u);
	EXPECT_EQ(rx[0].wqe_counter.get(), 4);
	EXPECT_EQ(rx[1].wqe_counter.get(), 5);
	EXPECT_EQ(query_q(fn1).rx_out_of_buffer.get(), 4u);
}

TEST_F(HwDatapath, OversizeFrameDroppedWithoutConsumingTheBuffer)
{
	Link l;
	l.setup(fn0, fn1);
	/* WQE 0 gets a 128-byte buffer */
	l.rq.write_wqe(0, l.rq.bufs[0].dma, 128);
	l.send(tcp4(200));			/* 254 bytes: too long */
	EXPECT_EQ(query_q(fn1).rx_oversize_pkts_buffer.get(), 1u);
	EXPECT_EQ(l.rxcq.poll_all().size(), 0u);
	frames::Bytes small = tcp4(60);		/* 114 bytes: fits WQE 0 */
	l.send(small);
	auto rx = l.rxcq.poll_all();
	ASSERT_EQ(rx.size(), 1u);
	expect_rx(l.rq, rx[0], small, 0);
	/* exactly the buffer size fits */
	l.rq.write_wqe(1, l.rq.bufs[1].dma, 114);
	l.send(small);
	ASSERT_EQ(l.rxcq.poll_all().size(), 1u);
	EXPECT_EQ(query_q(fn1).rx_oversize_pkts_buffer.get(), 1u);
}

/*
 * A cyclic WQE of four data segments: the device scatters a frame into
 * them in order, skips empty ones, stops at the end mark (lkey
 * kInvalidLkey, which zeroed segments are), drops a frame longer than the
 * listed segments without consuming the WQE, and refuses a bad lkey in
 * any listed segment.
 */
TEST_F(HwDatapath, CyclicWqeScattersAFrameOverItsSegments)
{
	Link l;
	l.rq.log_segs = 2;
	l.setup(fn0, fn1);
	/* WQE 0 as post() wrote it: one 10240-byte segment, the others zero */
	frames::Bytes f0 = tcp4(100);
	l.send(f0);
	auto rx = l.rxcq.poll_all();
	ASSERT_EQ(rx.size(), 1u);
	expect_rx(l.rq, rx[0], f0, 0);

	/* WQE 1: 64 bytes, an empty segment, 100 bytes 4 KiB further, the end */
	const uint8_t *b1 = l.rq.buffer(1);
	l.rq.write_seg(1, 0, l.rq.bufs[1].dma, 64);
	l.rq.write_seg(1, 1, l.rq.bufs[1].dma + 2048, 0);
	l.rq.write_seg(1, 2, l.rq.bufs[1].dma + 4096, 100);
	l.rq.write_seg(1, 3, l.rq.bufs[1].dma + 6144, 4096, prm::kInvalidLkey);
	frames::Bytes f1 = tcp4(100, 2);	/* 154 bytes: 64 + 90 */
	l.send(f1);
	rx = l.rxcq.poll_all();
	ASSERT_EQ(rx.size(), 1u);
	EXPECT_EQ(rx[0].opcode(), prm::kCqeRespSend);
	EXPECT_EQ(rx[0].byte_cnt.get(), f1.size());
	EXPECT_EQ(rx[0].wqe_counter.get(), 1);
	EXPECT_EQ(0, memcmp(b1, f1.data(), 64));
	EXPECT_EQ(0, memcmp(b1 + 4096, f1.data() + 64, f1.size() - 64));
	EXPECT_EQ(query_bus(fn1).wr_data_bytes.get(), f0.size() + f1.size());

	/* WQE 2: 64 + 64 bytes, then the end (past it a segment the device must not use) */
	const uint8_t *b2 = l.rq.buffer(2);
	l.rq.write_seg(2, 0, l.rq.bufs[2].dma, 64);
	l.rq.write_seg(2, 1, l.rq.bufs[2].dma + 4096, 64);
	l.rq.write_seg(2, 2, l.rq.bufs[2].dma + 8192, 0, prm::kInvalidLkey);
	l.rq.write_seg(2, 3, l.rq.bufs[2].dma + 8192, 1024);
	l.send(tcp4(100, 3));			/* 154 > 128: dropped, WQE 2 kept */
	EXPECT_EQ(l.rxcq.poll_all().size(), 0u);
	EXPECT_EQ(query_q(fn1).rx_oversize_pkts_buffer.get(), 1u);
	frames::Bytes f2 = tcp4(60, 4);		/* 114 bytes: 64 + 50 */
	l.send(f2);
	rx = l.rxcq.poll_all();
	ASSERT_EQ(rx.size(), 1u);
	EXPECT_EQ(rx[0].wqe_counter.get(), 2);
	EXPECT_EQ(0, memcmp(b2, f2.data(), 64));
	EXPECT_EQ(0, memcmp(b2 + 4096, f2.data() + 64, f2.size() - 64));

	/* WQE 3: a good first segment, a second with a foreign lkey */
	l.rq.write_seg(3, 0, l.rq.bufs[3].dma, 64);
	l.rq.write_seg(3, 1, l.rq.bufs[3].dma + 4096, 4096, 0x1234);
	l.send(tcp4(10, 5));			/* 64 bytes: would fit the first alone */
	rx = l.rxcq.poll_all();
	ASSERT_EQ(rx.size(), 1u);
	EXPECT_EQ(rx[0].opcode(), prm::kCqeRespErr);
	EXPECT_EQ(reinterpret_cast<const prm::ErrCqe &>(rx[0]).syndrome, prm::kSyndLocalProtErr);
	EXPECT_EQ(rx[0].wqe_counter.get(), 3);
}

TEST_F(HwDatapath, NoRssOrRqNotReadyCountsIfDown)
{
	Link l;
	l.setup(fn0, fn1);
	ASSERT_EQ(destroy(fn1, prm::kCmdDestroyRss, l.rss), prm::kStatOk);
	l.send(tcp4(100));
	EXPECT_EQ(query_q(fn1).rx_if_down_packets.get(), 1u);

	ASSERT_EQ(rss_cmd(fn1, prm::kCmdCreateRss, 0, { l.rq.rqn }, kFields4, kMsKey, &l.rss),
		  prm::kStatOk);
	ASSERT_EQ(l.rq.modify(prm::kQueueRdy, prm::kQueueErr), prm::kStatOk);
	l.send(tcp4(100));
	EXPECT_EQ(query_q(fn1).rx_if_down_packets.get(), 2u);
	EXPECT_EQ(l.rxcq.poll_all().size(), 0u);
	/* TX side completed both anyway: the wire does not care. */
	EXPECT_EQ(l.txcq.poll_all().size(), 2u);
}

TEST_F(HwDatapath, RqRecoveryRestartsAtZero)
{
	Link l;
	l.setup(fn0, fn1, 6, 3);
	for (int i = 0; i < 3; i++)
		l.send(tcp4(100, (uint8_t)i));
	EXPECT_EQ(l.rxcq.poll_all().size(), 3u);
	ASSERT_EQ(l.rq.modify(prm::kQueueRdy, prm::kQueueRst), prm::kStatOk);
	ASSERT_EQ(l.rq.modify(prm::kQueueRst, prm::kQueueRdy), prm::kStatOk);
	l.rq.post(8);
	frames::Bytes f = tcp4(77, 5);
	l.send(f);
	auto rx = l.rxcq.poll_all();
	ASSERT_EQ(rx.size(), 1u);
	expect_rx(l.rq, rx[0], f, 0);
}

/* One frame into a bad first WQE: exactly one RX error CQE (local protection) for WQE 0. */
void expect_rx_prot_err(Link &l)
{
	l.send(tcp4(100));
	auto rx = l.rxcq.poll_all();
	ASSERT_EQ(rx.size(), 1u);
	EXPECT_EQ(rx[0].opcode(), prm::kCqeRespErr);
	EXPECT_EQ(reinterpret_cast<const prm::ErrCqe &>(rx[0]).syndrome, prm::kSyndLocalProtErr);
	EXPECT_EQ(rx[0].wqe_counter.get(), 0);
}

/* A posted buffer that is not DMA memory: error CQE, WQE consumed, RQ in ERR. */
TEST_F(HwDatapath, RxBufferNotDmaMemoryGivesErrorCqe)
{
	Link l;
	l.setup(fn0, fn1);
	l.rq.write_wqe(0, host::dma_unmapped_addr(), 2048);
	expect_rx_prot_err(l);
	/* ERR now: further frames are if_down drops and modify RDY->ERR is refused */
	l.send(tcp4(100));
	EXPECT_EQ(l.rxcq.poll_all().size(), 0u);
	EXPECT_EQ(query_q(fn1).rx_if_down_packets.get(), 1u);
	EXPECT_EQ(l.rq.modify(prm::kQueueRdy, prm::kQueueErr), prm::kStatBadResState);
	EXPECT_EQ(l.rq.modify(prm::kQueueErr, prm::kQueueRst), prm::kStatOk);
}

/*
 * A posted buffer whose mapping went away before the frame arrived: the
 * device's write is refused (bus_dma_faults of the receiving function), an
 * error CQE on the RQ's CQ, the RQ in ERR, and the memory is not touched.
 */
TEST_F(HwDatapath, RxBufferUnmappedAMomentAgoIsADmaFaultWithoutAWrite)
{
	Link l;
	l.setup(fn0, fn1);
	std::vector<uint8_t> mem(2048, 0xa5);
	uint64_t dma = host::dma_map(mem.data(), (uint32_t)mem.size());
	scx_os_dma_unmap(&g_os_dev, dma, (uint32_t)mem.size(), SCX_DMA_SINGLE);
	l.rq.write_wqe(0, dma, 2048);
	expect_rx_prot_err(l);
	EXPECT_EQ(query_bus(fn1).dma_faults.get(), 1u);
	EXPECT_EQ(query_bus(fn0).dma_faults.get(), 0u) << "the receiver's device faulted";
	EXPECT_EQ(query_bus(fn1).wr_data_bytes.get(), 0u);
	EXPECT_TRUE(std::all_of(mem.begin(), mem.end(), [](uint8_t b) { return b == 0xa5; }))
		<< "the device wrote into memory that was no longer mapped for it";
	l.send(tcp4(100));
	EXPECT_EQ(l.rxcq.poll_all().size(), 0u) << "the RQ is in ERR";
	EXPECT_EQ(l.rq.modify(prm::kQueueErr, prm::kQueueRst), prm::kStatOk);
}

/* The same for a page_pool-style RX buffer the OS took back (recycled). */
TEST_F(HwDatapath, RecycledRxBufferIsADmaFault)
{
	Link l;
	l.setup(fn0, fn1);
	int chan = 0;
	scx_os_rxq *q = scx_os_rxq_create(&chan, 8, 0, 0);
	ASSERT_NE(q, nullptr);
	uint64_t dma = 0;
	void *page = scx_os_rx_alloc(q, &dma);
	ASSERT_NE(page, nullptr);
	ASSERT_NE(scx_os_dma_to_cpu(&g_os_dev, dma + 256, 1500), nullptr);
	scx_os_rx_recycle(q, page, 0);
	l.rq.write_wqe(0, dma + 256, 2048);
	expect_rx_prot_err(l);
	EXPECT_EQ(query_bus(fn1).dma_faults.get(), 1u);
	scx_os_rxq_destroy(q);
}

TEST_F(HwDatapath, RxWrongLkeyGivesErrorCqe)
{
	Link l;
	l.setup(fn0, fn1);
	l.rq.write_wqe(0, l.rq.bufs[0].dma, 2048, 0x1234);
	l.send(tcp4(100));
	auto rx = l.rxcq.poll_all();
	ASSERT_EQ(rx.size(), 1u);
	EXPECT_EQ(rx[0].opcode(), prm::kCqeRespErr);
}

/* A TCP/IPv4 frame with an 802.1Q tag (tci) when tci >= 0. */
frames::Bytes tagged(size_t payload, int tci, uint8_t seed = 1)
{
	frames::Spec s;
	s.vlan = tci;
	s.payload = frames::payload(payload, seed);
	return frames::build(s);
}

/*
 * vsd 0: the outer 802.1Q tag leaves the frame; the CQE says so and
 * carries the TCI; length, parse results and the checksum sum are those of
 * the frame as written. Untagged frames and an outer 802.1ad tag are
 * placed as they came. MODIFY_RQ RDY -> RDY with vsd 1 stops it on the
 * running RQ, and vsd 0 starts it again.
 */
TEST_F(HwDatapath, VlanStripFollowsVsd)
{
	Link l;
	l.rq.vsd = 0;
	l.setup(fn0, fn1);
	frames::Bytes t = tagged(300, 0xa064), u = tcp4(300);
	frames::Bytes qinq = t;
	frames::put16(qinq, 12, 0x88a8);
	l.send(t);
	l.send(u);
	l.send(qinq);

	auto rx = l.rxcq.poll_all();
	ASSERT_EQ(rx.size(), 3u);
	frames::Bytes stripped = frames::vlan_strip(t);
	ASSERT_EQ(stripped, u) << "the same frame but for the tag";
	expect_rx(l.rq, rx[0], stripped, 0);
	EXPECT_TRUE(rx[0].has_vlan());
	EXPECT_EQ(rx[0].vlan_info.get(), 0xa064);
	EXPECT_EQ(rx[0].l3_type(), prm::kCqeL3Ipv4);
	EXPECT_EQ(rx[0].l4_type(), prm::kCqeL4TcpAckData);
	EXPECT_EQ(rx[0].hds_ip_ext, prm::kCqeL3Ok | prm::kCqeL4Ok);
	EXPECT_EQ(rx[0].check_sum.get(), frames::ref_sum(stripped, frames::l3_off(stripped)));
	expect_rx(l.rq, rx[1], u, 1);
	EXPECT_FALSE(rx[1].has_vlan());
	EXPECT_EQ(rx[1].vlan_info.get(), 0);
	expect_rx(l.rq, rx[2], qinq, 2);
	EXPECT_FALSE(rx[2].has_vlan()) << "only an 802.1Q outer tag is stripped";
	EXPECT_EQ(rx[2].l4_type(), prm::kCqeL4TcpAckData);

	/* vsd set on the running RQ, then t sent: placed as `want` (WQE counter), tagged or not */
	auto set_and_send = [&](uint8_t vsd, const frames::Bytes &want, uint16_t counter) {
		ASSERT_EQ(modify_rq_ctx(fn1, l.rq.rqn, prm::kQueueRdy, prm::kQueueRdy,
					prm::kRqModifyVsd, vsd),
			  prm::kStatOk);
		l.send(t);
		auto r = l.rxcq.poll_all();
		ASSERT_EQ(r.size(), 1u);
		expect_rx(l.rq, r[0], want, counter);
		EXPECT_EQ(r[0].has_vlan(), vsd == 0);
		EXPECT_EQ(r[0].check_sum.get(), frames::ref_sum(want, frames::l3_off(want)));
	};
	set_and_send(1, t, 3);
	set_and_send(0, stripped, 4);

	/* a recovery (ERR -> RST -> RDY without context fields) keeps the RQ's vsd */
	ASSERT_EQ(l.rq.modify(prm::kQueueRdy, prm::kQueueErr), prm::kStatOk);
	ASSERT_EQ(l.rq.modify(prm::kQueueErr, prm::kQueueRst), prm::kStatOk);
	ASSERT_EQ(l.rq.modify(prm::kQueueRst, prm::kQueueRdy), prm::kStatOk);
	l.rq.post(l.rq.size());
	l.send(t);
	rx = l.rxcq.poll_all();
	ASSERT_EQ(rx.size(), 1u);
	expect_rx(l.rq, rx[0], stripped, 0);
	EXPECT_TRUE(rx[0].has_vlan());
}

/*
 * An MPWQE frame without offloads reaches the peer from the driver's
 * buffer itself (no copy in the device on the way): an RQ that changes
 * frames (vsd 0 strips the tag, scatter_fcs appends the FCS) does so in
 * its own copy. The receiver gets the stripped frame and the wire's FCS;
 * the sender's buffers, which the driver still owns (a clone, a TCP
 * retransmission), are as they were.
 */
TEST_F(HwDatapath, MpwqeFrameChangedOnlyInTheReceiversCopy)
{
	Link l;
	l.rq.vsd = 0;
	l.rq.scatter_fcs = 1;
	ASSERT_NO_FATAL_FAILURE(setup_mpw_link(l, fn0, fn1));

	const std::vector<frames::Bytes> sent = { tagged(300, 0x0123), tcp4(200, 7),
						  tagged(60, 0x0456) };
	SendWqe w;
	w.opcode = prm::kOpEnhancedMpsw;
	for (const frames::Bytes &f : sent) {
		l.tx_bufs.push_back(std::make_unique<TxBuf>(f));
		Seg s;
		s.addr = l.tx_bufs.back()->dma;
		s.len = (uint32_t)f.size();
		w.segs.push_back(s);
	}
	w.ce = true;
	l.sq.post(w);
	l.sq.doorbell();

	auto rx = l.rxcq.poll_all();
	ASSERT_EQ(rx.size(), sent.size());
	for (size_t i = 0; i < sent.size(); i++) {
		bool tag = i != 1;
		frames::Bytes want = tag ? frames::vlan_strip(sent[i]) : sent[i];
		frames::Bytes fcs = frames::fcs_of(sent[i]);
		want.insert(want.end(), fcs.begin(), fcs.end());
		expect_rx(l.rq, rx[i], want, (uint16_t)i);
		EXPECT_EQ(rx[i].has_vlan(), tag) << i;
		EXPECT_EQ(l.tx_bufs[i]->data, sent[i]) << "the sender's buffer " << i << " changed";
	}
	EXPECT_EQ(l.txcq.poll_all().size(), 1u);
}

/*
 * SEND with the eth segment's insert: the tag goes after the source MAC
 * (0x8100, or 0x88a8 with the S-VLAN bit), and checksum offload still
 * finds the headers behind it.
 */
TEST_F(HwDatapath, VlanInsertFromEthSegment)
{
	Link l;
	l.setup(fn0, fn1);
	frames::Bytes f = tcp4(500, 3);
	frames::Bytes bad = f;
	bad[frames::l4_off(bad) + 16] ^= 0xff;	/* TCP checksum: the device computes it */
	TxBuf b(bad);
	SendWqe w;
	Seg s;
	s.addr = b.dma;
	s.len = (uint32_t)bad.size();
	w.segs.push_back(s);
	w.insert_type = prm::kEthInsertVlan;
	w.insert_tci = 0x3005;
	w.cs_flags = prm::kCsL3 | prm::kCsL4;
	w.ce = true;
	l.sq.post(w);
	w.insert_type = prm::kEthInsertVlan | prm::kEthInsertSvlan;
	l.sq.post(w);
	l.sq.doorbell();

	auto rx = l.rxcq.poll_all();
	ASSERT_EQ(rx.size(), 2u);
	frames::Bytes want = frames::vlan_insert(f, 0x3005);
	expect_rx(l.rq, rx[0], want, 0);
	EXPECT_EQ(rx[0].hds_ip_ext, prm::kCqeL3Ok | prm::kCqeL4Ok);
	frames::Bytes want_s = want;
	frames::put16(want_s, 12, 0x88a8);
	expect_rx(l.rq, rx[1], want_s, 1);
	EXPECT_EQ(rx[1].hds_ip_ext, prm::kCqeL3Ok | prm::kCqeL4Ok);
	EXPECT_EQ(l.txcq.poll_all().size(), 2u);
}

} /* namespace */
