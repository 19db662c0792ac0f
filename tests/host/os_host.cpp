// SPDX-License-Identifier: GPL-2.0
/*
 * The OS layer for host tests: calloc for memory, pthread mutexes for locks
 * (with a small lock-class order checker standing in for lockdep), a DMA
 * address space of its own, and records of everything handed to the "stack".
 */
#include "os_host.h"

#include <pthread.h>
#include <time.h>

#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <set>
#include <thread>
#include <utility>

namespace {

/* ---- bookkeeping shared by everything below ---- */
std::recursive_mutex g_mu;	/* the host layer's own state; hooks run outside it */
int g_errors;

void host_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void host_error(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fprintf(stderr, "os_host ERROR: ");
	vfprintf(stderr, fmt, ap);
	fprintf(stderr, "\n");
	va_end(ap);
	/* fuzz targets: stop right here, with the core's stack */
	static const bool fatal = getenv("SOFTCX_HOST_FATAL") != nullptr;
	if (fatal)
		abort();
	std::lock_guard<std::recursive_mutex> l(g_mu);
	g_errors++;
}

/* ---- DMA address space ---- */
enum class Region { Coherent, TxMap, RxBuf };

struct DmaRange {
	uint64_t dma;
	uint32_t len;
	void *cpu;
	Region kind;
	uint32_t map_kind;	/* SCX_DMA_* for TxMap */
	bool revoked;		/* host::dma_revoke: the device may no longer reach it */
};

constexpr uint64_t kIovaBase = 0x10000000000ull;	/* 1 TiB: far from any heap pointer */
constexpr uint64_t kPage = 4096;
uint64_t g_next_iova = kIovaBase;
std::map<uint64_t, DmaRange> g_dma;	/* by start address */

uint64_t iova_alloc(uint32_t len)
{
	uint64_t a = g_next_iova;
	/* Page aligned, plus one unmapped guard page, so overruns never land in a neighbour. */
	g_next_iova += ((uint64_t)len + kPage - 1) / kPage * kPage + kPage;
	return a;
}

uint64_t dma_register(void *cpu, uint32_t len, Region kind, uint32_t map_kind)
{
	std::lock_guard<std::recursive_mutex> l(g_mu);
	uint64_t dma = iova_alloc(len ? len : 1);
	g_dma[dma] = DmaRange{ dma, len, cpu, kind, map_kind, false };
	return dma;
}

const DmaRange *dma_find(uint64_t dma, uint64_t len)
{
	auto it = g_dma.upper_bound(dma);
	if (it == g_dma.begin())
		return nullptr;
	--it;
	const DmaRange &r = it->second;
	if (dma < r.dma || dma + len > r.dma + r.len || dma + len < dma)
		return nullptr;
	return &r;
}

void *page_alloc(size_t size)
{
	size_t rounded = (size + kPage - 1) / kPage * kPage;
	void *p = aligned_alloc(kPage, rounded ? rounded : kPage);
	if (p)
		memset(p, 0, rounded ? rounded : kPage);
	return p;
}

/* ---- locks and the lock-class order checker ---- */
struct HostLock {
	pthread_mutex_t mu;
	scx_lock_class cls;
};

thread_local std::vector<HostLock *> t_held;
bool g_order[SCX_LOCK_NR_CLASSES][SCX_LOCK_NR_CLASSES];	/* [a][b]: b taken while a held */
int64_t g_locks_live;

void check_order(HostLock *l)
{
	std::lock_guard<std::recursive_mutex> g(g_mu);
	for (HostLock *h : t_held) {
		if (h == l)
			host_error("lock %p (class %d) taken recursively", (void *)l, l->cls);
		else if (h->cls == l->cls)
			host_error("lock class %d nested inside itself", l->cls);
		else if (g_order[l->cls][h->cls])
			host_error("lock order inversion: class %d after %d, seen the other way before",
				   l->cls, h->cls);
		else
			g_order[h->cls][l->cls] = true;
	}
}

/* ---- RX buffers ---- */
struct HostRxq {
	void *os_channel;
	uint32_t order;
	uint32_t flags;
	size_t outstanding;
};

struct RxBuf {
	HostRxq *q;
	uint64_t dma;
	uint32_t size;
	int64_t refs;	/* SCX_RXQ_FRAGS: references left (-1: not fragmented) */
};

std::map<void *, RxBuf> g_rxbufs;	/* by page (CPU address) */
size_t g_rxqs_live;
int g_fail_deliveries, g_fail_allocs;
std::map<void *, std::vector<host::RxRecord>> g_delivered;
std::map<void *, std::vector<void *>> g_tx_freed;
std::map<void *, std::vector<host::TxTstamp>> g_tx_tstamps;
uint64_t g_recycles[2];		/* [napi] */
host::XdpProg g_xdp_prog;
std::map<void *, std::vector<host::Bytes>> g_redirected;
/* A passed multi-buffer frame's later buffers, by its first page, until delivered (the skb_shared_info) */
std::map<void *, std::vector<scx_xdp_frag>> g_xdp_frags;
std::map<std::pair<void *, int>, uint64_t> g_xdp_exceptions;
std::map<void *, std::vector<void *>> g_frames_freed;
std::map<void *, uint32_t> g_frame_bulks;

void mem_account(int64_t delta);

void rxbuf_release(void *page)
{
	std::lock_guard<std::recursive_mutex> l(g_mu);
	auto it = g_rxbufs.find(page);
	if (it == g_rxbufs.end()) {
		host_error("RX buffer %p released but not allocated (double free?)", page);
		return;
	}
	g_dma.erase(it->second.dma);
	mem_account(-(int64_t)it->second.size);
	if (it->second.q)
		it->second.q->outstanding--;
	g_rxbufs.erase(it);
	free(page);
}

/* One reference of an RX buffer given back: the last (or an unfragmented buffer) releases it. */
void rxbuf_put(void *page, uint32_t n = 1)
{
	{
		std::lock_guard<std::recursive_mutex> l(g_mu);
		auto it = g_rxbufs.find(page);
		if (it != g_rxbufs.end() && it->second.refs >= 0) {
			if ((int64_t)n > it->second.refs) {
				host_error("RX buffer %p: %u references dropped, %lld held", page, n,
					   (long long)it->second.refs);
				return;
			}
			it->second.refs -= n;
			if (it->second.refs)
				return;
		}
	}
	rxbuf_release(page);
}

/* ---- interrupts ---- */
std::map<std::pair<void *, uint32_t>, uint64_t> g_irqs;
uint64_t g_irq_total;
std::map<std::pair<void *, uint32_t>, uint64_t> g_cq_events;	/* bit cqn % 64, until taken */
std::vector<host::CqError> g_cq_errors;
std::map<std::pair<void *, uint32_t>, std::vector<int>> g_recovered;	/* scx_os_queue_recovered */
std::function<void(void *, uint32_t)> g_irq_hook;

/* ---- timers: a fake clock that moves only when a test advances it ---- */
std::mutex g_timer_mu;	/* not g_mu: callbacks raise interrupts, which take it */
uint64_t g_now = 1000000000ull;
std::function<void()> g_timer_now_hook;	/* on_next_timer_now() */
std::set<scx_os_timer *> g_timers;
uint64_t g_timer_starts;	/* scx_os_timer_start() calls: a callback's re-arm is not one */

/* ---- memory ---- */
int64_t g_zalloc_outstanding;
std::map<void *, uint64_t> g_zalloc_size;	/* by pointer */
uint64_t g_mem_bytes, g_mem_peak;	/* heap + coherent DMA + RX buffers (g_mu) */

void mem_account(int64_t delta)
{
	g_mem_bytes += delta;
	if (g_mem_bytes > g_mem_peak)
		g_mem_peak = g_mem_bytes;
}

uint64_t page_round(uint64_t n)
{
	return (n + kPage - 1) / kPage * kPage;
}

} /* namespace */

struct scx_os_timer {
	uint64_t (*fn)(void *arg, uint64_t expired);
	void *arg;
	bool queued;
	uint64_t expires;
	int running;		/* callbacks in progress */
};

/* ================= the C ABI ================= */

extern "C" {

uint64_t scx_os_clock_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

struct scx_os_timer *scx_os_timer_create(uint64_t (*fn)(void *arg, uint64_t expired), void *arg)
{
	auto *t = new scx_os_timer{ fn, arg, false, 0, 0 };
	std::lock_guard<std::mutex> l(g_timer_mu);
	g_timers.insert(t);
	return t;
}

void scx_os_timer_destroy(struct scx_os_timer *t)
{
	scx_os_timer_cancel(t);
	{
		std::lock_guard<std::mutex> l(g_timer_mu);
		g_timers.erase(t);
	}
	delete t;
}

uint64_t scx_os_timer_now(void)
{
	std::function<void()> hook;
	{
		std::lock_guard<std::mutex> l(g_timer_mu);
		hook = std::move(g_timer_now_hook);
		g_timer_now_hook = nullptr;
	}
	if (hook)
		hook();
	std::lock_guard<std::mutex> l(g_timer_mu);
	return g_now;
}

void scx_os_timer_start(struct scx_os_timer *t, uint64_t expires)
{
	std::lock_guard<std::mutex> l(g_timer_mu);
	g_timer_starts++;
	t->queued = true;
	t->expires = expires;
}

/* As hrtimer_cancel(): a running callback finishes (and may re-arm) first. */
int scx_os_timer_cancel(struct scx_os_timer *t)
{
	std::unique_lock<std::mutex> l(g_timer_mu);
	while (t->running) {
		l.unlock();
		std::this_thread::yield();
		l.lock();
	}
	bool was = t->queued;
	t->queued = false;
	return was;
}

void *scx_os_zalloc(uint64_t size)
{
	void *p = calloc(1, size ? size : 1);
	if (p) {
		std::lock_guard<std::recursive_mutex> l(g_mu);
		g_zalloc_outstanding++;
		g_zalloc_size[p] = size;
		mem_account((int64_t)size);
	}
	return p;
}

void scx_os_free(void *p)
{
	if (!p)
		return;
	{
		std::lock_guard<std::recursive_mutex> l(g_mu);
		g_zalloc_outstanding--;
		auto it = g_zalloc_size.find(p);
		if (it != g_zalloc_size.end()) {
			mem_account(-(int64_t)it->second);
			g_zalloc_size.erase(it);
		}
	}
	free(p);
}

void *scx_os_dma_alloc(void *os_dev, uint32_t size, uint64_t *dma)
{
	(void)os_dev;
	void *cpu = page_alloc(size);
	if (!cpu)
		return nullptr;
	*dma = dma_register(cpu, size, Region::Coherent, 0);
	std::lock_guard<std::recursive_mutex> l(g_mu);
	mem_account((int64_t)page_round(size));
	return cpu;
}

void scx_os_dma_free(void *os_dev, uint32_t size, void *cpu, uint64_t dma)
{
	(void)os_dev;
	std::lock_guard<std::recursive_mutex> l(g_mu);
	auto it = g_dma.find(dma);
	if (it == g_dma.end() || it->second.kind != Region::Coherent || it->second.cpu != cpu ||
	    it->second.len != size) {
		host_error("scx_os_dma_free(%u, %p, 0x%llx) does not match an allocation", size, cpu,
			   (unsigned long long)dma);
		return;
	}
	g_dma.erase(it);
	mem_account(-(int64_t)page_round(size));
	free(cpu);
}

/* scx_os_dma_to_cpu_n() calls (host::dma_to_cpu_batches). */
static uint64_t g_dma_batches;

static void *dma_to_cpu_locked(uint64_t dma, uint32_t len)
{
	const DmaRange *r = dma_find(dma, len);
	if (!r || r->revoked)
		return nullptr;
	return static_cast<uint8_t *>(r->cpu) + (dma - r->dma);
}

void *scx_os_dma_to_cpu(void *os_dev, uint64_t dma, uint32_t len)
{
	(void)os_dev;
	std::lock_guard<std::recursive_mutex> l(g_mu);
	return dma_to_cpu_locked(dma, len);
}

void scx_os_dma_to_cpu_n(void *os_dev, const uint64_t *dma, const uint32_t *len, void **cpu,
			 uint32_t n)
{
	std::lock_guard<std::recursive_mutex> l(g_mu);
	g_dma_batches++;
	for (uint32_t i = 0; i < n; i++)
		cpu[i] = dma_to_cpu_locked(dma[i], len[i]);
}

void scx_os_dma_unmap(void *os_dev, uint64_t dma, uint32_t len, uint32_t kind)
{
	(void)os_dev;
	std::lock_guard<std::recursive_mutex> l(g_mu);
	auto it = g_dma.find(dma);
	if (it == g_dma.end() || it->second.kind != Region::TxMap) {
		host_error("scx_os_dma_unmap(0x%llx, %u): not a TX mapping", (unsigned long long)dma,
			   len);
		return;
	}
	if (it->second.len != len || it->second.map_kind != kind)
		host_error("scx_os_dma_unmap(0x%llx): len %u kind %u, mapped as len %u kind %u",
			   (unsigned long long)dma, len, kind, it->second.len, it->second.map_kind);
	g_dma.erase(it);
}

struct scx_os_lock *scx_os_lock_create(enum scx_lock_class cls)
{
	auto *l = new HostLock;
	pthread_mutex_init(&l->mu, nullptr);
	l->cls = cls;
	std::lock_guard<std::recursive_mutex> g(g_mu);
	g_locks_live++;
	return reinterpret_cast<struct scx_os_lock *>(l);
}

void scx_os_lock_destroy(struct scx_os_lock *lk)
{
	if (!lk)
		return;
	auto *l = reinterpret_cast<HostLock *>(lk);
	pthread_mutex_destroy(&l->mu);
	delete l;
	std::lock_guard<std::recursive_mutex> g(g_mu);
	g_locks_live--;
}

void scx_os_lock(struct scx_os_lock *lk)
{
	auto *l = reinterpret_cast<HostLock *>(lk);
	check_order(l);
	pthread_mutex_lock(&l->mu);
	t_held.push_back(l);
}

void scx_os_unlock(struct scx_os_lock *lk)
{
	auto *l = reinterpret_cast<HostLock *>(lk);
	for (auto it = t_held.rbegin(); it != t_held.rend(); ++it) {
		if (*it == l) {
			t_held.erase(std::next(it).base());
			pthread_mutex_unlock(&l->mu);
			return;
		}
	}
	host_error("unlock of lock %p not held by this thread", (void *)l);
}

static void host_vlog(const char *who, int level, const char *fmt, va_list ap)
{
	static const bool debug = getenv("SOFTCX_HOST_DEBUG") != nullptr;
	/* fuzz targets: error CQEs by the million would only fill the log */
	static const bool quiet = getenv("SOFTCX_HOST_QUIET") != nullptr;
	if ((level >= SCX_LOG_DEBUG && !debug) || quiet)
		return;
	fprintf(stderr, "<%d>%s", level, who);
	vfprintf(stderr, fmt, ap);
}

void scx_os_log(int level, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	host_vlog("", level, fmt, ap);
	va_end(ap);
}

/* A line about one object: "kind %p: " in front. */
static void host_obj_vlog(const char *kind, void *obj, int level, const char *fmt, va_list ap)
{
	char who[32];
	snprintf(who, sizeof(who), "%s %p: ", kind, obj);
	host_vlog(who, level, fmt, ap);
}

void scx_os_chan_log(void *os_channel, int level, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	host_obj_vlog("chan", os_channel, level, fmt, ap);
	va_end(ap);
}

void scx_os_queue_recovered(void *os_channel, uint32_t kind, int err)
{
	std::lock_guard<std::recursive_mutex> l(g_mu);
	g_recovered[{ os_channel, kind }].push_back(err);
}

void scx_os_port_log(void *os_port, int level, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	host_obj_vlog("port", os_port, level, fmt, ap);
	va_end(ap);
}

void scx_os_cq_error(void *irq_ctx, uint32_t vector, uint32_t cqn, uint32_t syndrome)
{
	std::function<void(void *, uint32_t)> hook;
	{
		std::lock_guard<std::recursive_mutex> l(g_mu);
		g_cq_errors.push_back({ irq_ctx, vector, cqn, syndrome });
		g_cq_events[{ irq_ctx, vector }] |= 1ull << (cqn & 63);
		hook = g_irq_hook;
	}
	/* the event reaches the channel's NAPI like its interrupt */
	if (hook)
		hook(irq_ctx, vector);
}

void scx_os_raise_irq(void *irq_ctx, uint32_t vector, uint32_t cqn)
{
	std::function<void(void *, uint32_t)> hook;
	{
		std::lock_guard<std::recursive_mutex> l(g_mu);
		g_irqs[{ irq_ctx, vector }]++;
		g_cq_events[{ irq_ctx, vector }] |= 1ull << (cqn & 63);
		g_irq_total++;
		hook = g_irq_hook;
	}
	if (hook)
		hook(irq_ctx, vector);
}

struct scx_os_rxq *scx_os_rxq_create(void *os_channel, uint32_t size, uint32_t order,
				     uint32_t flags)
{
	(void)size;
	auto *q = new HostRxq{ os_channel, order, flags, 0 };
	std::lock_guard<std::recursive_mutex> l(g_mu);
	g_rxqs_live++;
	return reinterpret_cast<struct scx_os_rxq *>(q);
}

void scx_os_rxq_destroy(struct scx_os_rxq *rxq)
{
	if (!rxq)
		return;
	auto *q = reinterpret_cast<HostRxq *>(rxq);
	std::lock_guard<std::recursive_mutex> l(g_mu);
	if (q->outstanding)
		host_error("rxq destroyed with %zu buffers still out", q->outstanding);
	/* A page pool outlives its buffers in the kernel; here they become orphans owned by nobody. */
	for (auto &b : g_rxbufs)
		if (b.second.q == q)
			b.second.q = nullptr;
	g_rxqs_live--;
	delete q;
}

void *scx_os_rx_alloc(struct scx_os_rxq *rxq, uint64_t *dma)
{
	auto *q = reinterpret_cast<HostRxq *>(rxq);
	std::lock_guard<std::recursive_mutex> l(g_mu);
	if (g_fail_allocs > 0) {
		g_fail_allocs--;
		return nullptr;
	}
	uint32_t size = 4096u << q->order;
	void *page = page_alloc(size);
	if (!page)
		return nullptr;
	*dma = dma_register(page, size, Region::RxBuf, 0);
	g_rxbufs[page] = RxBuf{ q, *dma, size, -1 };
	mem_account(size);
	q->outstanding++;
	return page;
}

void scx_os_rx_recycle(struct scx_os_rxq *q, void *page, int napi)
{
	{
		std::lock_guard<std::recursive_mutex> l(g_mu);
		auto it = g_rxbufs.find(page);
		if (it != g_rxbufs.end() && it->second.q &&
		    it->second.q != reinterpret_cast<HostRxq *>(q))
			host_error("RX buffer %p recycled into a pool it does not belong to", page);
		g_recycles[napi ? 1 : 0]++;
	}
	rxbuf_put(page);
}

void scx_os_rx_frag_set(struct scx_os_rxq *q, void *page, uint32_t n)
{
	std::lock_guard<std::recursive_mutex> l(g_mu);
	auto it = g_rxbufs.find(page);
	if (it == g_rxbufs.end() || !(reinterpret_cast<HostRxq *>(q)->flags & SCX_RXQ_FRAGS) ||
	    it->second.refs >= 0 || !n) {
		host_error("rx_frag_set(%p, %u): not a fresh buffer of a fragment pool", page, n);
		return;
	}
	it->second.refs = n;
}

void scx_os_rx_frag_put(struct scx_os_rxq *q, void *page, uint32_t n, int napi)
{
	{
		std::lock_guard<std::recursive_mutex> l(g_mu);
		auto it = g_rxbufs.find(page);
		if (it == g_rxbufs.end() || it->second.refs < 0) {
			host_error("rx_frag_put(%p): not a fragmented RX buffer", page);
			return;
		}
		(void)q;
		g_recycles[napi ? 1 : 0]++;
	}
	rxbuf_put(page, n);
}

namespace {

/* The pieces' bytes after `data` (under g_mu); false when a piece is not in a fragmented RX buffer. */
bool gather_pieces(const struct scx_rx_piece *pieces, uint32_t n, std::vector<uint8_t> *data)
{
	bool ok = true;

	for (uint32_t i = 0; i < n; i++) {
		auto it = g_rxbufs.find(pieces[i].page);
		if (it == g_rxbufs.end() || it->second.refs <= 0 ||
		    (uint64_t)pieces[i].off + pieces[i].len > it->second.size || !pieces[i].len) {
			host_error("rx_deliver: piece %u (%p +%u %u) is not in a fragmented RX buffer",
				   i, pieces[i].page, pieces[i].off, pieces[i].len);
			ok = false;
			continue;
		}
		const uint8_t *p = static_cast<const uint8_t *>(pieces[i].page) + pieces[i].off;
		data->insert(data->end(), p, p + pieces[i].len);
	}
	return ok;
}

/* Record a packet built from pieces (after `data` holds its bytes); every piece's reference goes back. */
int deliver_gathered(void *os_channel, const struct scx_rx_pkt *pkt, std::vector<uint8_t> data,
		     bool ok, const struct scx_rx_piece *pieces, uint32_t n,
		     const struct scx_rx_gso *gso)
{
	{
		std::lock_guard<std::recursive_mutex> l(g_mu);
		if (ok && data.size() != pkt->len) {
			host_error("rx_deliver: %zu bytes for a %u-byte packet", data.size(), pkt->len);
			ok = false;
		}
		if (ok && g_fail_deliveries > 0) {
			g_fail_deliveries--;
			ok = false;
		}
		uint32_t truesize = 0;
		for (uint32_t i = 0; i < n; i++)
			truesize += pieces[i].truesize;
		if (ok)
			g_delivered[os_channel].push_back(host::RxRecord{
				std::move(data), *pkt, gso ? *gso : scx_rx_gso{}, truesize });
	}
	for (uint32_t i = 0; i < n; i++)
		rxbuf_put(pieces[i].page);
	return ok ? 0 : -1;
}

} /* namespace */

int scx_os_rx_deliver_pieces(void *os_channel, const struct scx_rx_pkt *pkt,
			     const struct scx_rx_piece *pieces, uint32_t n)
{
	std::vector<uint8_t> data;
	bool ok;
	{
		std::lock_guard<std::recursive_mutex> l(g_mu);
		ok = gather_pieces(pieces, n, &data);
	}
	return deliver_gathered(os_channel, pkt, std::move(data), ok, pieces, n, nullptr);
}

int scx_os_rx_deliver_hds(void *os_channel, const struct scx_rx_pkt *pkt, const void *hdr,
			  uint32_t hdr_len, const struct scx_rx_piece *pieces, uint32_t n,
			  const struct scx_rx_gso *gso)
{
	const uint8_t *h = static_cast<const uint8_t *>(hdr);
	std::vector<uint8_t> data(h, h + hdr_len);
	bool ok = hdr_len >= 14;
	{
		std::lock_guard<std::recursive_mutex> l(g_mu);
		if (!ok)
			host_error("rx_deliver_hds: a %u-byte header", hdr_len);
		if (gso && (gso->segs < 2 || !gso->size || gso->l4_off >= hdr_len)) {
			host_error("rx_deliver_hds: gso size %u segs %u l4_off %u (header %u)", gso->size,
				   gso->segs, gso->l4_off, hdr_len);
			ok = false;
		}
		ok = gather_pieces(pieces, n, &data) && ok;
	}
	return deliver_gathered(os_channel, pkt, std::move(data), ok, pieces, n, gso);
}

namespace {

int rx_deliver(void *os_channel, const struct scx_rx_pkt *pkt, uint32_t nr_frags)
{
	std::vector<scx_xdp_frag> frags;
	{
		std::lock_guard<std::recursive_mutex> l(g_mu);
		auto f = g_xdp_frags.find(pkt->page);
		if (nr_frags) {
			if (f == g_xdp_frags.end() || f->second.size() != nr_frags)
				host_error("rx_deliver: %u XDP fragments, the program left %zu",
					   nr_frags, f == g_xdp_frags.end() ? (size_t)0 : f->second.size());
			else
				frags = f->second;
		} else if (f != g_xdp_frags.end()) {
			host_error("rx_deliver: a multi-buffer frame delivered without its fragments");
		}
		if (f != g_xdp_frags.end())
			g_xdp_frags.erase(f);
	}
	auto put_frags = [&frags] {
		for (const auto &f : frags)
			rxbuf_put(f.page);
	};
	{
		std::lock_guard<std::recursive_mutex> l(g_mu);
		auto it = g_rxbufs.find(pkt->page);
		if (it == g_rxbufs.end()) {
			host_error("rx_deliver of page %p that is not an RX buffer", pkt->page);
			return -1;
		}
		uint32_t size = 4096u << (it->second.q ? it->second.q->order : 0);
		uint32_t end = pkt->buf_size ? pkt->buf_off + pkt->buf_size : size;
		if (pkt->buf_size && (end > size || pkt->buf_off > pkt->headroom))
			host_error("rx_deliver: buffer %u + %u outside the %u-byte page or past headroom %u",
				   pkt->buf_off, pkt->buf_size, size, pkt->headroom);
		if (pkt->meta_len > pkt->headroom - pkt->buf_off)
			host_error("rx_deliver: %u metadata bytes but headroom %u", pkt->meta_len,
				   pkt->headroom - pkt->buf_off);
		if ((uint64_t)pkt->headroom + pkt->len > end)
			host_error("rx_deliver: headroom %u + len %u beyond the %u-byte buffer",
				   pkt->headroom, pkt->len, end);
		else if (g_fail_deliveries > 0)
			g_fail_deliveries--;
		else {
			const uint8_t *p = static_cast<const uint8_t *>(pkt->page) + pkt->headroom;
			host::RxRecord r{ std::vector<uint8_t>(p, p + pkt->len), *pkt, scx_rx_gso{},
					  end - pkt->buf_off, nr_frags };
			for (const auto &f : frags) {
				const uint8_t *q = static_cast<const uint8_t *>(f.page) + f.off;
				r.data.insert(r.data.end(), q, q + f.len);
				r.truesize += 4096u;
			}
			g_delivered[os_channel].push_back(std::move(r));
			rxbuf_put(pkt->page);
			put_frags();
			return 0;
		}
	}
	rxbuf_put(pkt->page);
	put_frags();
	return -1;
}

} /* namespace */

int scx_os_rx_deliver(void *os_channel, const struct scx_rx_pkt *pkt)
{
	return rx_deliver(os_channel, pkt, 0);
}

int scx_os_rx_deliver_xdp_mb(void *os_channel, const struct scx_rx_pkt *pkt, uint32_t nr_frags)
{
	if (!nr_frags)
		host_error("rx_deliver_xdp_mb without fragments");
	return rx_deliver(os_channel, pkt, nr_frags);
}

int scx_os_xdp_run(void *os_channel, struct scx_xdp_buf *b)
{
	host::XdpProg prog;
	uint8_t *page = static_cast<uint8_t *>(b->page);
	std::vector<scx_xdp_frag> in;
	{
		std::lock_guard<std::recursive_mutex> l(g_mu);
		auto it = g_rxbufs.find(b->page);
		if (it == g_rxbufs.end()) {
			host_error("xdp_run on page %p that is not an RX buffer", b->page);
			return SCX_XDP_ABORTED;
		}
		if (it->second.q != reinterpret_cast<HostRxq *>(b->rxq) || it->second.dma != b->dma)
			host_error("xdp_run: rxq or dma do not match the page");
		if (!it->second.q || !(it->second.q->flags & SCX_RXQ_XDP))
			host_error("xdp_run on a buffer of a pool not created for XDP");
		if (b->frame_sz != 4096u || b->headroom + b->len > b->frame_sz)
			host_error("xdp_run: frame_sz %u headroom %u len %u", b->frame_sz,
				   b->headroom, b->len);
		if (b->nr_frags > SCX_XDP_MAX_FRAGS) {
			host_error("xdp_run: %u fragments", b->nr_frags);
			return SCX_XDP_ABORTED;
		}
		/* the xdp_buff's fragments: whole pages of the same pool, each filled */
		for (uint32_t i = 0; i < b->nr_frags; i++) {
			const scx_xdp_frag &f = b->frags[i];
			auto fi = g_rxbufs.find(f.page);
			if (fi == g_rxbufs.end() || fi->second.q != it->second.q ||
			    fi->second.dma != f.dma || !f.len || f.off + f.len > 4096u)
				host_error("xdp_run: fragment %u (page %p, off %u, len %u) is not a filled page of the pool",
					   i, f.page, f.off, f.len);
			in.push_back(f);
		}
		if (b->nr_frags && b->headroom + b->len + host::kOsLayout.rx_tailroom > b->frame_sz)
			host_error("xdp_run: a multi-buffer frame's first buffer leaves no room for the fragment list");
		prog = g_xdp_prog;
	}
	int verdict = prog ? prog(os_channel, page, b) : SCX_XDP_PASS;
	b->data = page + b->headroom;
	/* a program may only drop fragments from the tail (bpf_xdp_adjust_tail): the kernel frees them */
	if (b->nr_frags > in.size()) {
		host_error("xdp_run: the program added fragments (%u > %zu)", b->nr_frags, in.size());
		b->nr_frags = (uint32_t)in.size();
	}
	for (uint32_t i = 0; i < b->nr_frags; i++)
		if (b->frags[i].page != in[i].page || b->frags[i].off != in[i].off)
			host_error("xdp_run: the program moved fragment %u", i);
	for (size_t i = b->nr_frags; i < in.size(); i++)
		rxbuf_put(in[i].page);
	if (verdict == SCX_XDP_REDIRECT) {
		/* xdp_do_redirect: the frame leaves with its pages */
		host::Bytes frame(b->data, b->data + b->len);
		for (uint32_t i = 0; i < b->nr_frags; i++) {
			const uint8_t *q = static_cast<const uint8_t *>(b->frags[i].page) + b->frags[i].off;
			frame.insert(frame.end(), q, q + b->frags[i].len);
		}
		{
			std::lock_guard<std::recursive_mutex> l(g_mu);
			g_redirected[os_channel].push_back(std::move(frame));
		}
		rxbuf_put(b->page);
		for (uint32_t i = 0; i < b->nr_frags; i++)
			rxbuf_put(b->frags[i].page);
	} else if (verdict == SCX_XDP_PASS && b->nr_frags) {
		std::lock_guard<std::recursive_mutex> l(g_mu);
		g_xdp_frags[b->page].assign(b->frags, b->frags + b->nr_frags);
	}
	return verdict;
}

void scx_os_xdp_exception(void *os_channel, int verdict)
{
	std::lock_guard<std::recursive_mutex> l(g_mu);
	g_xdp_exceptions[{ os_channel, verdict }]++;
}

void scx_os_xdp_frame_free(void *os_channel, void *frame)
{
	std::lock_guard<std::recursive_mutex> l(g_mu);
	g_frames_freed[os_channel].push_back(frame);
}

void scx_os_xdp_frames_free_bulk(void *os_channel, void *const *frames, uint32_t n)
{
	std::lock_guard<std::recursive_mutex> l(g_mu);
	g_frame_bulks[os_channel]++;
	for (uint32_t i = 0; i < n; i++)
		g_frames_freed[os_channel].push_back(frames[i]);
}

void scx_os_tx_free(void *os_channel, void *skb, int napi_budget)
{
	(void)napi_budget;
	std::lock_guard<std::recursive_mutex> l(g_mu);
	g_tx_freed[os_channel].push_back(skb);
}

void scx_os_tx_tstamp(void *os_channel, void *skb, uint64_t ts)
{
	std::lock_guard<std::recursive_mutex> l(g_mu);
	g_tx_tstamps[os_channel].push_back({skb, ts});
}

} /* extern "C" */

/* ================= test-facing helpers ================= */

namespace host {

uint64_t dma_map(const void *cpu, uint32_t len, uint32_t kind)
{
	return dma_register(const_cast<void *>(cpu), len, Region::TxMap, kind);
}

void dma_forget(uint64_t dma)
{
	std::lock_guard<std::recursive_mutex> l(g_mu);
	g_dma.erase(dma);
}

void dma_revoke(uint64_t dma)
{
	std::lock_guard<std::recursive_mutex> l(g_mu);
	auto it = g_dma.find(dma);
	if (it == g_dma.end() || it->second.kind != Region::TxMap) {
		host_error("dma_revoke(0x%llx): not a TX mapping", (unsigned long long)dma);
		return;
	}
	it->second.revoked = true;
}

uint64_t dma_to_cpu_batches()
{
	std::lock_guard<std::recursive_mutex> l(g_mu);
	return g_dma_batches;
}

size_t dma_regions()
{
	std::lock_guard<std::recursive_mutex> l(g_mu);
	return g_dma.size();
}

static size_t count_kind(Region k)
{
	std::lock_guard<std::recursive_mutex> l(g_mu);
	size_t n = 0;
	for (auto &r : g_dma)
		n += r.second.kind == k;
	return n;
}

size_t dma_coherent_regions() { return count_kind(Region::Coherent); }
size_t dma_tx_mappings() { return count_kind(Region::TxMap); }

uint64_t dma_unmapped_addr()
{
	return kIovaBase - 16 * kPage;	/* below the first IOVA ever handed out */
}

size_t rx_buffers_outstanding()
{
	std::lock_guard<std::recursive_mutex> l(g_mu);
	return g_rxbufs.size();
}

size_t rxqs_live()
{
	std::lock_guard<std::recursive_mutex> l(g_mu);
	return g_rxqs_live;
}

const std::vector<RxRecord> &rx_delivered(void *os_channel)
{
	std::lock_guard<std::recursive_mutex> l(g_mu);
	return g_delivered[os_channel];
}

void rx_fail_next_deliveries(int n)
{
	std::lock_guard<std::recursive_mutex> l(g_mu);
	g_fail_deliveries = n;
}

void rx_fail_next_allocs(int n)
{
	std::lock_guard<std::recursive_mutex> l(g_mu);
	g_fail_allocs = n;
}

const std::vector<void *> &tx_freed(void *os_channel)
{
	std::lock_guard<std::recursive_mutex> l(g_mu);
	return g_tx_freed[os_channel];
}

const std::vector<TxTstamp> &tx_tstamps(void *os_channel)
{
	std::lock_guard<std::recursive_mutex> l(g_mu);
	return g_tx_tstamps[os_channel];
}

uint64_t rx_recycled(bool napi)
{
	std::lock_guard<std::recursive_mutex> l(g_mu);
	return g_recycles[napi ? 1 : 0];
}

void set_xdp_prog(XdpProg prog)
{
	std::lock_guard<std::recursive_mutex> l(g_mu);
	g_xdp_prog = std::move(prog);
}

const std::vector<Bytes> &xdp_redirected(void *os_channel)
{
	std::lock_guard<std::recursive_mutex> l(g_mu);
	return g_redirected[os_channel];
}

uint64_t xdp_exceptions(void *os_channel, int verdict)
{
	std::lock_guard<std::recursive_mutex> l(g_mu);
	auto it = g_xdp_exceptions.find({ os_channel, verdict });
	return it == g_xdp_exceptions.end() ? 0 : it->second;
}

const std::vector<void *> &xdp_frames_freed(void *os_channel)
{
	std::lock_guard<std::recursive_mutex> l(g_mu);
	return g_frames_freed[os_channel];
}

uint32_t xdp_frame_bulks(void *os_channel)
{
	std::lock_guard<std::recursive_mutex> l(g_mu);
	return g_frame_bulks[os_channel];
}

uint64_t take_cq_events(void *irq_ctx, uint32_t vector)
{
	std::lock_guard<std::recursive_mutex> l(g_mu);
	auto it = g_cq_events.find({ irq_ctx, vector });
	if (it == g_cq_events.end())
		return 0;
	uint64_t ev = it->second;
	it->second = 0;
	return ev;
}

uint64_t irq_count(void *irq_ctx, uint32_t vector)
{
	std::lock_guard<std::recursive_mutex> l(g_mu);
	auto it = g_irqs.find({ irq_ctx, vector });
	return it == g_irqs.end() ? 0 : it->second;
}

std::vector<int> recovered(void *os_channel, uint32_t kind)
{
	std::lock_guard<std::recursive_mutex> l(g_mu);
	auto it = g_recovered.find({ os_channel, kind });
	return it == g_recovered.end() ? std::vector<int>{} : it->second;
}

uint64_t irq_total()
{
	std::lock_guard<std::recursive_mutex> l(g_mu);
	return g_irq_total;
}

std::vector<CqError> cq_errors()
{
	std::lock_guard<std::recursive_mutex> l(g_mu);
	return g_cq_errors;
}

void set_irq_hook(std::function<void(void *, uint32_t)> hook)
{
	std::lock_guard<std::recursive_mutex> l(g_mu);
	g_irq_hook = std::move(hook);
}

int64_t zalloc_outstanding()
{
	std::lock_guard<std::recursive_mutex> l(g_mu);
	return g_zalloc_outstanding;
}

uint64_t mem_bytes()
{
	std::lock_guard<std::recursive_mutex> l(g_mu);
	return g_mem_bytes;
}

uint64_t mem_peak_reset()
{
	std::lock_guard<std::recursive_mutex> l(g_mu);
	g_mem_peak = g_mem_bytes;
	return g_mem_bytes;
}

uint64_t mem_peak()
{
	std::lock_guard<std::recursive_mutex> l(g_mu);
	return g_mem_peak;
}

int64_t locks_live()
{
	std::lock_guard<std::recursive_mutex> l(g_mu);
	return g_locks_live;
}

uint64_t now_ns()
{
	return scx_os_timer_now();
}

void on_next_timer_now(std::function<void()> hook)
{
	std::lock_guard<std::mutex> l(g_timer_mu);
	g_timer_now_hook = std::move(hook);
}

void clock_advance(uint64_t ns)
{
	std::unique_lock<std::mutex> l(g_timer_mu);
	uint64_t target = g_now + ns;

	for (;;) {
		scx_os_timer *next = nullptr;
		for (scx_os_timer *t : g_timers)
			if (t->queued && t->expires <= target && (!next || t->expires < next->expires))
				next = t;
		if (!next)
			break;
		if (next->expires > g_now)
			g_now = next->expires;
		uint64_t expired = next->expires;
		next->queued = false;
		next->running++;
		l.unlock();
		uint64_t again = next->fn(next->arg, expired);
		l.lock();
		next->running--;
		if (!again)
			continue;
		/* a re-arm from the callback over a start made meanwhile: the kernel's tree would break */
		bool clash = next->queued;
		next->queued = true;
		next->expires = again;
		if (clash) {
			l.unlock();
			host_error("timer %p re-armed by its callback while started meanwhile", (void *)next);
			l.lock();
		}
	}
	g_now = target;
}

uint64_t timer_starts()
{
	std::lock_guard<std::mutex> l(g_timer_mu);
	return g_timer_starts;
}

size_t timers_queued()
{
	std::lock_guard<std::mutex> l(g_timer_mu);
	size_t n = 0;
	for (scx_os_timer *t : g_timers)
		n += t->queued;
	return n;
}

int errors()
{
	std::lock_guard<std::recursive_mutex> l(g_mu);
	return g_errors;
}

void reset()
{
	std::lock_guard<std::recursive_mutex> l(g_mu);
	g_errors = 0;
	g_delivered.clear();
	g_tx_freed.clear();
	g_tx_tstamps.clear();
	g_irqs.clear();
	g_irq_total = 0;
	g_cq_events.clear();
	g_cq_errors.clear();
	g_recovered.clear();
	g_irq_hook = nullptr;
	g_fail_deliveries = 0;
	g_fail_allocs = 0;
	g_recycles[0] = g_recycles[1] = 0;
	g_xdp_prog = nullptr;
	g_redirected.clear();
	g_xdp_frags.clear();
	g_xdp_exceptions.clear();
	g_frames_freed.clear();
	g_frame_bulks.clear();
}

} /* namespace host */
