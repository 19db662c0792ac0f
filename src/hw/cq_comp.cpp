// SPDX-License-Identifier: GPL-2.0
/*
 * CQE compression: the CQE writer of a CQ created with cqe_comp_en (the
 * formats and what the driver does with them are in prm/cqe.h).
 *
 * A run is a sequence of RX CQEs that agree in every byte a mini CQE does
 * not carry, with the wqe_counter each would derive from its predecessor
 * (or carried, in the stride index format). Error and filler CQEs never
 * join one. The CQ writes a run's slots as the CQEs come, from its
 * producer index on, but publishes them only when the run ends, so the
 * driver never sees a run half written:
 *
 * basic layout: the first CQE of a run is written whole at pi but for its
 * op_own. When a second one joins, that slot becomes the title and the
 * mini CQEs (the first packet's too) fill the slots after it, 8 to a slot.
 * When the run ends the title gets byte_cnt = N and its op_own (format
 * compressed), which publishes it and its mini slots at once; a run of one
 * is published as the plain CQE it is. A run ends when a CQE does not fit,
 * at kMaxRun mini CQEs, and when the batch of the doorbell's work is flushed.
 *
 * enhanced layout: every CQE is published as it comes except mini CQEs,
 * which the CQ gathers in the slot at pi (up to 7) and publishes when the
 * slot is full, the run breaks or the batch is flushed. A run's title is
 * the last regular CQE, already published: nothing waits for a run to end.
 *
 * bus_wr_cqe_bytes counts the slots written, bus_wr_cqe_bytes_saved the
 * slots the packets would have taken without compression minus those.
 */
#include "hw/cq.h"

namespace softcx::hw {
namespace {

/* Mini CQEs in one basic run: 8 mini slots, the title's byte_cnt could count far more. */
constexpr u32 kMaxRun = 8 * prm::kMiniCqesPerSlot;

constexpr u32 kByteCntOff = __builtin_offsetof(prm::Cqe64, byte_cnt);
constexpr u32 kOpOwnCompressed = prm::kCqeFormatCompressed << prm::kCqeFormatShift;

u8 owner_of(const Cq *cq, u32 ix) { return (u8)((ix >> cq->log_size) & 1); }

/* A CQE a run can hold: a received packet (not an error, not a filler). */
bool compressible(const prm::Cqe64 *cqe, u8 opcode)
{
	return opcode == prm::kCqeRespSend && !(cqe->byte_cnt.get() & prm::kMpwrqCqeFiller);
}

/* Whether cqe continues the run: every field a mini CQE does not carry as the title's. */
bool joins(const CqComp &c, const prm::Cqe64 *cqe)
{
	prm::Cqe64 t = *cqe;

	if (c.fmt != prm::kMiniCqeCsumStridx && t.wqe_counter.get() != c.next_wqe_counter)
		return false;
	if (c.fmt == prm::kMiniCqeHash)
		t.rss_hash_result = c.title.rss_hash_result;
	else
		t.check_sum = c.title.check_sum;
	t.byte_cnt = c.title.byte_cnt;
	t.wqe_counter = c.title.wqe_counter;
	/* a mini CQE has no timestamp: its packet reads the title's */
	t.timestamp_h = c.title.timestamp_h;
	t.timestamp_l = c.title.timestamp_l;
	return !__builtin_memcmp(&t, &c.title, prm::kCqeSize - 2);
}

prm::MiniCqe8 mini_of(const CqComp &c, const prm::Cqe64 *cqe)
{
	prm::MiniCqe8 m = {};

	if (c.fmt == prm::kMiniCqeHash) {
		m.rx_hash_result = cqe->rss_hash_result;
	} else {
		m.csum.checksum = cqe->check_sum;
		if (c.fmt == prm::kMiniCqeCsumStridx)
			m.csum.stridx = cqe->wqe_counter;
	}
	m.byte_cnt = cqe->byte_cnt;
	return m;
}

void put_mini(Cq *cq, u32 slot_ix, u32 k, const prm::MiniCqe8 &m)
{
	__builtin_memcpy(cq_slot(cq, slot_ix) + k * sizeof(m), &m, sizeof(m));
}

/* Slots from pi on about to be published for this many packets: the bus counters and the ledger. */
void count(Function *fn, Cq *cq, u32 pi, u32 slots, u32 packets)
{
	bus_add(&fn->bus.wr_cqe_bytes, (u64)slots * prm::kCqeSize);
	bus_add(&fn->bus.wr_cqe_bytes_saved, (u64)(packets - slots) * prm::kCqeSize);
	cq_account(cq, pi, slots, packets);
}

/* ---- basic layout ---- */

void basic_close(Function *fn, Cq *cq, IrqBatch *irqs)
{
	CqComp &c = cq->comp;
	u32 pi = __atomic_load_n(&cq->pi, __ATOMIC_RELAXED);
	u8 op_own = (u8)(prm::kCqeRespSend << 4 | owner_of(cq, pi));

	if (c.n > 1) {
		prm::store_be32(cq_slot(cq, pi) + kByteCntOff, c.n);
		op_own |= kOpOwnCompressed;
	}
	cq_seal_slot(cq, pi, op_own);
	count(fn, cq, pi, c.held, c.n);
	u32 slots = c.held;
	c.n = 0;
	c.held = 0;
	c.chain = 0;
	cq_publish(fn, cq, pi + slots, irqs);
}

void basic_post(Function *fn, Cq *cq, const prm::Cqe64 *cqe, u8 opcode, u16 next,
		IrqBatch *irqs)
{
	CqComp &c = cq->comp;
	u32 pi = __atomic_load_n(&cq->pi, __ATOMIC_RELAXED);

	if (c.chain && compressible(cqe, opcode) && joins(c, cqe)) {
		if (c.n == 1) {
			/* the held CQE becomes the title; its packet the first mini CQE */
			put_mini(cq, pi + 1, 0, mini_of(c, &c.title));
			c.held = 2;
		} else if (!(c.n % prm::kMiniCqesPerSlot)) {
			c.held++;
		}
		put_mini(cq, pi + 1 + c.n / prm::kMiniCqesPerSlot, c.n % prm::kMiniCqesPerSlot,
			 mini_of(c, cqe));
		c.n++;
		c.next_wqe_counter = next;
		if (c.n == kMaxRun)
			basic_close(fn, cq, irqs);
		return;
	}
	if (c.chain) {
		basic_close(fn, cq, irqs);
		pi = __atomic_load_n(&cq->pi, __ATOMIC_RELAXED);
	}
	if (!compressible(cqe, opcode)) {
		cq_write_slot(cq, pi, cqe, (u8)(opcode << 4 | owner_of(cq, pi)));
		count(fn, cq, pi, 1, 1);
		cq_publish(fn, cq, pi + 1, irqs);
		return;
	}
	/* a run of one so far: all of it but op_own */
	__builtin_memcpy(cq_slot(cq, pi), cqe, prm::kCqeSize - 1);
	c.title = *cqe;
	c.chain = 1;
	c.n = 1;
	c.held = 1;
	c.next_wqe_counter = next;
}

/* ---- enhanced layout ---- */

void enhanced_close(Function *fn, Cq *cq, IrqBatch *irqs)
{
	CqComp &c = cq->comp;
	u32 pi = __atomic_load_n(&cq->pi, __ATOMIC_RELAXED);

	cq_seal_slot(cq, pi, (u8)((c.n - 1) << 4 | kOpOwnCompressed | owner_of(cq, pi)));
	count(fn, cq, pi, 1, c.n);
	c.n = 0;
	c.held = 0;
	cq_publish(fn, cq, pi + 1, irqs);
}

void enhanced_post(Function *fn, Cq *cq, const prm::Cqe64 *cqe, u8 opcode, u16 next,
		   IrqBatch *irqs)
{
	CqComp &c = cq->comp;
	bool ok = compressible(cqe, opcode);

	if (c.chain && ok && joins(c, cqe)) {
		u32 pi = __atomic_load_n(&cq->pi, __ATOMIC_RELAXED);
		if (!c.n) {
			__builtin_memset(cq_slot(cq, pi), 0, prm::kCqeSize - 2);
			c.held = 1;
		}
		put_mini(cq, pi, c.n++, mini_of(c, cqe));
		c.next_wqe_counter = next;
		if (c.n == prm::kMiniCqesPerEnhancedSlot)
			enhanced_close(fn, cq, irqs);
		return;
	}
	if (c.n)
		enhanced_close(fn, cq, irqs);
	u32 pi = __atomic_load_n(&cq->pi, __ATOMIC_RELAXED);
	cq_write_slot(cq, pi, cqe, (u8)(opcode << 4 | owner_of(cq, pi)));
	count(fn, cq, pi, 1, 1);
	c.chain = ok;
	if (ok) {
		c.title = *cqe;
		c.next_wqe_counter = next;
	}
	cq_publish(fn, cq, pi + 1, irqs);
}

/* The batch flushes rq's CQ at the end of the doorbell's work; a full list: now. */
void hold(Function *fn, Rq *rq, IrqBatch *irqs)
{
	for (u32 i = 0; i < irqs->nheld; i++)
		if (irqs->held[i] == rq)
			return;
	if (irqs->nheld == IrqBatch::kMaxHeld) {
		cq_comp_flush(fn, rq->cq, irqs);
		return;
	}
	irqs->held[irqs->nheld++] = rq;
}

} /* namespace */

bool cq_post_rx(Function *fn, Rq *rq, const prm::Cqe64 *cqe, u8 opcode, u16 next_wqe_counter,
		IrqBatch *irqs)
{
	Cq *cq = rq->cq;

	/* one free slot past the held ones: enough for whatever this CQE needs */
	if (!cq_has_room(fn, cq, irqs))
		return false;
	if (cq->comp.layout == prm::kCqeCompEnhanced)
		enhanced_post(fn, cq, cqe, opcode, next_wqe_counter, irqs);
	else
		basic_post(fn, cq, cqe, opcode, next_wqe_counter, irqs);
	if (cq->comp.held)
		hold(fn, rq, irqs);
	return true;
}

void cq_comp_flush(Function *fn, Cq *cq, IrqBatch *irqs)
{
	if (!cq->comp.held)
		return;
	if (cq->comp.layout == prm::kCqeCompEnhanced)
		enhanced_close(fn, cq, irqs);
	else
		basic_close(fn, cq, irqs);
}

void cq_comp_end(Function *fn, Cq *cq, IrqBatch *irqs)
{
	cq_comp_flush(fn, cq, irqs);
	cq->comp.chain = 0;
}

} /* namespace softcx::hw */
