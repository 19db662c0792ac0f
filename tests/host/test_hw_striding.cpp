// SPDX-License-Identifier: GPL-2.0
/*
 * The device's striding RQ (linked-list WQEs of many strides): create
 * checks per model, stride placement and the CQE fields, packets spanning
 * strides and data segments, filler CQEs at a WQE's end, the linked-list
 * order, out of buffer, oversize, malformed WQEs and DMA faults, recovery;
 * the shape of a WQE's segments that places a frame without a walk.
 */
#include "frames.h"
#include "hw/adapter.h"
#include "hw/striding.h"
#include "hw_harness.h"

using namespace hwt;

namespace {

frames::Bytes tcp4(size_t payload, uint8_t seed = 1)
{
	frames::Spec s;
	s.payload = frames::payload(payload, seed);
	return frames::build(s);	/* 54 + payload bytes */
}

/* A frame of exactly `len` bytes (len >= 54). */
frames::Bytes frame_of(uint32_t len, uint8_t seed = 1) { return tcp4(len - 54, seed); }

class HwStriding : public HwTest {
protected:
	/* fn0's SQ -> fn1, RSS steered to a striding RQ on its own CQ. */
	void setup(uint32_t log_rq, uint32_t log_stride, uint32_t log_num, uint32_t seg = 4096,
		   bool post_all = true, uint32_t log_cq = 10)
	{
		l.setup(fn0, fn1);
		ASSERT_EQ(cq.create(fn1, log_cq, 3), prm::kStatOk);
		ASSERT_EQ(rq.create(fn1, cq.cqn, log_rq, log_stride, log_num, seg), prm::kStatOk);
		ASSERT_EQ(modify_queue(fn1, prm::kCmdModifyRq, rq.rqn, prm::kQueueRst, prm::kQueueRdy),
			  prm::kStatOk);
		if (post_all)
			rq.post(1u << log_rq);
		steer_rx(fn1, l, rq.rqn);
	}
	void TearDown() override
	{
		teardown_rx(fn1, l, rq.rqn, cq);
		HwTest::TearDown();
	}

	struct Got {
		bool filler;
		uint16_t wqe, stride;
		uint32_t strides, len;
	};
	static Got decode(const prm::Cqe64 &c)
	{
		uint32_t b = c.byte_cnt.get();
		return { (b & prm::kMpwrqCqeFiller) != 0, c.wqe_id.get(), c.wqe_counter.get(),
			 (b >> prm::kMpwrqCqeStridesShift) & prm::kMpwrqCqeStridesMask,
			 b & prm::kMpwrqCqeLenMask };
	}
	/* One packet CQE at (wqe, stride) for frame f, its bytes in place. */
	void expect_packet(const prm::Cqe64 &c, const frames::Bytes &f, uint16_t wqe, uint16_t stride)
	{
		Got g = decode(c);
		EXPECT_EQ(c.opcode(), prm::kCqeRespSend);
		EXPECT_FALSE(g.filler);
		EXPECT_EQ(g.wqe, wqe);
		EXPECT_EQ(g.stride, stride);
		EXPECT_EQ(g.len, f.size());
		EXPECT_EQ(g.strides, (f.size() + (1u << rq.log_stride) - 1) >> rq.log_stride);
		EXPECT_EQ(rq.read(wqe, stride, (uint32_t)f.size()), f)
			<< "payload differs at WQE " << wqe << " stride " << stride;
	}

	Link l;
	Cq cq;
	StridingRq rq;
};

class HwStridingCx4 : public HwStriding {
protected:
	int model() const override { return prm::kModelCx4; }
};

TEST_F(HwStridingCx4, RefusedWithoutTheCap)
{
	ASSERT_EQ(cq.create(fn1, 6, 3), prm::kStatOk);
	EXPECT_EQ(rq.create(fn1, cq.cqn, 2, 11, 9), prm::kStatBadParam);
	EXPECT_EQ(rq.rqn, 0u);
}

TEST_F(HwStriding, CreateChecksTheGeometry)
{
	ASSERT_EQ(cq.create(fn1, 6, 3), prm::kStatOk);
	/* stride size 64 B .. 8 KiB */
	EXPECT_EQ(rq.create(fn1, cq.cqn, 2, 14, 9), prm::kStatBadParam);
	/* buffer at most 256 KiB: 512 strides of 1 KiB is 512 KiB */
	EXPECT_EQ(rq.create(fn1, cq.cqn, 2, 10, 9), prm::kStatBadParam);
	/* WQE size: a next segment and at least one data segment, at most 1 KiB */
	EXPECT_EQ(rq.create(fn1, cq.cqn, 2, 6, 9, 4096, 4), prm::kStatBadParam);
	EXPECT_EQ(rq.create(fn1, cq.cqn, 2, 6, 9, 4096, 11), prm::kStatBadParam);
	/* unknown WQ type */
	prm::CreateRqIn in;
	set_op(&in, prm::kCmdCreateRq);
	in.cqn.set(cq.cqn);
	in.log_wq_stride = 5;
	in.wq_type = 7;
	prm::CreateObjOut out;
	EXPECT_EQ(exec(fn1, in, &out), prm::kStatBadParam);
	/* 512 strides of 64 B in 8 segments of 4 KiB: fine */
	EXPECT_EQ(rq.create(fn1, cq.cqn, 2, 6, 9, 4096), prm::kStatOk);
	EXPECT_EQ(destroy(fn1, prm::kCmdDestroyRq, rq.rqn), prm::kStatOk);
	rq.rqn = 0;
	EXPECT_EQ(cq.destroy(), prm::kStatOk);
	cq.cqn = 0;
}

TEST_F(HwStriding, ExtendedStrideRange)
{
	ASSERT_EQ(cq.create(fn1, 6, 3), prm::kStatOk);
	EXPECT_EQ(rq.create(fn1, cq.cqn, 2, 11, 3), prm::kStatOk);	/* 8 x 2 KiB */
	EXPECT_EQ(destroy(fn1, prm::kCmdDestroyRq, rq.rqn), prm::kStatOk);
	rq.rqn = 0;
	/* ext encoding beyond 256 strides is not a value */
	prm::CreateRqIn in;
	set_op(&in, prm::kCmdCreateRq);
	in.cqn.set(cq.cqn);
	in.log_wq_stride = 5;
	in.wq_type = prm::kWqLinkedListStriding;
	in.log_wqe_num_of_strides = prm::kNumStridesExt | 6;
	prm::CreateObjOut out;
	EXPECT_EQ(exec(fn1, in, &out), prm::kStatBadParam);
	EXPECT_EQ(cq.destroy(), prm::kStatOk);
	cq.cqn = 0;
}

/*
 * CREATE_RQ's stride fields, every value of each, over a ring and doorbell
 * record the device takes: only the PRM's encodings of a buffer of at most
 * 256 KiB are created, anything else is a bad parameter (cx5: the extended
 * stride-count range is a cap it has).
 */
TEST_F(HwStriding, CreateTakesExactlyTheStrideEncodings)
{
	ASSERT_EQ(cq.create(fn1, 6, 3), prm::kStatOk);
	Dma ring(4 * 32), dbr(8);
	auto create = [&](uint8_t size_field, uint8_t num_field) {
		prm::CreateRqIn in;
		set_op(&in, prm::kCmdCreateRq);
		in.cqn.set(cq.cqn);
		in.log_wq_sz = 2;
		in.log_wq_stride = 5;
		in.wq_type = prm::kWqLinkedListStriding;
		in.log_wqe_stride_size = size_field;
		in.log_wqe_num_of_strides = num_field;
		in.dbr_addr.set(dbr.dma);
		in.pas.set(ring.dma);
		prm::CreateObjOut out;
		uint8_t st = exec(fn1, in, &out);
		if (st == prm::kStatOk) {
			EXPECT_EQ(destroy(fn1, prm::kCmdDestroyRq, out.obj_num.get()), prm::kStatOk);
		}
		return st;
	};
	for (unsigned v = 0; v < 256; v++) {
		/* 64 B strides: 8..256 (ext 0..5) and 512..4096 (0..3; 8192 is 512 KiB) */
		bool num_ok = (v >= 0x10 && v <= 0x15) || v <= 3;
		/* 8 strides: 64 B .. 8 KiB */
		bool size_ok = v <= 7;
		EXPECT_EQ(create(0, (uint8_t)v), num_ok ? prm::kStatOk : prm::kStatBadParam)
			<< "log_wqe_num_of_strides 0x" << std::hex << v;
		EXPECT_EQ(create((uint8_t)v, 0x10), size_ok ? prm::kStatOk : prm::kStatBadParam)
			<< "log_wqe_stride_size 0x" << std::hex << v;
	}
	/* the ends of the two ranges, encoded by name, as the driver does */
	EXPECT_EQ(create(prm::enc_log_stride_size(6), prm::enc_log_num_strides(3)), prm::kStatOk);
	EXPECT_EQ(create(prm::enc_log_stride_size(6), prm::enc_log_num_strides(8)), prm::kStatOk);
	EXPECT_EQ(create(prm::enc_log_stride_size(6), prm::enc_log_num_strides(9)), prm::kStatOk);
	EXPECT_EQ(create(prm::enc_log_stride_size(13), prm::enc_log_num_strides(5)), prm::kStatOk);
	EXPECT_EQ(create(prm::enc_log_stride_size(6), prm::enc_log_num_strides(2)),
		  prm::kStatBadParam);
	EXPECT_EQ(create(prm::enc_log_stride_size(14), prm::enc_log_num_strides(3)),
		  prm::kStatBadParam);
	EXPECT_EQ(cq.destroy(), prm::kStatOk);
	cq.cqn = 0;
}

/* The encode/decode pair both sides use: every range's edges, with and without the cap. */
TEST(PrmStrideGeometry, RoundTripAtTheEdges)
{
	for (uint32_t l = prm::kStrideSizeLogBase; l <= prm::kStrideSizeLogMax; l++)
		EXPECT_EQ(prm::dec_log_stride_size(prm::enc_log_stride_size(l)), l) << l;
	EXPECT_EQ(prm::dec_log_stride_size(prm::enc_log_stride_size(5)), prm::kStrideLogInvalid);
	EXPECT_EQ(prm::dec_log_stride_size(prm::enc_log_stride_size(14)), prm::kStrideLogInvalid);

	/* 8..256 strides: only with the extended range */
	for (uint32_t l = 3; l <= 8; l++) {
		EXPECT_EQ(prm::dec_log_num_strides(prm::enc_log_num_strides(l), true), l) << l;
		EXPECT_EQ(prm::dec_log_num_strides(prm::enc_log_num_strides(l), false),
			  prm::kStrideLogInvalid)
			<< l;
	}
	/* 512..64 Ki strides: with it or without */
	for (uint32_t l = 9; l <= 16; l++) {
		EXPECT_EQ(prm::dec_log_num_strides(prm::enc_log_num_strides(l), true), l) << l;
		EXPECT_EQ(prm::dec_log_num_strides(prm::enc_log_num_strides(l), false), l) << l;
	}
	for (bool ext : { false, true }) {
		EXPECT_EQ(prm::dec_log_num_strides(prm::enc_log_num_strides(2), ext),
			  prm::kStrideLogInvalid);
		EXPECT_EQ(prm::dec_log_num_strides(prm::enc_log_num_strides(17), ext),
			  prm::kStrideLogInvalid);
		/* every field value a decoder takes is the encoding of what it decodes to */
		for (unsigned v = 0; v < 256; v++) {
			uint32_t l = prm::dec_log_num_strides((uint8_t)v, ext);
			if (l != prm::kStrideLogInvalid) {
				EXPECT_EQ(prm::enc_log_num_strides(l), v) << v;
			}
			l = prm::dec_log_stride_size((uint8_t)v);
			if (l != prm::kStrideLogInvalid) {
				EXPECT_EQ(prm::enc_log_stride_size(l), v) << v;
			}
		}
	}
}

/* 512 strides of 64 B over 1 KiB segments: packets of 1..n strides, across segments. */
TEST_F(HwStriding, PacketsTakeConsecutiveStridesAcrossSegments)
{
	setup(2, 6, 9, 1024);
	const uint64_t desc0 = query_bus(fn1).rd_desc_bytes.get();
	const uint64_t xlat0 = host::dma_to_cpu_batches();
	const uint32_t lens[] = { 60, 64, 65, 128, 1000, 1514, 129, 900 };
	std::vector<frames::Bytes> sent;
	std::vector<uint16_t> at;
	uint32_t stride = 0;
	for (uint32_t i = 0; i < sizeof(lens) / sizeof(lens[0]); i++) {
		sent.push_back(frame_of(lens[i], (uint8_t)i));
		at.push_back((uint16_t)stride);
		stride += (lens[i] + 63) / 64;
		l.send(sent.back(), 0, 0, false);
	}
	auto rx = cq.poll_all();
	ASSERT_EQ(rx.size(), sent.size());
	for (size_t i = 0; i < rx.size(); i++)
		expect_packet(rx[i], sent[i], 0, at[i]);
	/* the metadata of the cyclic RQ's CQE is there too */
	EXPECT_EQ(rx[0].l3_type(), prm::kCqeL3Ipv4);
	EXPECT_EQ(rx[0].hds_ip_ext, prm::kCqeL3Ok | prm::kCqeL4Ok);
	EXPECT_EQ(query_q(fn1).rx_out_of_buffer.get(), 0u);
	/* the WQE's 32 data segments are fetched and translated once, not once per packet */
	EXPECT_EQ(query_bus(fn1).rd_desc_bytes.get() - desc0, 32 * sizeof(prm::DataSeg));
	EXPECT_EQ(host::dma_to_cpu_batches() - xlat0, 1u);
}

/*
 * A CQ of one entry per stride, both full: the next frame is out of
 * buffer, not a CQ overrun (which would stop the CQ and cost a recovery).
 * (t-ringparam with rx 64 on the striding RQ: overruns and recoveries.)
 */
TEST_F(HwStriding, FullRingWithFullCqIsOutOfBufferNotOverrun)
{
	setup(1, 6, 6, 4096, true, 7);	/* 2 WQEs x 64 strides, 128 CQEs */
	for (int i = 0; i < 128; i++)
		l.send(frame_of(60, (uint8_t)i), 0, 0, false);
	l.send(frame_of(60, 200), 0, 0, false);
	EXPECT_EQ(query_q(fn1).rx_out_of_buffer.get(), 1u);
	EXPECT_EQ(query_q(fn1).rx_cq_overrun.get(), 0u);
	EXPECT_EQ(query_q(fn1).cq_overrun.get(), 0u);
	auto rx = cq.poll_all();
	ASSERT_EQ(rx.size(), 128u) << "every CQE there, the CQ not in error";
	for (size_t i = 0; i < rx.size(); i++)
		EXPECT_EQ(decode(rx[i]).wqe, i / 64);
}

/* A frame that does not fit the strides left: filler CQE, then the next WQE. */
TEST_F(HwStriding, FillerCqeForTheStridesLeft)
{
	setup(2, 8, 4);		/* 16 strides of 256 B */
	frames::Bytes big = frame_of(256 * 7), mid = frame_of(256 * 7 - 10, 2), third = frame_of(600, 3);
	l.send(big, 0, 0, false);	/* strides 0..6 */
	l.send(mid, 0, 0, false);	/* strides 7..13: 2 left */
	l.send(third, 0, 0, false);	/* needs 3: filler for 14..15, then WQE 1 stride 0 */
	auto rx = cq.poll_all();
	ASSERT_EQ(rx.size(), 4u);
	expect_packet(rx[0], big, 0, 0);
	expect_packet(rx[1], mid, 0, 7);
	Got f = decode(rx[2]);
	EXPECT_TRUE(f.filler);
	EXPECT_EQ(f.wqe, 0);
	EXPECT_EQ(f.stride, 14);
	EXPECT_EQ(f.strides, 2u);
	expect_packet(rx[3], third, 1, 0);
}

/*
 * The filler CQE takes the CQ's last free slot: the frame's own CQE then
 * has no room, although there was room when the frame came. The device
 * writes nothing over an unread CQE: the frame counts as rx_cq_overrun and
 * the CQ stops in OVERFLOW, as for any overrun.
 */
TEST_F(HwStriding, FillerTakingTheLastSlotOverrunsTheFramesCqe)
{
	setup(2, 8, 4, 4096, true, 2);	/* 16 strides of 256 B; a CQ of 4 */
	frames::Bytes f[3] = { frame_of(1000, 1), frame_of(1000, 2), frame_of(1000, 3) };
	for (const frames::Bytes &b : f)
		l.send(b, 0, 0, false);	/* 4 strides each: 12 of 16 used, 3 CQEs */
	l.send(frame_of(1100, 4), 0, 0, false);	/* 5 strides: filler for 12..15 in the 4th slot */

	EXPECT_EQ(query_q(fn1).rx_cq_overrun.get(), 1u);
	EXPECT_EQ(query_q(fn1).cq_overrun.get(), 1u);
	EXPECT_EQ(query_cq(fn1, cq.cqn).status, prm::kCqStatusOverflow);
	const auto *slots = reinterpret_cast<const prm::Cqe64 *>(cq.ring.cpu);
	for (uint32_t i = 0; i < 3; i++)
		EXPECT_EQ(decode(slots[i]).stride, 4 * i) << "slot " << i << " overwritten";
	auto rx = cq.poll_all();
	ASSERT_EQ(rx.size(), 4u);
	for (uint32_t i = 0; i < 3; i++)
		expect_packet(rx[i], f[i], 0, (uint16_t)(4 * i));
	Got g = decode(rx[3]);
	EXPECT_TRUE(g.filler);
	EXPECT_EQ(g.stride, 12);
	EXPECT_EQ(g.strides, 4u);
	EXPECT_EQ(cq.peek(), nullptr) << "the frame's CQE was not written";
}

/* A WQE filled exactly is retired without a filler; the device follows the list. */
TEST_F(HwStriding, ExactFitAndLinkedListOrder)
{
	setup(2, 8, 3, 4096, false);	/* 8 strides of 256 B, 4 WQEs */
	/* post in the order 0 -> 2 -> 1 -> 3 */
	rq.write(0, 2);
	rq.write(2, 1);
	rq.write(1, 3);
	rq.write(3, 0);
	rq.publish(4);
	std::vector<frames::Bytes> sent;
	for (int i = 0; i < 4; i++) {
		sent.push_back(frame_of(256 * 8, (uint8_t)i));	/* one whole WQE each */
		l.send(sent.back(), 0, 0, false);
	}
	auto rx = cq.poll_all();
	ASSERT_EQ(rx.size(), 4u);
	const uint16_t order[] = { 0, 2, 1, 3 };
	for (int i = 0; i < 4; i++) {
		EXPECT_FALSE(decode(rx[i]).filler);
		expect_packet(rx[i], sent[i], order[i], 0);
	}
	/* all four used: the next frame has no WQE */
	l.send(frame_of(100), 0, 0, false);
	EXPECT_EQ(cq.poll_all().size(), 0u);
	EXPECT_EQ(query_q(fn1).rx_out_of_buffer.get(), 1u);
}

TEST_F(HwStriding, OutOfBufferUntilTheDriverPosts)
{
	setup(2, 8, 3, 4096, false);
	rq.post(1);
	l.send(frame_of(256 * 6), 0, 0, false);	/* strides 0..5 of WQE 0 */
	l.send(frame_of(256 * 3, 2), 0, 0, false);	/* filler 6..7, no WQE 1: dropped */
	auto rx = cq.poll_all();
	ASSERT_EQ(rx.size(), 2u);
	EXPECT_TRUE(decode(rx[1]).filler);
	EXPECT_EQ(query_q(fn1).rx_out_of_buffer.get(), 1u);
	rq.post(1);
	frames::Bytes f = frame_of(300, 3);
	l.send(f, 0, 0, false);
	rx = cq.poll_all();
	ASSERT_EQ(rx.size(), 1u);
	expect_packet(rx[0], f, 1, 0);
	EXPECT_EQ(query_q(fn1).rx_out_of_buffer.get(), 1u);
}

/* Longer than a whole WQE: dropped and counted, nothing consumed. */
TEST_F(HwStriding, OversizeFrameConsumesNothing)
{
	setup(2, 8, 3);		/* 2 KiB per WQE */
	l.send(frame_of(2049), 0, 0, false);
	EXPECT_EQ(query_q(fn1).rx_oversize_pkts_buffer.get(), 1u);
	EXPECT_EQ(cq.poll_all().size(), 0u);
	frames::Bytes f = frame_of(2048, 2);
	l.send(f, 0, 0, false);
	auto rx = cq.poll_all();
	ASSERT_EQ(rx.size(), 1u);
	expect_packet(rx[0], f, 0, 0);
}

/* A WQE whose segments do not make its buffer: length error, the RQ stops. */
TEST_F(HwStriding, MalformedWqeIsAnErrorCqe)
{
	setup(2, 8, 4, 1024, false);	/* 4 KiB per WQE in 4 segments */
	rq.write(0, 1);
	rq.set_seg(0, 3, 0, 0);		/* three segments only */
	rq.publish(1);
	l.send(frame_of(100), 0, 0, false);
	auto rx = cq.poll_all();
	ASSERT_EQ(rx.size(), 1u);
	EXPECT_EQ(rx[0].opcode(), prm::kCqeRespErr);
	EXPECT_EQ(reinterpret_cast<const prm::ErrCqe &>(rx[0]).syndrome, prm::kSyndLocalLengthErr);
	EXPECT_EQ(rx[0].wqe_id.get(), 0);
	/* the RQ is in error: frames count as if-down */
	l.send(frame_of(100), 0, 0, false);
	EXPECT_EQ(cq.poll_all().size(), 0u);
	EXPECT_EQ(query_q(fn1).rx_if_down_packets.get(), 1u);
}

TEST_F(HwStriding, WrongLkeyIsAProtectionError)
{
	setup(2, 8, 4, 1024, false);
	rq.write(0, 1);
	rq.set_seg(0, 2, rq.bufs[0][2].dma, 1024, 0x1234);
	rq.publish(1);
	l.send(frame_of(100), 0, 0, false);
	auto rx = cq.poll_all();
	ASSERT_EQ(rx.size(), 1u);
	EXPECT_EQ(rx[0].opcode(), prm::kCqeRespErr);
	EXPECT_EQ(reinterpret_cast<const prm::ErrCqe &>(rx[0]).syndrome, prm::kSyndLocalProtErr);
}

/* A segment the device may not reach: error CQE at the stride, nothing written past the fault. */
TEST_F(HwStriding, UnmappedSegmentIsADmaFault)
{
	setup(2, 8, 4, 1024, false);
	rq.write(0, 1);
	rq.set_seg(0, 1, 0xdead0000ull, 1024);	/* strides 4..7 */
	rq.publish(1);
	frames::Bytes ok = frame_of(1000);
	l.send(ok, 0, 0, false);		/* strides 0..3: segment 0 */
	l.send(frame_of(300, 2), 0, 0, false);	/* stride 4: segment 1 */
	auto rx = cq.poll_all();
	ASSERT_EQ(rx.size(), 2u);
	expect_packet(rx[0], ok, 0, 0);
	EXPECT_EQ(rx[1].opcode(), prm::kCqeRespErr);
	EXPECT_EQ(reinterpret_cast<const prm::ErrCqe &>(rx[1]).syndrome, prm::kSyndLocalProtErr);
	EXPECT_EQ(rx[1].wqe_id.get(), 0);
	EXPECT_EQ(rx[1].wqe_counter.get(), 4);
	EXPECT_GE(query_bus(fn1).dma_faults.get(), 1u);
}

/* ERR -> RST -> RDY: the device starts again at WQE 0, stride 0. */
TEST_F(HwStriding, RecoveryRestartsAtTheFirstWqe)
{
	setup(2, 8, 4, 1024, false);
	rq.write(0, 1);
	rq.set_seg(0, 0, 0, 0);
	rq.publish(1);
	l.send(frame_of(100), 0, 0, false);
	ASSERT_EQ(cq.poll_all().size(), 1u);
	rq.reset(prm::kQueueErr, 4);
	frames::Bytes f = frame_of(700, 5);
	l.send(f, 0, 0, false);
	auto rx = cq.poll_all();
	ASSERT_EQ(rx.size(), 1u);
	expect_packet(rx[0], f, 0, 0);
}

/* ---- the shape of a WQE's segments (hw/striding.h) ---- */

/* The reference: walk the segments to the one holding byte off. {segment, offset in it} */
std::pair<uint32_t, uint32_t> walk(const std::vector<uint32_t> &segs, uint32_t off)
{
	uint32_t k = 0;
	while (off >= segs[k])
		off -= segs[k++];
	return { k, off };
}

hw::StridingShape learn(const std::vector<uint32_t> &segs)
{
	hw::StridingShapeScan scan;
	for (uint32_t n : segs)
		scan.add(n);
	return hw::striding_shape(scan);
}

/* The driver's WQE (en/rq_striding.cpp): its first page from the headroom on, whole pages, a tail. */
std::vector<uint32_t> driver_wqe(uint32_t pages, uint32_t headroom)
{
	std::vector<uint32_t> segs(pages, 4096);
	segs[0] -= headroom;
	if (headroom)
		segs.push_back(headroom);
	return segs;
}

/* Every offset of the buffer: the shape's segment and offset are the walk's. */
void expect_locates_as_the_walk(const std::vector<uint32_t> &segs, hw::StridingShape sh)
{
	uint32_t total = 0;
	for (uint32_t n : segs)
		total += n;
	for (uint32_t off = 0; off < total; off++) {
		uint32_t in = off;
		uint32_t k = hw::striding_locate(sh, &in);
		auto want = walk(segs, off);
		ASSERT_EQ(k, want.first) << "offset " << off;
		ASSERT_EQ(in, want.second) << "offset " << off;
	}
}

/* The driver's WQEs, with the OS's headrooms (XDP and skb) and none: a compare and a shift. */
TEST(StridingShape, DriverWqesLocateWithoutAWalk)
{
	for (uint32_t pages : { 1u, 2u, 16u, 64u }) {
		for (uint32_t h : { 0u, 64u, 66u, 256u, 320u }) {
			SCOPED_TRACE(testing::Message() << pages << " pages, headroom " << h);
			std::vector<uint32_t> segs = driver_wqe(pages, h);
			hw::StridingShape sh = learn(segs);
			ASSERT_NE(sh.log_seg, hw::kSegWalk);
			EXPECT_EQ(sh.first, 4096 - h);
			if (segs.size() > 2) {
				EXPECT_EQ(sh.log_seg, 12);
			}
			expect_locates_as_the_walk(segs, sh);
		}
	}
}

/* Shapes a compare and a shift cannot place: walked. */
TEST(StridingShape, OtherWqesAreWalked)
{
	const std::vector<std::vector<uint32_t>> walked = {
		{ 1000, 1000, 1000 },		/* one size, not a power of two */
		{ 4000, 3000, 3000, 100 },	/* the middle not a power of two */
		{ 4096, 2048, 4096, 4096 },	/* the middle of two sizes */
		{ 4032, 4096, 4096, 8192 },	/* the last longer than the middle */
	};
	for (const auto &segs : walked)
		EXPECT_EQ(learn(segs).log_seg, hw::kSegWalk) << segs.size() << " segments";
	/* but a short last one, or a second one of any size when it is the last, is placed */
	EXPECT_EQ(learn({ 4032, 4096, 4096, 100 }).log_seg, 12);
	EXPECT_EQ(learn({ 100, 4096 }).log_seg, 12);
	EXPECT_EQ(learn({ 100, 3000 }).log_seg, 12);
	EXPECT_EQ(learn({ 65536 }).first, 65536u);
	EXPECT_NE(learn({ 65536 }).log_seg, hw::kSegWalk);
}

/*
 * Any list of segments (as a fuzzer posts them): where the shape takes
 * one, it places every offset where the walk does; and it takes exactly
 * those whose later segments are one power of two, the last no longer.
 */
TEST(StridingShape, RandomWqesLocateAsTheWalk)
{
	uint32_t seed = 12345;
	auto rnd = [&](uint32_t n) {
		seed = seed * 1103515245u + 12345u;
		return (seed >> 8) % n;
	};
	const uint32_t sizes[] = { 1, 2, 3, 7, 64, 100, 128, 1000, 1024, 4096 };
	uint32_t placed = 0;
	for (int t = 0; t < 3000; t++) {
		uint32_t n = 1 + rnd(8), mid = sizes[rnd(10)];
		std::vector<uint32_t> segs = { sizes[rnd(10)] };
		for (uint32_t k = 1; k < n; k++)
			segs.push_back(k + 1 == n || rnd(8) == 0 ? sizes[rnd(10)] : mid);
		bool pow2 = true, same = true;
		for (uint32_t k = 1; k + 1 < n; k++) {
			same &= segs[k] == segs[1];
			pow2 &= (segs[k] & (segs[k] - 1)) == 0;
		}
		uint32_t round_up = 1;
		while (n > 1 && round_up < segs[1])
			round_up <<= 1;
		bool shaped = n < 2 || (same && pow2 && segs[n - 1] <= round_up);
		hw::StridingShape sh = learn(segs);
		ASSERT_EQ(sh.log_seg != hw::kSegWalk, shaped) << "trial " << t;
		if (shaped) {
			placed++;
			expect_locates_as_the_walk(segs, sh);
		}
	}
	EXPECT_GT(placed, 1000u);
}

/*
 * Driver-shaped WQEs on the device (a first page shortened by the
 * headroom, 15 whole pages, a tail the headroom's size): a frame at every
 * stride, across page boundaries and into the tail, lands where walking
 * the segments puts it, and the device placed it by the WQE's shape.
 */
TEST_F(HwStriding, DriverShapedWqePlacesAsTheWalk)
{
	setup(2, 11, 5, 4096, false);	/* 32 strides of 2 KiB: 16 pages a WQE */
	const uint32_t headrooms[] = { 0, 64, 256, 320 };
	std::vector<Dma> tails;
	for (uint32_t ix = 0; ix < 4; ix++) {
		uint32_t h = headrooms[ix];
		tails.emplace_back(h ? h : 1);
		rq.write(ix, (ix + 1) & 3);
		if (h) {
			rq.set_seg(ix, 0, rq.bufs[ix][0].dma + h, 4096 - h);
			rq.set_seg(ix, 16, tails.back().dma, h);
		}
	}
	rq.publish(4);
	hw::Rq *dev = nullptr;
	for (hw::Rq &r : fn1->rq)
		if (r.num == rq.rqn)
			dev = &r;
	ASSERT_NE(dev, nullptr);

	for (uint32_t ix = 0; ix < 4; ix++) {
		uint32_t h = headrooms[ix];
		SCOPED_TRACE(testing::Message() << "headroom " << h);
		/* the WQE's segments as the driver wrote them: the reference walks them */
		std::vector<uint8_t *> mem;
		std::vector<uint32_t> segs = driver_wqe(16, h);
		mem.push_back(rq.bufs[ix][0].cpu + h);
		for (uint32_t k = 1; k < 16; k++)
			mem.push_back(rq.bufs[ix][k].cpu);
		if (h)
			mem.push_back(tails[ix].cpu);
		std::vector<frames::Bytes> sent;
		for (uint32_t s = 0; s < 32; s++) {
			sent.push_back(frame_of(s % 4 ? 2048 - (s * 97) % 1900 : 2048, (uint8_t)(s + ix)));
			l.send(sent.back(), 0, 0, false);
		}
		EXPECT_EQ(dev->wqe_shape.first, 4096 - h);
		EXPECT_EQ(dev->wqe_shape.log_seg, 12) << "the WQE is walked";
		auto rx = cq.poll_all();
		ASSERT_EQ(rx.size(), 32u);
		for (uint32_t s = 0; s < 32; s++) {
			Got g = decode(rx[s]);
			EXPECT_FALSE(g.filler);
			EXPECT_EQ(g.wqe, ix);
			EXPECT_EQ(g.stride, s);
			frames::Bytes got;
			for (uint32_t i = 0; i < sent[s].size(); i++) {
				auto at = walk(segs, (s << 11) + i);
				got.push_back(mem[at.first][at.second]);
			}
			EXPECT_EQ(got, sent[s]) << "stride " << s;
		}
	}
}

} /* namespace */
