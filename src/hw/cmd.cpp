// SPDX-License-Identifier: GPL-2.0
/*
 * The command interface: inbox in, outbox out, like device firmware.
 *
 * Every command runs under the function's command lock, which serialises
 * changes to the object tables. Commands that change a queue the data path
 * uses also take that queue's lock (order: command -> SQ or RQ), so once
 * DESTROY or MODIFY returns, no engine is still inside the old object.
 * The command lock is a spinlock in the kernel: nothing here sleeps, and
 * memory is allocated before and freed after the lock is held.
 */
#include "hw/cq.h"
#include "hw/flow.h"
#include "hw/link.h"
#include "hw/rss.h"
#include "hw/shampo.h"
#include "hw/vport.h"
#include "prm/bus.h"
#include "prm/cmd.h"
#include "prm/cqe.h"
#include "prm/wqe.h"

namespace softcx::hw {
namespace {

using prm::CmdStatus;

/* What a handler may need beyond its inbox: memory allocated outside the lock. */
struct CmdEnv {
	Function *fn;
	const u8 *in;		/* the caller's inbox, in_len bytes */
	u32 in_len;
	u8 *out;		/* local outbox, zeroed, desc->out_len bytes */
	void *prealloc;		/* in: for the handler to take (CREATE_SQ, CREATE_RSS, CREATE_CQ) */
	void *to_free;		/* out: released after the lock */
	const u8 *hd_ring;	/* CREATE_RQ: the SHAMPO header ring, check() to init() */
	IrqBatch irqs;		/* out: raised after the lock (MODIFY_CQ) */
};

/* Fixed-size inbox, copied so that handlers never read an unaligned caller buffer. */
template <typename T>
T inbox(const CmdEnv &e)
{
	T v;
	__builtin_memcpy(&v, e.in, sizeof(v));
	return v;
}

template <typename T>
T *outbox(const CmdEnv &e)
{
	return reinterpret_cast<T *>(e.out);
}

/* A refused command, logged with the object kind it concerns (obj, or none). */
CmdStatus reject(const CmdEnv &e, CmdStatus st, const char *why, const char *obj = nullptr)
{
	scx_os_log(SCX_LOG_DEBUG, "softcx hw: fn%u: command rejected (0x%x): %s%s%s\n", e.fn->ix,
		   st, obj ? obj : "", obj ? ": " : "", why);
	return st;
}

/* The live object a number names in one of the function's tables, or null. */
template <typename T, u32 N>
T *find_obj(T (&table)[N], ObjType type, u32 num)
{
	int ix = obj_slot(num, type, N);
	/* num only changes under the command lock, which we hold. */
	if (ix < 0 || table[ix].num != num)
		return nullptr;
	return &table[ix];
}

/* The first free slot of a table, or -1. */
template <typename T, u32 N>
int free_slot(T (&table)[N])
{
	for (u32 ix = 0; ix < N; ix++)
		if (!table[ix].num)
			return (int)ix;
	return -1;
}

/*
 * Translate a ring or doorbell record the device will use until the object
 * is destroyed. The CPU view must be aligned like the DMA address, since
 * engines access the memory with naturally aligned loads and stores.
 */
void *dma_region(Function *fn, u64 dma, u64 len, u32 align)
{
	if (!len || len > 0xffffffffu || (dma & (align - 1)))
		return nullptr;
	void *cpu = dma_translate(fn, dma, (u32)len);
	if (!cpu || ((usize)cpu & (align - 1)))
		return nullptr;
	return cpu;
}

constexpr u32 kDbrecBytes = 8;
constexpr u32 kDbrecAlign = 8;

/* ---- CQ ---- */

Cq *find_cq(Function *fn, u32 cqn) { return find_obj(fn->cq, ObjType::Cq, cqn); }

/* Moderation a CQ may take: its fields' widths and the device's caps. */
CmdStatus check_moder(CmdEnv &e, u32 period, u32 count, u32 mode)
{
	const prm::HcaCaps &caps = caps_of(e.fn);

	if (period > prm::kCqMaxPeriod || count > prm::kCqMaxCount)
		return reject(e, prm::kStatBadParam, "cq_period or cq_max_count too wide", "CQ");
	if (mode != prm::kCqPeriodFromEqe && mode != prm::kCqPeriodFromCqe)
		return reject(e, prm::kStatBadParam, "unknown cq_period_mode", "CQ");
	if ((period || count) && !caps.cq_moderation)
		return reject(e, prm::kStatBadParam, "no CQ moderation on this device", "CQ");
	if (mode == prm::kCqPeriodFromCqe && !caps.cq_period_start_from_cqe)
		return reject(e, prm::kStatBadParam, "no period from CQE on this device", "CQ");
	return prm::kStatOk;
}

/* CQE compression a CQ may ask for (cqe.h): known values, and the device's caps. */
CmdStatus check_comp(CmdEnv &e, const prm::CreateCqIn &in)
{
	const prm::HcaCaps &caps = caps_of(e.fn);

	if (!in.cqe_comp_en) {
		if (in.mini_cqe_res_format || in.cqe_comp_layout)
			return reject(e, prm::kStatBadParam, "mini CQE format without cqe_comp_en", "CQ");
		return prm::kStatOk;
	}
	if (in.cqe_comp_en != 1 || !caps.cqe_compression)
		return reject(e, prm::kStatBadParam, "no CQE compression on this device", "CQ");
	switch (in.mini_cqe_res_format) {
	case prm::kMiniCqeHash:
	case prm::kMiniCqeCsum:
		break;
	case prm::kMiniCqeCsumStridx:
		if (caps.mini_cqe_resp_stride_index)
			break;
		return reject(e, prm::kStatBadParam, "no mini CQE stride index on this device", "CQ");
	default:
		return reject(e, prm::kStatBadParam, "unknown mini_cqe_res_format", "CQ");
	}
	if (in.cqe_comp_layout == prm::kCqeCompBasic)
		return prm::kStatOk;
	if (in.cqe_comp_layout == prm::kCqeCompEnhanced && caps.enhanced_cqe_compression)
		return prm::kStatOk;
	return reject(e, prm::kStatBadParam, "CQE compression layout not supported", "CQ");
}

/* A compressing CQ's completion ledger (adapter.h Cq::done_at), zeroed; else none. */
void *cq_ledger_alloc(const prm::CreateCqIn &in)
{
	if (!in.cqe_comp_en || in.log_cq_size > kLogMaxCqSize)
		return nullptr;
	return scx_os_zalloc((u64)sizeof(u32) << in.log_cq_size);
}

CmdStatus create_cq(CmdEnv &e)
{
	auto in = inbox<prm::CreateCqIn>(e);
	Function *fn = e.fn;
	u32 period = in.moder.cq_period.get(), count = in.moder.cq_max_count.get();
	u32 mode = in.moder.cq_period_mode;

	if (in.log_cq_size > kLogMaxCqSize)
		return reject(e, prm::kStatBadParam, "CQ size above caps");
	CmdStatus st = check_moder(e, period, count, mode);
	if (st == prm::kStatOk)
		st = check_comp(e, in);
	if (st != prm::kStatOk)
		return st;
	auto *dbrec = static_cast<const u32 *>(
		dma_region(fn, in.dbr_addr.get(), kDbrecBytes, kDbrecAlign));
	if (!dbrec)
		return reject(e, prm::kStatBadParam, "CQ doorbell record not DMA memory");
	u8 *ring = static_cast<u8 *>(
		dma_region(fn, in.pas.get(), (u64)prm::kCqeSize << in.log_cq_size, prm::kCqeSize));
	if (!ring)
		return reject(e, prm::kStatBadParam, "CQ ring not DMA memory");

	int ix = free_slot(fn->cq);
	if (ix < 0)
		return reject(e, prm::kStatExceedLim, "no free CQ");
	if (in.cqe_comp_en && !e.prealloc)
		return reject(e, prm::kStatExceedLim, "no memory for the completion ledger", "CQ");
	Cq *cq = &fn->cq[ix];
	cq_reset(cq, ring, in.log_cq_size, in.c_eqn.get(), moder_pack(period, count, mode));
	if (in.cqe_comp_en) {
		cq->done_at = static_cast<u32 *>(e.prealloc);
		e.prealloc = nullptr;
	}
	cq->comp.en = in.cqe_comp_en;
	cq->comp.fmt = in.mini_cqe_res_format;
	cq->comp.layout = in.cqe_comp_layout;
	cq->in_place = !in.cqe_comp_en && in.cqe_comp_layout != prm::kCqeCompEnhanced;
	cq->dbrec = dbrec;
	cq->users = 0;
	u32 num = obj_next_num(&cq->gen, ObjType::Cq, (u32)ix);
	store_u32(&cq->num, num);	/* the arm doorbell may look from now on */
	outbox<prm::CreateObjOut>(e)->obj_num.set(num);
	return prm::kStatOk;
}

CmdStatus destroy_cq(CmdEnv &e)
{
	Cq *cq = find_cq(e.fn, inbox<prm::DestroyObjIn>(e).obj_num.get());
	if (!cq)
		return reject(e, prm::kStatBadResource, "no such CQ");
	if (cq->users)
		return reject(e, prm::kStatResourceBusy, "CQ still used by an SQ or RQ");
	store_u32(&cq->num, 0);
	cq_stop(cq);
	cq->ring = nullptr;
	cq->dbrec = nullptr;
	e.to_free = cq->done_at;
	cq->done_at = nullptr;
	return prm::kStatOk;
}

/*
 * The CQ's status and counters. Its queue's engine may be writing: the
 * status and producer counter are atomics, set_ci as last read is a snapshot.
 */
CmdStatus query_cq(CmdEnv &e)
{
	Cq *cq = find_cq(e.fn, inbox<prm::DestroyObjIn>(e).obj_num.get());
	if (!cq)
		return reject(e, prm::kStatBadResource, "no such CQ");
	auto *out = outbox<prm::QueryCqOut>(e);
	out->status = __atomic_load_n(&cq->status, __ATOMIC_RELAXED);
	out->log_cq_size = (u8)cq->log_size;
	out->producer_counter.set(__atomic_load_n(&cq->pi, __ATOMIC_ACQUIRE));
	out->consumer_counter.set(__atomic_load_n(&cq->ci, __ATOMIC_RELAXED));
	return prm::kStatOk;
}

/* Moderation of a live CQ, in use or not: the fields modify_field_select names. */
CmdStatus modify_cq(CmdEnv &e)
{
	constexpr u32 kKnown = prm::kCqModifyPeriod | prm::kCqModifyCount | prm::kCqModifyPeriodMode;
	auto in = inbox<prm::ModifyCqIn>(e);
	Cq *cq = find_cq(e.fn, in.cqn.get());
	u32 sel = in.modify_field_select.get();

	if (!cq)
		return reject(e, prm::kStatBadResource, "no such CQ");
	if (!sel || (sel & ~kKnown))
		return reject(e, prm::kStatBadParam, "unknown modify_field_select", "CQ");
	u32 m = __atomic_load_n(&cq->moder, __ATOMIC_RELAXED);
	u32 period = sel & prm::kCqModifyPeriod ? in.moder.cq_period.get() : moder_period(m);
	u32 count = sel & prm::kCqModifyCount ? in.moder.cq_max_count.get() : moder_count(m);
	u32 mode = sel & prm::kCqModifyPeriodMode ? in.moder.cq_period_mode : moder_mode(m);
	CmdStatus st = check_moder(e, period, count, mode);
	if (st != prm::kStatOk)
		return st;
	__atomic_store_n(&cq->moder, moder_pack(period, count, mode), __ATOMIC_SEQ_CST);
	cq_moder_changed(e.fn, cq, &e.irqs);
	return prm::kStatOk;
}

/* A queue reports to exactly one CQ, and a CQ serves exactly one queue. */
CmdStatus bind_cq(CmdEnv &e, u32 cqn, Cq **out)
{
	Cq *cq = find_cq(e.fn, cqn);
	if (!cq)
		return reject(e, prm::kStatBadResource, "no such CQ");
	if (cq->users)
		return reject(e, prm::kStatResourceBusy, "CQ already serves a queue");
	*out = cq;
	return prm::kStatOk;
}

/* ---- queue states ---- */

bool state_valid(u8 s) { return s == prm::kQueueRst || s == prm::kQueueRdy || s == prm::kQueueErr; }

/* RST->RDY (start), RDY->RDY (no-op modify), RDY->ERR (flush), RDY/ERR->RST (recovery). */
bool transition_ok(u8 cur, u8 next)
{
	switch (cur) {
	case prm::kQueueRst:
		return next == prm::kQueueRdy;
	case prm::kQueueRdy:
		return true;
	case prm::kQueueErr:
		return next == prm::kQueueRst;
	default:
		return false;
	}
}

CmdStatus check_transition(CmdEnv &e, u8 state, const prm::ModifyQueueIn &in)
{
	if (!state_valid(in.cur_state) || !state_valid(in.next_state))
		return reject(e, prm::kStatBadParam, "unknown queue state");
	if (in.cur_state != state)
		return reject(e, prm::kStatBadResState, "cur_state is not the queue's state");
	if (!transition_ok(in.cur_state, in.next_state))
		return reject(e, prm::kStatBadResState, "state transition not allowed");
	return prm::kStatOk;
}

/* ---- work queues (SQ, RQ) ---- */

/*
 * What differs between the kinds of work queue: the table, the WQE size,
 * the create parameters and state of each kind. CQ binding, ring and
 * doorbell record, slot, state machine and teardown are one path below.
 */
struct WqConst {
	ObjType type;
	const char *name;	/* in rejection messages */
	u32 log_max_size;	/* caps: in WQEBBs (SQ) or WQEs (RQ) */
	bool scratch;		/* CREATE takes e.prealloc (SqScratch) */
};

template <typename Q>
struct WqKind;

template <>
struct WqKind<Sq> {
	using CreateIn = prm::CreateSqIn;
	static constexpr WqConst k = { ObjType::Sq, "SQ", kLogMaxSqSize, true };

	static auto &table(Function *fn) { return fn->sq; }
	static u32 wqe_bytes(const CreateIn &) { return prm::kSendWqeBB; }

	/* Parameters only an SQ has (checked before any DMA translation). */
	static CmdStatus check(CmdEnv &e, const CreateIn &in)
	{
		if (in.min_wqe_inline_mode > prm::kInlineTcpUdp)
			return reject(e, prm::kStatBadParam, "unknown inline mode", k.name);
		if (in.allow_multi_pkt_send_wqe && !caps_of(e.fn).enhanced_mpw)
			return reject(e, prm::kStatBadParam, "no enhanced MPW on this model", k.name);
		return prm::kStatOk;
	}

	/* Under the SQ's lock, before its number goes live. */
	static void init(Sq *sq, const CreateIn &in, CmdEnv &e)
	{
		const prm::HcaCaps &caps = caps_of(e.fn);

		sq->scratch = static_cast<SqScratch *>(e.prealloc);
		e.prealloc = nullptr;
		sq->min_inline_mode = in.min_wqe_inline_mode > caps.wqe_inline_mode ?
					      in.min_wqe_inline_mode : caps.wqe_inline_mode;
		sq->allow_mpw = in.allow_multi_pkt_send_wqe ? 1 : 0;
	}

	/* Created and in RST: the driver restarts its counters at 0 too. */
	static void reset(Sq *sq) { sq->cc = 0; }

	/* MODIFY_SQ changes the state only. */
	static CmdStatus modify_check(CmdEnv &, const Sq *) { return prm::kStatOk; }
	static void modify_apply(Sq *, const CmdEnv &) {}

	/* Destroyed, under the SQ's lock: the scratch memory is freed after the command lock. */
	static void release(Sq *sq, CmdEnv &e)
	{
		e.to_free = sq->scratch;
		sq->scratch = nullptr;
	}
};

template <>
struct WqKind<Rq> {
	using CreateIn = prm::CreateRqIn;
	static constexpr WqConst k = { ObjType::Rq, "RQ", kLogMaxRqSize, false };

	static auto &table(Function *fn) { return fn->rq; }
	/* Checked by check() before the ring is translated. */
	static u32 wqe_bytes(const CreateIn &in) { return 1u << in.log_wq_stride; }

	/* Stride geometry from the PRM encoding; false if out of range for these caps. */
	static bool strides(const prm::HcaCaps &caps, const CreateIn &in, u32 *log_stride,
			    u32 *log_num)
	{
		*log_stride = prm::dec_log_stride_size(in.log_wqe_stride_size);
		*log_num = prm::dec_log_num_strides(in.log_wqe_num_of_strides,
						    caps.ext_stride_num_range);
		return *log_stride != prm::kStrideLogInvalid && *log_num != prm::kStrideLogInvalid &&
		       *log_stride + *log_num <= kLogMaxStridingWqeBuf;
	}

	static CmdStatus check(CmdEnv &e, const CreateIn &in)
	{
		const prm::HcaCaps &caps = caps_of(e.fn);
		u32 ls, ln;

		if (in.vsd > 1)
			return reject(e, prm::kStatBadParam, "vsd is not 0 or 1", k.name);
		if (in.scatter_fcs > 1)
			return reject(e, prm::kStatBadParam, "scatter_fcs is not 0 or 1", k.name);
		if (in.scatter_fcs && in.shampo_enable)
			return reject(e, prm::kStatBadParam, "no FCS scatter with SHAMPO", k.name);
		if (in.wq_type == prm::kWqCyclic) {
			if (in.log_wq_stride < prm::kRxWqeCycMinLogStride ||
			    in.log_wq_stride > prm::kRxWqeCycMaxLogStride)
				return reject(e, prm::kStatBadParam,
					      "cyclic WQE must be 1 to 4 data segments", k.name);
			return check_shampo(e, in, 0, 0);
		}
		if (in.wq_type != prm::kWqLinkedListStriding)
			return reject(e, prm::kStatBadParam, "unknown WQ type", k.name);
		if (!caps.striding_rq)
			return reject(e, prm::kStatBadParam, "no striding RQ on this model", k.name);
		if (in.log_wq_stride < prm::kRxWqeStridingMinLogStride ||
		    in.log_wq_stride > prm::kRxWqeStridingMaxLogStride)
			return reject(e, prm::kStatBadParam, "striding WQE size out of range", k.name);
		if (!strides(caps, in, &ls, &ln))
			return reject(e, prm::kStatBadParam, "stride geometry out of range", k.name);
		return check_shampo(e, in, ls, ls + ln);
	}

	/* SHAMPO fields (shampo.cpp), and its header ring for init(). */
	static CmdStatus check_shampo(CmdEnv &e, const CreateIn &in, u32 log_stride, u32 log_buf)
	{
		const char *why = shampo_check(caps_of(e.fn), in, log_stride, log_buf,
					       find_cq(e.fn, in.cqn.get()));
		if (why)
			return reject(e, prm::kStatBadParam, why, k.name);
		if (!in.shampo_enable)
			return prm::kStatOk;
		e.hd_ring = static_cast<const u8 *>(dma_region(e.fn, in.headers_pas.get(),
							       shampo_hd_ring_bytes(in),
							       sizeof(prm::ShampoHdrWqe)));
		if (!e.hd_ring)
			return reject(e, prm::kStatBadParam, "SHAMPO header ring not DMA memory",
				      k.name);
		return prm::kStatOk;
	}

	static void init(Rq *rq, const CreateIn &in, CmdEnv &e)
	{
		u32 ls = 0, ln = 0;

		rq->striding = in.wq_type == prm::kWqLinkedListStriding;
		rq->log_wqe_bytes = in.log_wq_stride;
		if (rq->striding)
			strides(caps_of(e.fn), in, &ls, &ln);
		rq->log_stride = (u8)ls;
		rq->log_num_strides = (u8)ln;
		rq->vsd = in.vsd;
		rq->scatter_fcs = in.scatter_fcs;
		shampo_init(rq, in, e.hd_ring);
	}

	/* MODIFY_RQ's context fields (prm::ModifyRqIn), when the inbox has them. */
	static bool modify_has_ctx(const CmdEnv &e) { return e.in_len >= sizeof(prm::ModifyRqIn); }
	/* rq->shampo.en is context: set by CREATE_RQ, constant while the RQ lives */
	static CmdStatus modify_check(CmdEnv &e, const Rq *rq)
	{
		if (!modify_has_ctx(e))
			return prm::kStatOk;
		auto in = inbox<prm::ModifyRqIn>(e);
		u32 mask = in.modify_bitmask.get();
		if (mask & ~(prm::kRqModifyVsd | prm::kRqModifyScatterFcs))
			return reject(e, prm::kStatBadParam, "unknown modify_bitmask bit", k.name);
		if ((mask & prm::kRqModifyVsd) && in.vsd > 1)
			return reject(e, prm::kStatBadParam, "vsd is not 0 or 1", k.name);
		if ((mask & prm::kRqModifyScatterFcs) && in.scatter_fcs > 1)
			return reject(e, prm::kStatBadParam, "scatter_fcs is not 0 or 1", k.name);
		if ((mask & prm::kRqModifyScatterFcs) && in.scatter_fcs && rq->shampo.en)
			return reject(e, prm::kStatBadParam, "no FCS scatter with SHAMPO", k.name);
		return prm::kStatOk;
	}
	static void modify_apply(Rq *rq, const CmdEnv &e)
	{
		if (!modify_has_ctx(e))
			return;
		auto in = inbox<prm::ModifyRqIn>(e);
		if (in.modify_bitmask.get() & prm::kRqModifyVsd)
			rq->vsd = in.vsd;
		if (in.modify_bitmask.get() & prm::kRqModifyScatterFcs)
			rq->scatter_fcs = in.scatter_fcs;
	}
	static void reset(Rq *rq)
	{
		rq->cc = 0;
		rq->posted = 0;
		rq->wqe_ix = 0;
		rq->stride = 0;
		shampo_reset(rq);
	}
	/*
	 * An RSS table may keep naming a destroyed RQ: packets hashed to it are
	 * dropped as rx_if_down_packets, and the generation in the number keeps
	 * it from ever matching a new RQ in the same slot.
	 */
	static void release(Rq *, CmdEnv &) {}
};

template <typename Q>
Q *find_wq(Function *fn, u32 num)
{
	return find_obj(WqKind<Q>::table(fn), WqKind<Q>::k.type, num);
}

template <typename Q>
CmdStatus create_wq(CmdEnv &e)
{
	using K = WqKind<Q>;
	auto in = inbox<typename K::CreateIn>(e);
	Function *fn = e.fn;
	Cq *cq;

	CmdStatus st = bind_cq(e, in.cqn.get(), &cq);
	if (st != prm::kStatOk)
		return st;
	if (in.log_wq_sz > K::k.log_max_size)
		return reject(e, prm::kStatBadParam, "size above caps", K::k.name);
	st = K::check(e, in);
	if (st != prm::kStatOk)
		return st;
	auto *dbrec = static_cast<const u32 *>(
		dma_region(fn, in.dbr_addr.get(), kDbrecBytes, kDbrecAlign));
	if (!dbrec)
		return reject(e, prm::kStatBadParam, "doorbell record not DMA memory", K::k.name);
	u8 *ring = static_cast<u8 *>(
		dma_region(fn, in.pas.get(), (u64)K::wqe_bytes(in) << in.log_wq_sz, K::wqe_bytes(in)));
	if (!ring)
		return reject(e, prm::kStatBadParam, "ring not DMA memory", K::k.name);
	if (K::k.scratch && !e.prealloc)
		return reject(e, prm::kStatExceedLim, "no memory for the queue", K::k.name);
	int ix = free_slot(K::table(fn));
	if (ix < 0)
		return reject(e, prm::kStatExceedLim, "no free slot", K::k.name);

	Q *q = &K::table(fn)[ix];
	u32 num = obj_next_num(&q->gen, K::k.type, (u32)ix);
	scx_os_lock(q->lock);
	q->state = prm::kQueueRst;
	K::reset(q);
	q->ring = ring;
	q->log_size = in.log_wq_sz;
	q->dbrec = dbrec;
	q->cq = cq;
	K::init(q, in, e);
	q->num = num;
	scx_os_unlock(q->lock);
	cq->users++;
	outbox<prm::CreateObjOut>(e)->obj_num.set(num);
	return prm::kStatOk;
}

template <typename Q>
CmdStatus modify_wq(CmdEnv &e)
{
	using K = WqKind<Q>;
	auto in = inbox<prm::ModifyQueueIn>(e);
	Q *q = find_wq<Q>(e.fn, in.obj_num.get());
	if (!q)
		return reject(e, prm::kStatBadResource, "no such object", K::k.name);

	CmdStatus st = K::modify_check(e, q);
	if (st != prm::kStatOk)
		return st;
	scx_os_lock(q->lock);
	st = check_transition(e, q->state, in);
	if (st == prm::kStatOk) {
		cq_comp_end(e.fn, q->cq, &e.irqs);	/* CQEs held back: before the change */
		K::modify_apply(q, e);
		q->state = in.next_state;
		if (in.next_state == prm::kQueueRst) {
			K::reset(q);
			cq_clear_error(q->cq);
		}
	}
	scx_os_unlock(q->lock);
	return st;
}

template <typename Q>
CmdStatus destroy_wq(CmdEnv &e)
{
	using K = WqKind<Q>;
	Q *q = find_wq<Q>(e.fn, inbox<prm::DestroyObjIn>(e).obj_num.get());
	if (!q)
		return reject(e, prm::kStatBadResource, "no such object", K::k.name);

	/* After this critical section no doorbell or frame can reach the queue's memory. */
	scx_os_lock(q->lock);
	q->num = 0;
	q->state = prm::kQueueRst;
	Cq *cq = q->cq;
	cq_comp_end(e.fn, cq, &e.irqs);
	K::release(q, e);
	q->ring = nullptr;
	q->dbrec = nullptr;
	q->cq = nullptr;
	scx_os_unlock(q->lock);
	cq->users--;
	return prm::kStatOk;
}

/* ---- RSS ---- */

constexpr u32 kRssFieldsAll = prm::kRssFieldSrcIp | prm::kRssFieldDstIp |
			      prm::kRssFieldL4SPort | prm::kRssFieldL4DPort;
constexpr u32 kRssTableOff = __builtin_offsetof(prm::RssIn, rqn);

struct RssHead {		/* RssIn up to the table */
	prm::CmdIn hdr;
	prm::be32 obj_num;
	prm::be32 rx_hash_fields;
	u8 log_table_size;
	u8 type_fields[prm::kRssTypes];
	u8 flags;
	u8 toeplitz_key[prm::kRssKeySize];
};
static_assert(sizeof(RssHead) == kRssTableOff);

u32 rss_entry(const CmdEnv &e, u32 i)
{
	prm::be32 v;
	__builtin_memcpy(&v, e.in + kRssTableOff + i * sizeof(v), sizeof(v));
	return v.get();
}

CmdStatus check_rss(CmdEnv &e, const RssHead &in)
{
	if (in.log_table_size > prm::kRssMaxTableLog)
		return reject(e, prm::kStatBadParam, "RSS table above caps");
	if (in.rx_hash_fields.get() & ~kRssFieldsAll)
		return reject(e, prm::kStatBadParam, "unknown RSS hash field");
	for (u8 f : in.type_fields)
		if (f & ~(prm::kRssTypeOwn | kRssFieldsAll))
			return reject(e, prm::kStatBadParam, "unknown RSS hash field of a type");
	if (in.flags & ~(prm::kRssFlowOnly | prm::kRssInner))
		return reject(e, prm::kStatBadParam, "unknown RSS flag");
	if ((in.flags & prm::kRssInner) && !caps_of(e.fn).ip_tunnels)
		return reject(e, prm::kStatBadParam, "kRssInner without IP tunnels");
	u32 n = 1u << in.log_table_size;
	if (e.in_len < kRssTableOff + n * sizeof(prm::be32))
		return reject(e, prm::kStatBadInputLen, "RSS inbox shorter than its table");
	for (u32 i = 0; i < n; i++)
		if (!find_wq<Rq>(e.fn, rss_entry(e, i)))
			return reject(e, prm::kStatBadResource, "RSS table names no RQ");
	return prm::kStatOk;
}

/* Caller: inside rss_write_begin/end. */
void rss_fill(const CmdEnv &e, Rss *r, const RssHead &in)
{
	u32 n = 1u << in.log_table_size;
	u32 fields = 0;
	for (u32 t = 0; t < prm::kRssTypes; t++) {
		u8 f = in.type_fields[t];
		u32 own = f & prm::kRssTypeOwn ? f & kRssFieldsAll : in.rx_hash_fields.get();
		fields |= own << (t * kRssTypeShift);
	}
	__atomic_store_n(&r->fields, fields, __ATOMIC_RELAXED);
	__atomic_store_n(&r->inner, (u8)(in.flags & prm::kRssInner), __ATOMIC_RELAXED);
	r->log_size = in.log_table_size;
	rss_set_key(r, in.toeplitz_key);
	for (u32 i = 0; i < n; i++)
		__atomic_store_n(&r->rqn[i], rss_entry(e, i), __ATOMIC_RELAXED);
}

Rss *find_rss(Function *fn, u32 num) { return find_obj(fn->rss, ObjType::Rss, num); }

CmdStatus create_rss(CmdEnv &e)
{
	auto in = inbox<RssHead>(e);
	Function *fn = e.fn;

	CmdStatus st = check_rss(e, in);
	if (st != prm::kStatOk)
		return st;
	int ix = free_slot(fn->rss);
	if (ix < 0)
		return reject(e, prm::kStatExceedLim, "no free RSS object");
	Rss *r = &fn->rss[ix];
	if (!r->toeplitz) {
		/* The slot's first object: a zeroed table, the table of its zeroed key. */
		if (!e.prealloc)
			return reject(e, prm::kStatExceedLim, "no memory for the RSS object");
		__atomic_store_n(&r->toeplitz, static_cast<ToeplitzTable *>(e.prealloc),
				 __ATOMIC_RELAXED);
		e.prealloc = nullptr;
	}
	u32 num = obj_next_num(&r->gen, ObjType::Rss, (u32)ix);
	rss_write_begin(r);
	rss_fill(e, r, in);
	r->flow_only = in.flags & prm::kRssFlowOnly;
	r->created = ++fn->rss_created;
	__atomic_store_n(&r->num, num, __ATOMIC_RELAXED);
	rss_update_active(fn);	/* the newest object steers */
	rss_write_end(r);
	outbox<prm::CreateObjOut>(e)->obj_num.set(num);
	return prm::kStatOk;
}

CmdStatus modify_rss(CmdEnv &e)
{
	auto in = inbox<RssHead>(e);
	Rss *r = find_rss(e.fn, in.obj_num.get());
	if (!r)
		return reject(e, prm::kStatBadResource, "no such RSS object");
	CmdStatus st = check_rss(e, in);
	if (st != prm::kStatOk)
		return st;
	if ((in.flags & prm::kRssFlowOnly) != r->flow_only)
		return reject(e, prm::kStatBadParam, "MODIFY_RSS cannot change kRssFlowOnly");
	rss_write_begin(r);
	rss_fill(e, r, in);
	rss_write_end(r);
	return prm::kStatOk;
}

/* A flow table entry forwards to RSS object num. */
bool flow_names_rss(const Function *fn, u32 num)
{
	for (u32 i = 0; i < fn->flows.n; i++)
		if (fn->flows.e[i].action == prm::kFlowFwdRss && fn->flows.e[i].dest == num)
			return true;
	return false;
}

CmdStatus destroy_rss(CmdEnv &e)
{
	Rss *r = find_rss(e.fn, inbox<prm::DestroyObjIn>(e).obj_num.get());
	if (!r)
		return reject(e, prm::kStatBadResource, "no such RSS object");
	if (flow_names_rss(e.fn, r->num))
		return reject(e, prm::kStatResourceBusy, "a flow table entry forwards to it", "RSS");
	rss_write_begin(r);
	__atomic_store_n(&r->num, 0, __ATOMIC_RELAXED);
	rss_update_active(e.fn);
	rss_write_end(r);
	return prm::kStatOk;
}

/* ---- flow table ---- */

CmdStatus set_flow_entry(CmdEnv &e)
{
	auto in = inbox<prm::SetFlowEntryIn>(e);
	Function *fn = e.fn;
	u32 ix = in.flow_index.get();
	u32 dest = in.dest.get();
	u32 mask[kFlowWords], value[kFlowWords];

	if (ix >= kMaxFlowEntries)
		return reject(e, prm::kStatBadParam, "flow_index beyond the table", "flow");
	switch (in.action) {
	case prm::kFlowFwdRq:
		if (!find_wq<Rq>(fn, dest))
			return reject(e, prm::kStatBadResource, "dest names no RQ", "flow");
		break;
	case prm::kFlowFwdRss:
		if (!find_rss(fn, dest))
			return reject(e, prm::kStatBadResource, "dest names no RSS object", "flow");
		break;
	case prm::kFlowDrop:
		if (dest)
			return reject(e, prm::kStatBadParam, "a drop entry has dest 0", "flow");
		break;
	default:
		return reject(e, prm::kStatBadParam, "unknown action", "flow");
	}
	flow_fields_words(in.mask, mask);
	flow_fields_words(in.value, value);
	if (in.mask.rsvd || in.value.rsvd || (in.mask.cvlan.get() & prm::kFlowCvlanRsvd) ||
	    (in.value.cvlan.get() & prm::kFlowCvlanRsvd))
		return reject(e, prm::kStatBadParam, "reserved match bits set", "flow");
	for (u32 w = 0; w < kFlowWords; w++)
		if (value[w] & ~mask[w])
			return reject(e, prm::kStatBadParam, "value has bits outside the mask", "flow");

	FlowTable *t = &fn->flows;
	FlowEntry *fe = &t->e[ix];
	seq_write_begin(&t->seq);
	for (u32 w = 0; w < kFlowWords; w++) {
		__atomic_store_n(&fe->mask[w], mask[w], __ATOMIC_RELAXED);
		__atomic_store_n(&fe->value[w], value[w], __ATOMIC_RELAXED);
	}
	__atomic_store_n(&fe->dest, dest, __ATOMIC_RELAXED);
	__atomic_store_n(&fe->action, (u32)in.action, __ATOMIC_RELAXED);
	flow_update_n(t);
	seq_write_end(&t->seq);
	return prm::kStatOk;
}

CmdStatus delete_flow_entry(CmdEnv &e)
{
	u32 ix = inbox<prm::DeleteFlowEntryIn>(e).flow_index.get();
	FlowTable *t = &e.fn->flows;

	if (ix >= kMaxFlowEntries || t->e[ix].action == prm::kFlowFree)
		return reject(e, prm::kStatBadResource, "no entry at flow_index", "flow");
	seq_write_begin(&t->seq);
	__atomic_store_n(&t->e[ix].action, (u32)prm::kFlowFree, __ATOMIC_RELAXED);
	flow_update_n(t);
	seq_write_end(&t->seq);
	return prm::kStatOk;
}

/* ---- queries ---- */

CmdStatus query_hca_cap(CmdEnv &e)
{
	outbox<prm::QueryHcaCapOut>(e)->caps = caps_of(e.fn);
	return prm::kStatOk;
}

/* A counter set (prm/counters.h) of the function, each value a relaxed snapshot. */
template <typename Out, typename Counters>
CmdStatus query_counters(CmdEnv &e, const Counters &c)
{
	prm::counters_put(outbox<Out>(e), c, bus_read);
	return prm::kStatOk;
}

CmdStatus query_q_counter(CmdEnv &e) { return query_counters<prm::QueryQCounterOut>(e, e.fn->qc); }

CmdStatus query_bus_counters(CmdEnv &e)
{
	return query_counters<prm::QueryBusCountersOut>(e, e.fn->bus);
}

CmdStatus query_port_counters(CmdEnv &e)
{
	return query_counters<prm::QueryPortCountersOut>(e, e.fn->port);
}

/* The MAC's settings (prm::ModifyPortIn); frames in flight see the old or the new one. */
CmdStatus modify_port(CmdEnv &e)
{
	auto in = inbox<prm::ModifyPortIn>(e);
	u32 mask = in.modify_bitmask.get();

	if (mask & ~prm::kPortModifyFcsChk)
		return reject(e, prm::kStatBadParam, "unknown modify_bitmask bit", "port");
	if ((mask & prm::kPortModifyFcsChk) && in.fcs_chk > 1)
		return reject(e, prm::kStatBadParam, "fcs_chk is not 0 or 1", "port");
	if (mask & prm::kPortModifyFcsChk)
		__atomic_store_n(&e.fn->fcs_chk_off, in.fcs_chk ? 0u : 1u, __ATOMIC_RELAXED);
	return prm::kStatOk;
}

CmdStatus query_port_link(CmdEnv &e)
{
	link_query(e.fn, outbox<prm::QueryPortLinkOut>(e));
	return prm::kStatOk;
}

CmdStatus query_module_eeprom(CmdEnv &e)
{
	const char *why = module_read(e.fn, inbox<prm::QueryModuleEepromIn>(e),
				      outbox<prm::QueryModuleEepromOut>(e));

	return why ? reject(e, prm::kStatBadParam, why, "module") : prm::kStatOk;
}

CmdStatus modify_port_link(CmdEnv &e)
{
	const char *why = link_modify(e.fn, inbox<prm::ModifyPortLinkIn>(e));

	return why ? reject(e, prm::kStatBadParam, why, "link") : prm::kStatOk;
}

/*
 * The RX address filter (prm::ModifyNicVportIn): the parts field_select
 * names, each whole. Refused, nothing changed: no part or an unknown one,
 * an unknown promisc or VLAN bit, a list longer than the caps, an inbox
 * shorter than what is selected, a unicast entry with the group bit or a
 * multicast one without it.
 */
CmdStatus modify_nic_vport(CmdEnv &e)
{
	auto in = inbox<prm::ModifyNicVportIn>(e);
	const u8 sel = in.field_select;
	const u32 n_uc = sel & prm::kVportSelectAddrs ? in.n_uc : 0;
	const u32 n_mc = sel & prm::kVportSelectAddrs ? in.n_mc : 0;
	const u8 *list = e.in + sizeof(in);
	const u8 *maps = list + (n_uc + n_mc) * sizeof(prm::VportMac);
	constexpr u32 kGroupByte = __builtin_offsetof(prm::VportMac, addr);

	if (!sel ||
	    (sel & ~(prm::kVportSelectAddrs | prm::kVportSelectVlans | prm::kVportSelectLocalLb)))
		return reject(e, prm::kStatBadParam, "no or unknown field_select bit", "vport");
	if ((sel & prm::kVportSelectLocalLb) && in.local_lb > 1)
		return reject(e, prm::kStatBadParam, "local_lb is not 0 or 1", "vport");
	if (in.promisc & ~(prm::kVportPromiscUc | prm::kVportPromiscMc | prm::kVportPromiscAll))
		return reject(e, prm::kStatBadParam, "unknown promisc bit", "vport");
	if (in.vlan & ~(prm::kVportVlanCtag | prm::kVportVlanStag))
		return reject(e, prm::kStatBadParam, "unknown VLAN filter bit", "vport");
	if (n_uc > 1u << kLogMaxUcList || n_mc > 1u << kLogMaxMcList)
		return reject(e, prm::kStatBadParam, "address list longer than the caps", "vport");
	if (e.in_len < (usize)(maps - e.in) +
			       (sel & prm::kVportSelectVlans ? 2 * prm::kVportVlanMapBytes : 0))
		return reject(e, prm::kStatBadInputLen, "address list or VLAN maps past the inbox",
			      "vport");
	for (u32 i = 0; i < n_uc + n_mc; i++) {
		if ((list[i * sizeof(prm::VportMac) + kGroupByte] & 1) != (i >= n_uc))
			return reject(e, prm::kStatBadParam,
				      i < n_uc ? "group address in the unicast list"
					       : "individual address in the multicast list",
				      "vport");
	}
	if (sel & prm::kVportSelectAddrs)
		vport_set(e.fn, in.promisc, list, n_uc, n_mc);
	if (sel & prm::kVportSelectVlans)
		vport_set_vlans(e.fn, in.vlan, maps);
	if (sel & prm::kVportSelectLocalLb)
		wire_set(e.fn, kWireLocalLb, in.local_lb);
	return prm::kStatOk;
}

/* ---- VXLAN UDP ports: where the engines look for inner headers ---- */

CmdStatus vxlan_udp_dport(CmdEnv &e)
{
	auto in = inbox<prm::VxlanUdpDportIn>(e);
	const bool add = in.hdr.opcode.get() == prm::kCmdAddVxlanUdpDport;
	const u16 port = in.vxlan_udp_port.get();
	u16 *slot = nullptr;

	if (!port)
		return reject(e, prm::kStatBadParam, "UDP port 0", "vxlan");
	for (u16 &p : e.fn->vxlan_port) {
		u16 cur = __atomic_load_n(&p, __ATOMIC_RELAXED);
		if (cur == port) {
			if (add)
				return reject(e, prm::kStatBadResState, "port already in the table", "vxlan");
			slot = &p;
			break;
		}
		if (add && !cur && !slot)
			slot = &p;
	}
	if (!slot)
		return add ? reject(e, prm::kStatExceedLim, "table full", "vxlan") :
			     reject(e, prm::kStatBadParam, "port not in the table", "vxlan");
	__atomic_store_n(slot, add ? port : (u16)0, __ATOMIC_RELAXED);
	/* after the table: a frame that finds its bit still checks the table */
	__atomic_store_n(&e.fn->tunnel_port_bits, tunnel_port_bits(e.fn), __ATOMIC_RELAXED);
	return prm::kStatOk;
}

/* ---- dispatch ---- */

struct CmdDesc {
	u16 opcode;
	u16 in_len;		/* minimum inbox */
	u16 out_len;		/* outbox the command fills */
	CmdStatus (*handler)(CmdEnv &);
};

constexpr CmdDesc kCmds[] = {
	{ prm::kCmdQueryHcaCap, sizeof(prm::CmdIn), sizeof(prm::QueryHcaCapOut), query_hca_cap },
	{ prm::kCmdCreateCq, sizeof(prm::CreateCqIn), sizeof(prm::CreateObjOut), create_cq },
	{ prm::kCmdDestroyCq, sizeof(prm::DestroyObjIn), sizeof(prm::CmdOut), destroy_cq },
	{ prm::kCmdModifyCq, sizeof(prm::ModifyCqIn), sizeof(prm::CmdOut), modify_cq },
	{ prm::kCmdQueryCq, sizeof(prm::DestroyObjIn), sizeof(prm::QueryCqOut), query_cq },
	{ prm::kCmdCreateSq, sizeof(prm::CreateSqIn), sizeof(prm::CreateObjOut), create_wq<Sq> },
	{ prm::kCmdModifySq, sizeof(prm::ModifyQueueIn), sizeof(prm::CmdOut), modify_wq<Sq> },
	{ prm::kCmdDestroySq, sizeof(prm::DestroyObjIn), sizeof(prm::CmdOut), destroy_wq<Sq> },
	{ prm::kCmdCreateRq, sizeof(prm::CreateRqIn), sizeof(prm::CreateObjOut), create_wq<Rq> },
	{ prm::kCmdModifyRq, sizeof(prm::ModifyQueueIn), sizeof(prm::CmdOut), modify_wq<Rq> },
	{ prm::kCmdDestroyRq, sizeof(prm::DestroyObjIn), sizeof(prm::CmdOut), destroy_wq<Rq> },
	{ prm::kCmdCreateRss, kRssTableOff + sizeof(prm::be32), sizeof(prm::CreateObjOut),
	  create_rss },
	{ prm::kCmdModifyRss, kRssTableOff + sizeof(prm::be32), sizeof(prm::CmdOut), modify_rss },
	{ prm::kCmdDestroyRss, sizeof(prm::DestroyObjIn), sizeof(prm::CmdOut), destroy_rss },
	{ prm::kCmdSetFlowTableEntry, sizeof(prm::SetFlowEntryIn), sizeof(prm::CmdOut),
	  set_flow_entry },
	{ prm::kCmdDeleteFlowTableEntry, sizeof(prm::DeleteFlowEntryIn), sizeof(prm::CmdOut),
	  delete_flow_entry },
	{ prm::kCmdQueryQCounter, sizeof(prm::CmdIn), sizeof(prm::QueryQCounterOut),
	  query_q_counter },
	{ prm::kCmdQueryBusCounters, sizeof(prm::CmdIn), sizeof(prm::QueryBusCountersOut),
	  query_bus_counters },
	{ prm::kCmdQueryPortCounters, sizeof(prm::CmdIn), sizeof(prm::QueryPortCountersOut),
	  query_port_counters },
	{ prm::kCmdModifyPort, sizeof(prm::ModifyPortIn), sizeof(prm::CmdOut), modify_port },
	{ prm::kCmdQueryPortLink, sizeof(prm::CmdIn), sizeof(prm::QueryPortLinkOut),
	  query_port_link },
	{ prm::kCmdModifyPortLink, sizeof(prm::ModifyPortLinkIn), sizeof(prm::CmdOut),
	  modify_port_link },
	{ prm::kCmdQueryModuleEeprom, sizeof(prm::QueryModuleEepromIn),
	  sizeof(prm::QueryModuleEepromOut), query_module_eeprom },
	{ prm::kCmdModifyNicVportContext, sizeof(prm::ModifyNicVportIn), sizeof(prm::CmdOut),
	  modify_nic_vport },
	{ prm::kCmdAddVxlanUdpDport, sizeof(prm::VxlanUdpDportIn), sizeof(prm::CmdOut),
	  vxlan_udp_dport },
	{ prm::kCmdDeleteVxlanUdpDport, sizeof(prm::VxlanUdpDportIn), sizeof(prm::CmdOut),
	  vxlan_udp_dport },
};

constexpr u32 kMaxOutbox = 256;
static_assert(sizeof(prm::QueryHcaCapOut) <= kMaxOutbox);
static_assert(sizeof(prm::QueryCqOut) <= kMaxOutbox);
static_assert(sizeof(prm::QueryQCounterOut) <= kMaxOutbox);
static_assert(sizeof(prm::QueryBusCountersOut) <= kMaxOutbox);
static_assert(sizeof(prm::QueryPortCountersOut) <= kMaxOutbox);

const CmdDesc *find_cmd(u16 opcode)
{
	for (const CmdDesc &d : kCmds)
		if (d.opcode == opcode)
			return &d;
	return nullptr;
}

CmdStatus run_cmd(Function *fn, const CmdDesc *d, const u8 *in, u32 in_len, u8 *out)
{
	CmdEnv e = { fn, in, in_len, out, nullptr, nullptr, nullptr, {} };

	/* Allocation may sleep: never under the (spin) command lock. */
	if (d->opcode == prm::kCmdCreateSq)
		e.prealloc = scx_os_zalloc(sizeof(SqScratch));
	else if (d->opcode == prm::kCmdCreateRss)
		e.prealloc = scx_os_zalloc(sizeof(ToeplitzTable));	/* kept if the slot has none */
	else if (d->opcode == prm::kCmdCreateCq && in_len >= sizeof(prm::CreateCqIn))
		e.prealloc = cq_ledger_alloc(inbox<prm::CreateCqIn>(e));
	scx_os_lock(fn->cmd_lock);
	CmdStatus st = d->handler(e);
	scx_os_unlock(fn->cmd_lock);
	irq_batch_flush(&e.irqs);
	if (e.prealloc)
		scx_os_free(e.prealloc);
	if (e.to_free)
		scx_os_free(e.to_free);
	return st;
}

} /* namespace */
} /* namespace softcx::hw */

namespace softcx::bus {

bool cmd_exec(Function *fn, const void *in, u32 in_len, void *out, u32 out_len)
{
	using namespace softcx::hw;

	if (!fn || !in || !out || in_len < sizeof(prm::CmdIn) || out_len < sizeof(prm::CmdOut))
		return false;

	prm::CmdIn hdr;
	__builtin_memcpy(&hdr, in, sizeof(hdr));
	const CmdDesc *d = find_cmd(hdr.opcode.get());
	alignas(8) u8 reply[kMaxOutbox] = {};
	CmdStatus st;

	if (!d)
		st = prm::kStatBadOp;
	else if (in_len < d->in_len)
		st = prm::kStatBadInputLen;
	else if (out_len < d->out_len)
		st = prm::kStatBadOutputLen;
	else
		st = run_cmd(fn, d, static_cast<const u8 *>(in), in_len, reply);

	/* The outbox: the command's fields on success, zeros otherwise, then the header. */
	__builtin_memset(out, 0, out_len);
	if (st == prm::kStatOk)
		__builtin_memcpy(out, reply, d->out_len);
	prm::CmdOut head = {};
	head.status = st;
	head.syndrome.set(st == prm::kStatOk ? 0 : ((u32)hdr.opcode.get() << 16) | st);
	__builtin_memcpy(out, &head, sizeof(head));
	return true;
}

} /* namespace softcx::bus */
