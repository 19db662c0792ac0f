// SPDX-License-Identifier: GPL-2.0
/* Test hooks: ring arithmetic and the CQ ownership protocol (see kunit/hooks.h). */
#include "hooks.h"

#include "en/port.h"
#include "en/rq.h"
#include "en/sq.h"
#include "hw/adapter.h"
#include "hw/cq.h"

using namespace softcx;

extern "C" int scx_kt_sq_has_room(uint16_t pc, uint16_t cc, uint32_t log_size, uint32_t n)
{
	en::Sq sq = {};

	sq.mask = (u16)((1u << log_size) - 1);
	sq.pc = pc;
	sq.cc = cc;
	return sq.has_room(n);
}

extern "C" uint32_t scx_kt_sq_slot(uint16_t ctr, uint32_t log_size)
{
	static u8 base[prm::kSendWqeBB];
	en::Sq sq = {};

	sq.mask = (u16)((1u << log_size) - 1);
	sq.wqes = base;
	return (u32)((usize)(sq.wqe_at(ctr) - sq.wqes) / prm::kSendWqeBB);
}

extern "C" uint32_t scx_kt_sq_max_wqebbs(void)
{
	return en::kSqMaxWqeBBs;
}

extern "C" uint32_t scx_kt_rq_missing(uint16_t pc, uint16_t cc, uint32_t log_size)
{
	en::Rq rq = {};

	rq.mask = (u16)((1u << log_size) - 1);
	rq.pc = pc;
	rq.cc = cc;
	return rq.missing();
}

extern "C" int scx_kt_rx_layout(uint32_t mtu, uint32_t headroom, uint32_t skb_headroom,
				uint32_t tailroom, int xdp, uint32_t *nfrags, uint32_t *bytes,
				uint32_t *frame_room)
{
	scx_os_layout os = { 4096, headroom, tailroom, skb_headroom };
	en::RqLayout l = {};

	if (!en::rx_layout(os, mtu, xdp, &l))
		return -1;
	*nfrags = l.nfrags;
	*bytes = 0;
	for (u32 i = 0; i < l.nfrags; i++)
		*bytes += l.frag[i].stride;
	*frame_room = l.frame_room;
	return 0;
}

struct scx_kt_cq {
	en::Cq cq;		/* driver side */
	hw::Cq *dev;		/* device side: the slot CREATE_CQ filled */
	hw::Function *fn;
	void *os_dev;
};

extern "C" scx_kt_cq *scx_kt_cq_create(struct scx_hw_function *fn, void *os_dev, uint32_t log_size,
				       uint32_t vector)
{
	auto *q = en::zalloc_one<scx_kt_cq>();
	int ix;

	if (!q)
		return nullptr;
	q->fn = fn;
	q->os_dev = os_dev;
	/* no port: a failed command would name no interface */
	if (en::cq_create(&q->cq, fn, os_dev, nullptr, (u8)log_size, vector, scx_cq_moder{})) {
		scx_os_free(q);
		return nullptr;
	}
	ix = hw::obj_slot(q->cq.cqn, hw::ObjType::Cq, hw::kMaxCqs);
	if (ix < 0) {
		en::cq_destroy(&q->cq, os_dev);
		scx_os_free(q);
		return nullptr;
	}
	q->dev = &fn->cq[ix];
	return q;
}

extern "C" void scx_kt_cq_destroy(scx_kt_cq *q)
{
	if (!q)
		return;
	en::cq_destroy(&q->cq, q->os_dev);
	scx_os_free(q);
}

extern "C" uint32_t scx_kt_cq_cqn(const scx_kt_cq *q)
{
	return q->cq.cqn;
}

extern "C" void scx_kt_cq_dev_post(scx_kt_cq *q, uint16_t wqe_counter, uint32_t byte_cnt)
{
	prm::Cqe64 cqe = {};
	hw::IrqBatch irqs;

	cqe.wqe_counter.set(wqe_counter);
	cqe.byte_cnt.set(byte_cnt);
	hw::irq_batch_init(&irqs);
	hw::cq_post(q->fn, q->dev, &cqe, prm::kCqeRespSend, &irqs);
	hw::irq_batch_flush(&irqs);
}

extern "C" uint32_t scx_kt_cq_dev_pi(const scx_kt_cq *q)
{
	return __atomic_load_n(&q->dev->pi, __ATOMIC_ACQUIRE);
}

extern "C" int scx_kt_cq_poll(scx_kt_cq *q, uint16_t *wqe_counter, uint32_t *byte_cnt)
{
	const prm::Cqe64 *cqe = q->cq.peek();

	if (!cqe)
		return 0;
	if (cqe->opcode() != prm::kCqeRespSend)
		return -1;
	*wqe_counter = cqe->wqe_counter.get();
	*byte_cnt = cqe->byte_cnt.get();
	q->cq.pop();
	return 1;
}

extern "C" uint32_t scx_kt_cq_cc(const scx_kt_cq *q)
{
	return q->cq.cc;
}

extern "C" uint32_t scx_kt_cq_update_ci(scx_kt_cq *q)
{
	q->cq.update_ci();
	return q->cq.dbrec[prm::kCqSetCiDbr].get();
}

extern "C" void scx_kt_cq_arm(scx_kt_cq *q)
{
	q->cq.arm(~0ull);	/* as after an event of every CQ: the doorbell always goes out */
}
