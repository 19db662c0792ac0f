// SPDX-License-Identifier: GPL-2.0
/*
 * Target "cmd": command sequences. The input is a list of operations on
 * the two functions of an adapter: create, modify and destroy of CQs, SQs,
 * RQs and RSS objects (good or bad parameters, bad DMA addresses, short
 * inboxes and outboxes), destroys of objects already gone (double destroy)
 * or still in use (a CQ an SQ or RQ reports to, an RQ an RSS table names),
 * flow table entries set and deleted (forwarding to RQs and RSS objects,
 * or dropping), queries, unknown opcodes, and data path work in between (doorbells on
 * live and destroyed SQs, frames through whatever is left, CQ arm doorbells
 * with any number).
 *
 * A striding or cyclic RQ may carry SHAMPO fields (prm/cmd.h): none, a
 * stray one without shampo_enable, or a geometry in or just out of range
 * with a header ring in a region of ours (valid or not).
 *
 * Invariant: every status is the one a model of the object tables predicts
 * (kept here, independently of src/hw); at the end every live object
 * destroys cleanly and nothing leaks; ASan/UBSan silent.
 */
#include <map>

#include "fuzz.h"

using namespace fz;

namespace {

enum {
	kCreateCq, kDestroyCq, kCreateSq, kModifySq, kDestroySq, kCreateRq, kModifyRq,
	kDestroyRq, kCreateRss, kModifyRss, kDestroyRss, kQueryCap, kQueryQ, kQueryBus,
	kDoubleDestroy, kBusy, kBadState, kBadParam, kBadLen, kBadOutLen, kBadOp, kExceedLim,
	kUndelivered, kStaleDoorbell, kFrames, kIfDown, kCreateStridingRq, kCreateCompCq,
	kCompressed, kModifyRqVsd, kCreateShampoRq, kShampoCyclic, kModifyRqFcs, kCreateRqFcs,
	kSetFlow, kDeleteFlow, kRssFlowBusy, kNrCov
};
Cov g_cov[kNrCov] = {
	{ "CREATE_CQ ok", true, 0 },
	{ "DESTROY_CQ ok", true, 0 },
	{ "CREATE_SQ ok", true, 0 },
	{ "MODIFY_SQ ok", true, 0 },
	{ "DESTROY_SQ ok", true, 0 },
	{ "CREATE_RQ ok", true, 0 },
	{ "MODIFY_RQ ok", true, 0 },
	{ "DESTROY_RQ ok", true, 0 },
	{ "CREATE_RSS ok", true, 0 },
	{ "MODIFY_RSS ok", true, 0 },
	{ "DESTROY_RSS ok", true, 0 },
	{ "QUERY_HCA_CAP ok", true, 0 },
	{ "QUERY_Q_COUNTER ok", true, 0 },
	{ "QUERY_BUS_COUNTERS ok", true, 0 },
	{ "double destroy refused", true, 0 },
	{ "destroy in use refused", true, 0 },
	{ "bad state transition", true, 0 },
	{ "bad parameter", true, 0 },
	{ "short inbox", true, 0 },
	{ "short outbox", true, 0 },
	{ "unknown opcode", true, 0 },
	{ "table full", true, 0 },
	{ "not delivered (len < 8)", true, 0 },
	{ "doorbell on destroyed SQ", true, 0 },
	{ "frames received", true, 0 },
	{ "frame to destroyed RQ", true, 0 },
	{ "CREATE_RQ striding ok", true, 0 },
	{ "CREATE_CQ compressing ok", true, 0 },
	{ "compressed CQE consumed", true, 0 },
	{ "MODIFY_RQ with vsd ok", false, 0 },
	{ "CREATE_RQ shampo ok", true, 0 },
	{ "shampo on cyclic RQ refused", true, 0 },
	{ "MODIFY_RQ with scatter_fcs ok", false, 0 },
	{ "CREATE_RQ with scatter_fcs ok", false, 0 },
	{ "SET_FLOW_TABLE_ENTRY ok", false, 0 },
	{ "DELETE_FLOW_TABLE_ENTRY ok", false, 0 },
	{ "DESTROY_RSS of a flow entry's object refused", false, 0 },
};

enum class Ty : uint8_t { Cq, Sq, Rq, Rss };

struct Obj {
	Ty ty;
	uint32_t fn;		/* function index */
	uint32_t num;
	bool live;
	uint8_t state;		/* SQ/RQ */
	int cq;			/* SQ/RQ: index of its CQ in objs */
	uint32_t users;		/* CQ */
	uint32_t log;
	bool striding;		/* RQ: a striding RQ */
	bool shampo;		/* RQ: created with SHAMPO (no scatter_fcs) */
	uint32_t log_buf;	/* its WQE buffer */
	uint32_t log_stride_bytes;	/* striding: its stride size */
	Dma ring, dbr;
	Dma hd;			/* RQ: its SHAMPO header ring */
	std::vector<int> table;	/* RSS: indexes of the RQs it names (or -1: a bad number) */
	uint16_t pc;		/* SQ producer counter */
	uint32_t ci;		/* CQ consumer counter */
	uint8_t comp_layout;	/* CQ: cqe_comp_layout, when comp */
	bool comp;		/* CQ: cqe_comp_en */
};

/* A flow table entry the model holds: action and dest. */
struct FlowEnt {
	uint8_t action;
	uint32_t dest;
};

struct State {
	scx_hw_adapter *a;
	Fn *fn[2];
	prm::HcaCaps caps;
	std::vector<std::unique_ptr<Obj>> objs;
	uint32_t rss_live[2];
	std::map<uint32_t, FlowEnt> flows[2];	/* by flow_index */
	Dma rxbuf;		/* every RQ WQE points here */
	Dma hdbuf;		/* every SHAMPO header entry points here (1 KiB) */
};

/* One of the objects of type ty (live or not) picked by the input, or -1. */
int pick(State &s, Input &in, Ty ty)
{
	std::vector<int> v;
	for (size_t i = 0; i < s.objs.size(); i++)
		if (s.objs[i]->ty == ty)
			v.push_back((int)i);
	uint8_t b = in.u8();
	if (v.empty())
		return -1;
	return v[b % v.size()];
}

/* Its number as the input names it: the object's, a neighbour's, or anything. */
uint32_t number(State &s, Input &in, int ix)
{
	uint8_t how = in.u8();
	if (ix >= 0 && how < 0xf0)
		return s.objs[ix]->num;
	return how == 0xff ? in.u32() : (ix >= 0 ? s.objs[ix]->num ^ (1u << (how & 31)) : how);
}

/* Does num name a live object of type ty on function f? Returns its index, or -1. */
int live_obj(State &s, uint32_t f, Ty ty, uint32_t num)
{
	for (size_t i = 0; i < s.objs.size(); i++) {
		Obj &o = *s.objs[i];
		if (o.ty == ty && o.fn == f && o.live && o.num == num)
			return (int)i;
	}
	return -1;
}

void expect(uint8_t got, uint8_t want, const char *what)
{
	FZ_CHECK(got == want, "%s: status 0x%x, the model says 0x%x", what, got, want);
	switch (want) {
	case prm::kStatBadParam: hit(g_cov[kBadParam]); break;
	case prm::kStatBadResState: hit(g_cov[kBadState]); break;
	case prm::kStatExceedLim: hit(g_cov[kExceedLim]); break;
	default: break;
	}
}

/* DMA memory for a ring or record: good, not DMA memory, misaligned, or too short. */
uint64_t region(Input &in, Dma &mem, uint32_t size, bool *ok)
{
	uint8_t v = in.u8() % 8;
	*ok = false;
	switch (v) {
	case 2:
		mem.alloc(size + 64);
		return mem.dma + 4;	/* misaligned */
	case 3:
		mem.alloc(size / 2);	/* shorter than the object needs */
		return mem.dma;
	case 4:
		return host::dma_unmapped_addr();
	default:
		mem.alloc(size + 64);
		*ok = true;
		return mem.dma;
	}
}

uint8_t run(State &s, uint32_t f, const void *in, uint32_t in_len, void *out, uint32_t out_len)
{
	memset(out, 0xa5, out_len);
	FZ_CHECK(bus::cmd_exec(s.fn[f], in, in_len, out, out_len), "command not delivered");
	return static_cast<prm::CmdOut *>(out)->status;
}

/* CQE compression a CREATE_CQ asks for: cqe_comp_en, mini_cqe_res_format, cqe_comp_layout. */
struct CompAsk {
	uint8_t en, fmt, layout;
};

CompAsk comp_ask(uint8_t sel)
{
	switch (sel) {
	case 6: return { 1, prm::kMiniCqeHash, prm::kCqeCompBasic };
	case 7: return { 1, prm::kMiniCqeCsum, prm::kCqeCompBasic };
	case 8: return { 1, prm::kMiniCqeCsumStridx, prm::kCqeCompBasic };
	case 9: return { 1, prm::kMiniCqeCsum, prm::kCqeCompEnhanced };
	case 10: return { 1, prm::kMiniCqeCsumStridx, prm::kCqeCompEnhanced };
	case 11: return { 1, 2, prm::kCqeCompBasic };		/* no format 2 */
	case 12: return { 0, prm::kMiniCqeCsum, 0 };		/* a format, compression off */
	default: return { 0, 0, 0 };
	}
}

/* The PRM's rule, written apart from the device's check. */
bool comp_ok(const prm::HcaCaps &caps, const CompAsk &a)
{
	if (!a.en)
		return !a.fmt && !a.layout;
	if (!caps.cqe_compression || (a.fmt != 0 && a.fmt != 1 && a.fmt != 3))
		return false;
	if (a.fmt == prm::kMiniCqeCsumStridx && !caps.mini_cqe_resp_stride_index)
		return false;
	return a.layout == prm::kCqeCompBasic || caps.enhanced_cqe_compression;
}

void op_create_cq(State &s, Input &in, uint32_t f)
{
	auto o = std::make_unique<Obj>();
	o->ty = Ty::Cq;
	o->fn = f;
	uint8_t sel = in.u8();
	uint8_t log = sel % 20;		/* the rest of the byte: compression */
	CompAsk comp = comp_ask(sel / 20);
	o->log = log;
	o->comp = comp.en;
	o->comp_layout = comp.layout;
	bool dbr_ok, ring_ok;
	prm::CreateCqIn c;
	set_op(&c, prm::kCmdCreateCq);
	c.log_cq_size = log;
	c.cqe_comp_en = comp.en;
	c.mini_cqe_res_format = comp.fmt;
	c.cqe_comp_layout = comp.layout;
	c.c_eqn.set(in.u8());
	c.dbr_addr.set(region(in, o->dbr, 8, &dbr_ok));
	c.pas.set(region(in, o->ring, prm::kCqeSize << (log > 12 ? 0 : log), &ring_ok));
	if (log > 12)
		ring_ok = false;	/* we allocate no ring that large */
	for (uint32_t i = 0; ring_ok && i < (1u << log); i++) {
		o->ring.cpu[i * prm::kCqeSize + prm::kCqeSize - 1] = prm::kCqeInitOpOwn;
		o->ring.cpu[i * prm::kCqeSize + prm::kCqeSize - 2] = prm::kCqeInitValidity;
	}
	prm::CreateObjOut out;
	uint8_t st = run(s, f, &c, sizeof(c), &out, sizeof(out));
	bool ok = log <= 16 && dbr_ok && ring_ok && comp_ok(s.caps, comp);
	expect(st, ok ? prm::kStatOk : prm::kStatBadParam, "CREATE_CQ");
	if (st == prm::kStatOk) {
		hit(g_cov[kCreateCq]);
		if (comp.en)
			hit(g_cov[kCreateCompCq]);
		o->num = out.obj_num.get();
		FZ_CHECK(live_obj(s, f, Ty::Cq, o->num) < 0, "CQ number 0x%x already live", o->num);
		o->live = true;
		s.objs.push_back(std::move(o));
	}
}

/*
 * The striding RQ rules as the PRM states them (an oracle, written apart
 * from the device's check): a WQE of 32 B .. 1 KiB, strides of 64 B .. 8 KiB,
 * 512 .. 64 Ki strides (8 .. 256 with the extended range cap), a buffer of at
 * most 256 KiB.
 */
bool striding_geometry(const prm::HcaCaps &caps, const prm::CreateRqIn &c, uint32_t *log_buf)
{
	uint32_t ls = 6 + c.log_wqe_stride_size, n = c.log_wqe_num_of_strides, ln;
	if (!caps.striding_rq || c.log_wq_stride < 5 || c.log_wq_stride > 10 || ls > 13)
		return false;
	if (n & 0x10) {
		if (!caps.ext_stride_num_range || (n & 0xf) > 5)
			return false;
		ln = 3 + (n & 0xf);
	} else {
		if (n > 7)
			return false;
		ln = 9 + n;
	}
	*log_buf = ls + ln;
	return ls + ln <= 18;
}

/*
 * An input byte: mostly a value in [lo, hi] (lo when that is empty), 1 in
 * 16 just outside it (up to 8 above hi or below lo).
 */
uint32_t in_range(Input &in, uint32_t lo, uint32_t hi)
{
	uint8_t b = in.u8();
	uint32_t d = b & 7;
	if (b >= 0xf0)
		return b & 8 ? hi + 1 + d : lo > d ? lo - 1 - d : hi + 1 + d;
	return hi < lo ? lo : lo + b % (hi - lo + 1);
}

/*
 * The SHAMPO fields of a CREATE_RQ (prm/cmd.h), written by the input:
 * none, one stray field without shampo_enable, or shampo_enable with a
 * geometry mostly in range (the range of this RQ's strides and WQE buffer)
 * and sometimes not; the header ring a region of ours (valid or not), its
 * entries naming s.hdbuf.
 */
void shampo_fill(State &s, Input &in, prm::CreateRqIn &c, Obj &o, bool *hd_ok)
{
	uint8_t sel = in.u8();
	*hd_ok = false;
	if ((sel & 3) == 0)
		return;
	if ((sel & 3) == 1) {
		/* one field set, shampo_enable 0 */
		uint8_t v = (uint8_t)(in.u8() | 1);
		switch ((sel >> 2) % 8) {
		case 0: c.shampo_match_criteria_type = v; break;
		case 1: c.shampo_no_match_alignment_granularity = v; break;
		case 2: c.log_reservation_size = v; break;
		case 3: c.log_max_num_of_packets_per_reservation = v; break;
		case 4: c.log_headers_entry_size = v; break;
		case 5: c.log_headers_buffer_entry_num = v; break;
		case 6: c.reservation_timeout.set(v); break;
		default: c.headers_pas.set(s.hdbuf.dma); break;
		}
		return;
	}
	c.shampo_enable = sel & 0x80 ? (uint8_t)(sel >> 2) : 1;	/* >> 2: never 0 or 1 */
	uint8_t m = in.u8();
	c.shampo_match_criteria_type = m < 0xf0 ? m & 1 : m & 3;
	uint8_t al = in.u8();
	c.shampo_no_match_alignment_granularity = al < 0xf0 ? prm::kShampoAlignStride : al & 3;
	/* in range for this RQ when the geometry is valid */
	uint32_t ls = o.striding ? o.log_stride_bytes : 12, lb = o.striding ? o.log_buf : 16;
	uint32_t lr = in_range(in, (ls > 12 ? ls : 12) - 12, lb < 12 ? 0 : (lb < 16 ? lb : 16) - 12);
	c.log_reservation_size = (uint8_t)lr;
	uint32_t lp = in_range(in, 0, 12);
	c.log_max_num_of_packets_per_reservation = (uint8_t)lp;
	c.log_headers_entry_size = (uint8_t)in_range(in, 0, 4);
	uint32_t min = c.log_wq_sz + lp + (lb > 12 + lr ? lb - 12 - lr : 0);
	uint32_t ln = in_range(in, min, 16);
	c.log_headers_buffer_entry_num = (uint8_t)ln;
	c.reservation_timeout.set(in.u16());
	uint32_t log_ring = ln > 16 ? 0 : ln;	/* we allocate no larger ring */
	c.headers_pas.set(region(in, o.hd, 16u << log_ring, hd_ok));
	if (ln > 16)
		*hd_ok = false;
	if (!*hd_ok)
		return;
	prm::ShampoHdrWqe w;
	w.data.byte_count.set(1u << (6 + (c.log_headers_entry_size & 15)));
	w.data.lkey.set(prm::kReservedLkey);
	w.data.addr.set(s.hdbuf.dma);
	for (uint32_t i = 0; i < 1u << ln; i++)
		memcpy(o.hd.cpu + 16 * i, &w, 16);
}

/*
 * The SHAMPO rules of prm/cmd.h, written apart from the device's check:
 * shampo_enable 0 with every field 0, or 1 with the cap, a striding RQ, a
 * CQ without compression, match NO_MATCH or EXTENDED, alignment STRIDE, a
 * reservation of 4 .. 64 KiB within [stride, WQE buffer], at most 2^12
 * packets per reservation, header entries of 64 B .. 1 KiB, a header ring
 * of at most 2^16 entries and at least one per packet the posted WQEs can
 * take, in DMA memory.
 */
bool shampo_ok(const State &s, const prm::CreateRqIn &c, const Obj &o, const Obj *cq, bool hd_ok)
{
	if (!c.shampo_enable)
		return !c.shampo_match_criteria_type && !c.shampo_no_match_alignment_granularity &&
		       !c.log_reservation_size && !c.log_max_num_of_packets_per_reservation &&
		       !c.log_headers_entry_size && !c.log_headers_buffer_entry_num &&
		       !c.reservation_timeout.get() && !c.headers_pas.get();
	if (c.shampo_enable != 1 || !s.caps.shampo || c.wq_type != prm::kWqLinkedListStriding ||
	    !o.striding || (cq && cq->comp))
		return false;
	if (c.shampo_match_criteria_type > prm::kShampoMatchExtended ||
	    c.shampo_no_match_alignment_granularity != prm::kShampoAlignStride)
		return false;
	uint32_t res = 12 + c.log_reservation_size;	/* log2 bytes */
	if (res > 16 || res < o.log_stride_bytes || res > o.log_buf)
		return false;
	uint32_t pkts = c.log_max_num_of_packets_per_reservation;
	if (pkts > 12 || 6 + c.log_headers_entry_size > 10)
		return false;
	/* entries >= WQEs x reservations per WQE x packets per reservation */
	uint32_t need = c.log_wq_sz + (o.log_buf - res) + pkts;
	return c.log_headers_buffer_entry_num <= 16 && c.log_headers_buffer_entry_num >= need &&
	       hd_ok;
}

/* SQ or RQ create: shared CQ binding rules, then the type's own checks. */
void op_create_q(State &s, Input &in, uint32_t f, Ty ty)
{
	auto o = std::make_unique<Obj>();
	o->ty = ty;
	o->fn = f;
	int cqix = pick(s, in, Ty::Cq);
	uint32_t cqn = number(s, in, cqix);
	uint8_t log = in.u8() % 16;
	o->log = log;
	uint8_t mode = in.u8();
	bool dbr_ok, ring_ok;
	uint8_t rq_log_stride = mode & 0x80 ? mode & 7 : 4;
	uint32_t stride = ty == Ty::Sq ? prm::kSendWqeBB : 1u << rq_log_stride;
	uint64_t dbr = region(in, o->dbr, 8, &dbr_ok);
	uint64_t ring = region(in, o->ring, stride << (log > 10 ? 0 : log), &ring_ok);
	if (log > 10)
		ring_ok = false;

	int cq = live_obj(s, f, Ty::Cq, cqn);
	uint8_t want;
	if (cq < 0)
		want = prm::kStatBadResource;
	else if (s.objs[cq]->users)
		want = prm::kStatResourceBusy;
	else if (log > 13)
		want = prm::kStatBadParam;
	else
		want = prm::kStatOk;

	uint8_t st;
	prm::CreateObjOut out;
	if (ty == Ty::Sq) {
		prm::CreateSqIn c;
		set_op(&c, prm::kCmdCreateSq);
		c.cqn.set(cqn);
		c.log_wq_sz = log;
		c.min_wqe_inline_mode = mode & 0x80 ? mode & 0x7f : mode & 3;
		c.allow_multi_pkt_send_wqe = (mode >> 2) & 1;
		c.dbr_addr.set(dbr);
		c.pas.set(ring);
		if (want == prm::kStatOk &&
		    (c.min_wqe_inline_mode > 3 || (c.allow_multi_pkt_send_wqe && !s.caps.enhanced_mpw)))
			want = prm::kStatBadParam;
		st = run(s, f, &c, sizeof(c), &out, sizeof(out));
	} else {
		prm::CreateRqIn c;
		set_op(&c, prm::kCmdCreateRq);
		c.cqn.set(cqn);
		c.log_wq_sz = log;
		c.log_wq_stride = rq_log_stride;
		c.wq_type = mode & 0x40 ? (mode >> 4) & 3 : prm::kWqCyclic;
		c.dbr_addr.set(dbr);
		c.pas.set(ring);
		if (c.wq_type == prm::kWqLinkedListStriding) {
			uint8_t g = in.u8();
			c.log_wqe_stride_size = g & 7;
			c.log_wqe_num_of_strides = (g >> 3) & 0x1f;
			o->striding = striding_geometry(s.caps, c, &o->log_buf);
			o->log_stride_bytes = 6 + c.log_wqe_stride_size;
			if (want == prm::kStatOk && !o->striding)
				want = prm::kStatBadParam;
		} else if (want == prm::kStatOk &&
			   (c.wq_type != prm::kWqCyclic ||
			    c.log_wq_stride < prm::kRxWqeCycMinLogStride ||
			    c.log_wq_stride > prm::kRxWqeCycMaxLogStride)) {
			want = prm::kStatBadParam;
		}
		/* scatter_fcs from mode bit 3 (an invalid 2 with bits 7, 6 and 3): 0 or 1, not with SHAMPO */
		c.scatter_fcs = (mode & 0xc8) == 0xc8 ? 2 : (mode >> 3) & 1;
		bool hd_ok;
		shampo_fill(s, in, c, *o, &hd_ok);
		bool sh_ok = shampo_ok(s, c, *o, cq >= 0 ? s.objs[cq].get() : nullptr, hd_ok);
		if (want == prm::kStatOk &&
		    (!sh_ok || c.scatter_fcs > 1 || (c.scatter_fcs && c.shampo_enable)))
			want = prm::kStatBadParam;
		st = run(s, f, &c, sizeof(c), &out, sizeof(out));
		o->shampo = c.shampo_enable && st == prm::kStatOk;
		if (c.scatter_fcs && st == prm::kStatOk)
			hit(g_cov[kCreateRqFcs]);
		if (c.shampo_enable && c.wq_type == prm::kWqCyclic && st == prm::kStatBadParam)
			hit(g_cov[kShampoCyclic]);
		if (c.shampo_enable && st == prm::kStatOk)
			hit(g_cov[kCreateShampoRq]);
	}
	if (want == prm::kStatOk && (!dbr_ok || !ring_ok))
		want = prm::kStatBadParam;
	if (want == prm::kStatResourceBusy)
		hit(g_cov[kBusy]);
	expect(st, want, ty == Ty::Sq ? "CREATE_SQ" : "CREATE_RQ");
	if (st != prm::kStatOk)
		return;
	hit(g_cov[ty == Ty::Sq ? kCreateSq : kCreateRq]);
	if (o->striding)
		hit(g_cov[kCreateStridingRq]);
	o->num = out.obj_num.get();
	FZ_CHECK(live_obj(s, f, ty, o->num) < 0, "queue number 0x%x already live", o->num);
	o->live = true;
	o->state = prm::kQueueRst;
	o->cq = cq;
	if (ty == Ty::Rq && ring_ok && o->striding) {
		/*
		 * every WQE posted, linked in ring order, one segment on the shared
		 * buffer: a WQE buffer up to its size is well formed, a larger one
		 * is malformed (an error CQE when a frame reaches it)
		 */
		uint32_t wqe_bytes = 1u << rq_log_stride;
		for (uint32_t i = 0; i < (1u << log); i++) {
			uint8_t *w = o->ring.cpu + (size_t)i * wqe_bytes;
			memset(w, 0, wqe_bytes);
			prm::SrqNextSeg ns = {};
			ns.next_wqe_index.set((uint16_t)((i + 1) & ((1u << log) - 1)));
			memcpy(w, &ns, sizeof(ns));
			prm::DataSeg d;
			d.byte_count.set(std::min<uint32_t>(s.rxbuf.size, 1u << o->log_buf));
			d.lkey.set(prm::kReservedLkey);
			d.addr.set(s.rxbuf.dma);
			memcpy(w + sizeof(ns), &d, sizeof(d));
		}
		prm::be32 v;
		v.set((1u << log) & 0xffff);
		memcpy(o->dbr.cpu, &v, 4);
	} else if (ty == Ty::Rq && ring_ok) {
		/*
		 * every WQE posted (one shared buffer in its first segment, the
		 * others end marks): frames that reach it complete
		 */
		for (uint32_t i = 0; i < (1u << log); i++) {
			uint8_t *w = o->ring.cpu + (i << rq_log_stride);
			prm::DataSeg d = {};

			memset(w, 0, 1u << rq_log_stride);
			d.byte_count.set(s.rxbuf.size);
			d.lkey.set(prm::kReservedLkey);
			d.addr.set(s.rxbuf.dma);
			memcpy(w, &d, sizeof(d));
		}
		prm::be32 v;
		v.set((1u << log) & 0xffff);
		memcpy(o->dbr.cpu, &v, 4);
	}
	s.objs[cq]->users++;
	s.objs.push_back(std::move(o));
}

void op_modify_q(State &s, Input &in, uint32_t f, Ty ty)
{
	int ix = pick(s, in, ty);
	uint32_t num = number(s, in, ix);
	uint8_t cur = in.u8(), next = in.u8();
	/* an RQ's MODIFY may carry context fields (prm::ModifyRqIn): vsd, scatter_fcs, or bits it does not know */
	bool ctx = ty == Ty::Rq && !(cur & 0x80) && (cur & 0x40);
	if (!(cur & 0x80)) {
		cur &= 3;
		next &= 3;
	}
	uint16_t opc = ty == Ty::Sq ? prm::kCmdModifySq : prm::kCmdModifyRq;
	prm::ModifyRqIn c;
	set_op(&c, opc);
	c.q.obj_num.set(num);
	c.q.cur_state = cur;
	c.q.next_state = next;
	uint32_t mask = 0;
	if (ctx) {
		uint8_t m = in.u8();
		mask = m & 0x80 ? m : m & (prm::kRqModifyVsd | prm::kRqModifyScatterFcs);
		c.modify_bitmask.set(mask);
		uint8_t v = in.u8();
		c.vsd = v & (m & 0x40 ? 0xff : 1);
		c.scatter_fcs = (uint8_t)((v >> 1) & (m & 0x20 ? 0x7f : 1));
	}
	prm::CmdOut out;
	uint8_t st = run(s, f, &c, ctx ? sizeof(c) : sizeof(prm::ModifyQueueIn), &out, sizeof(out));

	int o = live_obj(s, f, ty, num);
	auto valid = [](uint8_t x) { return x == 0 || x == 1 || x == 3; };
	uint8_t want;
	if (o < 0)
		want = prm::kStatBadResource;
	else if (ctx && ((mask & ~(prm::kRqModifyVsd | prm::kRqModifyScatterFcs)) ||
			 ((mask & prm::kRqModifyVsd) && c.vsd > 1) ||
			 ((mask & prm::kRqModifyScatterFcs) &&
			  (c.scatter_fcs > 1 || (c.scatter_fcs && s.objs[o]->shampo)))))
		want = prm::kStatBadParam;
	else if (!valid(cur) || !valid(next))
		want = prm::kStatBadParam;
	else if (cur != s.objs[o]->state)
		want = prm::kStatBadResState;
	else if ((cur == prm::kQueueRst && next != prm::kQueueRdy) ||
		 (cur == prm::kQueueErr && next != prm::kQueueRst))
		want = prm::kStatBadResState;
	else
		want = prm::kStatOk;
	expect(st, want, ty == Ty::Sq ? "MODIFY_SQ" : "MODIFY_RQ");
	if (st == prm::kStatOk) {
		hit(g_cov[ty == Ty::Sq ? kModifySq : kModifyRq]);
		if (mask & prm::kRqModifyVsd)
			hit(g_cov[kModifyRqVsd]);
		if ((mask & prm::kRqModifyScatterFcs) && c.scatter_fcs)
			hit(g_cov[kModifyRqFcs]);
		Obj &q = *s.objs[o];
		q.state = next;
		if (next == prm::kQueueRst && ty == Ty::Sq) {
			/*
			 * The device restarts at WQE 0 and reads the producer counter
			 * from the doorbell record: clear it with our pc (the driver's
			 * recovery does the same), or the next doorbell on this SQ
			 * runs the WQEs still in the ring again.
			 */
			q.pc = 0;
			if (q.dbr.cpu)
				memset(q.dbr.cpu + prm::kSndDbr * 4, 0, 4);
		}
	}
}

void op_destroy(State &s, Input &in, uint32_t f, Ty ty)
{
	static const uint16_t ops[] = { prm::kCmdDestroyCq, prm::kCmdDestroySq, prm::kCmdDestroyRq,
					prm::kCmdDestroyRss };
	static const int cov[] = { kDestroyCq, kDestroySq, kDestroyRq, kDestroyRss };
	int ix = pick(s, in, ty);
	uint32_t num = number(s, in, ix);
	prm::DestroyObjIn c;
	set_op(&c, ops[(int)ty]);
	c.obj_num.set(num);
	prm::CmdOut out;
	uint8_t st = run(s, f, &c, sizeof(c), &out, sizeof(out));

	int o = live_obj(s, f, ty, num);
	bool flow_names = false;	/* an entry forwards to this RSS object */
	for (auto &e : s.flows[f])
		flow_names |= ty == Ty::Rss && e.second.action == prm::kFlowFwdRss &&
			      e.second.dest == num;
	uint8_t want = o < 0 ? prm::kStatBadResource :
		       (ty == Ty::Cq && s.objs[o]->users) || flow_names ? prm::kStatResourceBusy :
									  prm::kStatOk;
	if (o >= 0 && flow_names)
		hit(g_cov[kRssFlowBusy]);
	expect(st, want, "DESTROY");
	if (o < 0 && ix >= 0 && num == s.objs[ix]->num && s.objs[ix]->fn == f)
		hit(g_cov[kDoubleDestroy]);
	if (want == prm::kStatResourceBusy)
		hit(g_cov[kBusy]);
	if (st != prm::kStatOk)
		return;
	hit(g_cov[cov[(int)ty]]);
	Obj &ob = *s.objs[o];
	ob.live = false;
	if (ty == Ty::Sq || ty == Ty::Rq)
		s.objs[ob.cq]->users--;
	if (ty == Ty::Rss)
		s.rss_live[f]--;
	/* the device no longer reaches its memory */
	ob.ring.free();
	ob.dbr.free();
	ob.hd.free();
}

void op_rss(State &s, Input &in, uint32_t f, bool create)
{
	int ix = create ? -1 : pick(s, in, Ty::Rss);
	uint32_t num = create ? 0 : number(s, in, ix);
	uint8_t log = in.u8();
	log = log & 0x80 ? log & 0x7f : log % 4;
	uint32_t fields = in.u8();
	fields = fields & 0x80 ? fields << 1 : fields & 0xf;
	uint8_t short_in = in.u8();
	auto c = std::make_unique<prm::RssIn>();
	set_op(c.get(), create ? prm::kCmdCreateRss : prm::kCmdModifyRss);
	c->obj_num.set(num);
	c->rx_hash_fields.set(fields);
	c->log_table_size = log;
	in.bytes(c->toeplitz_key, in.u8() & 1 ? prm::kRssKeySize : 0);
	if (c->toeplitz_key[0] == 0)
		memcpy(c->toeplitz_key, kMsKey, prm::kRssKeySize);
	std::vector<int> table;
	bool names_ok = true;
	uint32_t n = log <= 8 ? 1u << log : 0;
	for (uint32_t i = 0; i < n; i++) {
		/* the first 8 entries from the input, the rest repeat them */
		uint32_t rqn = i < 8 ? number(s, in, pick(s, in, Ty::Rq)) : c->rqn[i % 8].get();
		c->rqn[i].set(rqn);
		int live = live_obj(s, f, Ty::Rq, rqn);
		if (live < 0)
			names_ok = false;
		table.push_back(live);
	}
	uint32_t in_len = sizeof(*c);
	uint32_t table_off = __builtin_offsetof(prm::RssIn, rqn);
	if (short_in & 1)
		in_len = table_off + 4 * (short_in >> 1) % (4u << (log <= 8 ? log : 0));
	prm::CreateObjOut out;
	uint32_t out_len = create ? sizeof(out) : sizeof(prm::CmdOut);
	uint8_t st = run(s, f, c.get(), in_len, &out, out_len);

	int o = create ? -1 : live_obj(s, f, Ty::Rss, num);
	uint8_t want;
	if (in_len < table_off + 4)
		want = prm::kStatBadInputLen;
	else if (!create && o < 0)
		want = prm::kStatBadResource;
	else if (log > 8 || (fields & ~0xfu))
		want = prm::kStatBadParam;
	else if (in_len < table_off + 4 * n)
		want = prm::kStatBadInputLen;
	else if (!names_ok)
		want = prm::kStatBadResource;
	else if (create && s.rss_live[f] == s.caps.max_rss)
		want = prm::kStatExceedLim;
	else
		want = prm::kStatOk;
	if (want == prm::kStatBadInputLen)
		hit(g_cov[kBadLen]);
	expect(st, want, create ? "CREATE_RSS" : "MODIFY_RSS");
	if (st != prm::kStatOk)
		return;
	if (!create) {
		hit(g_cov[kModifyRss]);
		s.objs[o]->table = table;
		return;
	}
	hit(g_cov[kCreateRss]);
	auto r = std::make_unique<Obj>();
	r->ty = Ty::Rss;
	r->fn = f;
	r->num = out.obj_num.get();
	FZ_CHECK(live_obj(s, f, Ty::Rss, r->num) < 0, "RSS number 0x%x already live", r->num);
	r->live = true;
	r->table = table;
	s.rss_live[f]++;
	s.objs.push_back(std::move(r));
}

/*
 * CREATE_RSS over one live RQ of f until the table is full (caps.max_rss
 * objects are more than an input's bytes could create one by one).
 */
void op_rss_fill(State &s, Input &in, uint32_t f)
{
	int rq = pick(s, in, Ty::Rq);
	if (rq < 0 || !s.objs[rq]->live || s.objs[rq]->fn != f)
		return;
	for (uint32_t i = 0; i <= s.caps.max_rss; i++) {
		uint32_t num = 0;
		uint8_t st = rss_cmd(s.fn[f], prm::kCmdCreateRss, 0, { s.objs[rq]->num }, 0, kMsKey,
				     &num);
		bool full = s.rss_live[f] == s.caps.max_rss;
		expect(st, full ? prm::kStatExceedLim : prm::kStatOk, "CREATE_RSS (fill)");
		if (full)
			return;
		auto r = std::make_unique<Obj>();
		r->ty = Ty::Rss;
		r->fn = f;
		r->num = num;
		r->live = true;
		r->table = { rq };
		s.rss_live[f]++;
		s.objs.push_back(std::move(r));
	}
}

/*
 * SET_FLOW_TABLE_ENTRY: an index in or out of the table, any action, a
 * dest naming an RQ, an RSS object or anything, match bytes from the input
 * (the value within its mask or not). The PRM's order of checks: index,
 * action and dest, reserved bytes and bits, value bits outside the mask.
 */
void op_flow_set(State &s, Input &in, uint32_t f)
{
	prm::SetFlowEntryIn c = {};
	set_op(&c, prm::kCmdSetFlowTableEntry);
	uint8_t sel = in.u8();
	uint32_t size = 1u << s.caps.log_max_ft_size;
	uint32_t ix = sel & 0x80 ? in.u16() : sel % 8;
	c.flow_index.set(ix);
	c.action = in.u8() % 5;
	uint8_t which = in.u8();
	uint32_t dest = c.action == prm::kFlowDrop && which & 1 ? 0 :
			which & 2 ? number(s, in, pick(s, in, Ty::Rss)) :
				    number(s, in, pick(s, in, Ty::Rq));
	c.dest.set(dest);
	in.bytes(reinterpret_cast<uint8_t *>(&c.mask), in.u8() & 1 ? sizeof(c.mask) : 8);
	if (in.u8() & 1) {
		c.mask.rsvd = 0;	/* mostly valid */
		c.mask.cvlan.set(c.mask.cvlan.get() & ~prm::kFlowCvlanRsvd);
	}
	auto *m = reinterpret_cast<const uint8_t *>(&c.mask);
	auto *v = reinterpret_cast<uint8_t *>(&c.value);
	uint8_t stray = in.u8();
	for (uint32_t i = 0; i < sizeof(c.value); i++)
		v[i] = m[i] & (uint8_t)(0x5a + i * 7);
	if (stray & 1)
		v[stray % sizeof(c.value)] |= 0x01;	/* maybe a bit outside the mask */
	prm::CmdOut out;
	uint8_t st = run(s, f, &c, sizeof(c), &out, sizeof(out));

	uint8_t want = prm::kStatOk;
	bool outside = false;
	for (uint32_t i = 0; i < sizeof(c.value); i++)
		outside |= (v[i] & ~m[i]) != 0;
	if (ix >= size)
		want = prm::kStatBadParam;
	else if (c.action == prm::kFlowFwdRq && live_obj(s, f, Ty::Rq, dest) < 0)
		want = prm::kStatBadResource;
	else if (c.action == prm::kFlowFwdRss && live_obj(s, f, Ty::Rss, dest) < 0)
		want = prm::kStatBadResource;
	else if (c.action == prm::kFlowDrop && dest)
		want = prm::kStatBadParam;
	else if (c.action == prm::kFlowFree || c.action > prm::kFlowDrop)
		want = prm::kStatBadParam;
	else if (c.mask.rsvd || c.value.rsvd || (c.mask.cvlan.get() & prm::kFlowCvlanRsvd) ||
		 (c.value.cvlan.get() & prm::kFlowCvlanRsvd) || outside)
		want = prm::kStatBadParam;
	expect(st, want, "SET_FLOW_TABLE_ENTRY");
	if (st != prm::kStatOk)
		return;
	hit(g_cov[kSetFlow]);
	s.flows[f][ix] = FlowEnt{ c.action, dest };
}

void op_flow_delete(State &s, Input &in, uint32_t f)
{
	prm::DeleteFlowEntryIn c = {};
	set_op(&c, prm::kCmdDeleteFlowTableEntry);
	uint8_t sel = in.u8();
	uint32_t ix = sel & 0x80 ? in.u16() : sel % 8;
	c.flow_index.set(ix);
	prm::CmdOut out;
	uint8_t st = run(s, f, &c, sizeof(c), &out, sizeof(out));
	bool used = s.flows[f].count(ix);
	expect(st, used ? prm::kStatOk : prm::kStatBadResource, "DELETE_FLOW_TABLE_ENTRY");
	if (st == prm::kStatOk) {
		hit(g_cov[kDeleteFlow]);
		s.flows[f].erase(ix);
	}
}

/* Queries, unknown opcodes, short boxes: the dispatcher's own checks. */
void op_misc(State &s, Input &in, uint32_t f)
{
	static const uint16_t ops[] = { prm::kCmdQueryHcaCap, prm::kCmdQueryQCounter,
					prm::kCmdQueryBusCounters };
	static const uint32_t outs[] = { sizeof(prm::QueryHcaCapOut), sizeof(prm::QueryQCounterOut),
					 sizeof(prm::QueryBusCountersOut) };
	uint8_t sel = in.u8();
	uint8_t lens = in.u8();
	uint8_t in_buf[64] = {}, out_buf[96];
	uint16_t opc = sel < 0xc0 ? ops[sel % 3] : in.u16();
	/* the link stays up: the data path checks count every frame at the receiver */
	if (opc == prm::kCmdModifyPortLink)
		opc = prm::kCmdQueryPortLink;
	uint32_t want_out = sel < 0xc0 ? outs[sel % 3] : 0;
	in.bytes(in_buf + 8, sel & 1 ? 56 : 0);
	reinterpret_cast<prm::CmdIn *>(in_buf)->opcode.set(opc);
	uint32_t in_len = lens & 1 ? (lens >> 1) % 16 : 8;
	uint32_t out_len = lens & 0x80 ? (lens >> 3) % 16 * 4 : sizeof(out_buf);
	memset(out_buf, 0xa5, sizeof(out_buf));
	bool ok = bus::cmd_exec(s.fn[f], in_buf, in_len, out_buf, out_len);
	FZ_CHECK(ok == (in_len >= 8 && out_len >= 8), "delivered %d with in_len %u out_len %u", ok,
		 in_len, out_len);
	if (!ok) {
		hit(g_cov[kUndelivered]);
		FZ_CHECK(out_buf[0] == 0xa5, "an undelivered command wrote its outbox");
		return;
	}
	for (uint32_t i = out_len; i < sizeof(out_buf); i++)
		FZ_CHECK(out_buf[i] == 0xa5, "outbox written beyond out_len");
	uint8_t st = out_buf[0];
	bool known = false;
	/* every opcode of prm::CmdOpcode (MODIFY_CQ was missing: a mutation reaching 0x403 failed) */
	for (uint16_t k : { prm::kCmdQueryHcaCap, prm::kCmdCreateCq, prm::kCmdDestroyCq,
			    prm::kCmdQueryCq, prm::kCmdModifyCq, prm::kCmdQueryQCounter,
			    prm::kCmdCreateRss, prm::kCmdModifyRss, prm::kCmdDestroyRss,
			    prm::kCmdCreateSq, prm::kCmdModifySq, prm::kCmdDestroySq,
			    prm::kCmdCreateRq, prm::kCmdModifyRq, prm::kCmdDestroyRq,
			    prm::kCmdQueryBusCounters, prm::kCmdQueryPortCounters,
			    prm::kCmdModifyPort, prm::kCmdQueryPortLink,
			    prm::kCmdModifyPortLink, prm::kCmdSetFlowTableEntry,
			    prm::kCmdDeleteFlowTableEntry, prm::kCmdModifyNicVportContext,
			    prm::kCmdQueryModuleEeprom, prm::kCmdAddVxlanUdpDport,
			    prm::kCmdDeleteVxlanUdpDport })
		known |= k == opc;
	if (!known) {
		expect(st, prm::kStatBadOp, "unknown opcode");
		hit(g_cov[kBadOp]);
		return;
	}
	if (!want_out)
		return;	/* a known opcode with an inbox of the input's bytes: any status */
	if (out_len < want_out) {
		expect(st, prm::kStatBadOutputLen, "short outbox");
		hit(g_cov[kBadOutLen]);
		return;
	}
	expect(st, prm::kStatOk, "query");
	hit(g_cov[sel % 3 == 0 ? kQueryCap : sel % 3 == 1 ? kQueryQ : kQueryBus]);
}

uint8_t *slot_of(Obj &cq, uint32_t ci) { return cq.ring.cpu + (ci & ((1u << cq.log) - 1)) * 64; }

/*
 * The slots the valid CQE at ci takes: 1, or a basic title and its mini
 * slots, whose op_own a driver rewrites once read (INVALID, the lap's owner).
 */
uint32_t compressed_slots(Obj &cq, uint32_t ci)
{
	const uint8_t *cqe = slot_of(cq, ci);
	if (((cqe[63] >> prm::kCqeFormatShift) & 3) != prm::kCqeFormatCompressed)
		return 1;
	FZ_CHECK(cq.comp, "compressed CQE on a CQ without cqe_comp_en");
	hit(g_cov[kCompressed]);
	if (cq.comp_layout == prm::kCqeCompEnhanced) {
		FZ_CHECK((cqe[63] >> 4) < prm::kMiniCqesPerEnhancedSlot, "enhanced slot of %u mini CQEs",
			 (cqe[63] >> 4) + 1);
		return 1;
	}
	uint32_t n = prm::load_be32(cqe + __builtin_offsetof(prm::Cqe64, byte_cnt));
	FZ_CHECK(n >= 2 && n <= 64, "title of %u mini CQEs", n);
	uint32_t slots = 1 + (n + prm::kMiniCqesPerSlot - 1) / prm::kMiniCqesPerSlot;
	for (uint32_t k = 1; k < slots; k++)
		slot_of(cq, ci + k)[63] = (uint8_t)(prm::kCqeInvalid << 4 | (((ci + k) >> cq.log) & 1));
	return slots;
}

/*
 * Consume the CQEs every live CQ got: an error CQE moves the queue that
 * reports there to ERR in the model too.
 */
void consume(State &s)
{
	for (size_t c = 0; c < s.objs.size(); c++) {
		Obj &cq = *s.objs[c];
		if (cq.ty != Ty::Cq || !cq.live)
			continue;
		for (;;) {
			const uint8_t *cqe = slot_of(cq, cq.ci);
			uint8_t op_own = cqe[63];
			if (cq.comp && cq.comp_layout == prm::kCqeCompEnhanced) {
				if (cqe[62] != (uint8_t)(cq.ci >> cq.log))
					break;
			} else if ((op_own & 1) != ((cq.ci >> cq.log) & 1) ||
				   (op_own >> 4) == prm::kCqeInvalid) {
				break;
			}
			cq.ci += compressed_slots(cq, cq.ci);
			/* like a driver: tell the device how far we consumed */
			prm::be32 ci;
			ci.set(cq.ci & prm::kCqCiMask);
			memcpy(cq.dbr.cpu + prm::kCqSetCiDbr * 4, &ci, 4);
			uint8_t op = op_own >> 4;
			if (op == prm::kCqeRespSend)
				hit(g_cov[kFrames]);
			if (op != prm::kCqeReqErr && op != prm::kCqeRespErr)
				continue;
			/* the queue the error CQE names (QPN, low 24 bits of s_wqe_opcode_qpn):
			 * an SQ and an RQ may share the CQ */
			uint32_t qpn = prm::load_be32(cqe + __builtin_offsetof(prm::ErrCqe,
									       s_wqe_opcode_qpn)) & 0xffffff;
			for (auto &q : s.objs)
				if (q->live && q->cq == (int)c && q->num == qpn &&
				    (q->ty == Ty::Sq || q->ty == Ty::Rq))
					q->state = prm::kQueueErr;
		}
	}
}

/* A frame out of an SQ (NOP or SEND), or a doorbell for any number. */
void op_traffic(State &s, Input &in, Bytes &frame, uint64_t frame_dma)
{
	uint8_t how = in.u8();
	if (how & 0x80) {
		/* a CQ arm doorbell or an SQ doorbell naming anything */
		uint32_t num = number(s, in, pick(s, in, how & 1 ? Ty::Cq : Ty::Sq));
		uint8_t b[8] = {};
		prm::store_be32(b + 4, how & 1 ? num : num << 8);
		uint64_t v;
		memcpy(&v, b, 8);
		bus::mmio_write64(s.fn[(how >> 1) & 1], how & 1 ? prm::kUarCqDoorbell :
					 prm::kUarSqDoorbell, v);
		return;
	}
	int ix = pick(s, in, Ty::Sq);
	if (ix < 0)
		return;
	Obj &sq = *s.objs[ix];
	if (!sq.ring.cpu) {
		/* destroyed: its doorbell must be ignored (the memory is gone) */
		uint8_t b[8] = {};
		prm::store_be32(b + 4, sq.num << 8);
		uint64_t v;
		memcpy(&v, b, 8);
		bus::mmio_write64(s.fn[sq.fn], prm::kUarSqDoorbell, v);
		hit(g_cov[kStaleDoorbell]);
		return;
	}
	if (sq.log > 10)
		return;
	if (sq.state != prm::kQueueRdy) {
		/* RST or ERR: the doorbell is ignored; post nothing (a later RDY would run it
		 * together with the next one and overflow a one-entry CQ) */
		uint8_t b[8] = {};
		prm::store_be32(b + 4, sq.num << 8);
		uint64_t v;
		memcpy(&v, b, 8);
		bus::mmio_write64(s.fn[sq.fn], prm::kUarSqDoorbell, v);
		return;
	}
	/* one SEND (or NOP) in the next WQEBB, CE asked */
	uint32_t size = 1u << sq.log;
	uint8_t *w = sq.ring.cpu + (sq.pc & (size - 1)) * 64;
	memset(w, 0, 64);
	prm::CtrlSeg ctrl;
	bool send = how & 2;
	ctrl.set(send ? prm::kOpSend : prm::kOpNop, sq.pc, sq.num, send ? 3 : 1);
	ctrl.fm_ce_se = prm::kCtrlCqUpdate;
	memcpy(w, &ctrl, sizeof(ctrl));
	if (send) {
		prm::DataSeg d;
		d.byte_count.set((uint32_t)frame.size());
		d.lkey.set(prm::kReservedLkey);
		d.addr.set(frame_dma);
		memcpy(w + 32, &d, sizeof(d));
	}
	sq.pc++;
	prm::be32 v;
	v.set(sq.pc);
	memcpy(sq.dbr.cpu + prm::kSndDbr * 4, &v, 4);
	uint64_t ctrl8;
	memcpy(&ctrl8, &ctrl, 8);
	uint64_t before = 0;
	prm::CmdIn q;
	set_op(&q, prm::kCmdQueryQCounter);
	prm::QueryQCounterOut qo;
	Fn *peer = s.fn[sq.fn ^ 1];
	if (exec(peer, q, &qo) == prm::kStatOk)
		before = qo.rx_if_down_packets.get();
	bus::mmio_write64(s.fn[sq.fn], prm::kUarSqDoorbell, ctrl8);
	/* a frame that reached a destroyed RQ through a stale RSS entry is dropped, counted */
	if (exec(peer, q, &qo) == prm::kStatOk && qo.rx_if_down_packets.get() > before)
		hit(g_cov[kIfDown]);
	consume(s);
}

} /* namespace */

extern "C" int LLVMFuzzerInitialize(int *, char ***)
{
	cov_init("cmd", g_cov, kNrCov);
	return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	Input in(data, size);
	begin_input();
	{
		State s;
		s.a = adapter_get(model_of(in.u8()));
		s.fn[0] = scx_hw_function(s.a, 0);
		s.fn[1] = scx_hw_function(s.a, 1);
		s.caps = query_caps(s.fn[0]);
		s.rss_live[0] = s.rss_live[1] = 0;
		s.rxbuf.alloc(2048);
		s.hdbuf.alloc(1024);
		TxBuf frame(Bytes(64, 0x11));
		frame.data[12] = 0x08;

		for (int i = 0; i < 96 && !in.empty(); i++) {
			uint8_t op = in.u8();
			uint32_t f = op >> 7;
			switch (op & 0x7f) {
			case 0 ... 9: op_create_cq(s, in, f); break;
			case 10 ... 19: op_create_q(s, in, f, Ty::Sq); break;
			case 20 ... 29: op_create_q(s, in, f, Ty::Rq); break;
			case 30 ... 39: op_modify_q(s, in, f, Ty::Sq); break;
			case 40 ... 49: op_modify_q(s, in, f, Ty::Rq); break;
			case 50 ... 59: op_rss(s, in, f, true); break;
			case 60 ... 64: op_rss(s, in, f, false); break;
			case 65 ... 69: op_destroy(s, in, f, Ty::Cq); break;
			case 70 ... 74: op_destroy(s, in, f, Ty::Sq); break;
			case 75 ... 79: op_destroy(s, in, f, Ty::Rq); break;
			case 80 ... 84: op_destroy(s, in, f, Ty::Rss); break;
			case 85 ... 94: op_misc(s, in, f); break;
			case 95 ... 99: op_flow_set(s, in, f); break;
			case 100 ... 101: op_flow_delete(s, in, f); break;
			case 102: op_rss_fill(s, in, f); break;
			default: op_traffic(s, in, frame.data, frame.dma); break;
			}
		}

		/* everything still alive goes, dependents first: flow entries, then objects */
		for (uint32_t f = 0; f < 2; f++)
			for (auto &e : s.flows[f]) {
				prm::DeleteFlowEntryIn c = {};
				prm::CmdOut out;
				set_op(&c, prm::kCmdDeleteFlowTableEntry);
				c.flow_index.set(e.first);
				FZ_CHECK(run(s, f, &c, sizeof(c), &out, sizeof(out)) == prm::kStatOk,
					 "final delete of flow entry %u", e.first);
			}
		for (Ty ty : { Ty::Rss, Ty::Sq, Ty::Rq, Ty::Cq }) {
			static const uint16_t ops[] = { prm::kCmdDestroyCq, prm::kCmdDestroySq,
							prm::kCmdDestroyRq, prm::kCmdDestroyRss };
			for (auto &o : s.objs) {
				if (o->ty != ty || !o->live)
					continue;
				uint8_t st = destroy(s.fn[o->fn], ops[(int)ty], o->num);
				FZ_CHECK(st == prm::kStatOk, "final destroy of 0x%x: status 0x%x", o->num, st);
				o->live = false;
			}
		}
		s.objs.clear();
		adapter_put(s.a);
	}
	check_clean("cmd");
	return 0;
}
