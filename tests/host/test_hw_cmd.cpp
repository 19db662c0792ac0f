// SPDX-License-Identifier: GPL-2.0
/* The command interface: caps per model, object lifecycle, and every rejection. */
#include "hw/adapter.h"
#include "hw_harness.h"

using namespace hwt;
namespace hw = softcx::hw;

namespace {

/* ---- C ABI around the adapter ---- */

TEST(HwAdapter, ModelNames)
{
	EXPECT_EQ(scx_hw_model_parse("cx4"), 4);
	EXPECT_EQ(scx_hw_model_parse("cx5"), 5);
	EXPECT_EQ(scx_hw_model_parse("cx6dx"), 6);
	EXPECT_EQ(scx_hw_model_parse("cx7"), 7);
	EXPECT_EQ(scx_hw_model_parse("cx6"), -1);
	EXPECT_EQ(scx_hw_model_parse("CX5"), -1);
	EXPECT_EQ(scx_hw_model_parse(""), -1);
	EXPECT_EQ(scx_hw_model_parse(nullptr), -1);
	EXPECT_STREQ(scx_hw_model_name(4), "cx4");
	EXPECT_STREQ(scx_hw_model_name(6), "cx6dx");
	EXPECT_STREQ(scx_hw_model_name(7), "cx7");
	EXPECT_STREQ(scx_hw_model_name(3), "unknown");
}

TEST(HwAdapter, CreateRejectsBadArguments)
{
	scx_hw_adapter *a = reinterpret_cast<scx_hw_adapter *>(0x1);
	EXPECT_EQ(scx_hw_adapter_create(5, 3, &g_os_dev, &a), -22);
	EXPECT_EQ(a, nullptr);
	EXPECT_EQ(scx_hw_adapter_create(5, 0, &g_os_dev, &a), -22);
	EXPECT_EQ(scx_hw_adapter_create(5, 1, &g_os_dev, &a), -22);
	EXPECT_EQ(scx_hw_adapter_create(5, 64, &g_os_dev, &a), -22);
	EXPECT_EQ(scx_hw_adapter_create(8, 2, &g_os_dev, &a), -22);
	EXPECT_EQ(scx_hw_adapter_create(5, 2, &g_os_dev, nullptr), -22);
	EXPECT_EQ(host::zalloc_outstanding(), 0);

	ASSERT_EQ(scx_hw_adapter_create(7, 4, &g_os_dev, &a), 0);
	EXPECT_NE(scx_hw_function(a, 3), nullptr);
	EXPECT_EQ(scx_hw_function(a, 4), nullptr);
	EXPECT_EQ(scx_hw_function(nullptr, 0), nullptr);
	scx_hw_adapter_destroy(a);
	scx_hw_adapter_destroy(nullptr);
	EXPECT_EQ(host::zalloc_outstanding(), 0);
	EXPECT_EQ(host::locks_live(), 0);
}

/* ---- caps per model ---- */

class HwCaps : public HwTest, public ::testing::WithParamInterface<int> {
protected:
	int model() const override { return GetParam(); }
};

TEST_P(HwCaps, MatchTheModel)
{
	prm::HcaCaps c = query_caps(fn0);
	int m = GetParam();
	EXPECT_EQ(c.model, m);
	EXPECT_EQ(c.wqe_inline_mode, m == 4 ? prm::kInlineL2 : prm::kInlineNone);
	EXPECT_EQ(c.enhanced_mpw, m == 4 ? 0 : 1);
	EXPECT_EQ(c.striding_rq, m == 4 ? 0 : 1);
	EXPECT_EQ(c.ext_stride_num_range, m == 4 ? 0 : 1);
	EXPECT_EQ(c.shampo, m == 7 ? 1 : 0);
	EXPECT_EQ(c.lso, 1);
	EXPECT_EQ(c.csum, 1);
	EXPECT_EQ(c.max_hw_mtu.get(), 9978 + 22);
	EXPECT_EQ(c.log_max_sq_sz, 13);
	EXPECT_EQ(c.log_max_rq_sz, 13);
	EXPECT_EQ(c.log_max_cq_sz, 16);
	EXPECT_EQ(c.log_max_rss_tbl, prm::kRssMaxTableLog);
	/* two full sets of 64 channels (3 SQs, 1 RQ, 4 CQs each) fit at once */
	EXPECT_EQ(c.max_sqs.get(), 2 * 64 * 3);
	EXPECT_EQ(c.max_rqs.get(), 2 * 64);
	EXPECT_EQ(c.max_cqs.get(), 2 * 64 * 4);
	EXPECT_GT(c.max_lso_sz.get(), 65535u);
	/* Both functions of the adapter report the same */
	prm::HcaCaps c1 = query_caps(fn1);
	EXPECT_EQ(0, memcmp(&c, &c1, sizeof(c)));
}

INSTANTIATE_TEST_SUITE_P(Models, HwCaps, ::testing::Values(4, 5, 6, 7));

/* ---- envelope ---- */

class HwCmd : public HwTest {};

TEST_F(HwCmd, UndeliverableWhenHeaderDoesNotFit)
{
	prm::CmdIn in;
	set_op(&in, prm::kCmdQueryHcaCap);
	prm::QueryHcaCapOut out;
	EXPECT_FALSE(bus::cmd_exec(fn0, &in, sizeof(in) - 1, &out, sizeof(out)));
	EXPECT_FALSE(bus::cmd_exec(fn0, &in, sizeof(in), &out, sizeof(prm::CmdOut) - 1));
	EXPECT_FALSE(bus::cmd_exec(nullptr, &in, sizeof(in), &out, sizeof(out)));
	EXPECT_FALSE(bus::cmd_exec(fn0, nullptr, sizeof(in), &out, sizeof(out)));
	EXPECT_FALSE(bus::cmd_exec(fn0, &in, sizeof(in), nullptr, sizeof(out)));
}

TEST_F(HwCmd, UnknownOpcode)
{
	for (uint16_t op : { 0x0, 0x101, 0x40f, 0x907, 0xffff }) {
		prm::CmdIn in;
		set_op(&in, op);
		prm::QueryBusCountersOut out;	/* a big outbox: the device must still zero it */
		EXPECT_EQ(exec(fn0, in, &out), prm::kStatBadOp) << op;
		EXPECT_NE(out.hdr.syndrome.get(), 0u);
		EXPECT_EQ(out.rd_desc_bytes.get(), 0u);
	}
}

TEST_F(HwCmd, ShortInboxAndOutbox)
{
	prm::CreateCqIn in;
	set_op(&in, prm::kCmdCreateCq);
	prm::CreateObjOut out;
	ASSERT_TRUE(bus::cmd_exec(fn0, &in, sizeof(in) - 1, &out, sizeof(out)));
	EXPECT_EQ(out.hdr.status, prm::kStatBadInputLen);
	ASSERT_TRUE(bus::cmd_exec(fn0, &in, sizeof(in), &out, sizeof(out) - 1));
	EXPECT_EQ(out.hdr.status, prm::kStatBadOutputLen);

	prm::CmdIn q;
	set_op(&q, prm::kCmdQueryHcaCap);
	prm::QueryHcaCapOut caps;
	ASSERT_TRUE(bus::cmd_exec(fn0, &q, sizeof(q), &caps, sizeof(caps) - 1));
	EXPECT_EQ(caps.hdr.status, prm::kStatBadOutputLen);
	set_op(&q, prm::kCmdQueryQCounter);
	prm::QueryQCounterOut qc;
	ASSERT_TRUE(bus::cmd_exec(fn0, &q, sizeof(q), &qc, sizeof(qc) - 8));
	EXPECT_EQ(qc.hdr.status, prm::kStatBadOutputLen);

	/* RSS: the inbox must hold the whole table it announces */
	Cq cq;
	ASSERT_EQ(cq.create(fn0, 4, 0), prm::kStatOk);
	Rq rq;
	ASSERT_EQ(rq.create(fn0, cq.cqn, 4), prm::kStatOk);
	auto rss = std::make_unique<prm::RssIn>();
	set_op(rss.get(), prm::kCmdCreateRss);
	rss->log_table_size = 3;
	for (int i = 0; i < 8; i++)
		rss->rqn[i].set(rq.rqn);
	uint32_t table_off = __builtin_offsetof(prm::RssIn, rqn);
	ASSERT_TRUE(bus::cmd_exec(fn0, rss.get(), table_off + 7 * 4, &out, sizeof(out)));
	EXPECT_EQ(out.hdr.status, prm::kStatBadInputLen);
	ASSERT_TRUE(bus::cmd_exec(fn0, rss.get(), table_off + 8 * 4, &out, sizeof(out)));
	EXPECT_EQ(out.hdr.status, prm::kStatOk);
}

/* ---- CQ ---- */

TEST_F(HwCmd, CqLifecycleAndNumbers)
{
	Cq a, b;
	ASSERT_EQ(a.create(fn0, 4, 0), prm::kStatOk);
	ASSERT_EQ(b.create(fn0, 4, 0), prm::kStatOk);
	EXPECT_NE(a.cqn, 0u);
	EXPECT_NE(a.cqn, b.cqn);
	EXPECT_EQ(a.destroy(), prm::kStatOk);
	EXPECT_EQ(a.destroy(), prm::kStatBadResource);	/* already gone */
	uint32_t old = a.cqn;
	ASSERT_EQ(a.create(fn0, 4, 0), prm::kStatOk);
	EXPECT_NE(a.cqn, old) << "a reused slot must not reuse the number";
	EXPECT_EQ(destroy(fn0, prm::kCmdDestroyCq, old), prm::kStatBadResource);
	/* numbers are per function */
	EXPECT_EQ(destroy(fn1, prm::kCmdDestroyCq, b.cqn), prm::kStatBadResource);
	EXPECT_EQ(destroy(fn0, prm::kCmdDestroyCq, 0), prm::kStatBadResource);
	EXPECT_EQ(destroy(fn0, prm::kCmdDestroyCq, 0xffffffff), prm::kStatBadResource);
}

TEST_F(HwCmd, CqSizeAndMemoryChecks)
{
	Cq cq;
	EXPECT_EQ(cq.create(fn0, 17, 0), prm::kStatBadParam);
	EXPECT_EQ(cq.create(fn0, 16, 0), prm::kStatOk);

	prm::CreateCqIn in;
	set_op(&in, prm::kCmdCreateCq);
	in.log_cq_size = 2;
	Dma ring(256), dbr(8);
	prm::CreateObjOut out;
	in.pas.set(ring.dma);
	in.dbr_addr.set(host::dma_unmapped_addr());
	EXPECT_EQ(exec(fn0, in, &out), prm::kStatBadParam) << "dbrec not DMA memory";
	in.dbr_addr.set(dbr.dma);
	in.pas.set(reinterpret_cast<uint64_t>(ring.cpu));
	EXPECT_EQ(exec(fn0, in, &out), prm::kStatBadParam) << "CPU pointer passed as DMA address";
	in.pas.set(ring.dma + 32);
	EXPECT_EQ(exec(fn0, in, &out), prm::kStatBadParam) << "misaligned / overruns";
	in.pas.set(ring.dma);
	in.log_cq_size = 3;	/* 512 bytes, the region has 256 */
	EXPECT_EQ(exec(fn0, in, &out), prm::kStatBadParam);
	in.log_cq_size = 2;
	EXPECT_EQ(exec(fn0, in, &out), prm::kStatOk);
}

/* A ring freed a moment ago: the command fails and the device counts a DMA fault. */
TEST_F(HwCmd, FreedRingIsRefusedAndCounted)
{
	prm::CreateCqIn in;
	set_op(&in, prm::kCmdCreateCq);
	in.log_cq_size = 2;
	Dma ring(256), dbr(8);
	in.pas.set(ring.dma);
	in.dbr_addr.set(dbr.dma);
	uint64_t stale = ring.dma;
	ring.free();
	in.pas.set(stale);
	prm::CreateObjOut out;
	EXPECT_EQ(exec(fn0, in, &out), prm::kStatBadParam);
	EXPECT_EQ(query_bus(fn0).dma_faults.get(), 1u);
	in.pas.set(dbr.dma + 64);	/* beyond the 8-byte dbrec region */
	EXPECT_EQ(exec(fn0, in, &out), prm::kStatBadParam);
	EXPECT_EQ(query_bus(fn0).dma_faults.get(), 2u);
	in.pas.set(dbr.dma + 32);	/* misaligned for a CQ ring: refused before any DMA */
	EXPECT_EQ(exec(fn0, in, &out), prm::kStatBadParam);
	EXPECT_EQ(query_bus(fn0).dma_faults.get(), 2u);
}

TEST_F(HwCmd, CqTableLimit)
{
	std::vector<std::unique_ptr<Cq>> cqs;
	for (uint32_t i = 0; i < hw::kMaxCqs; i++) {
		cqs.push_back(std::make_unique<Cq>());
		ASSERT_EQ(cqs.back()->create(fn0, 0, 0), prm::kStatOk);
	}
	Cq extra;
	EXPECT_EQ(extra.create(fn0, 0, 0), prm::kStatExceedLim);
	EXPECT_EQ(extra.create(fn1, 0, 0), prm::kStatOk) << "limits are per function";
	ASSERT_EQ(cqs[17]->destroy(), prm::kStatOk);
	EXPECT_EQ(extra.create(fn0, 0, 0), prm::kStatOk);
}

TEST_F(HwCmd, DestroyCqInUseIsBusy)
{
	Cq scq, rcq;
	ASSERT_EQ(scq.create(fn0, 4, 0), prm::kStatOk);
	ASSERT_EQ(rcq.create(fn0, 4, 0), prm::kStatOk);
	Sq sq;
	Rq rq;
	ASSERT_EQ(sq.create(fn0, scq.cqn, 4), prm::kStatOk);
	ASSERT_EQ(rq.create(fn0, rcq.cqn, 4), prm::kStatOk);
	EXPECT_EQ(scq.destroy(), prm::kStatResourceBusy);
	EXPECT_EQ(rcq.destroy(), prm::kStatResourceBusy);
	/* a CQ serves one queue */
	Sq sq2;
	Rq rq2;
	EXPECT_EQ(sq2.create(fn0, scq.cqn, 4), prm::kStatResourceBusy);
	EXPECT_EQ(rq2.create(fn0, scq.cqn, 4), prm::kStatResourceBusy);
	ASSERT_EQ(sq.destroy(), prm::kStatOk);
	ASSERT_EQ(rq.destroy(), prm::kStatOk);
	EXPECT_EQ(scq.destroy(), prm::kStatOk);
	EXPECT_EQ(rcq.destroy(), prm::kStatOk);
}

/* ---- SQ / RQ ---- */

TEST_F(HwCmd, QueueCreateChecks)
{
	Cq cq;
	ASSERT_EQ(cq.create(fn0, 4, 0), prm::kStatOk);
	Sq sq;
	Rq rq;
	EXPECT_EQ(sq.create(fn0, cq.cqn + 1, 4), prm::kStatBadResource) << "no such CQ";
	EXPECT_EQ(sq.create(fn1, cq.cqn, 4), prm::kStatBadResource) << "CQ of another function";
	EXPECT_EQ(sq.create(fn0, cq.cqn, 14), prm::kStatBadParam) << "above log_max_sq_sz";
	EXPECT_EQ(sq.create(fn0, cq.cqn, 4, 4), prm::kStatBadParam) << "unknown inline mode";
	EXPECT_EQ(rq.create(fn0, cq.cqn, 14), prm::kStatBadParam) << "above log_max_rq_sz";
	EXPECT_EQ(rq.create(fn0, 0, 4), prm::kStatBadResource);

	prm::CreateRqIn in;
	set_op(&in, prm::kCmdCreateRq);
	Dma ring(1024), dbr(8);
	in.cqn.set(cq.cqn);
	in.log_wq_sz = 4;
	in.log_wq_stride = 4;
	in.wq_type = prm::kWqLinkedListStriding;
	in.dbr_addr.set(dbr.dma);
	in.pas.set(ring.dma);
	prm::CreateObjOut out;
	EXPECT_EQ(exec(fn0, in, &out), prm::kStatBadParam) << "striding RQ not emulated";
	in.wq_type = prm::kWqCyclic;
	in.log_wq_stride = 3;
	EXPECT_EQ(exec(fn0, in, &out), prm::kStatBadParam) << "a WQE is at least one data segment";
	in.log_wq_stride = 7;
	EXPECT_EQ(exec(fn0, in, &out), prm::kStatBadParam) << "a WQE is at most four data segments";
	in.log_wq_stride = 6;
	ASSERT_EQ(exec(fn0, in, &out), prm::kStatOk) << "four data segments, 16 WQEs: 1 KiB";
	EXPECT_EQ(destroy(fn0, prm::kCmdDestroyRq, out.obj_num.get()), prm::kStatOk);
	in.log_wq_stride = 4;
	in.dbr_addr.set(dbr.dma + 4);
	EXPECT_EQ(exec(fn0, in, &out), prm::kStatBadParam) << "dbrec must be 8-byte aligned";
	in.dbr_addr.set(dbr.dma);
	in.pas.set(ring.dma + 8);
	EXPECT_EQ(exec(fn0, in, &out), prm::kStatBadParam) << "ring misaligned";
	in.pas.set(ring.dma);
	EXPECT_EQ(exec(fn0, in, &out), prm::kStatOk);
	EXPECT_EQ(destroy(fn0, prm::kCmdDestroyRq, out.obj_num.get()), prm::kStatOk);
	/* the SQ ring must cover 64 << log bytes */
	EXPECT_EQ(sq.create(fn0, cq.cqn, 2), prm::kStatOk);
}

TEST_F(HwCmd, MultiPacketWqeNeedsTheCap)
{
	Cq cq;
	ASSERT_EQ(cq.create(fn0, 4, 0), prm::kStatOk);
	Sq sq;
	EXPECT_EQ(sq.create(fn0, cq.cqn, 4, 0, true), prm::kStatOk);	/* cx5 */
}

class HwCmdCx4 : public HwTest {
protected:
	int model() const override { return prm::kModelCx4; }
};

TEST_F(HwCmdCx4, MultiPacketWqeRefused)
{
	Cq cq;
	ASSERT_EQ(cq.create(fn0, 4, 0), prm::kStatOk);
	Sq sq;
	EXPECT_EQ(sq.create(fn0, cq.cqn, 4, 0, true), prm::kStatBadParam);
	EXPECT_EQ(sq.create(fn0, cq.cqn, 4, 1, false), prm::kStatOk);
}

TEST_F(HwCmd, QueueTableLimits)
{
	std::vector<std::unique_ptr<Cq>> cqs;
	std::vector<std::unique_ptr<Sq>> sqs;
	std::vector<std::unique_ptr<Rq>> rqs;
	static_assert(hw::kMaxSqs + hw::kMaxRqs <= hw::kMaxCqs);
	for (uint32_t i = 0; i < hw::kMaxSqs; i++) {
		cqs.push_back(std::make_unique<Cq>());
		ASSERT_EQ(cqs.back()->create(fn0, 0, 0), prm::kStatOk);
		sqs.push_back(std::make_unique<Sq>());
		ASSERT_EQ(sqs.back()->create(fn0, cqs.back()->cqn, 0), prm::kStatOk) << i;
	}
	for (uint32_t i = 0; i < hw::kMaxRqs; i++) {
		cqs.push_back(std::make_unique<Cq>());
		ASSERT_EQ(cqs.back()->create(fn0, 0, 0), prm::kStatOk);
		rqs.push_back(std::make_unique<Rq>());
		ASSERT_EQ(rqs.back()->create(fn0, cqs.back()->cqn, 0, 64), prm::kStatOk) << i;
	}
	while (cqs.size() < hw::kMaxCqs) {
		cqs.push_back(std::make_unique<Cq>());
		ASSERT_EQ(cqs.back()->create(fn0, 0, 0), prm::kStatOk);
	}
	Cq c1;
	EXPECT_EQ(c1.create(fn0, 0, 0), prm::kStatExceedLim) << "CQ table full";
	ASSERT_EQ(cqs[0]->destroy(), prm::kStatResourceBusy);

	/* a freed SQ slot takes a new SQ, and only one */
	ASSERT_EQ(sqs[0]->destroy(), prm::kStatOk);
	Sq sq;
	ASSERT_EQ(sq.create(fn0, cqs[0]->cqn, 0), prm::kStatOk);
	ASSERT_EQ(rqs[0]->destroy(), prm::kStatOk);	/* frees a CQ of its user */
	Cq &free_cq = *cqs[hw::kMaxSqs];
	Sq sq2;
	EXPECT_EQ(sq2.create(fn0, free_cq.cqn, 0), prm::kStatExceedLim) << "SQ beyond max_sqs";

	/* likewise for RQs */
	Rq rq;
	ASSERT_EQ(rq.create(fn0, free_cq.cqn, 0, 64), prm::kStatOk);
	ASSERT_EQ(sqs[1]->destroy(), prm::kStatOk);
	Rq rq2;
	EXPECT_EQ(rq2.create(fn0, cqs[1]->cqn, 0, 64), prm::kStatExceedLim) << "RQ beyond max_rqs";

	/* object numbers of the highest slots still fit the 24-bit sqn field */
	EXPECT_LT(sqs.back()->sqn, 1u << 24);
	EXPECT_LT(cqs.back()->cqn, 1u << 24);
	EXPECT_EQ(sqs.back()->sqn & hw::kObjIxMask, hw::kMaxSqs - 1);
}

TEST_F(HwCmd, StateMachine)
{
	Cq cq;
	ASSERT_EQ(cq.create(fn0, 4, 0), prm::kStatOk);
	Sq sq;
	ASSERT_EQ(sq.create(fn0, cq.cqn, 4), prm::kStatOk);
	const uint8_t R = prm::kQueueRst, Y = prm::kQueueRdy, E = prm::kQueueErr;

	EXPECT_EQ(sq.modify(Y, R), prm::kStatBadResState) << "cur_state mismatch";
	EXPECT_EQ(sq.modify(R, E), prm::kStatBadResState) << "RST->ERR";
	EXPECT_EQ(sq.modify(R, R), prm::kStatBadResState) << "RST->RST";
	EXPECT_EQ(sq.modify(R, 2), prm::kStatBadParam) << "undefined state";
	EXPECT_EQ(sq.modify(7, Y), prm::kStatBadParam);
	EXPECT_EQ(sq.modify(R, Y), prm::kStatOk);
	EXPECT_EQ(sq.modify(Y, Y), prm::kStatOk);
	EXPECT_EQ(sq.modify(Y, E), prm::kStatOk);
	EXPECT_EQ(sq.modify(E, Y), prm::kStatBadResState) << "ERR->RDY needs RST first";
	EXPECT_EQ(sq.modify(E, E), prm::kStatBadResState);
	EXPECT_EQ(sq.modify(E, R), prm::kStatOk);
	EXPECT_EQ(sq.modify(R, Y), prm::kStatOk);
	EXPECT_EQ(sq.modify(Y, R), prm::kStatOk);
	EXPECT_EQ(modify_queue(fn0, prm::kCmdModifySq, sq.sqn + 1, R, Y), prm::kStatBadResource);
	EXPECT_EQ(modify_queue(fn0, prm::kCmdModifyRq, sq.sqn, R, Y), prm::kStatBadResource)
		<< "an SQ number is not an RQ";

	Cq rcq;
	ASSERT_EQ(rcq.create(fn0, 4, 0), prm::kStatOk);
	Rq rq;
	ASSERT_EQ(rq.create(fn0, rcq.cqn, 4), prm::kStatOk);
	EXPECT_EQ(rq.modify(Y, E), prm::kStatBadResState);
	EXPECT_EQ(rq.modify(R, Y), prm::kStatOk);
	EXPECT_EQ(rq.modify(Y, E), prm::kStatOk);
	EXPECT_EQ(rq.modify(E, R), prm::kStatOk);
	EXPECT_EQ(destroy(fn0, prm::kCmdDestroySq, rq.rqn), prm::kStatBadResource);
}

/*
 * vsd: 0 or 1 in CREATE_RQ; MODIFY_RQ's context part (prm::ModifyRqIn)
 * knows only the vsd bit, checks the value and leaves the RQ as it was
 * when it refuses, even on a state change it would have allowed.
 */
TEST_F(HwCmd, RqVsdChecks)
{
	const uint8_t R = prm::kQueueRst, Y = prm::kQueueRdy;
	Cq cq;
	ASSERT_EQ(cq.create(fn0, 4, 0), prm::kStatOk);
	Rq rq;
	rq.vsd = 2;
	EXPECT_EQ(rq.create(fn0, cq.cqn, 4), prm::kStatBadParam);
	rq.vsd = 0;
	ASSERT_EQ(rq.create(fn0, cq.cqn, 4), prm::kStatOk);
	EXPECT_EQ(modify_rq_ctx(fn0, rq.rqn, R, Y, prm::kRqModifyVsd, 2), prm::kStatBadParam);
	EXPECT_EQ(modify_rq_ctx(fn0, rq.rqn, R, Y, 1u << 0, 1), prm::kStatBadParam);
	EXPECT_EQ(modify_rq_ctx(fn0, rq.rqn, R, Y, 1u << 3, 1), prm::kStatBadParam);
	EXPECT_EQ(rq.modify(Y, R), prm::kStatBadResState) << "the refused modify left it in RST";
	EXPECT_EQ(modify_rq_ctx(fn0, rq.rqn, R, Y, prm::kRqModifyVsd, 1), prm::kStatOk);
	EXPECT_EQ(modify_rq_ctx(fn0, rq.rqn, Y, Y, 0, 7), prm::kStatOk) << "vsd unused: no bit";
	EXPECT_EQ(modify_rq_ctx(fn0, rq.rqn, Y, Y, prm::kRqModifyVsd, 0), prm::kStatOk);
	EXPECT_EQ(modify_rq_ctx(fn0, rq.rqn, R, Y, prm::kRqModifyVsd, 0), prm::kStatBadResState);
}

/*
 * scatter_fcs: 0 or 1 in CREATE_RQ and MODIFY_RQ (bit 2), never with
 * SHAMPO; MODIFY_PORT knows only fcs_chk, 0 or 1.
 */
TEST_F(HwCmd, RqScatterFcsAndPortChecks)
{
	const uint8_t R = prm::kQueueRst, Y = prm::kQueueRdy;
	Cq cq;
	ASSERT_EQ(cq.create(fn0, 4, 0), prm::kStatOk);
	Rq rq;
	rq.scatter_fcs = 2;
	EXPECT_EQ(rq.create(fn0, cq.cqn, 4), prm::kStatBadParam);
	rq.scatter_fcs = 1;
	ASSERT_EQ(rq.create(fn0, cq.cqn, 4), prm::kStatOk);
	EXPECT_EQ(modify_rq_ctx(fn0, rq.rqn, R, Y, prm::kRqModifyScatterFcs, 1, 2),
		  prm::kStatBadParam);
	EXPECT_EQ(modify_rq_ctx(fn0, rq.rqn, R, Y, prm::kRqModifyScatterFcs, 1, 0), prm::kStatOk);
	EXPECT_EQ(modify_rq_ctx(fn0, rq.rqn, Y, Y, prm::kRqModifyVsd, 1, 9), prm::kStatOk)
		<< "scatter_fcs unused: no bit";

	auto port = [&](uint32_t mask, uint8_t chk) {
		prm::ModifyPortIn in;
		set_op(&in, prm::kCmdModifyPort);
		in.modify_bitmask.set(mask);
		in.fcs_chk = chk;
		prm::CmdOut out;
		return exec(fn0, in, &out);
	};
	EXPECT_EQ(port(prm::kPortModifyFcsChk, 2), prm::kStatBadParam);
	EXPECT_EQ(port(1u << 1, 1), prm::kStatBadParam);
	EXPECT_EQ(port(prm::kPortModifyFcsChk, 0), prm::kStatOk);
	EXPECT_EQ(port(prm::kPortModifyFcsChk, 1), prm::kStatOk);
	EXPECT_EQ(port(0, 7), prm::kStatOk) << "fcs_chk unused: no bit";
}

/* ---- RSS ---- */

TEST_F(HwCmd, RssChecks)
{
	Cq cq;
	ASSERT_EQ(cq.create(fn1, 4, 0), prm::kStatOk);
	Rq rq;
	ASSERT_EQ(rq.create(fn1, cq.cqn, 4), prm::kStatOk);
	uint32_t num;
	EXPECT_EQ(rss_cmd(fn1, prm::kCmdCreateRss, 0, { rq.rqn, rq.rqn + 1 }, kFields4, kMsKey, &num),
		  prm::kStatBadResource) << "table names a missing RQ";
	EXPECT_EQ(rss_cmd(fn0, prm::kCmdCreateRss, 0, { rq.rqn }, kFields4, kMsKey, &num),
		  prm::kStatBadResource) << "RQ of another function";
	EXPECT_EQ(rss_cmd(fn1, prm::kCmdCreateRss, 0, { rq.rqn }, 0x10, kMsKey, &num),
		  prm::kStatBadParam) << "unknown hash field";
	EXPECT_EQ(rss_cmd(fn1, prm::kCmdCreateRss, 0, { rq.rqn }, kFields4, kMsKey, &num, 9),
		  prm::kStatBadParam) << "table above caps";
	std::vector<uint32_t> full(256, rq.rqn);
	EXPECT_EQ(rss_cmd(fn1, prm::kCmdCreateRss, 0, full, kFields4, kMsKey, &num), prm::kStatOk);
	EXPECT_NE(num, 0u);
	EXPECT_EQ(rss_cmd(fn1, prm::kCmdModifyRss, num, { rq.rqn, 77 }, kFields4, kMsKey, nullptr),
		  prm::kStatBadResource);
	EXPECT_EQ(rss_cmd(fn1, prm::kCmdModifyRss, num + 1, { rq.rqn }, kFields4, kMsKey, nullptr),
		  prm::kStatBadResource) << "no such RSS object";
	EXPECT_EQ(rss_cmd(fn1, prm::kCmdModifyRss, num, { rq.rqn }, kFields2, kMsKey, nullptr),
		  prm::kStatOk);
	/* RQs may be destroyed under an RSS table (its entries then drop) */
	EXPECT_EQ(rq.destroy(), prm::kStatOk);
	EXPECT_EQ(destroy(fn1, prm::kCmdDestroyRss, num), prm::kStatOk);
	EXPECT_EQ(destroy(fn1, prm::kCmdDestroyRss, num), prm::kStatBadResource);
}

/* As many RSS objects as caps.max_rss, then kStatExceedLim; a freed slot takes the next. */
TEST_F(HwCmd, RssObjectLimit)
{
	Cq cq;
	ASSERT_EQ(cq.create(fn0, 4, 0), prm::kStatOk);
	Rq rq;
	ASSERT_EQ(rq.create(fn0, cq.cqn, 4), prm::kStatOk);
	const uint32_t max = query_caps(fn0).max_rss;
	ASSERT_GE(max, 32u) << "two channel sets of a default object and 15 contexts each";
	std::vector<uint32_t> num(max + 1);
	for (uint32_t i = 0; i < max; i++)
		ASSERT_EQ(rss_cmd(fn0, prm::kCmdCreateRss, 0, { rq.rqn }, kFields4, kMsKey, &num[i]),
			  prm::kStatOk);
	EXPECT_EQ(rss_cmd(fn0, prm::kCmdCreateRss, 0, { rq.rqn }, kFields4, kMsKey, &num[max]),
		  prm::kStatExceedLim);
	ASSERT_EQ(destroy(fn0, prm::kCmdDestroyRss, num[3]), prm::kStatOk);
	ASSERT_EQ(rss_cmd(fn0, prm::kCmdCreateRss, 0, { rq.rqn }, kFields4, kMsKey, &num[3]),
		  prm::kStatOk);
	for (uint32_t i = 0; i < max; i++)
		EXPECT_EQ(destroy(fn0, prm::kCmdDestroyRss, num[i]), prm::kStatOk);
}

/* ---- queries ---- */

TEST_F(HwCmd, CountersStartAtZero)
{
	prm::QueryQCounterOut q = query_q(fn0);
	EXPECT_EQ(q.rx_out_of_buffer.get(), 0u);
	EXPECT_EQ(q.rx_if_down_packets.get(), 0u);
	EXPECT_EQ(q.rx_oversize_pkts_buffer.get(), 0u);
	EXPECT_EQ(q.rx_malformed.get(), 0u);
	prm::QueryBusCountersOut b = query_bus(fn0);
	EXPECT_EQ(b.rd_desc_bytes.get(), 0u);
	EXPECT_EQ(b.doorbells.get(), 0u);
	EXPECT_EQ(b.dma_faults.get(), 0u);
	EXPECT_EQ(b.hdr.syndrome.get(), 0u);
}

} /* namespace */
