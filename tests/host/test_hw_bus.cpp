// SPDX-License-Identifier: GPL-2.0
/* Bus accounting: exactly what each function's link carried. */
#include "frames.h"
#include "hw_harness.h"

using namespace hwt;

namespace {

struct Bus {
	uint64_t rd_desc, rd_data, wr_data, wr_cqe, rd_dbr, doorbells;
};

Bus bus_of(Fn *fn)
{
	prm::QueryBusCountersOut o = query_bus(fn);
	return { o.rd_desc_bytes.get(), o.rd_data_bytes.get(), o.wr_data_bytes.get(),
		 o.wr_cqe_bytes.get(), o.rd_dbr_bytes.get(), o.doorbells.get() };
}

void expect_bus(Fn *fn, const Bus &want, const char *when)
{
	SCOPED_TRACE(when);
	Bus got = bus_of(fn);
	EXPECT_EQ(got.rd_desc, want.rd_desc);
	EXPECT_EQ(got.rd_data, want.rd_data);
	EXPECT_EQ(got.wr_data, want.wr_data);
	EXPECT_EQ(got.wr_cqe, want.wr_cqe);
	EXPECT_EQ(got.rd_dbr, want.rd_dbr);
	EXPECT_EQ(got.doorbells, want.doorbells);
}

class HwBus : public HwTest {};

TEST_F(HwBus, CountersMatchTheTraffic)
{
	Link l;
	l.setup(fn0, fn1, 6, /*log_rq=*/2);
	expect_bus(fn0, {}, "commands do not count");
	expect_bus(fn1, {}, "commands do not count");

	frames::Spec s;
	s.payload = frames::payload(446);
	frames::Bytes f = frames::build(s);	/* 500 bytes */
	ASSERT_EQ(f.size(), 500u);

	/* SEND: 18 inline (2 + 1 DS) + one 482-byte pointer: ds 4 */
	l.send(f, 18, 0, true);
	expect_bus(fn0, { 64, 482, 0, 64, 4, 1 }, "tx side, first frame");
	/* RX: dbrec read once (device caught up with its cached count), one 16-byte WQE */
	expect_bus(fn1, { 16, 0, 500, 64, 4, 0 }, "rx side, first frame");

	/* same again without CE: no TX CQE; RX uses its cached posted count */
	l.send(f, 18, 0, false);
	expect_bus(fn0, { 128, 964, 0, 64, 8, 2 }, "tx side, second frame");
	expect_bus(fn1, { 32, 0, 1000, 128, 4, 0 }, "rx side, second frame");

	/* a NOP (ds 1) and a SEND of an inline segment (4 + 60 bytes: ds 2 + 4) in one doorbell */
	l.sq.post_nop(1, false);
	SendWqe w;
	Seg seg;
	seg.inl = true;
	seg.data = frames::Bytes(f.begin(), f.begin() + 60);
	w.segs.push_back(seg);
	w.ce = true;
	l.sq.post(w);
	l.sq.doorbell();
	expect_bus(fn0, { 128 + 16 + 96, 964, 0, 128, 12, 3 }, "nop + inline send");
	expect_bus(fn1, { 48, 0, 1060, 192, 4, 0 }, "rx of the inline frame");

	/* RQ holds 4: the 4th frame takes the last WQE, the 5th finds none and re-reads the dbrec */
	l.send(f, 18, 0, false);
	l.send(f, 18, 0, false);
	expect_bus(fn1, { 64, 0, 1560, 256, 4 + 4, 0 }, "out of buffer");
	EXPECT_EQ(query_q(fn1).rx_out_of_buffer.get(), 1u);

	/* arming a CQ is a doorbell of the function that owns it */
	l.rxcq.arm();
	expect_bus(fn1, { 64, 0, 1560, 256, 8, 1 }, "arm");
	l.txcq.arm();
	EXPECT_EQ(bus_of(fn0).doorbells, 6u);
}

TEST_F(HwBus, ErrorsCountWhatWasRead)
{
	Link l;
	l.setup(fn0, fn1);
	SendWqe w;
	w.opcode = prm::kOpNop;
	w.ds_override = 0;
	l.sq.post(w);
	l.sq.doorbell();
	/* the ctrl segment was read, the error CQE written */
	expect_bus(fn0, { 16, 0, 0, 64, 4, 1 }, "ds 0");
	/* an SQ in ERR does not even read its doorbell record */
	l.sq.doorbell();
	expect_bus(fn0, { 16, 0, 0, 64, 4, 2 }, "doorbell on ERR");
}

TEST_F(HwBus, LsoReadsPayloadOnceAndWritesEverySegment)
{
	Link l;
	l.setup(fn0, fn1);
	frames::Spec s;
	frames::Bytes hdr = frames::build(s);	/* 54 bytes of headers */
	TxBuf pay(frames::payload(2500));
	SendWqe w;
	w.opcode = prm::kOpLso;
	w.mss = 1000;
	w.inline_hdr = hdr;
	Seg seg;
	seg.addr = pay.dma;
	seg.len = 2500;
	w.segs.push_back(seg);
	w.ce = true;
	l.sq.post(w);	/* ds: 2 + 4 (52 inline bytes) + 1 = 7 */
	l.sq.doorbell();
	expect_bus(fn0, { 7 * 16, 2500, 0, 64, 4, 1 }, "lso tx");
	expect_bus(fn1, { 3 * 16, 0, 2500 + 3 * 54, 3 * 64, 4, 0 }, "lso rx");
}

/* Emulation time: 0 unless timing is on; then every doorbell adds its own. */
TEST_F(HwBus, EmulationTimeOnlyWhenTimed)
{
	Link l;
	l.setup(fn0, fn1);
	frames::Spec s;
	frames::Bytes f = frames::build(s);
	l.send(f, 18, 0, true);
	l.rxcq.arm();
	EXPECT_EQ(query_bus(fn0).emul_ns.get(), 0u) << "timing is off by default";
	EXPECT_EQ(query_bus(fn1).emul_ns.get(), 0u);

	scx_hw_set_timing(adapter, 1);
	uint64_t t0 = scx_os_clock_ns();
	l.send(f, 18, 0, true);
	uint64_t tx = query_bus(fn0).emul_ns.get();
	EXPECT_GT(tx, 0u) << "the SQ doorbell (TX engine, wire, peer RX) was timed";
	EXPECT_LE(tx, scx_os_clock_ns() - t0) << "no more than the time that passed";
	EXPECT_EQ(query_bus(fn1).emul_ns.get(), 0u) << "the peer's RX engine counts for the ringing function";
	l.rxcq.arm();
	EXPECT_GT(query_bus(fn1).emul_ns.get(), 0u) << "a CQ arm is a doorbell of its own function";

	scx_hw_set_timing(adapter, 0);
	l.send(f, 18, 0, true);
	EXPECT_EQ(query_bus(fn0).emul_ns.get(), tx) << "off again: no more time added";
}

} /* namespace */
