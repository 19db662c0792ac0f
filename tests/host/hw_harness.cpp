// SPDX-License-Identifier: GPL-2.0
#include "hw_harness.h"

#include <chrono>
#include <condition_variable>
#include <mutex>

namespace hwt {

int g_os_dev;

const uint8_t kMsKey[prm::kRssKeySize] = {
	0x6d, 0x5a, 0x56, 0xda, 0x25, 0x5b, 0x0e, 0xc2, 0x41, 0x67, 0x25, 0x3d, 0x43, 0xa3,
	0x8f, 0xb0, 0xd0, 0xca, 0x2b, 0xcb, 0xae, 0x7b, 0x30, 0xb4, 0x77, 0xcb, 0x2d, 0xa3,
	0x80, 0x30, 0xf2, 0x0c, 0x6a, 0x42, 0xb7, 0x3b, 0xbe, 0xac, 0x01, 0xfa,
};

/* ---- DMA ---- */

Dma &Dma::operator=(Dma &&o) noexcept
{
	if (this != &o) {
		free();
		cpu = o.cpu;
		dma = o.dma;
		size = o.size;
		o.cpu = nullptr;
		o.size = 0;
	}
	return *this;
}

void Dma::alloc(uint32_t n)
{
	free();
	cpu = static_cast<uint8_t *>(scx_os_dma_alloc(&g_os_dev, n, &dma));
	ASSERT_NE(cpu, nullptr);
	size = n;
}

void Dma::free()
{
	if (cpu)
		scx_os_dma_free(&g_os_dev, size, cpu, dma);
	cpu = nullptr;
	size = 0;
}

TxBuf::TxBuf(Bytes d) : data(std::move(d))
{
	dma = host::dma_map(data.data(), (uint32_t)data.size());
}

TxBuf::~TxBuf() { host::dma_forget(dma); }

/* ---- commands ---- */

prm::HcaCaps query_caps(Fn *fn)
{
	prm::CmdIn in;
	set_op(&in, prm::kCmdQueryHcaCap);
	prm::QueryHcaCapOut out;
	EXPECT_EQ(exec(fn, in, &out), prm::kStatOk);
	return out.caps;
}

uint8_t destroy(Fn *fn, uint16_t op, uint32_t num)
{
	prm::DestroyObjIn in;
	set_op(&in, op);
	in.obj_num.set(num);
	prm::CmdOut out;
	return exec(fn, in, &out);
}

uint8_t modify_queue(Fn *fn, uint16_t op, uint32_t num, uint8_t cur, uint8_t next)
{
	prm::ModifyQueueIn in;
	set_op(&in, op);
	in.obj_num.set(num);
	in.cur_state = cur;
	in.next_state = next;
	prm::CmdOut out;
	return exec(fn, in, &out);
}

uint8_t modify_rq_ctx(Fn *fn, uint32_t rqn, uint8_t cur, uint8_t next, uint32_t mask, uint8_t vsd,
		      uint8_t scatter_fcs)
{
	prm::ModifyRqIn in;
	set_op(&in, prm::kCmdModifyRq);
	in.q.obj_num.set(rqn);
	in.q.cur_state = cur;
	in.q.next_state = next;
	in.modify_bitmask.set(mask);
	in.vsd = vsd;
	in.scatter_fcs = scatter_fcs;
	prm::CmdOut out;
	return exec(fn, in, &out);
}

prm::QueryCqOut query_cq(Fn *fn, uint32_t cqn)
{
	prm::DestroyObjIn in = {};
	prm::QueryCqOut out = {};
	in.hdr.opcode.set(prm::kCmdQueryCq);
	in.obj_num.set(cqn);
	EXPECT_TRUE(bus::cmd_exec(fn, &in, sizeof(in), &out, sizeof(out)));
	EXPECT_EQ(out.hdr.status, prm::kStatOk);
	return out;
}

/* ---- CQ ---- */

uint8_t Cq::create(Fn *f, uint32_t log_size, uint32_t eqn)
{
	fn = f;
	log = log_size;
	ci = 0;
	ring.alloc(prm::kCqeSize << (log_size > 16 ? 0 : log_size));
	dbr.alloc(8);
	for (uint32_t i = 0; i < ring.size / prm::kCqeSize; i++)
		ring.cpu[i * prm::kCqeSize + prm::kCqeSize - 1] = prm::kCqeInitOpOwn;
	if (comp_layout == prm::kCqeCompEnhanced)
		for (uint32_t i = 0; i < ring.size / prm::kCqeSize; i++)
			ring.cpu[i * prm::kCqeSize + prm::kCqeSize - 2] = prm::kCqeInitValidity;

	prm::CreateCqIn in;
	set_op(&in, prm::kCmdCreateCq);
	in.log_cq_size = (uint8_t)log_size;
	in.c_eqn.set(eqn);
	in.dbr_addr.set(dbr.dma);
	in.pas.set(ring.dma);
	in.moder = moder;
	in.cqe_comp_en = comp_en;
	in.mini_cqe_res_format = comp_fmt;
	in.cqe_comp_layout = comp_layout;
	prm::CreateObjOut out;
	uint8_t st = exec(fn, in, &out);
	cqn = st == prm::kStatOk ? out.obj_num.get() : 0;
	return st;
}

uint8_t Cq::destroy() { return hwt::destroy(fn, prm::kCmdDestroyCq, cqn); }

uint8_t Cq::modify(uint32_t select, uint32_t period, uint32_t count, uint8_t mode)
{
	prm::ModifyCqIn in;
	set_op(&in, prm::kCmdModifyCq);
	in.cqn.set(cqn);
	in.modify_field_select.set(select);
	in.moder.cq_period.set((uint16_t)period);
	in.moder.cq_max_count.set((uint16_t)count);
	in.moder.cq_period_mode = mode;
	prm::CmdOut out;
	return exec(fn, in, &out);
}

const prm::Cqe64 *Cq::peek() const
{
	auto *cqe = reinterpret_cast<const prm::Cqe64 *>(ring.cpu + (ci & (size() - 1)) * prm::kCqeSize);
	uint8_t op_own = __atomic_load_n(&cqe->op_own, __ATOMIC_ACQUIRE);
	if ((op_own & 1) != ((ci >> log) & 1) || (op_own >> 4) == prm::kCqeInvalid)
		return nullptr;
	return cqe;
}

bool Cq::poll(prm::Cqe64 *out)
{
	const prm::Cqe64 *cqe = peek();
	if (!cqe)
		return false;
	memcpy(out, cqe, sizeof(*out));
	ci++;
	prm::be32 v;
	v.set(ci & 0xffffff);
	memcpy(dbr.cpu + prm::kCqSetCiDbr * 4, &v, 4);
	return true;
}

std::vector<prm::Cqe64> Cq::poll_all()
{
	std::vector<prm::Cqe64> v;
	prm::Cqe64 c;
	while (poll(&c))
		v.push_back(c);
	return v;
}

void Cq::arm()
{
	prm::be32 words[2];
	words[0].set(prm::kCqDbReqNot | (ci & 0xffffff));
	words[1].set(cqn);
	memcpy(dbr.cpu + prm::kCqArmDbr * 4, &words[0], 4);
	uint64_t v;
	memcpy(&v, words, 8);
	bus::mmio_write64(fn, prm::kUarCqDoorbell, v);
}

/* ---- SQ ---- */

uint8_t Sq::create(Fn *f, uint32_t cqn, uint32_t log_size, uint8_t inline_mode, bool mpw)
{
	fn = f;
	log = log_size;
	pc = 0;
	ring.alloc(prm::kSendWqeBB << (log_size > 13 ? 0 : log_size));
	dbr.alloc(8);

	prm::CreateSqIn in;
	set_op(&in, prm::kCmdCreateSq);
	in.cqn.set(cqn);
	in.log_wq_sz = (uint8_t)log_size;
	in.min_wqe_inline_mode = inline_mode;
	in.allow_multi_pkt_send_wqe = mpw;
	in.dbr_addr.set(dbr.dma);
	in.pas.set(ring.dma);
	prm::CreateObjOut out;
	uint8_t st = exec(fn, in, &out);
	sqn = st == prm::kStatOk ? out.obj_num.get() : 0;
	return st;
}

uint8_t Sq::modify(uint8_t cur, uint8_t next)
{
	uint8_t st = modify_queue(fn, prm::kCmdModifySq, sqn, cur, next);
	if (st == prm::kStatOk && next == prm::kQueueRst)
		pc = 0;
	return st;
}

uint8_t Sq::destroy() { return hwt::destroy(fn, prm::kCmdDestroySq, sqn); }

Bytes build_wqe(const SendWqe &w, uint16_t index, uint32_t sqn)
{
	uint32_t ihs = (uint32_t)w.inline_hdr.size();
	uint32_t inl_ds = ihs > 2 ? (ihs - 2 + 15) / 16 : 0;
	uint32_t ds = 2 + inl_ds;
	for (const Seg &s : w.segs)
		ds += s.inl ? (4 + (uint32_t)s.data.size() + 15) / 16 : 1;
	if (w.opcode == prm::kOpNop)
		ds = w.ds_override >= 0 ? (uint32_t)w.ds_override : 1;

	Bytes b(std::max<size_t>(((ds + 3) / 4) * 64, 64), 0);
	prm::CtrlSeg ctrl = {};
	ctrl.set(w.opcode, index, sqn, w.ds_override >= 0 ? (uint32_t)w.ds_override : ds);
	ctrl.fm_ce_se = w.ce ? prm::kCtrlCqUpdate : 0;
	memcpy(b.data(), &ctrl, sizeof(ctrl));
	if (w.opcode == prm::kOpNop)
		return b;

	prm::EthSeg eth = {};
	eth.cs_flags = w.cs_flags;
	eth.mss.set(w.mss);
	eth.inline_hdr_sz.set((uint16_t)ihs);
	if (ihs)
		memcpy(eth.inline_hdr_start, w.inline_hdr.data(), std::min<uint32_t>(ihs, 2));
	if (w.insert_type) {
		eth.inline_hdr_sz.set(w.insert_type);
		prm::store_be16(eth.inline_hdr_start, w.insert_tci);
	}
	memcpy(b.data() + 16, &eth, sizeof(eth));
	if (ihs > 2)
		memcpy(b.data() + 32, w.inline_hdr.data() + 2, ihs - 2);

	uint32_t d = 2 + inl_ds;
	for (const Seg &s : w.segs) {
		prm::DataSeg seg = {};
		if (s.inl) {
			seg.byte_count.set((uint32_t)s.data.size() | prm::kInlineSegFlag);
			memcpy(b.data() + d * 16, &seg, 4);
			memcpy(b.data() + d * 16 + 4, s.data.data(), s.data.size());
			d += (4 + (uint32_t)s.data.size() + 15) / 16;
			continue;
		}
		seg.byte_count.set(s.len);
		seg.lkey.set(s.lkey);
		seg.addr.set(s.addr);
		memcpy(b.data() + d * 16, &seg, sizeof(seg));
		d++;
	}
	return b;
}

uint16_t Sq::post_bytes(const Bytes &wqe)
{
	uint16_t index = pc;
	uint32_t nbb = (uint32_t)(wqe.size() + 63) / 64;
	for (uint32_t i = 0; i < nbb; i++) {
		uint32_t slot = (pc + i) & (size() - 1);
		size_t n = std::min<size_t>(64, wqe.size() - i * 64);
		memset(ring.cpu + slot * 64, 0, 64);
		memcpy(ring.cpu + slot * 64, wqe.data() + i * 64, n);
	}
	last_ctrl = pc;
	pc = (uint16_t)(pc + nbb);
	return index;
}

uint16_t Sq::post(const SendWqe &w) { return post_bytes(build_wqe(w, pc, sqn)); }

uint16_t Sq::post_nop(uint32_t ds, bool ce)
{
	SendWqe w;
	w.opcode = prm::kOpNop;
	w.ds_override = (int)ds;
	w.ce = ce;
	return post(w);
}

void Sq::pad_for(uint32_t n)
{
	while (size() - (pc & (size() - 1)) < n)
		post_nop();
}

void Sq::doorbell()
{
	prm::be32 v;
	v.set(pc);
	__atomic_thread_fence(__ATOMIC_RELEASE);
	memcpy(dbr.cpu + prm::kSndDbr * 4, &v, 4);
	uint64_t ctrl8;
	memcpy(&ctrl8, ring.cpu + (last_ctrl & (size() - 1)) * 64, 8);
	bus::mmio_write64(fn, prm::kUarSqDoorbell, ctrl8);
}

void Sq::send_inline(const Bytes &frame)
{
	SendWqe w;
	Seg seg;
	seg.inl = true;
	seg.data = frame;
	w.segs.push_back(seg);
	pad_for(3);
	post(w);
	doorbell();
}

/* ---- RQ ---- */

uint8_t Rq::create(Fn *f, uint32_t cqn, uint32_t log_size, uint32_t buffer_size)
{
	fn = f;
	log = log_size;
	posted = 0;
	buf_size = buffer_size;
	ring.alloc(16u << (log_segs + (log_size > 13 ? 0 : log_size)));
	dbr.alloc(8);
	bufs.clear();
	if (log_size <= 13)
		for (uint32_t i = 0; i < size(); i++)
			bufs.emplace_back(buffer_size);

	prm::CreateRqIn in;
	set_op(&in, prm::kCmdCreateRq);
	in.cqn.set(cqn);
	in.log_wq_sz = (uint8_t)log_size;
	in.log_wq_stride = (uint8_t)(4 + log_segs);
	in.wq_type = prm::kWqCyclic;
	in.vsd = vsd;
	in.scatter_fcs = scatter_fcs;
	in.dbr_addr.set(dbr.dma);
	in.pas.set(ring.dma);
	prm::CreateObjOut out;
	uint8_t st = exec(fn, in, &out);
	rqn = st == prm::kStatOk ? out.obj_num.get() : 0;
	return st;
}

uint8_t Rq::modify(uint8_t cur, uint8_t next)
{
	uint8_t st = modify_queue(fn, prm::kCmdModifyRq, rqn, cur, next);
	if (st == prm::kStatOk && next == prm::kQueueRst)
		posted = 0;
	return st;
}

uint8_t Rq::destroy() { return hwt::destroy(fn, prm::kCmdDestroyRq, rqn); }

void Rq::write_wqe(uint32_t slot, uint64_t addr, uint32_t len, uint32_t lkey)
{
	write_seg(slot, 0, addr, len, lkey);
}

void Rq::write_seg(uint32_t slot, uint32_t k, uint64_t addr, uint32_t len, uint32_t lkey)
{
	prm::DataSeg d = {};
	d.byte_count.set(len);
	d.lkey.set(lkey);
	d.addr.set(addr);
	memcpy(ring.cpu + (((slot & (size() - 1)) << log_segs) + k) * sizeof(d), &d, sizeof(d));
}

void Rq::publish(uint32_t count)
{
	posted = count;
	prm::be32 v;
	v.set(count & 0xffff);
	__atomic_thread_fence(__ATOMIC_RELEASE);
	memcpy(dbr.cpu + prm::kRcvDbr * 4, &v, 4);
}

void Rq::post(uint32_t n)
{
	for (uint32_t i = 0; i < n; i++) {
		uint32_t slot = (posted + i) & (size() - 1);
		write_wqe(slot, bufs[slot].dma, buf_size);
	}
	publish(posted + n);
}

/* ---- RSS ---- */

uint8_t rss_cmd(Fn *fn, uint16_t op, uint32_t obj, const std::vector<uint32_t> &table,
		uint32_t fields, const uint8_t *key, uint32_t *num_out, int log_override,
		const uint8_t *type_fields, uint8_t flags)
{
	auto in = std::make_unique<prm::RssIn>();
	set_op(in.get(), op);
	in->obj_num.set(obj);
	in->rx_hash_fields.set(fields);
	uint32_t log = 0;
	while ((1u << log) < table.size())
		log++;
	in->log_table_size = (uint8_t)(log_override >= 0 ? log_override : log);
	memcpy(in->toeplitz_key, key, prm::kRssKeySize);
	if (type_fields)
		memcpy(in->type_fields, type_fields, sizeof(in->type_fields));
	in->flags = flags;
	for (size_t i = 0; i < table.size() && i < 256; i++)
		in->rqn[i].set(table[i]);
	prm::CreateObjOut out;
	memset(&out, 0xa5, sizeof(out));
	uint32_t out_len = op == prm::kCmdCreateRss ? sizeof(out) : sizeof(prm::CmdOut);
	EXPECT_TRUE(bus::cmd_exec(fn, in.get(), sizeof(*in), &out, out_len));
	if (num_out)
		*num_out = out.hdr.status == prm::kStatOk && op == prm::kCmdCreateRss ?
				   out.obj_num.get() : 0;
	return out.hdr.status;
}

/* ---- Link ---- */

void Link::setup(Fn *tx_fn, Fn *rx_fn, uint32_t log_sq, uint32_t log_rq, uint32_t log_cq,
		 uint32_t fields, uint32_t rx_buf)
{
	ASSERT_EQ(txcq.create(tx_fn, log_cq, 1), prm::kStatOk);
	ASSERT_EQ(sq.create(tx_fn, txcq.cqn, log_sq), prm::kStatOk);
	ASSERT_EQ(sq.modify(prm::kQueueRst, prm::kQueueRdy), prm::kStatOk);
	ASSERT_EQ(rxcq.create(rx_fn, log_cq, 2), prm::kStatOk);
	ASSERT_EQ(rq.create(rx_fn, rxcq.cqn, log_rq, rx_buf), prm::kStatOk);
	ASSERT_EQ(rq.modify(prm::kQueueRst, prm::kQueueRdy), prm::kStatOk);
	rq.post(rq.size());
	ASSERT_EQ(rss_cmd(rx_fn, prm::kCmdCreateRss, 0, { rq.rqn }, fields, kMsKey, &rss),
		  prm::kStatOk);
}

void Link::teardown()
{
	if (rss && rq.fn) {
		EXPECT_EQ(destroy(rq.fn, prm::kCmdDestroyRss, rss), prm::kStatOk);
	}
	rss = 0;
	if (rq.rqn)
		rq.destroy();
	if (sq.sqn)
		sq.destroy();
	if (rxcq.cqn)
		rxcq.destroy();
	if (txcq.cqn)
		txcq.destroy();
	rq.rqn = sq.sqn = rxcq.cqn = txcq.cqn = 0;
}

void steer_rx(Fn *fn, Link &l, uint32_t rqn)
{
	uint32_t num;
	ASSERT_EQ(rss_cmd(fn, prm::kCmdModifyRss, l.rss, { rqn }, kFields4, kMsKey, &num),
		  prm::kStatOk);
}

void teardown_rx(Fn *fn, Link &l, uint32_t rqn, Cq &cq)
{
	if (l.rss)
		steer_rx(fn, l, l.rq.rqn);
	if (rqn) {
		EXPECT_EQ(destroy(fn, prm::kCmdDestroyRq, rqn), prm::kStatOk);
	}
	if (cq.cqn) {
		EXPECT_EQ(cq.destroy(), prm::kStatOk);
	}
	l.teardown();
}

NapiRun napi_until(Cq &cq, void *ctx, uint32_t vector, uint32_t want)
{
	std::mutex mu;
	std::condition_variable cv;
	bool fired = false;
	NapiRun r;

	host::set_irq_hook([&](void *c, uint32_t vec) {
		if (c != ctx || vec != vector)
			return;
		std::lock_guard<std::mutex> g(mu);
		fired = true;
		cv.notify_one();
	});
	cq.arm();
	r.arms++;
	while (r.got < want) {
		std::unique_lock<std::mutex> g(mu);
		if (!cv.wait_for(g, std::chrono::seconds(5), [&] { return fired; })) {
			r.lost = cq.peek() != nullptr;
			break;
		}
		fired = false;
		g.unlock();
		r.got += (uint32_t)cq.poll_all().size();
		cq.arm();
		r.arms++;
	}
	host::set_irq_hook(nullptr);
	return r;
}

void Link::send(const Bytes &frame, uint32_t inline_sz, uint8_t cs_flags, bool ce)
{
	queue(frame, inline_sz, cs_flags, ce);
	sq.doorbell();
}

void Link::queue(const Bytes &frame, uint32_t inline_sz, uint8_t cs_flags, bool ce)
{
	SendWqe w;
	w.inline_hdr.assign(frame.begin(), frame.begin() + inline_sz);
	w.cs_flags = cs_flags;
	w.ce = ce;
	if (frame.size() > inline_sz) {
		tx_bufs.push_back(std::make_unique<TxBuf>(Bytes(frame.begin() + inline_sz, frame.end())));
		Seg s;
		s.addr = tx_bufs.back()->dma;
		s.len = (uint32_t)tx_bufs.back()->data.size();
		w.segs.push_back(s);
	}
	uint32_t nbb = (uint32_t)(build_wqe(w, 0, 0).size() / 64);
	sq.pad_for(nbb);
	sq.post(w);
}

uint8_t modify_link(Fn *fn, uint32_t mask, uint32_t admin, uint8_t an_disable, uint8_t up)
{
	prm::ModifyPortLinkIn in;
	prm::CmdOut out;

	set_op(&in, prm::kCmdModifyPortLink);
	in.modify_bitmask.set(mask);
	in.proto_admin.set(admin);
	in.an_disable = an_disable;
	in.admin_up = up;
	return exec(fn, in, &out);
}

uint8_t link_admin(Fn *fn, bool up)
{
	return modify_link(fn, prm::kLinkModifyAdmin, 0, 0, up ? 1 : 0);
}

/* ---- fixture ---- */

void HwTest::SetUp()
{
	host::reset();
	ASSERT_EQ(scx_hw_adapter_create(model(), 2, &g_os_dev, &adapter), 0);
	fn0 = scx_hw_function(adapter, 0);
	fn1 = scx_hw_function(adapter, 1);
	ASSERT_NE(fn0, nullptr);
	ASSERT_NE(fn1, nullptr);
	scx_hw_set_irq_ctx(fn0, &irq0);
	scx_hw_set_irq_ctx(fn1, &irq1);
	ASSERT_EQ(link_admin(fn0, true), prm::kStatOk);
	ASSERT_EQ(link_admin(fn1, true), prm::kStatOk);
}

void HwTest::TearDown()
{
	host::set_irq_hook(nullptr);
	scx_hw_adapter_destroy(adapter);
	adapter = nullptr;
	EXPECT_EQ(host::zalloc_outstanding(), 0) << "device memory leaked";
	EXPECT_EQ(host::locks_live(), 0) << "device locks leaked";
	EXPECT_EQ(host::errors(), 0) << "OS layer misuse (see stderr)";
}

} /* namespace hwt */
