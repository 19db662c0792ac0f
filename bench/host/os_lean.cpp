// SPDX-License-Identifier: GPL-2.0
/*
 * A minimal OS layer for the host microbenchmark, shaped like the kernel
 * shim rather than like the test layer: bus address = CPU address (the
 * direct mapping without an IOMMU), TX unmap is a no-op, locks are plain
 * spinlocks, RX buffers come from a per-RQ free list (a page_pool that
 * recycles every page), and the "stack" reads the Ethernet type of each
 * delivered frame and recycles its page. It checks nothing: use it only to
 * see what the core costs without tests/host/os_host.cpp's bookkeeping.
 */
#include "bench_os.h"

#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>

namespace {

constexpr uint32_t kPage = 4096;

void *page_alloc(size_t size, bool zero)
{
	size_t rounded = (size + kPage - 1) / kPage * kPage;
	void *p = aligned_alloc(kPage, rounded ? rounded : kPage);
	if (p && zero)
		memset(p, 0, rounded ? rounded : kPage);
	return p;
}

struct LeanLock {
	int locked;
};

struct LeanRxq {
	void *os_channel;
	uint32_t order;
	uint32_t cap;	/* pool_size: pages kept for recycling */
	uint32_t nfree;
	void **free;
};

/* page -> pool: the kernel keeps it in struct page; one RQ per channel here. */
constexpr int kMaxPools = 16;
LeanRxq *g_pools[kMaxPools];

LeanRxq *pool_of(void *os_channel)
{
	for (LeanRxq *q : g_pools)
		if (q && q->os_channel == os_channel)
			return q;
	return nullptr;
}

/*
 * An RX page and, in the page before it, what the kernel keeps in struct
 * page: the references of a page the driver cut up (0: a whole page).
 */
struct LeanPage {
	int64_t refs;
};

LeanPage *meta_of(void *page)
{
	return reinterpret_cast<LeanPage *>(static_cast<uint8_t *>(page) - kPage);
}

void *rx_page_alloc(uint32_t order)
{
	auto *base = static_cast<uint8_t *>(page_alloc((kPage << order) + kPage, false));
	if (!base)
		return nullptr;
	reinterpret_cast<LeanPage *>(base)->refs = 0;
	return base + kPage;
}

void rx_page_free(void *page)
{
	free(meta_of(page));
}

void pool_put(LeanRxq *q, void *page)
{
	if (q && q->nfree < q->cap)
		q->free[q->nfree++] = page;
	else
		rx_page_free(page);
}

/* Drop n references of an RX page: a whole page, or the last of a cut one, goes back. */
void page_put(LeanRxq *q, void *page, int64_t n)
{
	LeanPage *m = meta_of(page);

	if (m->refs && (m->refs -= n))
		return;
	pool_put(q, page);
}

uint64_t g_rx_delivered, g_tx_freed, g_irqs, g_stack_sum;

} /* namespace */

extern "C" {

void *scx_os_zalloc(uint64_t size)
{
	return calloc(1, size ? size : 1);
}

void scx_os_free(void *p)
{
	free(p);
}

void *scx_os_dma_alloc(void *os_dev, uint32_t size, uint64_t *dma)
{
	(void)os_dev;
	void *cpu = page_alloc(size, true);
	if (cpu)
		*dma = (uint64_t)(uintptr_t)cpu;
	return cpu;
}

void scx_os_dma_free(void *os_dev, uint32_t size, void *cpu, uint64_t dma)
{
	(void)os_dev;
	(void)size;
	(void)dma;
	free(cpu);
}

void *scx_os_dma_to_cpu(void *os_dev, uint64_t dma, uint32_t len)
{
	(void)os_dev;
	/* The shim checks the adapter's DMA view (shim/dma.c); this checks null and wrap only. */
	if (__builtin_expect(!dma || dma + len < dma, 0))
		return nullptr;
	return (void *)(uintptr_t)dma;
}

void scx_os_dma_to_cpu_n(void *os_dev, const uint64_t *dma, const uint32_t *len, void **cpu,
			 uint32_t n)
{
	for (uint32_t i = 0; i < n; i++)
		cpu[i] = scx_os_dma_to_cpu(os_dev, dma[i], len[i]);
}

void scx_os_dma_unmap(void *os_dev, uint64_t dma, uint32_t len, uint32_t kind)
{
	(void)os_dev;
	(void)dma;
	(void)len;
	(void)kind;
}

struct scx_os_lock *scx_os_lock_create(enum scx_lock_class cls)
{
	(void)cls;
	return reinterpret_cast<struct scx_os_lock *>(calloc(1, sizeof(LeanLock)));
}

void scx_os_lock_destroy(struct scx_os_lock *l)
{
	free(l);
}

void scx_os_lock(struct scx_os_lock *lk)
{
	auto *l = reinterpret_cast<LeanLock *>(lk);
	while (__atomic_exchange_n(&l->locked, 1, __ATOMIC_ACQUIRE))
		while (__atomic_load_n(&l->locked, __ATOMIC_RELAXED))
			__builtin_ia32_pause();
}

void scx_os_unlock(struct scx_os_lock *lk)
{
	__atomic_store_n(&reinterpret_cast<LeanLock *>(lk)->locked, 0, __ATOMIC_RELEASE);
}

static void lean_vlog(int level, const char *fmt, va_list ap)
{
	if (level < SCX_LOG_DEBUG)
		vfprintf(stderr, fmt, ap);
}

/* The body of a log hook: the arguments after fmt to lean_vlog(); whose line it is does not matter. */
#define LEAN_LOG(level, fmt)                  \
	do {                                  \
		va_list ap;                   \
		va_start(ap, fmt);            \
		lean_vlog(level, fmt, ap);    \
		va_end(ap);                   \
	} while (0)

void scx_os_log(int level, const char *fmt, ...)
{
	LEAN_LOG(level, fmt);
}

void scx_os_chan_log(void *, int level, const char *fmt, ...)
{
	LEAN_LOG(level, fmt);
}

void scx_os_queue_recovered(void *, uint32_t, int) {}

void scx_os_port_log(void *, int level, const char *fmt, ...)
{
	LEAN_LOG(level, fmt);
}

/* irq_ctx is the benchmark's event word of the port (bench_os.h); one channel, vector 0 */
void scx_os_raise_irq(void *irq_ctx, uint32_t vector, uint32_t cqn)
{
	(void)vector;
	g_irqs++;
	*static_cast<uint64_t *>(irq_ctx) |= 1ull << (cqn & 63);
}

/* A benchmark keeps its CQs consumed: an overrun is a bug in it. */
void scx_os_cq_error(void *irq_ctx, uint32_t vector, uint32_t cqn, uint32_t syndrome)
{
	(void)irq_ctx;
	fprintf(stderr, "bench: CQ 0x%x (vector %u) error, syndrome 0x%x\n", cqn, vector, syndrome);
	abort();
}

struct scx_os_rxq *scx_os_rxq_create(void *os_channel, uint32_t size, uint32_t order,
				     uint32_t flags)
{
	(void)flags;	/* no XDP in this benchmark */
	auto *q = static_cast<LeanRxq *>(calloc(1, sizeof(LeanRxq)));
	if (!q)
		return nullptr;
	q->os_channel = os_channel;
	q->order = order;
	q->cap = size;
	q->free = static_cast<void **>(calloc(size ? size : 1, sizeof(void *)));
	for (auto &slot : g_pools)
		if (!slot) {
			slot = q;
			return reinterpret_cast<struct scx_os_rxq *>(q);
		}
	free(q->free);
	free(q);
	return nullptr;
}

void scx_os_rxq_destroy(struct scx_os_rxq *rxq)
{
	auto *q = reinterpret_cast<LeanRxq *>(rxq);
	if (!q)
		return;
	for (auto &slot : g_pools)
		if (slot == q)
			slot = nullptr;
	while (q->nfree)
		rx_page_free(q->free[--q->nfree]);
	free(q->free);
	free(q);
}

void *scx_os_rx_alloc(struct scx_os_rxq *rxq, uint64_t *dma)
{
	auto *q = reinterpret_cast<LeanRxq *>(rxq);
	void *page = q->nfree ? q->free[--q->nfree] : rx_page_alloc(q->order);
	if (page)
		*dma = (uint64_t)(uintptr_t)page;
	return page;
}

void scx_os_rx_recycle(struct scx_os_rxq *rxq, void *page, int napi)
{
	(void)napi;
	page_put(reinterpret_cast<LeanRxq *>(rxq), page, 1);
}

int scx_os_rx_deliver(void *os_channel, const struct scx_rx_pkt *pkt)
{
	const uint8_t *p = static_cast<const uint8_t *>(pkt->page) + pkt->headroom;

	/* eth_type_trans reads the header; the stack then drops and the page's reference goes. */
	g_stack_sum += (uint32_t)(p[12] << 8 | p[13]) + pkt->len;
	g_rx_delivered++;
	page_put(pool_of(os_channel), pkt->page, 1);
	return 0;
}

/* The cyclic RQ's fragments (a linear stride, or a jumbo frame's pieces). */
void scx_os_rx_frag_set(struct scx_os_rxq *, void *page, uint32_t n)
{
	meta_of(page)->refs = n;
}

void scx_os_rx_frag_put(struct scx_os_rxq *rxq, void *page, uint32_t n, int)
{
	page_put(reinterpret_cast<LeanRxq *>(rxq), page, n);
}

int scx_os_rx_deliver_pieces(void *os_channel, const struct scx_rx_pkt *pkt,
			     const struct scx_rx_piece *pieces, uint32_t n)
{
	const uint8_t *p = static_cast<const uint8_t *>(pieces[0].page) + pieces[0].off;

	g_stack_sum += (uint32_t)(p[12] << 8 | p[13]) + pkt->len;
	g_rx_delivered++;
	for (uint32_t i = 0; i < n; i++)
		page_put(pool_of(os_channel), pieces[i].page, 1);
	return 0;
}

/* The bench runs cyclic RQs only (rx_striding off): SHAMPO's hook never runs. */

int scx_os_rx_deliver_hds(void *, const struct scx_rx_pkt *, const void *, uint32_t,
			  const struct scx_rx_piece *, uint32_t, const struct scx_rx_gso *)
{
	__builtin_trap();
}

/* No program is ever attached here: the RX path never runs these. */
int scx_os_rx_deliver_xdp_mb(void *, const struct scx_rx_pkt *, uint32_t)
{
	__builtin_trap();
}

int scx_os_xdp_run(void *os_channel, struct scx_xdp_buf *b)
{
	(void)os_channel;
	(void)b;
	return SCX_XDP_PASS;
}

void scx_os_xdp_exception(void *os_channel, int verdict)
{
	(void)os_channel;
	(void)verdict;
}

void scx_os_xdp_frame_free(void *os_channel, void *frame)
{
	(void)os_channel;
	(void)frame;
}

void scx_os_xdp_frames_free_bulk(void *os_channel, void *const *frames, uint32_t n)
{
	(void)os_channel;
	(void)frames;
	(void)n;
}

uint64_t scx_os_clock_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/*
 * Device timers (CQ moderation): the benchmark polls every NAPI itself,
 * so a timer is only recorded, never fired, as if no period ever ended.
 */
struct scx_os_timer {
	uint64_t expires;
	bool queued;
};

struct scx_os_timer *scx_os_timer_create(uint64_t (*fn)(void *arg, uint64_t expired), void *arg)
{
	(void)fn;
	(void)arg;
	return static_cast<scx_os_timer *>(calloc(1, sizeof(scx_os_timer)));
}

void scx_os_timer_destroy(struct scx_os_timer *t)
{
	free(t);
}

uint64_t scx_os_timer_now(void)
{
	return scx_os_clock_ns();
}

void scx_os_timer_start(struct scx_os_timer *t, uint64_t expires)
{
	t->expires = expires;
	t->queued = true;
}

int scx_os_timer_cancel(struct scx_os_timer *t)
{
	bool was = t->queued;

	t->queued = false;
	return was;
}

void scx_os_tx_free(void *os_channel, void *skb, int napi_budget)
{
	(void)os_channel;
	(void)skb;
	(void)napi_budget;
	g_tx_freed++;
}

/* The bench never asks for TX timestamps. */
void scx_os_tx_tstamp(void *os_channel, void *skb, uint64_t ts)
{
	(void)os_channel;
	(void)skb;
	(void)ts;
}

} /* extern "C" */

uint64_t bench_dma_map(const void *cpu, uint32_t len)
{
	(void)len;
	return (uint64_t)(uintptr_t)cpu;
}

void bench_os_collect(void *rx_ch, void *tx_ch, uint64_t *rx_delivered, uint64_t *tx_freed)
{
	/* One pair, one channel: the global counts are the channels' counts. */
	(void)rx_ch;
	(void)tx_ch;
	*rx_delivered += g_rx_delivered;
	*tx_freed += g_tx_freed;
	g_rx_delivered = g_tx_freed = 0;
}

int bench_os_errors()
{
	return 0;
}

uint64_t bench_os_take_cq_events(void *irq_ctx)
{
	uint64_t *ev = static_cast<uint64_t *>(irq_ctx);
	uint64_t v = *ev;

	*ev = 0;
	return v;
}

const char *bench_os_name()
{
	return "os_lean";
}
