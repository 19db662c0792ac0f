// SPDX-License-Identifier: GPL-2.0
/*
 * Malformed WQEs: an error CQE with the right syndrome and counter, the SQ
 * in ERR (doorbells ignored from then on), nothing on the wire.
 */
#include "frames.h"
#include "hw_harness.h"

using namespace hwt;

namespace {

frames::Bytes frame(size_t payload, uint8_t seed = 1)
{
	frames::Spec s;
	s.payload = frames::payload(payload, seed);
	return frames::build(s);
}

class HwTxErrors : public HwTest {
protected:
	/*
	 * Post a good SEND (CE), then `bad`, then ring. Expect: the good frame
	 * delivered and completed, one error CQE for `bad`, the SQ in ERR.
	 */
	void expect_error(const SendWqe &bad, uint8_t syndrome, const char *what)
	{
		SCOPED_TRACE(what);
		Link l;
		l.setup(fn0, fn1);
		frames::Bytes good = frame(100);
		l.send(good, 18);	/* CX4 wants the L2 headers inline */
		ASSERT_EQ(l.rxcq.poll_all().size(), 1u);
		ASSERT_EQ(l.txcq.poll_all().size(), 1u);

		uint16_t idx = l.sq.post(bad);
		l.sq.doorbell();
		expect_err_cqe(l, idx, syndrome, bad.opcode);
		expect_sq_dead(l);
	}

	void expect_err_cqe(Link &l, uint16_t idx, uint8_t syndrome, uint8_t opcode)
	{
		auto tx = l.txcq.poll_all();
		ASSERT_EQ(tx.size(), 1u);
		const auto &err = reinterpret_cast<const prm::ErrCqe &>(tx[0]);
		EXPECT_EQ(tx[0].opcode(), prm::kCqeReqErr);
		EXPECT_EQ(err.syndrome, syndrome);
		EXPECT_EQ(err.wqe_counter.get(), idx);
		EXPECT_EQ(err.s_wqe_opcode_qpn.get() & 0xffffff, l.sq.sqn);
		EXPECT_EQ(err.s_wqe_opcode_qpn.get() >> 24, opcode);
		EXPECT_EQ(l.rxcq.poll_all().size(), 0u) << "nothing may reach the wire";
		EXPECT_EQ(query_q(fn1).rx_malformed.get(), 0u);
	}

	/* ERR: doorbells do nothing; recovery is ERR -> RST -> RDY with counters at 0. */
	void expect_sq_dead(Link &l)
	{
		l.send(frame(50, 2), 18);
		EXPECT_EQ(l.txcq.poll_all().size(), 0u);
		EXPECT_EQ(l.rxcq.poll_all().size(), 0u);
		EXPECT_EQ(l.sq.modify(prm::kQueueRdy, prm::kQueueErr), prm::kStatBadResState);
		ASSERT_EQ(l.sq.modify(prm::kQueueErr, prm::kQueueRst), prm::kStatOk);
		ASSERT_EQ(l.sq.modify(prm::kQueueRst, prm::kQueueRdy), prm::kStatOk);
		frames::Bytes again = frame(60, 3);
		l.send(again, 18);
		auto tx = l.txcq.poll_all();
		ASSERT_EQ(tx.size(), 1u);
		EXPECT_EQ(tx[0].opcode(), prm::kCqeReq);
		EXPECT_EQ(tx[0].wqe_counter.get(), 0) << "counters restart at 0 after RST";
		EXPECT_EQ(l.rxcq.poll_all().size(), 1u);
	}

	SendWqe send_of(const frames::Bytes &f, uint64_t addr)
	{
		SendWqe w;
		Seg s;
		s.addr = addr;
		s.len = (uint32_t)f.size();
		w.segs.push_back(s);
		return w;
	}
};

TEST_F(HwTxErrors, UnknownOpcode)
{
	SendWqe w;
	w.opcode = 0x55;
	Seg s;
	s.inl = true;
	s.data = frame(20);
	w.segs.push_back(s);
	expect_error(w, prm::kSyndLocalQpOpErr, "opcode 0x55");
	w.opcode = 0x25;	/* UMR: not emulated */
	expect_error(w, prm::kSyndLocalQpOpErr, "UMR");
}

TEST_F(HwTxErrors, DsCounts)
{
	SendWqe nop;
	nop.opcode = prm::kOpNop;
	nop.ds_override = 0;
	expect_error(nop, prm::kSyndLocalLengthErr, "NOP ds 0");

	SendWqe send;
	Seg s;
	s.inl = true;
	s.data = frame(20);
	send.segs.push_back(s);
	send.ds_override = 0;
	expect_error(send, prm::kSyndLocalLengthErr, "SEND ds 0");
	send.ds_override = 1;
	expect_error(send, prm::kSyndLocalLengthErr, "SEND ds 1");
	send.ds_override = 20;	/* 5 WQEBBs claimed, 2 posted */
	expect_error(send, prm::kSyndLocalLengthErr, "ds beyond the posted WQEBBs");
	send.ds_override = 63;
	expect_error(send, prm::kSyndLocalLengthErr, "ds 63, 16 WQEBBs, not posted");
}

TEST_F(HwTxErrors, InlineLargerThanTheWqe)
{
	SendWqe w;
	w.inline_hdr = frame(100);	/* 154 bytes: 2 + 10 DS */
	w.ds_override = 8;
	expect_error(w, prm::kSyndLocalLengthErr, "inline header beyond ds");

	SendWqe v;
	Seg s;
	s.inl = true;
	s.data = frame(100);	/* inline segment of 10 DS */
	v.segs.push_back(s);
	v.ds_override = 6;
	expect_error(v, prm::kSyndLocalLengthErr, "inline segment beyond ds");
}

TEST_F(HwTxErrors, DataPointerThatDoesNotTranslate)
{
	frames::Bytes f = frame(200);
	expect_error(send_of(f, host::dma_unmapped_addr()), prm::kSyndLocalProtErr, "unmapped");
	expect_error(send_of(f, reinterpret_cast<uint64_t>(f.data())), prm::kSyndLocalProtErr,
		     "CPU pointer as DMA address");
	TxBuf b(f);
	SendWqe w = send_of(f, b.dma + 1);	/* one byte past the mapping */
	expect_error(w, prm::kSyndLocalProtErr, "overruns the mapping");
	w = send_of(f, b.dma);
	w.segs[0].lkey = 0x42;
	expect_error(w, prm::kSyndLocalProtErr, "wrong lkey");
}

/*
 * The device reaches only what is mapped at that moment: a data segment at
 * an address that was a live mapping a moment ago is a DMA fault (local
 * protection error, bus_dma_faults of the sending function), not a read of
 * whatever the memory holds now. A bad lkey is refused before any DMA and
 * is not a DMA fault.
 */
TEST_F(HwTxErrors, DataSegmentUnmappedAMomentAgoIsADmaFault)
{
	frames::Bytes f = frame(200);
	uint64_t dma = host::dma_map(f.data(), (uint32_t)f.size());
	ASSERT_NE(scx_os_dma_to_cpu(&g_os_dev, dma, (uint32_t)f.size()), nullptr);
	scx_os_dma_unmap(&g_os_dev, dma, (uint32_t)f.size(), SCX_DMA_SINGLE);
	ASSERT_EQ(scx_os_dma_to_cpu(&g_os_dev, dma, (uint32_t)f.size()), nullptr);
	ASSERT_EQ(query_bus(fn0).dma_faults.get(), 0u);

	expect_error(send_of(f, dma), prm::kSyndLocalProtErr, "stale data segment");
	EXPECT_EQ(query_bus(fn0).dma_faults.get(), 1u);
	EXPECT_EQ(query_bus(fn1).dma_faults.get(), 0u) << "the sender's device faulted";

	TxBuf b(f);
	SendWqe w = send_of(f, b.dma);
	w.segs[0].lkey = 0x42;
	expect_error(w, prm::kSyndLocalProtErr, "wrong lkey");
	EXPECT_EQ(query_bus(fn0).dma_faults.get(), 1u) << "an lkey error is no DMA fault";
}

TEST_F(HwTxErrors, FrameLengths)
{
	prm::HcaCaps caps = query_caps(fn0);
	uint32_t mtu = caps.max_hw_mtu.get();
	TxBuf big(frames::Bytes(mtu, 0x5a));
	SendWqe w;
	w.inline_hdr = frame(10);	/* 64 bytes */
	Seg s;
	s.addr = big.dma;
	s.len = mtu - 64 + 1;	/* one byte over */
	w.segs.push_back(s);
	expect_error(w, prm::kSyndLocalLengthErr, "above max hw mtu");

	SendWqe tiny;
	Seg t;
	t.inl = true;
	t.data = frames::Bytes(13, 0x11);
	tiny.segs.push_back(t);
	expect_error(tiny, prm::kSyndLocalLengthErr, "13-byte frame");

	SendWqe huge;
	Seg h;
	h.addr = big.dma;
	h.len = 0x7fffffff;	/* would overflow a careless length sum */
	huge.segs.push_back(h);
	expect_error(huge, prm::kSyndLocalLengthErr, "2 GiB segment");
}

TEST_F(HwTxErrors, MpswWithoutPermission)
{
	SendWqe w;
	w.opcode = prm::kOpEnhancedMpsw;
	Seg s;
	s.inl = true;
	s.data = frame(30);
	w.segs.push_back(s);
	expect_error(w, prm::kSyndLocalQpOpErr, "SQ created without allow_multi_pkt_send_wqe");
}

TEST_F(HwTxErrors, LsoBadHeadersOrMss)
{
	frames::Bytes hdr = frame(0);
	TxBuf pay(frames::payload(10000));
	SendWqe w;
	w.opcode = prm::kOpLso;
	w.inline_hdr = hdr;
	w.mss = 0;
	Seg s;
	s.addr = pay.dma;
	s.len = 10000;
	w.segs.push_back(s);
	expect_error(w, prm::kSyndLocalLengthErr, "mss 0");
	w.mss = 10000 - 54 + 1;	/* headers 54: a segment one byte over max_hw_mtu */
	expect_error(w, prm::kSyndLocalLengthErr, "segment above mtu");
	w.mss = 1000;
	w.inline_hdr.resize(50);	/* cut inside the TCP header */
	expect_error(w, prm::kSyndLocalQpOpErr, "headers do not end at the L4 header");
	w.inline_hdr = hdr;
	w.inline_hdr[12] = 0x08;
	w.inline_hdr[13] = 0x06;	/* ARP */
	expect_error(w, prm::kSyndLocalQpOpErr, "not TCP/UDP over IP");
}

/* A producer counter more than a ring ahead of the device. */
TEST_F(HwTxErrors, ProducerBeyondTheRing)
{
	Link l;
	l.setup(fn0, fn1, /*log_sq=*/3);
	l.sq.post_nop();	/* the doorbell carries this WQE's sqn */
	l.sq.pc = 9;		/* claims 9 WQEBBs in an 8-WQEBB ring */
	l.sq.doorbell();
	auto tx = l.txcq.poll_all();
	ASSERT_EQ(tx.size(), 1u);
	EXPECT_EQ(tx[0].opcode(), prm::kCqeReqErr);
	EXPECT_EQ(reinterpret_cast<const prm::ErrCqe &>(tx[0]).syndrome, prm::kSyndLocalLengthErr);
}

/* Doorbells on RST, on a destroyed SQ, or naming an unknown SQ are ignored. */
TEST_F(HwTxErrors, DoorbellsThatMustBeIgnored)
{
	Link l;
	l.setup(fn0, fn1);
	ASSERT_EQ(l.sq.modify(prm::kQueueRdy, prm::kQueueRst), prm::kStatOk);
	l.send(frame(10));
	EXPECT_EQ(l.txcq.poll_all().size(), 0u);
	EXPECT_EQ(l.rxcq.poll_all().size(), 0u);

	bus::mmio_write64(fn0, prm::kUarSqDoorbell, 0);
	bus::mmio_write64(fn0, prm::kUarSqDoorbell, ~0ull);
	bus::mmio_write64(fn1, prm::kUarSqDoorbell, 0);	/* fn1 has no SQ */

	ASSERT_EQ(l.sq.destroy(), prm::kStatOk);
	l.sq.pc = 0;
	l.send(frame(10));	/* ring memory still there, SQ gone */
	EXPECT_EQ(l.rxcq.poll_all().size(), 0u);
	ASSERT_EQ(l.txcq.destroy(), prm::kStatOk);
}

/*
 * The eth segment's VLAN insert (prm/wqe.h) where the WQE cannot take it:
 * a frame shorter than an Ethernet header, a type bit the device does not
 * know, an LSO WQE (its template is inline; the tag belongs there), an
 * MPSW WQE (no inline headers, no insert either).
 */
TEST_F(HwTxErrors, VlanInsertMalformed)
{
	frames::Bytes f = frame(100);
	TxBuf b(f);
	SendWqe w = send_of(f, b.dma);
	w.insert_type = prm::kEthInsertVlan;
	w.insert_tci = 0x0123;

	SendWqe shortf;
	Seg t;
	t.inl = true;
	t.data = frames::Bytes(13, 0x11);
	shortf.segs.push_back(t);
	shortf.insert_type = prm::kEthInsertVlan;
	expect_error(shortf, prm::kSyndLocalLengthErr, "insert into a 13-byte frame");

	SendWqe odd = w;
	odd.insert_type = prm::kEthInsertVlan | 0x0002;
	expect_error(odd, prm::kSyndLocalQpOpErr, "unknown insert type bit");

	SendWqe lso = w;
	lso.opcode = prm::kOpLso;
	lso.mss = 1000;
	expect_error(lso, prm::kSyndLocalQpOpErr, "LSO with insert");

	/* one byte under the device's limit before the tag: over it after */
	uint32_t mtu = query_caps(fn0).max_hw_mtu.get();
	TxBuf big(frames::Bytes(mtu, 0x5a));
	SendWqe over;
	Seg g;
	g.addr = big.dma;
	g.len = mtu - 3;
	over.segs.push_back(g);
	over.insert_type = prm::kEthInsertVlan;
	expect_error(over, prm::kSyndLocalLengthErr, "tag makes it longer than max hw mtu");
}

class HwTxErrorsCx4 : public HwTxErrors {
protected:
	int model() const override { return prm::kModelCx4; }
};

TEST_F(HwTxErrorsCx4, SendWithoutL2InlineRefused)
{
	frames::Bytes f = frame(100);
	TxBuf b(f);
	expect_error(send_of(f, b.dma), prm::kSyndLocalQpOpErr, "CX4 needs inline L2 headers");
	SendWqe w;
	w.inline_hdr.assign(f.begin(), f.begin() + 13);
	Seg s;
	s.inl = true;
	s.data.assign(f.begin() + 13, f.end());
	w.segs.push_back(s);
	expect_error(w, prm::kSyndLocalQpOpErr, "13 bytes inline");

	/* the insert replaces inline headers, which this device needs */
	SendWqe ins = send_of(f, b.dma);
	ins.insert_type = prm::kEthInsertVlan;
	expect_error(ins, prm::kSyndLocalQpOpErr, "CX4: insert without inline L2 headers");

	/* 14 bytes inline is enough */
	Link l;
	l.setup(fn0, fn1);
	l.send(f, 14);
	EXPECT_EQ(l.rxcq.poll_all().size(), 1u);
	EXPECT_EQ(l.txcq.poll_all().size(), 1u);
}

} /* namespace */
