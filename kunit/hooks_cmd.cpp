// SPDX-License-Identifier: GPL-2.0
/*
 * Test hooks: the device model's command interface driven with raw inboxes
 * through softcx::bus::cmd_exec, good and bad (see kunit/hooks.h).
 */
#include "hooks.h"

#include "en/channel.h"
#include "hw/adapter.h"
#include "prm/bus.h"
#include "prm/cmd.h"
#include "prm/cqe.h"
#include "prm/wqe.h"

using namespace softcx;
using namespace softcx::prm;

#define SCX_KT_SAME(a, b) static_assert((int)(a) == (int)(b), #a)
SCX_KT_SAME(SCX_KT_STAT_OK, kStatOk);
SCX_KT_SAME(SCX_KT_STAT_BAD_OP, kStatBadOp);
SCX_KT_SAME(SCX_KT_STAT_BAD_PARAM, kStatBadParam);
SCX_KT_SAME(SCX_KT_STAT_BAD_SYS_STATE, kStatBadSysState);
SCX_KT_SAME(SCX_KT_STAT_BAD_RESOURCE, kStatBadResource);
SCX_KT_SAME(SCX_KT_STAT_RESOURCE_BUSY, kStatResourceBusy);
SCX_KT_SAME(SCX_KT_STAT_EXCEED_LIM, kStatExceedLim);
SCX_KT_SAME(SCX_KT_STAT_BAD_RES_STATE, kStatBadResState);
SCX_KT_SAME(SCX_KT_STAT_BAD_INPUT_LEN, kStatBadInputLen);
SCX_KT_SAME(SCX_KT_STAT_BAD_OUTPUT_LEN, kStatBadOutputLen);
SCX_KT_SAME(SCX_KT_CMD_MODIFY_SQ, kCmdModifySq);
#undef SCX_KT_SAME

extern "C" int scx_kt_cmd_raw(struct scx_hw_function *fn, const void *in, uint32_t in_len, void *out,
			      uint32_t out_len)
{
	if (!bus::cmd_exec(fn, in, in_len, out, out_len))
		return SCX_KT_NOT_DELIVERED;
	return static_cast<const CmdOut *>(out)->status;
}

namespace {

/* Run a fixed-size inbox; status, and the object number on success. */
template <typename In>
int run(struct scx_hw_function *fn, u16 opcode, In *in, u32 *obj = nullptr)
{
	alignas(8) u8 out[64] = {};

	in->hdr.opcode.set(opcode);
	int st = scx_kt_cmd_raw(fn, in, sizeof(*in), out, sizeof(out));
	if (st == kStatOk && obj)
		*obj = reinterpret_cast<CreateObjOut *>(out)->obj_num.get();
	return st;
}

int destroy(struct scx_hw_function *fn, u16 opcode, u32 obj)
{
	DestroyObjIn in = {};

	in.obj_num.set(obj);
	return run(fn, opcode, &in);
}

int modify(struct scx_hw_function *fn, u16 opcode, u32 obj, u8 cur, u8 next)
{
	ModifyQueueIn in = {};

	in.obj_num.set(obj);
	in.cur_state = cur;
	in.next_state = next;
	return run(fn, opcode, &in);
}

/* DMA memory the scenarios point queues at (never written: no traffic). */
struct Mem {
	void *cpu;
	u64 dma;
	static constexpr u32 kSize = 4 * 4096;
	static constexpr u64 kCq1 = 0, kCq2 = 1024, kRq = 2048, kDbr = 3072, kSq = 4096;
};

struct Cases {
	scx_kt_cmd_case *out;
	u32 max;
	u32 n;

	void add(const char *name, int want, int got)
	{
		if (n < max)
			out[n] = scx_kt_cmd_case{ name, want, got };
		n++;
	}
};

CreateCqIn cq_in(const Mem &m, u64 ring_off, u32 dbr_ix, u8 log_size)
{
	CreateCqIn in = {};

	in.log_cq_size = log_size;
	in.c_eqn.set(0);
	in.dbr_addr.set(m.dma + Mem::kDbr + 8 * dbr_ix);
	in.pas.set(m.dma + ring_off);
	return in;
}

CreateSqIn sq_in(const Mem &m, u32 cqn, u8 log_size)
{
	CreateSqIn in = {};

	in.cqn.set(cqn);
	in.log_wq_sz = log_size;
	in.dbr_addr.set(m.dma + Mem::kDbr + 8 * 8);
	in.pas.set(m.dma + Mem::kSq);
	return in;
}

CreateRqIn rq_in(const Mem &m, u32 cqn)
{
	CreateRqIn in = {};

	in.cqn.set(cqn);
	in.log_wq_sz = 4;
	in.log_wq_stride = 4;
	in.wq_type = kWqCyclic;
	in.dbr_addr.set(m.dma + Mem::kDbr + 8 * 9);
	in.pas.set(m.dma + Mem::kRq);
	return in;
}

int rss(struct scx_hw_function *fn, u16 opcode, u32 obj, u32 fields, u8 log_size, u32 rqn,
	u32 in_len, u32 *num)
{
	auto *in = static_cast<RssIn *>(scx_os_zalloc(sizeof(RssIn)));
	alignas(8) u8 out[64] = {};
	int st;

	if (!in)
		return -1000;
	in->hdr.opcode.set(opcode);
	in->obj_num.set(obj);
	in->rx_hash_fields.set(fields);
	in->log_table_size = log_size;
	for (u32 i = 0; i < (1u << kRssMaxTableLog); i++)
		in->rqn[i].set(rqn);
	st = scx_kt_cmd_raw(fn, in, in_len, out, sizeof(out));
	if (st == kStatOk && num)
		*num = reinterpret_cast<CreateObjOut *>(out)->obj_num.get();
	scx_os_free(in);
	return st;
}

constexpr u32 kRssFull = sizeof(RssIn);
constexpr u32 kRssAll = kRssFieldSrcIp | kRssFieldDstIp | kRssFieldL4SPort | kRssFieldL4DPort;

void scenarios(struct scx_hw_function *fn, const Mem &m, Cases &c)
{
	alignas(8) u8 out[64];
	u32 cq1 = 0, cq2 = 0, cq3 = 0, sq = 0, rq = 0, rs = 0, old;
	CmdIn hdr = {};

	/* framing */
	hdr.opcode.set(kCmdQueryHcaCap);
	c.add("inbox shorter than the command header", SCX_KT_NOT_DELIVERED,
	      scx_kt_cmd_raw(fn, &hdr, 4, out, sizeof(out)));
	c.add("outbox shorter than the command header", SCX_KT_NOT_DELIVERED,
	      scx_kt_cmd_raw(fn, &hdr, sizeof(hdr), out, 4));
	hdr.opcode.set(0x7ff);
	c.add("unknown opcode", kStatBadOp, scx_kt_cmd_raw(fn, &hdr, sizeof(hdr), out, sizeof(out)));
	hdr.opcode.set(kCmdQueryHcaCap);
	c.add("QUERY_HCA_CAP with a header-only outbox", kStatBadOutputLen,
	      scx_kt_cmd_raw(fn, &hdr, sizeof(hdr), out, sizeof(CmdOut)));
	{
		CreateCqIn in = cq_in(m, Mem::kCq1, 0, 4);

		in.hdr.opcode.set(kCmdCreateCq);
		c.add("CREATE_CQ with a truncated inbox", kStatBadInputLen,
		      scx_kt_cmd_raw(fn, &in, sizeof(in) - 8, out, sizeof(out)));
		/* a failed command returns a zero outbox with the syndrome */
		__builtin_memset(out, 0xa5, sizeof(out));
		scx_kt_cmd_raw(fn, &in, sizeof(in) - 8, out, sizeof(out));
		auto *o = reinterpret_cast<CreateObjOut *>(out);
		c.add("failed command: syndrome is opcode << 16 | status", 1,
		      o->hdr.syndrome.get() == ((u32)kCmdCreateCq << 16 | kStatBadInputLen));
		c.add("failed command: no object number", 1, o->obj_num.get() == 0);
	}

	/* CQs */
	{
		CreateCqIn in = cq_in(m, Mem::kCq1, 0, 17);
		c.add("CREATE_CQ above log_max_cq_sz", kStatBadParam, run(fn, kCmdCreateCq, &in));
		in = cq_in(m, Mem::kCq1, 0, 4);
		in.pas.set(1ull << 52);
		c.add("CREATE_CQ ring outside memory", kStatBadParam, run(fn, kCmdCreateCq, &in));
		in = cq_in(m, Mem::kCq1 + 8, 0, 4);
		c.add("CREATE_CQ ring not CQE-aligned", kStatBadParam, run(fn, kCmdCreateCq, &in));
		in = cq_in(m, Mem::kCq1, 0, 4);
		in.dbr_addr.set(m.dma + Mem::kDbr + 4);
		c.add("CREATE_CQ doorbell record misaligned", kStatBadParam,
		      run(fn, kCmdCreateCq, &in));
		in = cq_in(m, Mem::kCq1, 0, 4);
		c.add("CREATE_CQ", kStatOk, run(fn, kCmdCreateCq, &in, &cq1));
		in = cq_in(m, Mem::kCq2, 1, 4);
		c.add("CREATE_CQ (second)", kStatOk, run(fn, kCmdCreateCq, &in, &cq2));
		c.add("CQ numbers differ and are not 0", 1, cq1 && cq2 && cq1 != cq2);
	}
	c.add("DESTROY_CQ of number 0", kStatBadResource, destroy(fn, kCmdDestroyCq, 0));
	c.add("DESTROY_CQ of a stale generation", kStatBadResource,
	      destroy(fn, kCmdDestroyCq, cq1 + (1u << hw::kObjIxBits)));

	/* SQ */
	{
		CreateSqIn in = sq_in(m, cq1 ^ 0x7f, 6);
		c.add("CREATE_SQ on no CQ", kStatBadResource, run(fn, kCmdCreateSq, &in));
		in = sq_in(m, cq1, 14);
		c.add("CREATE_SQ above log_max_sq_sz", kStatBadParam, run(fn, kCmdCreateSq, &in));
		in = sq_in(m, cq1, 6);
		in.min_wqe_inline_mode = 4;
		c.add("CREATE_SQ unknown inline mode", kStatBadParam, run(fn, kCmdCreateSq, &in));
		in = sq_in(m, cq1, 6);
		in.pas.set(m.dma + Mem::kSq + 32);
		c.add("CREATE_SQ ring not WQEBB-aligned", kStatBadParam, run(fn, kCmdCreateSq, &in));
		in = sq_in(m, cq1, 6);
		c.add("CREATE_SQ", kStatOk, run(fn, kCmdCreateSq, &in, &sq));
		in = sq_in(m, cq1, 6);
		c.add("CREATE_SQ on a CQ that serves an SQ", kStatResourceBusy,
		      run(fn, kCmdCreateSq, &in));
	}
	c.add("DESTROY_CQ while an SQ uses it", kStatResourceBusy, destroy(fn, kCmdDestroyCq, cq1));
	c.add("DESTROY_CQ given the SQ's number", kStatBadResource, destroy(fn, kCmdDestroyCq, sq));
	c.add("DESTROY_SQ given the CQ's number", kStatBadResource, destroy(fn, kCmdDestroySq, cq1));
	c.add("MODIFY_SQ with the wrong cur_state", kStatBadResState,
	      modify(fn, kCmdModifySq, sq, kQueueRdy, kQueueRst));
	c.add("MODIFY_SQ to an unknown state", kStatBadParam,
	      modify(fn, kCmdModifySq, sq, kQueueRst, 7));
	c.add("MODIFY_SQ of no SQ", kStatBadResource,
	      modify(fn, kCmdModifySq, sq ^ 0x3f, kQueueRst, kQueueRdy));
	c.add("MODIFY_SQ RST->RDY", kStatOk, modify(fn, kCmdModifySq, sq, kQueueRst, kQueueRdy));
	c.add("MODIFY_SQ RDY->ERR", kStatOk, modify(fn, kCmdModifySq, sq, kQueueRdy, kQueueErr));
	c.add("MODIFY_SQ ERR->RDY", kStatBadResState,
	      modify(fn, kCmdModifySq, sq, kQueueErr, kQueueRdy));
	c.add("MODIFY_SQ ERR->RST", kStatOk, modify(fn, kCmdModifySq, sq, kQueueErr, kQueueRst));

	/* RQ */
	{
		CreateRqIn in = rq_in(m, cq1);
		c.add("CREATE_RQ on a CQ that serves an SQ", kStatResourceBusy,
		      run(fn, kCmdCreateRq, &in));
		in = rq_in(m, cq2);
		in.wq_type = kWqLinkedListStriding;
		c.add("CREATE_RQ striding (not emulated)", kStatBadParam, run(fn, kCmdCreateRq, &in));
		in = rq_in(m, cq2);
		in.log_wq_stride = 7;
		c.add("CREATE_RQ with 8 data segments a WQE", kStatBadParam, run(fn, kCmdCreateRq, &in));
		in = rq_in(m, cq2);
		in.log_wq_sz = 14;
		c.add("CREATE_RQ above log_max_rq_sz", kStatBadParam, run(fn, kCmdCreateRq, &in));
		in = rq_in(m, cq2);
		c.add("CREATE_RQ", kStatOk, run(fn, kCmdCreateRq, &in, &rq));
	}
	c.add("MODIFY_RQ RDY->RDY before RST->RDY", kStatBadResState,
	      modify(fn, kCmdModifyRq, rq, kQueueRdy, kQueueRdy));
	c.add("MODIFY_RQ RST->RDY", kStatOk, modify(fn, kCmdModifyRq, rq, kQueueRst, kQueueRdy));

	/* RSS */
	c.add("CREATE_RSS naming no RQ", kStatBadResource,
	      rss(fn, kCmdCreateRss, 0, kRssAll, 2, rq ^ 0x3f, kRssFull, nullptr));
	c.add("CREATE_RSS unknown hash field", kStatBadParam,
	      rss(fn, kCmdCreateRss, 0, kRssAll | 0x100, 2, rq, kRssFull, nullptr));
	c.add("CREATE_RSS table above caps", kStatBadParam,
	      rss(fn, kCmdCreateRss, 0, kRssAll, kRssMaxTableLog + 1, rq, kRssFull, nullptr));
	c.add("CREATE_RSS inbox shorter than its table", kStatBadInputLen,
	      rss(fn, kCmdCreateRss, 0, kRssAll, 3, rq, kRssFull - 255 * 4, nullptr));
	c.add("CREATE_RSS", kStatOk, rss(fn, kCmdCreateRss, 0, kRssAll, 3, rq, kRssFull, &rs));
	c.add("MODIFY_RSS of no object", kStatBadResource,
	      rss(fn, kCmdModifyRss, rs ^ 0x3, kRssAll, 3, rq, kRssFull, nullptr));
	c.add("MODIFY_RSS", kStatOk, rss(fn, kCmdModifyRss, rs, kRssAll, 2, rq, kRssFull, nullptr));
	c.add("DESTROY_RSS", kStatOk, destroy(fn, kCmdDestroyRss, rs));
	c.add("DESTROY_RSS twice", kStatBadResource, destroy(fn, kCmdDestroyRss, rs));

	/* teardown, and numbers that stay dead */
	c.add("DESTROY_SQ", kStatOk, destroy(fn, kCmdDestroySq, sq));
	c.add("DESTROY_SQ twice", kStatBadResource, destroy(fn, kCmdDestroySq, sq));
	c.add("DESTROY_RQ", kStatOk, destroy(fn, kCmdDestroyRq, rq));
	c.add("DESTROY_CQ once its SQ is gone", kStatOk, destroy(fn, kCmdDestroyCq, cq1));
	c.add("DESTROY_CQ (second)", kStatOk, destroy(fn, kCmdDestroyCq, cq2));
	{
		CreateCqIn in = cq_in(m, Mem::kCq1, 0, 4);

		old = cq1;
		c.add("CREATE_CQ in a reused slot", kStatOk, run(fn, kCmdCreateCq, &in, &cq3));
		c.add("a reused slot gets a new number", 1, cq3 != old);
		c.add("DESTROY_CQ by the old number", kStatBadResource,
		      destroy(fn, kCmdDestroyCq, old));
		c.add("DESTROY_CQ by the new number", kStatOk, destroy(fn, kCmdDestroyCq, cq3));
	}

	/* exhaustion: every CQ slot taken, then one more (rings may alias: no traffic) */
	{
		/* a whole table of numbers is too big for a kernel stack frame */
		auto *nums = static_cast<u32 *>(scx_os_zalloc(sizeof(u32) * hw::kMaxCqs));
		u32 made = 0, i;
		CreateCqIn in = cq_in(m, Mem::kCq1, 0, 0);
		int st = nums ? kStatOk : kStatExceedLim;

		for (i = 0; nums && i < hw::kMaxCqs && st == kStatOk; i++) {
			st = run(fn, kCmdCreateCq, &in, &nums[i]);
			made += st == kStatOk;
		}
		c.add("CREATE_CQ up to max_cqs", 1, made == hw::kMaxCqs);
		c.add("CREATE_CQ beyond max_cqs", kStatExceedLim, run(fn, kCmdCreateCq, &in));
		for (i = 0; i < made; i++)
			destroy(fn, kCmdDestroyCq, nums[i]);
		scx_os_free(nums);
	}
}

} /* namespace */

extern "C" uint32_t scx_kt_cmd_cases(struct scx_hw_function *fn, void *os_dev, scx_kt_cmd_case *cases,
				     uint32_t max)
{
	Cases c = { cases, max, 0 };
	Mem m = {};

	m.cpu = scx_os_dma_alloc(os_dev, Mem::kSize, &m.dma);
	if (!m.cpu) {
		c.add("DMA memory for the scenarios", 0, -1);
		return c.n;
	}
	scenarios(fn, m, c);
	scx_os_dma_free(os_dev, Mem::kSize, m.cpu, m.dma);
	return c.n;
}

extern "C" int scx_kt_query_caps(struct scx_hw_function *fn, uint32_t *model, uint32_t *max_hw_mtu,
				 uint32_t *inline_mode)
{
	CmdIn in = {};
	QueryHcaCapOut out = {};

	in.opcode.set(kCmdQueryHcaCap);
	int st = scx_kt_cmd_raw(fn, &in, sizeof(in), &out, sizeof(out));
	if (st != kStatOk)
		return st;
	*model = out.caps.model;
	*max_hw_mtu = out.caps.max_hw_mtu.get();
	*inline_mode = out.caps.wqe_inline_mode;
	return 0;
}

extern "C" uint32_t scx_kt_dev_objects(struct scx_hw_function *fn)
{
	u32 n = 0;

	for (const hw::Cq &q : fn->cq)
		n += __atomic_load_n(&q.num, __ATOMIC_ACQUIRE) != 0;
	for (const hw::Sq &q : fn->sq)
		n += __atomic_load_n(&q.num, __ATOMIC_ACQUIRE) != 0;
	for (const hw::Rq &q : fn->rq)
		n += __atomic_load_n(&q.num, __ATOMIC_ACQUIRE) != 0;
	for (const hw::Rss &r : fn->rss)
		n += __atomic_load_n(&r.num, __ATOMIC_ACQUIRE) != 0;
	return n;
}

extern "C" int scx_kt_dev_query(struct scx_hw_function *fn, scx_kt_dev_counters *c)
{
	CmdIn in = {};
	QueryQCounterOut q = {};
	QueryBusCountersOut b = {};
	QueryPortCountersOut pc = {};
	int st;

	in.opcode.set(kCmdQueryQCounter);
	st = scx_kt_cmd_raw(fn, &in, sizeof(in), &q, sizeof(q));
	if (st != kStatOk)
		return st;
	in.opcode.set(kCmdQueryBusCounters);
	st = scx_kt_cmd_raw(fn, &in, sizeof(in), &b, sizeof(b));
	if (st != kStatOk)
		return st;
	in.opcode.set(kCmdQueryPortCounters);
	st = scx_kt_cmd_raw(fn, &in, sizeof(in), &pc, sizeof(pc));
	if (st != kStatOk)
		return st;
#define SCX_KT_CTR_COPY_Q(field, name) c->field = q.field.get();
#define SCX_KT_CTR_COPY_B(field, name) c->field = b.field.get();
#define SCX_KT_CTR_COPY_P(field, name) c->field = pc.field.get();
	SCX_PRM_Q_COUNTERS(SCX_KT_CTR_COPY_Q)
	SCX_PRM_BUS_COUNTERS(SCX_KT_CTR_COPY_B)
	SCX_PRM_PORT_COUNTERS(SCX_KT_CTR_COPY_P)
#undef SCX_KT_CTR_COPY_Q
#undef SCX_KT_CTR_COPY_B
#undef SCX_KT_CTR_COPY_P
	return 0;
}

extern "C" int scx_kt_chan_sq_stop(struct scx_hw_function *fn, struct scx_channel *c)
{
	ModifyQueueIn in = {};
	CreateObjOut out = {};

	in.hdr.opcode.set(kCmdModifySq);
	in.obj_num.set(c->sq.sqn);
	in.cur_state = kQueueRdy;
	in.next_state = kQueueErr;
	return scx_kt_cmd_raw(fn, &in, sizeof(in), &out, sizeof(out));
}
