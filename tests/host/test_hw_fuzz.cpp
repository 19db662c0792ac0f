// SPDX-License-Identifier: GPL-2.0
/*
 * "Never a crash": random WQEs, random frames and random command inboxes,
 * under ASan/UBSan. Deterministic seeds, so a failure reproduces.
 */
#include <random>

#include "frames.h"
#include "hw_harness.h"

using namespace hwt;

namespace {

class HwFuzz : public HwTest {};

/* Random WQE bytes behind a ctrl segment that names the SQ, so the engine runs them. */
TEST_F(HwFuzz, RandomWqes)
{
	Link l;
	l.setup(fn0, fn1, 4, 8, 12);
	TxBuf data(frames::payload(9100));
	std::mt19937 rng(1234);
	const uint8_t ops[] = { prm::kOpNop, prm::kOpSend, prm::kOpLso, prm::kOpEnhancedMpsw, 0x25 };
	int errors = 0, completions = 0, delivered = 0;

	for (int iter = 0; iter < 3000; iter++) {
		uint32_t nbb = 1 + rng() % 4;
		Bytes w(nbb * 64);
		for (auto &b : w)
			b = (uint8_t)rng();
		/* mostly plausible: ds within the posted WQEBBs, small inline sizes, valid pointers */
		uint32_t ds = rng() % 4 ? 2 + rng() % (nbb * 4 - 1) : rng() % 64;
		prm::CtrlSeg ctrl;
		ctrl.set(ops[rng() % 5], l.sq.pc, l.sq.sqn, ds);
		ctrl.fm_ce_se = (uint8_t)rng();
		memcpy(w.data(), &ctrl, sizeof(ctrl));
		prm::EthSeg eth;
		memcpy(&eth, w.data() + 16, sizeof(eth));
		eth.inline_hdr_sz.set((uint16_t)(rng() % 4 ? rng() % 40 : rng()));
		eth.mss.set((uint16_t)(rng() % 4 ? 200 + rng() % 1500 : rng()));
		eth.cs_flags = (uint8_t)(rng() & 0xf0);
		memcpy(w.data() + 16, &eth, sizeof(eth));
		uint32_t inl_ds = eth.inline_hdr_sz.get() > 2 ? (eth.inline_hdr_sz.get() + 13) / 16 : 0;
		for (uint32_t d = 2 + inl_ds; d < nbb * 4; d++) {
			if (rng() % 8 == 0)
				continue;	/* leave random bytes */
			prm::DataSeg seg;
			uint32_t bc = rng() % 8 ? rng() % 1500 : (uint32_t)rng();
			seg.byte_count.set(bc);
			seg.lkey.set(rng() % 16 ? prm::kReservedLkey : (uint32_t)rng());
			seg.addr.set(data.dma + (bc < 9100 ? rng() % (9100 - bc) : rng() % 9100));
			memcpy(w.data() + d * 16, &seg, sizeof(seg));
		}
		l.sq.pad_for(nbb);
		l.sq.post_bytes(w);
		l.sq.doorbell();

		for (const prm::Cqe64 &c : l.txcq.poll_all()) {
			if (c.opcode() == prm::kCqeReqErr) {
				errors++;
				ASSERT_EQ(l.sq.modify(prm::kQueueErr, prm::kQueueRst), prm::kStatOk);
				ASSERT_EQ(l.sq.modify(prm::kQueueRst, prm::kQueueRdy), prm::kStatOk);
			} else {
				ASSERT_EQ(c.opcode(), prm::kCqeReq);
				completions++;
			}
		}
		/* every delivered frame is a whole one: its length is what the CQE says */
		for (const prm::Cqe64 &c : l.rxcq.poll_all()) {
			ASSERT_EQ(c.opcode(), prm::kCqeRespSend);
			ASSERT_GE(c.byte_cnt.get(), 14u);
			ASSERT_LE(c.byte_cnt.get(), prm::kMaxHwMtu);
			l.rq.post(1);
			delivered++;
		}
	}
	EXPECT_GT(errors, 100) << "the fuzzer should hit the error paths";
	EXPECT_GT(completions, 50) << "and some good WQEs";
	EXPECT_GT(delivered, 20) << "and put some frames on the wire";
	printf("fuzz: %d errors, %d completions, %d frames\n", errors, completions, delivered);
}

/* Random frames (random bytes behind plausible Ethernet/IP headers) through TX offload and RX. */
TEST_F(HwFuzz, RandomFrames)
{
	Link l;
	l.setup(fn0, fn1, 6, 8, 12);
	std::mt19937 rng(99);
	for (int iter = 0; iter < 3000; iter++) {
		uint32_t len = 14 + rng() % 200;
		Bytes f(len);
		for (auto &b : f)
			b = (uint8_t)rng();
		static const uint16_t types[] = { 0x0800, 0x86dd, 0x8100, 0x88a8, 0x0806 };
		uint16_t t = types[rng() % 5];
		frames::put16(f, 12, t);
		if (len > 18 && (t == 0x8100 || t == 0x88a8))
			frames::put16(f, 16, rng() % 2 ? 0x0800 : 0x86dd);
		size_t l3 = (t == 0x8100 || t == 0x88a8) ? 18 : 14;
		if (len > l3 + 10 && rng() % 2) {
			f[l3] = rng() % 2 ? 0x45 : 0x60;
			f[l3 + 9] = rng() % 2 ? 6 : 17;	/* proto for IPv4 */
			f[l3 + 6] = rng() % 2 ? 6 : 17;	/* next header for IPv6 */
		}
		SendWqe w;
		Seg s;
		s.inl = true;
		s.data = f;
		w.segs.push_back(s);
		w.cs_flags = (uint8_t)(rng() & 0xf0);
		l.sq.pad_for(4);
		l.sq.post(w);
		l.sq.doorbell();
		auto rx = l.rxcq.poll_all();
		ASSERT_EQ(rx.size(), 1u) << "iteration " << iter;
		ASSERT_EQ(rx[0].byte_cnt.get(), len);
		l.rq.post(1);
	}
	EXPECT_EQ(l.txcq.poll_all().size(), 0u);
}

/* Random inboxes for every opcode: a status, never a crash. */
TEST_F(HwFuzz, RandomCommands)
{
	std::mt19937 rng(7);
	const uint16_t ops[] = { prm::kCmdQueryHcaCap, prm::kCmdCreateCq, prm::kCmdDestroyCq,
				 prm::kCmdCreateSq,    prm::kCmdModifySq, prm::kCmdDestroySq,
				 prm::kCmdCreateRq,    prm::kCmdModifyRq, prm::kCmdDestroyRq,
				 prm::kCmdCreateRss,   prm::kCmdModifyRss, prm::kCmdDestroyRss,
				 prm::kCmdQueryQCounter, prm::kCmdQueryBusCounters };
	Dma mem(1 << 16);
	Bytes in(2048), out(256);
	for (int iter = 0; iter < 20000; iter++) {
		for (auto &b : in)
			b = (uint8_t)rng();
		reinterpret_cast<prm::CmdIn *>(in.data())->opcode.set(ops[rng() % 14]);
		/* sometimes point the DMA fields (offsets 16 and 24 of create CQ/SQ/RQ) at real memory */
		if (rng() % 2) {
			prm::be64 a;
			a.set(mem.dma + (rng() % 8) * 4096);
			memcpy(&in[16], &a, 8);
			a.set(mem.dma + (rng() % 16) * 64);
			memcpy(&in[24], &a, 8);
			in[8] = (uint8_t)(rng() % 8);	/* small log sizes */
			in[12] = (uint8_t)(rng() % 8);
		}
		uint32_t in_len = rng() % 3 ? (uint32_t)in.size() : rng() % 80;
		uint32_t out_len = rng() % 3 ? (uint32_t)out.size() : rng() % 64;
		bool ok = bus::cmd_exec(rng() % 2 ? fn0 : fn1, in.data(), in_len, out.data(), out_len);
		ASSERT_EQ(ok, in_len >= 8 && out_len >= 8);
	}
	/* whatever got created: the adapter tears it down in TearDown */
}

} /* namespace */
