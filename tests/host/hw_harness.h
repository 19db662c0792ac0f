/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A minimal "driver" for testing the device model through the bus only:
 * commands via bus::cmd_exec, doorbells via bus::mmio_write64, rings and
 * buffers in DMA memory from the host OS layer. Deliberately simple and
 * independent of src/en, so device bugs and driver bugs do not hide each
 * other.
 */
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <memory>
#include <vector>

#include "frames.h"
#include "os_host.h"
#include "prm/bus.h"
#include "prm/cmd.h"
#include "prm/cqe.h"
#include "prm/wqe.h"
#include "softcx/core.h"

namespace hwt {

using namespace softcx;
using Fn = bus::Function;
using Bytes = std::vector<uint8_t>;

/* The os_dev every test adapter gets (the host layer ignores it). */
extern int g_os_dev;

/* ---- DMA memory ---- */
struct Dma {
	uint8_t *cpu = nullptr;
	uint64_t dma = 0;
	uint32_t size = 0;

	Dma() = default;
	explicit Dma(uint32_t n) { alloc(n); }
	Dma(const Dma &) = delete;
	Dma &operator=(const Dma &) = delete;
	Dma(Dma &&o) noexcept { *this = std::move(o); }
	Dma &operator=(Dma &&o) noexcept;
	~Dma() { free(); }
	void alloc(uint32_t n);
	void free();
};

/* Caller memory mapped for the device, as the shim does for skb data. */
struct TxBuf {
	Bytes data;
	uint64_t dma = 0;
	explicit TxBuf(Bytes d);
	TxBuf(const TxBuf &) = delete;
	TxBuf &operator=(const TxBuf &) = delete;
	~TxBuf();
};

/* ---- commands ---- */
template <typename In, typename Out>
uint8_t exec(Fn *fn, const In &in, Out *out)
{
	memset(out, 0xa5, sizeof(*out));	/* the device must write every byte */
	EXPECT_TRUE(bus::cmd_exec(fn, &in, sizeof(in), out, sizeof(*out)));
	return reinterpret_cast<prm::CmdOut *>(out)->status;
}

template <typename In>
void set_op(In *in, uint16_t op)
{
	memset(in, 0, sizeof(*in));
	reinterpret_cast<prm::CmdIn *>(in)->opcode.set(op);
}

/* A query that takes only its opcode (prm::CmdIn); expects it to succeed. */
template <typename Out>
Out query(Fn *fn, uint16_t opcode)
{
	prm::CmdIn in;
	Out out;

	set_op(&in, opcode);
	EXPECT_EQ(exec(fn, in, &out), prm::kStatOk);
	return out;
}

prm::HcaCaps query_caps(Fn *fn);
/* MODIFY_PORT_LINK: the fields modify_bitmask `mask` names (prm::ModifyPortLinkIn). */
uint8_t modify_link(Fn *fn, uint32_t mask, uint32_t admin, uint8_t an_disable, uint8_t up);
/* MODIFY_PORT_LINK admin_up: the cable is up once both ends are (SetUp brings both up). */
uint8_t link_admin(Fn *fn, bool up);
inline prm::QueryPortLinkOut query_link(Fn *fn)
{
	return query<prm::QueryPortLinkOut>(fn, prm::kCmdQueryPortLink);
}
uint8_t destroy(Fn *fn, uint16_t op, uint32_t num);
uint8_t modify_queue(Fn *fn, uint16_t op, uint32_t num, uint8_t cur, uint8_t next);
/* MODIFY_RQ cur -> next with modify_bitmask `mask` and vsd (prm::ModifyRqIn). */
uint8_t modify_rq_ctx(Fn *fn, uint32_t rqn, uint8_t cur, uint8_t next, uint32_t mask, uint8_t vsd,
		      uint8_t scatter_fcs = 0);
inline prm::QueryQCounterOut query_q(Fn *fn)
{
	return query<prm::QueryQCounterOut>(fn, prm::kCmdQueryQCounter);
}
inline prm::QueryBusCountersOut query_bus(Fn *fn)
{
	return query<prm::QueryBusCountersOut>(fn, prm::kCmdQueryBusCounters);
}
/* QUERY_PORT_COUNTERS: the MAC's counters (prm::PortCounters). */
inline prm::QueryPortCountersOut query_port(Fn *fn)
{
	return query<prm::QueryPortCountersOut>(fn, prm::kCmdQueryPortCounters);
}
/* QUERY_CQ of cqn (status, producer counter); expects the command to succeed. */
prm::QueryCqOut query_cq(Fn *fn, uint32_t cqn);

/* ---- CQ ---- */
struct Cq {
	Fn *fn = nullptr;
	uint32_t cqn = 0;
	uint32_t log = 0;
	uint32_t ci = 0;
	Dma ring, dbr;

	prm::CqModeration moder = {};	/* what create() asks for (default: none) */
	/* CQE compression create() asks for (default: none); enhanced: stamps validity 0xff */
	uint8_t comp_en = 0, comp_fmt = 0, comp_layout = 0;

	uint8_t create(Fn *f, uint32_t log_size, uint32_t eqn);
	uint8_t destroy();
	/* MODIFY_CQ of the fields `select` (prm::kCqModify*) names. */
	uint8_t modify(uint32_t select, uint32_t period, uint32_t count, uint8_t mode);
	uint32_t size() const { return 1u << log; }
	/* The next CQE if the device has written it (owner bit = lap parity), else null. */
	const prm::Cqe64 *peek() const;
	/* Consume one CQE: copy it out, ci++, update the set_ci record. */
	bool poll(prm::Cqe64 *out);
	/* Consume everything available. */
	std::vector<prm::Cqe64> poll_all();
	void arm();
};

/* ---- SQ ---- */
struct Seg {
	uint64_t addr = 0;
	uint32_t len = 0;
	uint32_t lkey = prm::kReservedLkey;
	bool inl = false;	/* inline segment: data carried in the WQE */
	Bytes data;		/* for inline segments */
};

struct SendWqe {
	uint8_t opcode = prm::kOpSend;
	Bytes inline_hdr;
	uint8_t cs_flags = 0;
	uint16_t mss = 0;
	std::vector<Seg> segs;
	bool ce = false;
	int ds_override = -1;	/* write this DS count instead of the real one */
	/* eth insert {type, vlan_tci} instead of inline_hdr when insert_type != 0 */
	uint16_t insert_type = 0;
	uint16_t insert_tci = 0;
};

struct Sq {
	Fn *fn = nullptr;
	uint32_t sqn = 0;
	uint32_t log = 0;
	uint16_t pc = 0;
	uint16_t last_ctrl = 0;	/* WQEBB index of the last WQE posted */
	Dma ring, dbr;

	uint8_t create(Fn *f, uint32_t cqn, uint32_t log_size, uint8_t inline_mode = 0,
		       bool mpw = false);
	uint8_t modify(uint8_t cur, uint8_t next);
	uint8_t destroy();
	uint32_t size() const { return 1u << log; }
	/* Write a prepared WQE (ds*16 bytes) at pc, wrapping the ring; returns its index. */
	uint16_t post_bytes(const Bytes &wqe);
	uint16_t post(const SendWqe &w);
	uint16_t post_nop(uint32_t ds = 1, bool ce = false);
	/* Pad with 1-WQEBB NOPs so that a WQE of n WQEBBs does not wrap. */
	void pad_for(uint32_t n);
	void doorbell();
	/* One SEND of frame, inline in its WQE, and the doorbell. */
	void send_inline(const Bytes &frame);
};

/* Build a WQE image (ctrl + eth + inline headers + segments). */
Bytes build_wqe(const SendWqe &w, uint16_t index, uint32_t sqn);

/* ---- RQ ---- */
struct Rq {
	Fn *fn = nullptr;
	uint32_t rqn = 0;
	/* CREATE_RQ vsd: harness RQs place frames as they came; a test sets 0 to strip */
	uint8_t vsd = 1;
	uint8_t scatter_fcs = 0;	/* CREATE_RQ scatter_fcs */
	uint32_t log = 0;
	uint32_t log_segs = 0;	/* data segments a WQE (CREATE_RQ log_wq_stride 4 + this) */
	uint32_t posted = 0;	/* WQE counter published in the dbrec */
	uint32_t buf_size = 0;
	Dma ring, dbr;
	std::vector<Dma> bufs;	/* one per slot */

	uint8_t create(Fn *f, uint32_t cqn, uint32_t log_size, uint32_t buffer_size = 2048);
	uint8_t modify(uint8_t cur, uint8_t next);
	uint8_t destroy();
	uint32_t size() const { return 1u << log; }
	/* Post n WQEs (buffers of buf_size at the slot's DMA buffer) and publish the count. */
	void post(uint32_t n);
	/* Write WQE `slot` by hand (bad address or lkey tests); does not publish. */
	void write_wqe(uint32_t slot, uint64_t addr, uint32_t len, uint32_t lkey = prm::kReservedLkey);
	/* Data segment k of WQE `slot` (write_wqe writes segment 0). */
	void write_seg(uint32_t slot, uint32_t k, uint64_t addr, uint32_t len,
		       uint32_t lkey = prm::kReservedLkey);
	void publish(uint32_t count);
	const uint8_t *buffer(uint32_t wqe_counter) const { return bufs[wqe_counter & (size() - 1)].cpu; }
};

/* ---- striding RQ ---- */
/*
 * A striding RQ driven through the bus: WQE i is a next segment and
 * `segs` data segments of seg_bytes each, in buffers of its own.
 */
struct StridingRq {
	Fn *fn = nullptr;
	uint32_t rqn = 0, log = 0, log_wqe = 0, log_stride = 0, log_num = 0, seg_bytes = 0;
	uint32_t posted = 0;
	Dma ring, dbr;
	std::vector<std::vector<Dma>> bufs;	/* [wqe][segment] */
	/* If set, create() sends its SHAMPO fields (shampo_enable on) too. */
	const prm::CreateRqIn *shampo = nullptr;
	uint8_t vsd = 1;	/* as Rq::vsd */

	uint32_t buf_bytes() const { return 1u << (log_stride + log_num); }
	uint32_t nsegs() const { return buf_bytes() / seg_bytes; }

	uint8_t create(Fn *f, uint32_t cqn, uint32_t log_size, uint32_t log_stride_, uint32_t log_num_,
		       uint32_t seg = 4096, int log_wqe_override = -1)
	{
		fn = f;
		log = log_size;
		log_stride = log_stride_;
		log_num = log_num_;
		seg_bytes = seg < buf_bytes() ? seg : buf_bytes();
		log_wqe = prm::kRxWqeStridingMinLogStride;
		while ((1u << log_wqe) < 16 * (1 + nsegs()))
			log_wqe++;
		if (log_wqe_override >= 0)
			log_wqe = (uint32_t)log_wqe_override;
		ring.alloc(1u << (log + (log_wqe > 10 ? 10 : log_wqe)));
		dbr.alloc(8);
		bufs.clear();
		bufs.resize(1u << log);
		if (log_wqe <= 10)
			for (auto &w : bufs)
				for (uint32_t k = 0; k < nsegs(); k++)
					w.emplace_back(seg_bytes);

		prm::CreateRqIn in;
		set_op(&in, prm::kCmdCreateRq);
		in.cqn.set(cqn);
		in.log_wq_sz = (uint8_t)log;
		in.log_wq_stride = (uint8_t)log_wqe;
		in.wq_type = prm::kWqLinkedListStriding;
		in.vsd = vsd;
		in.log_wqe_stride_size = prm::enc_log_stride_size(log_stride);
		in.log_wqe_num_of_strides = prm::enc_log_num_strides(log_num);
		in.dbr_addr.set(dbr.dma);
		in.pas.set(ring.dma);
		if (shampo) {
			constexpr size_t from = offsetof(prm::CreateRqIn, shampo_enable);
			memcpy(reinterpret_cast<uint8_t *>(&in) + from,
			       reinterpret_cast<const uint8_t *>(shampo) + from, sizeof(in) - from);
		}
		prm::CreateObjOut out;
		uint8_t st = exec(fn, in, &out);
		if (st == prm::kStatOk)
			rqn = out.obj_num.get();
		return st;
	}

	uint8_t *wqe(uint32_t ix) { return ring.cpu + ((size_t)(ix & ((1u << log) - 1)) << log_wqe); }

	/* Write WQE ix, linked to `next`, its segments over its own buffers. */
	void write(uint32_t ix, uint32_t next)
	{
		prm::SrqNextSeg ns = {};
		ns.next_wqe_index.set((uint16_t)next);
		memcpy(wqe(ix), &ns, sizeof(ns));
		for (uint32_t k = 0; k < nsegs(); k++)
			set_seg(ix, k, bufs[ix][k].dma, seg_bytes);
	}
	void set_seg(uint32_t ix, uint32_t k, uint64_t addr, uint32_t len,
		     uint32_t lkey = prm::kReservedLkey)
	{
		prm::DataSeg d = {};
		d.byte_count.set(len);
		d.lkey.set(lkey);
		d.addr.set(addr);
		memcpy(wqe(ix) + 16 + 16 * k, &d, sizeof(d));
	}
	void publish(uint32_t count)
	{
		posted = count;
		prm::be32 v;
		v.set(count & 0xffff);
		__atomic_thread_fence(__ATOMIC_RELEASE);
		memcpy(dbr.cpu + prm::kRcvDbr * 4, &v, 4);
	}
	/* Recovery: from state `from` to RST and RDY again, then n WQEs from slot 0. */
	void reset(uint8_t from, uint32_t n)
	{
		EXPECT_EQ(modify_queue(fn, prm::kCmdModifyRq, rqn, from, prm::kQueueRst), prm::kStatOk);
		EXPECT_EQ(modify_queue(fn, prm::kCmdModifyRq, rqn, prm::kQueueRst, prm::kQueueRdy),
			  prm::kStatOk);
		posted = 0;
		post(n);
	}
	/* Post n WQEs in ring order, each linked to the next slot. */
	void post(uint32_t n)
	{
		for (uint32_t i = 0; i < n; i++) {
			uint32_t ix = (posted + i) & ((1u << log) - 1);
			write(ix, (ix + 1) & ((1u << log) - 1));
		}
		publish(posted + n);
	}
	/* The bytes at stride `stride` of WQE ix (across segments). */
	Bytes read(uint32_t ix, uint32_t stride, uint32_t len) const
	{
		Bytes out;
		uint32_t off = stride << log_stride;
		for (uint32_t i = 0; i < len; i++, off++)
			out.push_back(bufs[ix][off / seg_bytes].cpu[off % seg_bytes]);
		return out;
	}
};

/*
 * The SHAMPO fields of a CREATE_RQ (prm/cmd.h) with shampo_enable on and
 * STRIDE alignment; sizes as log2 of bytes (reservation, header entry) or
 * of counts (packets per reservation, header entries).
 */
inline prm::CreateRqIn shampo_in(uint8_t match, uint32_t log_res, uint32_t log_pkts,
				 uint32_t log_entry, uint32_t log_hd, uint64_t hd_ring,
				 uint16_t timeout = 1024)
{
	prm::CreateRqIn in = {};
	in.shampo_enable = 1;
	in.shampo_match_criteria_type = match;
	in.shampo_no_match_alignment_granularity = prm::kShampoAlignStride;
	in.log_reservation_size = (uint8_t)(log_res - prm::kShampoLogReservationBase);
	in.log_max_num_of_packets_per_reservation = (uint8_t)log_pkts;
	in.log_headers_entry_size = (uint8_t)(log_entry - prm::kShampoLogHdrEntryBase);
	in.log_headers_buffer_entry_num = (uint8_t)log_hd;
	in.reservation_timeout.set(timeout);
	in.headers_pas.set(hd_ring);
	return in;
}

/* ---- RSS ---- */
extern const uint8_t kMsKey[prm::kRssKeySize];	/* the Microsoft verification key */
constexpr uint32_t kFields2 = prm::kRssFieldSrcIp | prm::kRssFieldDstIp;
constexpr uint32_t kFields4 = kFields2 | prm::kRssFieldL4SPort | prm::kRssFieldL4DPort;

/* table.size() must be a power of two (or a shorter list, to test rejection). */
uint8_t rss_cmd(Fn *fn, uint16_t op, uint32_t obj, const std::vector<uint32_t> &table,
		uint32_t fields, const uint8_t *key, uint32_t *num_out, int log_override = -1,
		const uint8_t *type_fields = nullptr, uint8_t flags = 0);
using frames::ref_toeplitz;

/*
 * A one-way link from fn to its peer: TX CQ + SQ on fn, RX CQ + RQ + RSS on
 * the peer, all RDY, RQ filled.
 */
struct Link {
	Link() = default;
	Link(const Link &) = delete;
	Link &operator=(const Link &) = delete;
	/* Destroys the device objects (RSS, RQ, SQ, CQs) before their memory goes. */
	~Link() { teardown(); }
	void teardown();
	Cq txcq, rxcq;
	Sq sq;
	Rq rq;
	uint32_t rss = 0;
	void setup(Fn *tx_fn, Fn *rx_fn, uint32_t log_sq = 6, uint32_t log_rq = 6,
		   uint32_t log_cq = 8, uint32_t fields = kFields4, uint32_t rx_buf = 10240);
	/* Post one SEND of `frame` (one data segment, optional inline headers), ring the doorbell. */
	void send(const Bytes &frame, uint32_t inline_sz = 0, uint8_t cs_flags = 0,
		  bool ce = true);
	/* The same without the doorbell: sq.doorbell() sends what was queued, in one go. */
	void queue(const Bytes &frame, uint32_t inline_sz = 0, uint8_t cs_flags = 0,
		   bool ce = true);
	std::vector<std::unique_ptr<TxBuf>> tx_bufs;	/* kept mapped until the link dies */
};

/*
 * A test's own RQ (and CQ) behind a Link on its receiving function fn:
 * steer_rx() points the link's RSS at rqn; teardown_rx() points it back
 * at the link's RQ, destroys the RQ and CQ (those that exist), then the
 * link.
 */
void steer_rx(Fn *fn, Link &l, uint32_t rqn);
void teardown_rx(Fn *fn, Link &l, uint32_t rqn, Cq &cq);

/*
 * NAPI on this thread while others produce: wait for cq's event (irq
 * context ctx, vector), take every CQE, arm again; until `want` CQEs came,
 * or no event for 5 s. lost: it stopped with CQEs pending, an event lost.
 */
struct NapiRun {
	uint32_t got = 0;
	uint64_t arms = 0;
	bool lost = false;
};
NapiRun napi_until(Cq &cq, void *ctx, uint32_t vector, uint32_t want);

/* ---- fixture ---- */
class HwTest : public ::testing::Test {
protected:
	void SetUp() override;
	void TearDown() override;
	virtual int model() const { return prm::kModelCx5; }

	scx_hw_adapter *adapter = nullptr;
	Fn *fn0 = nullptr, *fn1 = nullptr;
	int irq0 = 0, irq1 = 0;		/* irq contexts: their addresses */
};

} /* namespace hwt */
