// SPDX-License-Identifier: GPL-2.0
/*
 * CQE compression end to end: the device model (src/hw/cq_comp.cpp) writes
 * titles and mini CQEs, the driver's decompressor (src/en/cqe_decomp.h)
 * turns them back into one CQE per packet. Each test runs the same traffic
 * twice, with cqe_comp_en off and on, and wants the same packets' CQEs
 * (but the owner bit and byte 62) and bus_wr_cqe_bytes + _saved of the
 * compressed run equal to bus_wr_cqe_bytes of the plain one. Covered: the
 * three mini CQE formats, basic and enhanced layouts, cyclic and striding
 * RQs, sessions split across polls, CQ wrap, runs broken by flows, error
 * and filler CQEs, overruns, and the CREATE_CQ checks per model.
 */
#include <set>

#include "en/cqe_decomp.h"
#include "frames.h"
#include "hw_harness.h"

using namespace hwt;

namespace {

using Frames = std::vector<Bytes>;

/* A flow's frame with payload bytes chosen by seed (its checksum differs, its hash not). */
Bytes flow_frame(uint16_t sport, uint8_t seed, size_t payload = 0)
{
	frames::Spec s;
	s.sport = sport;
	s.payload = frames::payload(payload ? payload : 10 + seed % 7, seed);
	return frames::build(s);
}

/* Frames whose hashes differ but whose sums do not: ports moved by k in opposite ways. */
Bytes same_sum_frame(uint16_t k)
{
	frames::Spec s;
	s.sport = (uint16_t)(1000 + k);
	s.dport = (uint16_t)(2000 - k);
	s.payload = frames::payload(12, 7);
	return frames::build(s);
}

/* What must survive compression: bytes 0..61 and op_own's opcode and format. */
Bytes key(const prm::Cqe64 &c)
{
	const auto *b = reinterpret_cast<const uint8_t *>(&c);
	Bytes k(b, b + 62);
	k.push_back((uint8_t)(c.op_own & 0xfc));
	return k;
}

std::vector<Bytes> keys(const std::vector<prm::Cqe64> &v)
{
	std::vector<Bytes> out;
	for (const auto &c : v)
		out.push_back(key(c));
	return out;
}

struct Cfg {
	uint8_t en = 0;
	uint8_t fmt = prm::kMiniCqeCsum;
	uint8_t layout = prm::kCqeCompBasic;
	bool striding = false;
	uint32_t log_cq = 8;
	uint32_t budget = 64;	/* packets per poll */
	uint8_t vsd = 1;	/* the RQ's VLAN strip disable */

	Cfg on() const
	{
		Cfg s = *this;
		s.en = 1;
		return s;
	}
};

/* One poll of the decompressor, specialised as the driver's poll loop would be. */
template <prm::CqeCompLayout L, prm::MiniCqeFormat F, bool S>
uint32_t poll_t(en::CqeDecomp *d, en::Cq *cq, uint32_t budget, std::vector<prm::Cqe64> *out)
{
	uint32_t n = 0;
	const prm::Cqe64 *c;

	while (n < budget && (c = en::cqe_decomp_next<L, F, S>(d, cq))) {
		out->push_back(*c);
		n++;
	}
	en::cqe_decomp_poll_done<L, S>(d, cq);
	cq->update_ci();
	return n;
}

template <prm::CqeCompLayout L, prm::MiniCqeFormat F>
uint32_t poll_s(bool s, en::CqeDecomp *d, en::Cq *cq, uint32_t budget, std::vector<prm::Cqe64> *out)
{
	return s ? poll_t<L, F, true>(d, cq, budget, out) : poll_t<L, F, false>(d, cq, budget, out);
}

template <prm::CqeCompLayout L>
uint32_t poll_f(uint8_t f, bool s, en::CqeDecomp *d, en::Cq *cq, uint32_t budget,
		std::vector<prm::Cqe64> *out)
{
	if (f == prm::kMiniCqeHash)
		return poll_s<L, prm::kMiniCqeHash>(s, d, cq, budget, out);
	if (f == prm::kMiniCqeCsum)
		return poll_s<L, prm::kMiniCqeCsum>(s, d, cq, budget, out);
	return poll_s<L, prm::kMiniCqeCsumStridx>(s, d, cq, budget, out);
}

/* The driver's side of a compressing CQ: the en::Cq view of the harness's ring. */
struct Decompressor {
	Cfg s;
	en::Cq cq = {};
	en::CqeDecomp d;

	Decompressor(const Cfg &setup, hwt::Cq *hw) : s(setup)
	{
		cq.cqes = reinterpret_cast<prm::Cqe64 *>(hw->ring.cpu);
		cq.mask = hw->size() - 1;
		cq.log_size = (uint8_t)hw->log;
		cq.dbrec = reinterpret_cast<prm::be32 *>(hw->dbr.cpu);
		cq.fn = hw->fn;
		en::cqe_decomp_init(&d);
	}
	uint32_t poll(uint32_t budget, std::vector<prm::Cqe64> *out)
	{
		if (s.layout == prm::kCqeCompEnhanced)
			return poll_f<prm::kCqeCompEnhanced>(s.fmt, s.striding, &d, &cq, budget, out);
		return poll_f<prm::kCqeCompBasic>(s.fmt, s.striding, &d, &cq, budget, out);
	}
	/* Poll until nothing is left; returns the polls that found something. */
	uint32_t poll_all(std::vector<prm::Cqe64> *out)
	{
		uint32_t polls = 0;
		while (poll(s.budget, out))
			polls++;
		return polls;
	}
};

struct Result {
	std::vector<prm::Cqe64> cqes;	/* one per packet (or error, filler) */
	uint64_t wr = 0, saved = 0, overrun = 0;
	uint32_t polls = 0, blks = 0, pkts = 0;
};

class HwCqeComp : public HwTest {
protected:
	/* Each burst is queued on fn0's SQ and sent by one doorbell; then fn1's CQ is polled dry. */
	Result run(const Cfg &s, const std::vector<Frames> &bursts, bool drain = true)
	{
		Result r;
		Link l;
		hwt::Cq scq;
		StridingRq srq;
		hwt::Cq *cq = s.striding ? &scq : &l.rxcq;

		cq->comp_en = s.en;
		cq->comp_fmt = s.en ? s.fmt : 0;
		cq->comp_layout = s.en ? s.layout : 0;
		l.rq.vsd = srq.vsd = s.vsd;
		l.setup(fn0, fn1, 7, 6, s.log_cq);
		if (s.striding) {
			EXPECT_EQ(scq.create(fn1, s.log_cq, 3), prm::kStatOk);
			EXPECT_EQ(srq.create(fn1, scq.cqn, 4, 6, 5), prm::kStatOk);	/* 32 x 64 B */
			EXPECT_EQ(modify_queue(fn1, prm::kCmdModifyRq, srq.rqn, prm::kQueueRst,
					       prm::kQueueRdy),
				  prm::kStatOk);
			srq.post(16);
			uint32_t num;
			EXPECT_EQ(rss_cmd(fn1, prm::kCmdModifyRss, l.rss, { srq.rqn }, kFields4, kMsKey,
					  &num),
				  prm::kStatOk);
		}
		prm::QueryBusCountersOut b0 = query_bus(fn1);
		prm::QueryQCounterOut q0 = query_q(fn1);
		Decompressor dec(s, cq);

		for (const Frames &burst : bursts) {
			for (size_t i = 0; i < burst.size(); i++)
				l.queue(burst[i], 0, 0, i + 1 == burst.size());
			l.sq.doorbell();
			l.txcq.poll_all();
			if (!drain)
				continue;
			size_t before = r.cqes.size();
			if (s.en) {
				r.polls += dec.poll_all(&r.cqes);
			} else {
				for (auto &c : cq->poll_all())
					r.cqes.push_back(c);
			}
			if (!s.striding)
				l.rq.post((uint32_t)(r.cqes.size() - before));
		}
		if (!drain) {
			if (s.en)
				dec.poll_all(&r.cqes);
			else
				r.cqes = cq->poll_all();
		}
		prm::QueryBusCountersOut b1 = query_bus(fn1);
		prm::QueryQCounterOut q1 = query_q(fn1);
		r.wr = b1.wr_cqe_bytes.get() - b0.wr_cqe_bytes.get();
		r.saved = b1.wr_cqe_bytes_saved.get() - b0.wr_cqe_bytes_saved.get();
		r.overrun = q1.rx_cq_overrun.get() - q0.rx_cq_overrun.get();
		r.blks = dec.d.blks;
		r.pkts = dec.d.pkts;

		if (s.striding) {
			uint32_t num;
			EXPECT_EQ(rss_cmd(fn1, prm::kCmdModifyRss, l.rss, { l.rq.rqn }, kFields4, kMsKey,
					  &num),
				  prm::kStatOk);
			EXPECT_EQ(destroy(fn1, prm::kCmdDestroyRq, srq.rqn), prm::kStatOk);
			EXPECT_EQ(scq.destroy(), prm::kStatOk);
		}
		l.teardown();
		return r;
	}

	/* The same traffic plain and compressed: the same CQEs, the bytes accounted for. */
	Result compare(const Cfg &s, const std::vector<Frames> &bursts, bool drain = true)
	{
		Result plain = run(s, bursts, drain);
		Result comp = run(s.on(), bursts, drain);

		EXPECT_EQ(keys(comp.cqes), keys(plain.cqes));
		EXPECT_EQ(comp.overrun, plain.overrun);
		EXPECT_EQ(plain.saved, 0u);
		EXPECT_EQ(plain.wr, plain.cqes.size() * prm::kCqeSize);
		EXPECT_EQ(comp.wr + comp.saved, plain.wr);
		return comp;
	}
};

class HwCqeCompCx4 : public HwCqeComp {
	int model() const override { return prm::kModelCx4; }
};

class HwCqeCompCx7 : public HwCqeComp {
	int model() const override { return prm::kModelCx7; }
};

Frames one_flow(uint32_t n, uint16_t sport = 1000, uint8_t seed0 = 1)
{
	Frames f;
	for (uint32_t i = 0; i < n; i++)
		f.push_back(flow_frame(sport, (uint8_t)(seed0 + i)));
	return f;
}

/* Two flows, in runs of `run` frames each. */
Frames two_flows(uint32_t n, uint32_t run)
{
	Frames f;
	for (uint32_t i = 0; i < n; i++)
		f.push_back(flow_frame((i / run) % 2 ? 3000 : 1000, (uint8_t)(i + 1)));
	return f;
}

/*
 * n bursts: every mix-th one `mixed` frames of two flows in runs of `run`,
 * the others base + i % spread frames of one flow.
 */
std::vector<Frames> mixed_bursts(uint32_t n, uint32_t mix, uint32_t mixed, uint32_t run,
				 uint32_t base, uint32_t spread)
{
	std::vector<Frames> bursts;
	for (uint32_t i = 0; i < n; i++)
		bursts.push_back(i % mix == mix - 1 ? two_flows(mixed, run) :
						      one_flow(base + i % spread, 1000, (uint8_t)(i * 13)));
	return bursts;
}

/* A 16-entry CQ, compressing in `layout`, polled `budget` packets at a time. */
Cfg wrap_cfg(uint8_t layout, uint32_t budget)
{
	Cfg s;
	s.layout = layout;
	s.log_cq = 4;
	s.budget = budget;
	return s;
}

/* A title and its mini slots, read straight from the ring. */
TEST_F(HwCqeComp, BasicTitleAndMiniSlotsAsThePrmHasThem)
{
	Link l;
	l.rxcq.comp_en = 1;
	l.rxcq.comp_fmt = prm::kMiniCqeCsum;
	l.setup(fn0, fn1);
	Frames f = one_flow(10);
	for (size_t i = 0; i < f.size(); i++)
		l.queue(f[i], 0, 0, i + 1 == f.size());
	l.sq.doorbell();

	const auto *cqe = reinterpret_cast<const prm::Cqe64 *>(l.rxcq.ring.cpu);
	EXPECT_EQ(cqe[0].format(), prm::kCqeFormatCompressed);
	EXPECT_EQ(cqe[0].opcode(), prm::kCqeRespSend);
	EXPECT_EQ(cqe[0].owner(), 0);
	EXPECT_EQ(cqe[0].byte_cnt.get(), 10u);
	EXPECT_EQ(cqe[0].wqe_counter.get(), 0);
	const auto *mini = reinterpret_cast<const prm::MiniCqe8 *>(&cqe[1]);
	for (uint32_t i = 0; i < 10; i++)
		EXPECT_EQ(mini[i].byte_cnt.get(), f[i].size()) << i;
	/* two mini slots after the title, the rest untouched */
	EXPECT_EQ(cqe[3].op_own, prm::kCqeInitOpOwn);
	prm::QueryCqOut q;
	prm::DestroyObjIn in;
	set_op(&in, prm::kCmdQueryCq);
	in.obj_num.set(l.rxcq.cqn);
	ASSERT_EQ(exec(fn1, in, &q), prm::kStatOk);
	EXPECT_EQ(q.producer_counter.get(), 3u);
	prm::QueryBusCountersOut b = query_bus(fn1);
	EXPECT_EQ(b.wr_cqe_bytes.get(), 3 * 64u);
	EXPECT_EQ(b.wr_cqe_bytes_saved.get(), 7 * 64u);
}

TEST_F(HwCqeComp, CsumFormatCyclicOneBurst)
{
	Result r = compare(Cfg(), { one_flow(20) });
	EXPECT_EQ(r.cqes.size(), 20u);
	EXPECT_EQ(r.wr, 4 * 64u);	/* title + 3 mini slots */
	EXPECT_EQ(r.saved, 16 * 64u);
	EXPECT_EQ(r.blks, 1u);
	EXPECT_EQ(r.pkts, 20u);
}

/*
 * A stripped VLAN tag is a title field (mini CQEs do not carry it): one
 * flow whose TCI changes mid-burst makes two runs, and every packet gets
 * its own TCI back. Both layouts, cyclic and striding.
 */
TEST_F(HwCqeCompCx7, VlanTciChangeEndsTheRun)
{
	Frames f;
	for (uint32_t i = 0; i < 12; i++) {
		frames::Spec sp;
		sp.vlan = i < 6 ? 5 : 0x2006;
		sp.payload = frames::payload(12, 9);	/* same sum: only the TCI differs */
		f.push_back(frames::build(sp));
	}
	for (uint8_t layout : { prm::kCqeCompBasic, prm::kCqeCompEnhanced }) {
		for (bool striding : { false, true }) {
			SCOPED_TRACE(std::to_string(layout) + (striding ? " striding" : " cyclic"));
			Cfg s;
			s.vsd = 0;
			s.layout = layout;
			s.striding = striding;
			s.fmt = striding ? prm::kMiniCqeCsumStridx : prm::kMiniCqeCsum;
			Result r = compare(s, { f });
			ASSERT_EQ(r.cqes.size(), 12u);
			for (uint32_t i = 0; i < 12; i++) {
				EXPECT_TRUE(r.cqes[i].has_vlan()) << i;
				EXPECT_EQ(r.cqes[i].vlan_info.get(), i < 6 ? 5 : 0x2006) << i;
				EXPECT_EQ(r.cqes[i].byte_cnt.get() & 0xffff, f[i].size() - 4) << i;
			}
			EXPECT_EQ(r.blks, 2u) << "one run per TCI";
			/* enhanced: each run's title is its first packet's own CQE */
			EXPECT_EQ(r.pkts, layout == prm::kCqeCompBasic ? 12u : 10u);
		}
	}
}

/* Issue 13's goal: bursts of 32 cost at least 4x fewer CQE bytes on the bus. */
TEST_F(HwCqeCompCx7, Bursts32SaveFourFifthsAndMore)
{
	std::vector<Frames> bursts;
	for (uint8_t i = 0; i < 6; i++)
		bursts.push_back(one_flow(32, (uint16_t)(1000 + i), (uint8_t)(i * 32)));
	for (uint8_t layout : { prm::kCqeCompBasic, prm::kCqeCompEnhanced }) {
		Cfg s;
		s.layout = layout;
		Result r = compare(s, bursts);
		/* basic: title + 4 mini slots; enhanced: a regular CQE + slots of 7, 7, 7, 7, 3 */
		EXPECT_EQ(r.wr, 6u * (layout == prm::kCqeCompBasic ? 5 : 6) * 64) << (int)layout;
		EXPECT_GE(6u * 32 * 64, 4 * r.wr) << (int)layout;
	}
}

TEST_F(HwCqeComp, HashFormatCarriesEachPacketsHash)
{
	Cfg s;
	s.fmt = prm::kMiniCqeHash;
	Frames f;
	for (uint16_t k = 0; k < 12; k++)
		f.push_back(same_sum_frame(k));
	Result r = compare(s, { f, one_flow(6) });
	EXPECT_EQ(r.blks, 1u);	/* the one-flow burst differs in sums: not compressed */
	EXPECT_EQ(r.pkts, 12u);
	std::set<uint32_t> hashes;
	for (uint32_t i = 0; i < 12; i++)
		hashes.insert(r.cqes[i].rss_hash_result.get());
	EXPECT_EQ(hashes.size(), 12u);
}

TEST_F(HwCqeComp, RunsBreakWhereSharedFieldsDiffer)
{
	Result r = compare(Cfg(), { two_flows(24, 5), two_flows(16, 1), two_flows(30, 9) });
	EXPECT_GT(r.saved, 0u);
	EXPECT_EQ(r.cqes.size(), 70u);
}

TEST_F(HwCqeComp, FullSessionsOf64AndLongBursts)
{
	Cfg s;
	s.log_cq = 9;
	Result r = compare(s, { one_flow(64), one_flow(64, 1000, 100), one_flow(60, 1000, 50) });
	EXPECT_EQ(r.blks, 3u);
}

/* A 16-entry CQ wraps many times; polls of 3 split every session. */
TEST_F(HwCqeComp, SplitSessionsAcrossCqWrap)
{
	Result r = compare(wrap_cfg(prm::kCqeCompBasic, 3), mixed_bursts(14, 3, 12, 2, 9, 5));
	EXPECT_GE(r.polls, r.cqes.size() / 3);
	EXPECT_GT(r.blks, 8u);
}

TEST_F(HwCqeComp, ErrorCqeEndsTheRunBeforeIt)
{
	/* WQE 5 with a bad lkey: 5 packets, then the error CQE, then the RQ is in ERR */
	auto bad = [](Link &l) { l.rq.write_wqe(5, l.rq.bufs[5].dma, l.rq.buf_size, 0x1234); };
	std::vector<prm::Cqe64> got[2];
	uint64_t wr[2], saved[2];
	for (int on = 0; on < 2; on++) {
		Link l;
		l.rxcq.comp_en = (uint8_t)on;
		l.rxcq.comp_fmt = on ? prm::kMiniCqeCsum : 0;
		l.setup(fn0, fn1);
		bad(l);
		prm::QueryBusCountersOut b0 = query_bus(fn1);
		Frames f = one_flow(10);
		for (size_t i = 0; i < f.size(); i++)
			l.queue(f[i], 0, 0, i + 1 == f.size());
		l.sq.doorbell();
		Cfg s;
		s.en = (uint8_t)on;
		Decompressor dec(s, &l.rxcq);
		if (on)
			dec.poll_all(&got[on]);
		else
			got[on] = l.rxcq.poll_all();
		prm::QueryBusCountersOut b1 = query_bus(fn1);
		wr[on] = b1.wr_cqe_bytes.get() - b0.wr_cqe_bytes.get();
		saved[on] = b1.wr_cqe_bytes_saved.get() - b0.wr_cqe_bytes_saved.get();
		l.teardown();
	}
	ASSERT_EQ(got[1].size(), 6u);
	ASSERT_EQ(got[0].size(), 6u);
	for (auto &g : got)	/* the error CQE names the RQ: a new number in each run */
		reinterpret_cast<prm::ErrCqe *>(&g[5])->s_wqe_opcode_qpn.set(0);
	EXPECT_EQ(keys(got[1]), keys(got[0]));
	EXPECT_EQ(got[1][5].opcode(), prm::kCqeRespErr);
	EXPECT_EQ(wr[1], 3 * 64u);	/* title + 1 mini slot, the error CQE */
	EXPECT_EQ(wr[1] + saved[1], wr[0]);
}

/* The device never overwrites an unread CQE, held runs included. */
TEST_F(HwCqeComp, OverrunWithRunsOfOneIsThePlainOne)
{
	Cfg s;
	s.log_cq = 4;
	Result r = compare(s, { two_flows(40, 1) }, false);
	EXPECT_EQ(r.cqes.size(), 16u);
	EXPECT_EQ(r.overrun, 24u);
}

TEST_F(HwCqeComp, CompressionFitsWhatOverrunsPlain)
{
	Cfg s;
	s.log_cq = 4;
	Result plain = run(s, { one_flow(40) }, false);
	Result comp = run(s.on(), { one_flow(40) }, false);
	EXPECT_EQ(plain.cqes.size(), 16u);
	EXPECT_EQ(plain.overrun, 24u);
	ASSERT_EQ(comp.cqes.size(), 40u);
	EXPECT_EQ(comp.overrun, 0u);
	for (uint32_t i = 0; i < 16; i++)
		EXPECT_EQ(key(comp.cqes[i]), key(plain.cqes[i])) << i;
	EXPECT_EQ(comp.wr, 6 * 64u);	/* title + 5 mini slots */
}

/* Striding RQ: strides derived from byte_cnt (csum) on cx5, filler CQEs break runs. */
TEST_F(HwCqeComp, StridingCsumDerivesStrideIndexAndStopsAtFillers)
{
	Cfg s;
	s.striding = true;
	Frames f;
	for (uint32_t i = 0; i < 30; i++)
		f.push_back(flow_frame(1000, (uint8_t)(i + 1), i % 3 ? 100 : 300));
	Result r = compare(s, { f, one_flow(12) });
	uint32_t fillers = 0;
	for (auto &c : r.cqes)
		fillers += (c.byte_cnt.get() & prm::kMpwrqCqeFiller) != 0;
	EXPECT_GT(fillers, 0u);
	EXPECT_GT(r.saved, 0u);
}

TEST_F(HwCqeCompCx7, StridingStrideIndexFormatBasicAndEnhanced)
{
	Frames f;
	for (uint32_t i = 0; i < 30; i++)
		f.push_back(flow_frame(1000, (uint8_t)(i + 1), i % 3 ? 100 : 300));
	for (uint8_t layout : { prm::kCqeCompBasic, prm::kCqeCompEnhanced }) {
		Cfg s;
		s.striding = true;
		s.fmt = prm::kMiniCqeCsumStridx;
		s.layout = layout;
		Result r = compare(s, { f, one_flow(12), two_flows(20, 4) });
		EXPECT_GT(r.saved, 0u) << (int)layout;
	}
}

TEST_F(HwCqeCompCx7, EnhancedSlotsOfSevenBehindARegularTitle)
{
	Cfg s;
	s.layout = prm::kCqeCompEnhanced;
	Result r = compare(s, { one_flow(20) });
	EXPECT_EQ(r.wr, 4 * 64u);	/* regular title + slots of 7, 7, 5 */
	EXPECT_EQ(r.blks, 1u);
	EXPECT_EQ(r.pkts, 19u);
}

TEST_F(HwCqeCompCx7, EnhancedValidityAcrossWrapWithSlotSizedBudgets)
{
	Result r = compare(wrap_cfg(prm::kCqeCompEnhanced, 8), mixed_bursts(40, 4, 10, 3, 5, 11));
	EXPECT_GT(r.saved, 0u);
	EXPECT_GT(r.wr / 64, 16u * 4);	/* the 16-entry CQ went round more than 4 times */
}

/* A slot bigger than the rest of the budget is split across polls, not left behind. */
TEST_F(HwCqeCompCx7, EnhancedSlotSplitsAcrossPolls)
{
	Link l;
	l.rxcq.comp_en = 1;
	l.rxcq.comp_fmt = prm::kMiniCqeCsum;
	l.rxcq.comp_layout = prm::kCqeCompEnhanced;
	l.setup(fn0, fn1);
	Frames f = one_flow(8);	/* a regular CQE and a slot of 7 */
	for (size_t i = 0; i < f.size(); i++)
		l.queue(f[i], 0, 0, i + 1 == f.size());
	l.sq.doorbell();
	Cfg s;
	s.en = 1;
	s.layout = prm::kCqeCompEnhanced;
	Decompressor dec(s, &l.rxcq);
	std::vector<prm::Cqe64> got;
	EXPECT_EQ(dec.poll(4, &got), 4u);	/* the title and 3 of the slot's 7 */
	EXPECT_EQ(dec.poll(1, &got), 1u);
	EXPECT_EQ(dec.poll(7, &got), 3u);
	EXPECT_EQ(dec.poll(7, &got), 0u);
	ASSERT_EQ(got.size(), 8u);
	for (uint32_t i = 0; i < 8; i++) {
		EXPECT_EQ(got[i].wqe_counter.get(), i);
		EXPECT_EQ(got[i].byte_cnt.get(), f[i].size());
	}
	l.teardown();
}

/*
 * A queue reset ends the run: the driver's recovery drops its title, so
 * the first CQE after it is a regular one even where the fields would
 * match (stride index format: wqe_counter is not compared; WQE 0 again).
 */
TEST_F(HwCqeCompCx7, QueueResetEndsTheEnhancedRun)
{
	Link l;
	l.setup(fn0, fn1);
	hwt::Cq cq;
	cq.comp_en = 1;
	cq.comp_fmt = prm::kMiniCqeCsumStridx;
	cq.comp_layout = prm::kCqeCompEnhanced;
	ASSERT_EQ(cq.create(fn1, 6, 3), prm::kStatOk);
	StridingRq rq;
	ASSERT_EQ(rq.create(fn1, cq.cqn, 4, 6, 5), prm::kStatOk);
	ASSERT_EQ(modify_queue(fn1, prm::kCmdModifyRq, rq.rqn, prm::kQueueRst, prm::kQueueRdy),
		  prm::kStatOk);
	rq.post(16);
	uint32_t num;
	ASSERT_EQ(rss_cmd(fn1, prm::kCmdModifyRss, l.rss, { rq.rqn }, kFields4, kMsKey, &num),
		  prm::kStatOk);
	auto burst = [&] {
		Frames f = one_flow(3);
		for (size_t i = 0; i < f.size(); i++)
			l.queue(f[i], 0, 0, i + 1 == f.size());
		l.sq.doorbell();
		l.txcq.poll_all();
	};
	burst();	/* a regular CQE and a slot of 2 */
	rq.reset(prm::kQueueRdy, 16);
	burst();
	const auto *cqe = reinterpret_cast<const prm::Cqe64 *>(cq.ring.cpu);
	EXPECT_EQ(cqe[1].format(), prm::kCqeFormatCompressed);
	EXPECT_EQ(cqe[2].format(), 0) << "compressed against the title before the reset";
	EXPECT_EQ(cqe[2].signature, 0);
	EXPECT_EQ(cqe[2].wqe_id.get(), 0);
	EXPECT_EQ(cqe[3].format(), prm::kCqeFormatCompressed);

	ASSERT_EQ(rss_cmd(fn1, prm::kCmdModifyRss, l.rss, { l.rq.rqn }, kFields4, kMsKey, &num),
		  prm::kStatOk);
	EXPECT_EQ(destroy(fn1, prm::kCmdDestroyRq, rq.rqn), prm::kStatOk);
	EXPECT_EQ(cq.destroy(), prm::kStatOk);
	l.teardown();
}

TEST_F(HwCqeCompCx7, EnhancedHashFormat)
{
	Cfg s;
	s.layout = prm::kCqeCompEnhanced;
	s.fmt = prm::kMiniCqeHash;
	Frames f;
	for (uint16_t k = 0; k < 17; k++)
		f.push_back(same_sum_frame(k));
	Result r = compare(s, { f });
	EXPECT_EQ(r.pkts, 16u);
}

/* ---- CREATE_CQ ---- */

uint8_t create_comp(Fn *fn, uint8_t en, uint8_t fmt, uint8_t layout)
{
	hwt::Cq cq;
	cq.comp_en = en;
	cq.comp_fmt = fmt;
	cq.comp_layout = layout;
	uint8_t st = cq.create(fn, 6, 0);
	if (st == prm::kStatOk) {
		EXPECT_EQ(cq.destroy(), prm::kStatOk);
	}
	return st;
}

TEST_F(HwCqeCompCx4, BasicOnlyWithoutStrideIndex)
{
	prm::HcaCaps c = query_caps(fn0);
	EXPECT_EQ(c.cqe_compression, 1);
	EXPECT_EQ(c.enhanced_cqe_compression, 0);
	EXPECT_EQ(c.mini_cqe_resp_stride_index, 0);
	EXPECT_EQ(create_comp(fn0, 1, prm::kMiniCqeHash, 0), prm::kStatOk);
	EXPECT_EQ(create_comp(fn0, 1, prm::kMiniCqeCsum, 0), prm::kStatOk);
	EXPECT_EQ(create_comp(fn0, 1, prm::kMiniCqeCsumStridx, 0), prm::kStatBadParam);
	EXPECT_EQ(create_comp(fn0, 1, prm::kMiniCqeCsum, prm::kCqeCompEnhanced), prm::kStatBadParam);
}

TEST_F(HwCqeCompCx7, EveryFormatAndLayout)
{
	prm::HcaCaps c = query_caps(fn0);
	EXPECT_EQ(c.enhanced_cqe_compression, 1);
	EXPECT_EQ(c.mini_cqe_resp_stride_index, 1);
	for (uint8_t f : { prm::kMiniCqeHash, prm::kMiniCqeCsum, prm::kMiniCqeCsumStridx })
		for (uint8_t l : { prm::kCqeCompBasic, prm::kCqeCompEnhanced })
			EXPECT_EQ(create_comp(fn0, 1, f, l), prm::kStatOk) << (int)f << " " << (int)l;
	EXPECT_EQ(create_comp(fn0, 1, 2, 0), prm::kStatBadParam);	/* no format 2 */
	EXPECT_EQ(create_comp(fn0, 1, 4, 0), prm::kStatBadParam);
	EXPECT_EQ(create_comp(fn0, 1, prm::kMiniCqeCsum, 2), prm::kStatBadParam);
	EXPECT_EQ(create_comp(fn0, 2, prm::kMiniCqeCsum, 0), prm::kStatBadParam);
	EXPECT_EQ(create_comp(fn0, 0, prm::kMiniCqeCsum, 0), prm::kStatBadParam);
	EXPECT_EQ(create_comp(fn0, 0, 0, prm::kCqeCompEnhanced), prm::kStatBadParam);
}

} /* namespace */

/*
 * Interrupt moderation counts completions, not slots: rx-frames means
 * packets, and a compressing CQ's slots hold up to 8 (counting slots let
 * a CQ moderated at 256 take ~1800 packets before its interrupt, more
 * than the RQ holds: rx_out_of_buffer with compression on).
 */
TEST_F(HwCqeCompCx7, ModerationCountsPacketsNotSlots)
{
	for (uint8_t layout : { prm::kCqeCompBasic, prm::kCqeCompEnhanced }) {
		Link l;
		l.rxcq.comp_en = 1;
		l.rxcq.comp_fmt = prm::kMiniCqeCsum;
		l.rxcq.comp_layout = layout;
		l.rxcq.moder.cq_period.set(1000);
		l.rxcq.moder.cq_max_count.set(16);
		l.rxcq.moder.cq_period_mode = prm::kCqPeriodFromCqe;
		l.setup(fn0, fn1);
		uint64_t i0 = host::irq_count(&irq1, 2);
		l.rxcq.arm();
		Frames f = one_flow(16);
		for (size_t i = 0; i < 15; i++)
			l.queue(f[i], 0, 0, i == 14);
		l.sq.doorbell();
		EXPECT_EQ(host::irq_count(&irq1, 2) - i0, 0u)
			<< "15 packets (a run: 3 slots), count 16; layout " << (int)layout;
		l.queue(f[15], 0, 0, true);
		l.sq.doorbell();
		EXPECT_EQ(host::irq_count(&irq1, 2) - i0, 1u) << "the 16th packet signals; layout " << (int)layout;
		prm::QueryCqOut q;
		prm::DestroyObjIn in;
		set_op(&in, prm::kCmdQueryCq);
		in.obj_num.set(l.rxcq.cqn);
		ASSERT_EQ(exec(fn1, in, &q), prm::kStatOk);
		EXPECT_LT(q.producer_counter.get(), 8u) << "far fewer slots than packets";
		l.teardown();
	}
}
