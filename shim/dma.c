// SPDX-License-Identifier: GPL-2.0
/*
 * softcx DMA: the driver's mappings and the emulated device's view of them.
 *
 * The device reaches memory only through scx_os_dma_to_cpu(), and that
 * behaves like an IOMMU in front of it: a bus address range translates
 * only while it lies inside something currently mapped for this adapter.
 * Anything else (a stale address after an unmap, a wrong one, a freed
 * page) is refused, and the device model turns the refusal into an error
 * CQE or a failed command and counts it (bus_dma_faults).
 *
 * What is mapped, per adapter (struct scx_dma_view, the drvdata of the
 * adapter's device):
 *  - coherent allocations (rings, doorbell records) and streaming TX
 *    mappings (skb heads and fragments, redirected xdp_frames) between map
 *    and unmap: an atomic count per bus page, in chunks an xarray indexes
 *    (see below). Like an IOMMU the view has page granularity: a stale
 *    address inside a page that another live mapping still covers is let
 *    through (as real hardware would be); one in a page nothing covers is
 *    not.
 *  - the pages of this adapter's page_pools (RX buffers, XDP_TX frames):
 *    checked from the page itself, no per-packet bookkeeping: page_pool
 *    signature, page->pp registered here (a pointer compare, the pool is
 *    never dereferenced), and the range inside the pool's mapping of the
 *    page. Like page_pool's own DMA mapping this covers the page as long
 *    as the pool holds it (cached, posted, or in an skb it will recycle).
 *
 * Locks: none per packet. Map and unmap are atomics on the page counts;
 * the xarray's BH-safe lock is taken only to add a chunk of counters;
 * page count lookups need no lock (chunks live as long as the view; the
 * xarray walk is RCU of its own). The pool table is read under RCU (only
 * for a page_pool page) and has its own spinlock for process-context
 * add/remove, entries freed after a grace period.
 *
 * KUnit builds this on UML too, which has the DMA API (softcx.h), so
 * KUnit exercises the same mappings and the same rules.
 *
 * Module parameter dma_view=0 (load time) turns the view off: every
 * address backed by RAM translates, as before the view existed, and
 * nothing is counted. For A/B cost measurements (Documentation/
 * performance.md), so off must cost nothing: the parameter sets the
 * static key scx_dma_view_key when the first view is created, and every
 * per-packet path (the map wrappers in softcx.h, scx_os_dma_to_cpu(),
 * scx_os_dma_unmap()) tests only that key, with the view's work out of
 * line behind it.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/dma-mapping.h>
#include <linux/gfp.h>
#include <linux/hashtable.h>
#include <linux/jump_label.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/poison.h>
#include <linux/rcupdate.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/xarray.h>
#include <linux/dma-direct.h>

#include "softcx.h"

static bool dma_view = true;
module_param(dma_view, bool, 0444);
MODULE_PARM_DESC(dma_view, "The emulated device reaches only memory mapped for it (default on; 0: any RAM, for cost measurements)");

/* dma_view, as the per-packet paths test it (set before anything is mapped). */
DEFINE_STATIC_KEY_TRUE(scx_dma_view_key);

#define SCX_DMA_POOL_BITS	8

/* The next skb head mapping is reported to the core at the poison address. */
enum { SCX_INJ_IDLE, SCX_INJ_ARMED, SCX_INJ_INFLIGHT };

struct scx_dma_pool {
	struct hlist_node node;
	const struct page_pool *pool;
	u32 order;
	struct rcu_head rcu;
};

struct scx_dma_view {
	struct xarray pages;		/* bus page >> SCX_DMA_CHUNK_SHIFT -> struct scx_dma_chunk */
	struct scx_dma_chunk *hint;	/* the chunk found last */
	spinlock_t pools_lock;		/* writers of pools */
	DECLARE_HASHTABLE(pools, SCX_DMA_POOL_BITS);
	/* fault injection (debugfs inject_dma_fault) */
	atomic_t inject;		/* SCX_INJ_* */
	struct page *poison_page;	/* held, never mapped: its bus address is stale */
	u64 poison_dma;
	u64 poison_real_dma;		/* the mapping the poison address stands for */
	u32 poison_real_len;
};

static inline struct scx_dma_view *scx_view(struct device *dev)
{
	return dev_get_drvdata(dev);
}

/* ---- bus pages of coherent and streaming mappings ---- */

/*
 * A count per bus page, in chunks of SCX_DMA_CHUNK pages (2 KiB of
 * counters for 2 MiB of bus space) that an xarray indexes by bus page >>
 * SCX_DMA_CHUNK_SHIFT. A chunk is allocated the first time a page in it
 * is mapped and stays until the view goes, so map, unmap and lookup are
 * an RCU walk of a shallow tree plus one atomic on the counter: no lock,
 * no allocation or RCU callback per packet (erasing and recreating tree
 * entries per packet cost twice as much and made the cost per packet vary
 * by 10 %). The last chunk found is kept as a hint: consecutive packets'
 * buffers mostly share a 2 MiB chunk, and since chunks are never freed
 * before the view, the hint needs no RCU. Memory: 0.1 % of the bus space
 * ever mapped.
 */
#define SCX_DMA_CHUNK_SHIFT	9
#define SCX_DMA_CHUNK		(1UL << SCX_DMA_CHUNK_SHIFT)

struct scx_dma_chunk {
	unsigned long ix;		/* bus page >> SCX_DMA_CHUNK_SHIFT */
	atomic_t count[SCX_DMA_CHUNK];
};

static unsigned long scx_first_pg(u64 dma)
{
	return dma >> PAGE_SHIFT;
}

static unsigned long scx_last_pg(u64 dma, u32 len)
{
	return (dma + (len ? len - 1 : 0)) >> PAGE_SHIFT;
}

/* @hint: a chunk found in the tree becomes the hint (not for a WQE's odd page: see scx_view_range) */
static __always_inline atomic_t *scx_page_count_at(struct scx_dma_view *v, unsigned long pg,
						   bool hint)
{
	unsigned long ix = pg >> SCX_DMA_CHUNK_SHIFT;
	struct scx_dma_chunk *c = READ_ONCE(v->hint);

	if (unlikely(!c || c->ix != ix)) {
		c = xa_load(&v->pages, ix);
		if (!c)
			return NULL;
		if (hint)
			WRITE_ONCE(v->hint, c);
	}
	return &c->count[pg & (SCX_DMA_CHUNK - 1)];
}

static atomic_t *scx_page_count(struct scx_dma_view *v, unsigned long pg)
{
	return scx_page_count_at(v, pg, true);
}

/*
 * The counter of the one bus page [dma, dma + len) lies in, when that
 * page is in the hint's chunk: the usual packet buffer, without the range
 * loop or the tree. NULL otherwise (more pages, another chunk).
 */
static __always_inline atomic_t *scx_page_count_hint(struct scx_dma_view *v, u64 dma, u32 len)
{
	unsigned long pg = scx_first_pg(dma);
	struct scx_dma_chunk *c = READ_ONCE(v->hint);

	if (likely(c && c->ix == pg >> SCX_DMA_CHUNK_SHIFT && pg == scx_last_pg(dma, len)))
		return &c->count[pg & (SCX_DMA_CHUNK - 1)];
	return NULL;
}

/* The first mapping in a chunk's range: the chunk is created (rarely: out of line). */
static noinline struct scx_dma_chunk *scx_chunk_create(struct scx_dma_view *v, unsigned long ix)
{
	struct scx_dma_chunk *c, *old;

	c = kzalloc(sizeof(*c), GFP_ATOMIC | __GFP_NOWARN);
	if (!c)
		return NULL;
	c->ix = ix;
	old = xa_cmpxchg_bh(&v->pages, ix, NULL, c, GFP_ATOMIC | __GFP_NOWARN);
	if (old) {		/* another CPU was first, or the tree had no room */
		kfree(c);
		if (xa_is_err(old))
			return NULL;
		c = old;
	}
	return c;
}

/* The counter of a page about to be mapped: its chunk is created on first use. */
static atomic_t *scx_page_count_new(struct scx_dma_view *v, unsigned long pg)
{
	atomic_t *cnt = scx_page_count(v, pg);
	struct scx_dma_chunk *c;

	if (likely(cnt))
		return cnt;
	c = scx_chunk_create(v, pg >> SCX_DMA_CHUNK_SHIFT);
	return c ? &c->count[pg & (SCX_DMA_CHUNK - 1)] : NULL;
}

static void scx_pages_put_range(struct scx_dma_view *v, unsigned long first,
				unsigned long last)
{
	unsigned long pg;

	for (pg = first; pg <= last; pg++) {
		atomic_t *cnt = scx_page_count(v, pg);

		/* an unmap of what was never mapped */
		WARN_ON_ONCE(!cnt || atomic_dec_return(cnt) < 0);
	}
}

/* One more mapping covers [dma, dma + len). 0 or -ENOMEM (nothing taken). */
static int scx_pages_get(struct scx_dma_view *v, u64 dma, u32 len)
{
	unsigned long first = scx_first_pg(dma), last = scx_last_pg(dma, len);
	unsigned long pg;

	for (pg = first; pg <= last; pg++) {
		atomic_t *cnt = scx_page_count_new(v, pg);

		if (unlikely(!cnt)) {
			if (pg > first)
				scx_pages_put_range(v, first, pg - 1);
			return -ENOMEM;
		}
		atomic_inc(cnt);
	}
	return 0;
}

static __always_inline void scx_pages_put(struct scx_dma_view *v, u64 dma, u32 len)
{
	atomic_t *hit = scx_page_count_hint(v, dma, len);

	if (likely(hit)) {
		WARN_ON_ONCE(atomic_dec_return(hit) < 0);
		return;
	}
	scx_pages_put_range(v, scx_first_pg(dma), scx_last_pg(dma, len));
}

/* No RCU needed: chunks live as long as the view (xa_load takes it itself). */
static bool scx_pages_mapped(struct scx_dma_view *v, u64 dma, u32 len, bool hint)
{
	unsigned long pg, last = scx_last_pg(dma, len);

	for (pg = scx_first_pg(dma); pg <= last; pg++) {
		atomic_t *cnt = scx_page_count_at(v, pg, hint);

		if (!cnt || atomic_read(cnt) <= 0)
			return false;
	}
	return true;
}

/* Free every chunk; returns the pages still mapped (a leak when the view goes). */
static unsigned long scx_pages_free(struct scx_dma_view *v)
{
	struct scx_dma_chunk *c;
	unsigned long ix, n = 0;
	u32 i;

	xa_for_each(&v->pages, ix, c) {
		for (i = 0; i < SCX_DMA_CHUNK; i++)
			n += atomic_read(&c->count[i]) != 0;
		kfree(c);
	}
	xa_destroy(&v->pages);
	return n;
}

/* ---- page_pool pages ---- */

int scx_dma_pool_add(struct device *dev, struct page_pool *pool, u32 order)
{
	struct scx_dma_view *v = scx_view(dev);
	struct scx_dma_pool *e;

	if (!scx_dma_view_on())
		return 0;
	if (WARN_ON_ONCE(!v))
		return -ENODEV;
	e = kzalloc(sizeof(*e), GFP_KERNEL);
	if (!e)
		return -ENOMEM;
	e->pool = pool;
	e->order = order;
	spin_lock_bh(&v->pools_lock);
	hash_add_rcu(v->pools, &e->node, (unsigned long)pool);
	spin_unlock_bh(&v->pools_lock);
	return 0;
}

void scx_dma_pool_del(struct device *dev, struct page_pool *pool)
{
	struct scx_dma_view *v = scx_view(dev);
	struct scx_dma_pool *e;

	if (!scx_dma_view_on() || !v)
		return;
	spin_lock_bh(&v->pools_lock);
	hash_for_each_possible(v->pools, e, node, (unsigned long)pool) {
		if (e->pool == pool) {
			hash_del_rcu(&e->node);
			kfree_rcu(e, rcu);
			break;
		}
	}
	spin_unlock_bh(&v->pools_lock);
}

/*
 * The page order this adapter registered pool @pp with, or -1 when it did
 * not register it. @pp is compared, never dereferenced; only this lookup
 * takes the RCU read lock (for the pool table).
 */
static int scx_pool_order(struct scx_dma_view *v, const struct page_pool *pp)
{
	struct scx_dma_pool *e;
	int order = -1;

	rcu_read_lock();
	hash_for_each_possible_rcu(v->pools, e, node, (unsigned long)pp) {
		if (e->pool == pp) {
			order = e->order;
			break;
		}
	}
	rcu_read_unlock();
	return order;
}

/*
 * The pool a compound head @page belongs to, when it is a page_pool page
 * (rings and TX buffers fail the signature test); else NULL.
 */
static const struct page_pool *scx_page_pool_of(struct page *page)
{
	if ((READ_ONCE(page->pp_magic) & ~0x3UL) != PP_SIGNATURE)
		return NULL;
	return READ_ONCE(page->pp);
}

/* ---- the device's view ---- */

/*
 * [dma, dma + len) is RAM with a memory map: its start's physical address
 * in @phys (the CPU address is then the direct mapping).
 */
static __always_inline bool scx_dma_ram(struct device *dev, u64 dma, u32 len, phys_addr_t *phys)
{
	phys_addr_t first = dma_to_phys(dev, dma);
	phys_addr_t last = first + (len ? len - 1 : 0);
	unsigned long pfn;

	if (unlikely(last < first))
		return false;
	for (pfn = PHYS_PFN(first); pfn <= PHYS_PFN(last); pfn++)
		if (unlikely(!pfn_valid(pfn)))
			return false;
	*phys = first;
	return true;
}

/* The view off: any RAM translates. */
static __always_inline void *scx_ram_to_cpu(struct device *dev, u64 dma, u32 len)
{
	phys_addr_t phys;

	return likely(scx_dma_ram(dev, dma, len, &phys)) ? phys_to_virt(phys) : NULL;
}

/*
 * The view on: [dma, dma + len) is RAM, and inside a page_pool page of
 * this adapter, within the pool's mapping of it, or in pages that coherent
 * or streaming mappings cover. *pp and *order carry the pool looked up
 * last from one range to the next (NULL at first): a striding WQE's pages
 * are all of one pool. @hint: a page count found in the tree moves the
 * hint there; a WQE's pages do not (its tail, coherent memory, would take
 * the hint from the TX buffers' chunk once a WQE).
 */
static __always_inline void *scx_view_range(struct scx_dma_view *v, struct device *dev, u64 dma,
					     u32 len, const struct page_pool **pp, int *order,
					     bool hint)
{
	const struct page_pool *pool;
	struct page *page;
	phys_addr_t phys;
	u64 base;

	if (unlikely(!v || dma + (len ? len - 1 : 0) < dma) || !scx_dma_ram(dev, dma, len, &phys))
		return NULL;
	page = compound_head(pfn_to_page(PHYS_PFN(phys)));
	pool = scx_page_pool_of(page);
	if (likely(pool)) {
		if (pool != *pp) {
			*order = scx_pool_order(v, pool);
			*pp = pool;
		}
		base = scx_rx_page_dma(page);
		if (likely(*order >= 0 && dma >= base && dma - base + len <= (PAGE_SIZE << *order)))
			return phys_to_virt(phys);
	}
	return scx_pages_mapped(v, dma, len, hint) ? phys_to_virt(phys) : NULL;
}

/* Out of line, so that with the view off scx_os_dma_to_cpu() is the plain translation behind one jump. */
static noinline void *scx_view_to_cpu(struct device *dev, u64 dma, u32 len)
{
	const struct page_pool *pp = NULL;
	int order = -1;

	return scx_view_range(scx_view(dev), dev, dma, len, &pp, &order, true);
}

void *scx_os_dma_to_cpu(void *os_dev, uint64_t dma, uint32_t len)
{
	if (scx_dma_view_on()) {
		struct scx_dma_view *v = scx_view(os_dev);
		atomic_t *cnt;

		/*
		 * A page a live coherent or streaming mapping covers is RAM the
		 * DMA API mapped: no memory map check. Tried first only in the
		 * hint's chunk (a TX buffer just mapped: one page, so the range
		 * cannot wrap); anything else takes the full walk.
		 */
		if (likely(v) && (cnt = scx_page_count_hint(v, dma, len)) && atomic_read(cnt) > 0)
			return phys_to_virt(dma_to_phys(os_dev, dma));
		return scx_view_to_cpu(os_dev, dma, len);
	}
	return scx_ram_to_cpu(os_dev, dma, len);
}

/*
 * A call per WQE instead of one per page: the pool is looked up once, and
 * neither the call nor the TX hint (no page_pool page is in it) is paid
 * per range.
 */
void scx_os_dma_to_cpu_n(void *os_dev, const uint64_t *dma, const uint32_t *len, void **cpu,
			 uint32_t n)
{
	struct scx_dma_view *v = scx_view(os_dev);
	const struct page_pool *pp = NULL;
	int order = -1;
	u32 i;

	if (!scx_dma_view_on()) {
		for (i = 0; i < n; i++)
			cpu[i] = scx_ram_to_cpu(os_dev, dma[i], len[i]);
		return;
	}
	for (i = 0; i < n; i++)
		cpu[i] = scx_view_range(v, os_dev, dma[i], len[i], &pp, &order, false);
}

/* ---- coherent memory ---- */

void *scx_os_dma_alloc(void *os_dev, uint32_t size, uint64_t *dma)
{
	struct scx_dma_view *v = scx_view(os_dev);
	dma_addr_t handle;
	void *cpu;

	if (scx_dma_view_on() && WARN_ON_ONCE(!v))
		return NULL;
	cpu = dma_alloc_coherent(os_dev, size, &handle, GFP_KERNEL);
	if (!cpu)
		return NULL;
	if (scx_dma_view_on() && scx_pages_get(v, handle, size)) {
		dma_free_coherent(os_dev, size, cpu, handle);
		return NULL;
	}
	*dma = handle;
	return cpu;
}

void scx_os_dma_free(void *os_dev, uint32_t size, void *cpu, uint64_t dma)
{
	struct scx_dma_view *v = scx_view(os_dev);

	if (scx_dma_view_on() && v)
		scx_pages_put(v, dma, size);
	dma_free_coherent(os_dev, size, cpu, dma);
}

/* ---- streaming TX mappings ---- */

static void scx_raw_unmap(struct device *dev, u64 dma, u32 len, u32 kind)
{
	if (kind == SCX_DMA_PAGE)
		dma_unmap_page(dev, dma, len, DMA_TO_DEVICE);
	else
		dma_unmap_single(dev, dma, len, DMA_TO_DEVICE);
}

/*
 * The view on (scx_map_tx() in softcx.h): count a fresh mapping; on
 * failure it is undone and the error address returned. An skb head
 * (@head) may be the target of an armed injection. The usual mapping,
 * one page in the hint's chunk with no injection armed for it, is counted
 * in scx_dma_track() itself; everything else takes this.
 */
static noinline dma_addr_t scx_dma_track_slow(struct device *dev, dma_addr_t dma, u32 len,
					      u32 kind, bool head)
{
	struct scx_dma_view *v = scx_view(dev);
	atomic_t *hit = likely(v) ? scx_page_count_hint(v, dma, len) : NULL;

	if (likely(hit)) {
		atomic_inc(hit);
	} else if (unlikely(!v || scx_pages_get(v, dma, len))) {
		scx_raw_unmap(dev, dma, len, kind);
		return DMA_MAPPING_ERROR;
	}
	/* The injected fault: the core gets an address the device cannot reach. */
	if (unlikely(atomic_read(&v->inject) == SCX_INJ_ARMED) && head &&
	    atomic_cmpxchg(&v->inject, SCX_INJ_ARMED, SCX_INJ_INFLIGHT) == SCX_INJ_ARMED) {
		WRITE_ONCE(v->poison_real_dma, dma);
		WRITE_ONCE(v->poison_real_len, len);
		return v->poison_dma + offset_in_page(dma);
	}
	return dma;
}

/*
 * Kept small (no register saves for the slow path's calls): a mapping
 * counts twice per TX packet, map and unmap (bench/vm/icount.sh).
 */
dma_addr_t scx_dma_track(struct device *dev, dma_addr_t dma, u32 len, u32 kind, bool head)
{
	struct scx_dma_view *v = scx_view(dev);
	atomic_t *hit;

	if (likely(v) && likely(!head || atomic_read(&v->inject) != SCX_INJ_ARMED) &&
	    likely((hit = scx_page_count_hint(v, dma, len)))) {
		atomic_inc(hit);
		return dma;
	}
	return scx_dma_track_slow(dev, dma, len, kind, head);
}

/*
 * The view on: a streaming mapping goes, its pages uncounted, then it is
 * unmapped. The injected mapping comes back under its poison address and
 * is unmapped as the real one.
 */
static noinline void scx_dma_unmap_tracked(struct device *dev, u64 dma, u32 len, u32 kind)
{
	struct scx_dma_view *v = scx_view(dev);

	if (likely(v)) {
		if (unlikely(atomic_read(&v->inject) == SCX_INJ_INFLIGHT) &&
		    (dma & PAGE_MASK) == v->poison_dma && len == READ_ONCE(v->poison_real_len)) {
			dma = READ_ONCE(v->poison_real_dma);
			atomic_set(&v->inject, SCX_INJ_IDLE);
		}
		scx_pages_put(v, dma, len);	/* inlined: the one-page case without a call */
	}
	scx_raw_unmap(dev, dma, len, kind);
}

void scx_os_dma_unmap(void *os_dev, uint64_t dma, uint32_t len, uint32_t kind)
{
	if (scx_dma_view_on()) {
		struct scx_dma_view *v = scx_view(os_dev);
		atomic_t *hit;

		/* the usual unmap (one page in the hint's chunk, no injection in flight) here */
		if (likely(v) && likely(atomic_read(&v->inject) != SCX_INJ_INFLIGHT) &&
		    likely((hit = scx_page_count_hint(v, dma, len)))) {
			WARN_ON_ONCE(atomic_dec_return(hit) < 0);
			scx_raw_unmap(os_dev, dma, len, kind);
			return;
		}
		scx_dma_unmap_tracked(os_dev, dma, len, kind);
	} else {
		scx_raw_unmap(os_dev, dma, len, kind);
	}
}

/* ---- per-adapter view ---- */

int scx_dma_view_create(struct device *dev)
{
	struct scx_dma_view *v;
	dma_addr_t dma;

	/* Before the first mapping: off, the per-packet paths skip the view. */
	if (!dma_view)
		static_branch_disable(&scx_dma_view_key);
	v = kzalloc(sizeof(*v), GFP_KERNEL);
	if (!v)
		return -ENOMEM;
	xa_init_flags(&v->pages, XA_FLAGS_LOCK_BH);
	spin_lock_init(&v->pools_lock);
	hash_init(v->pools);
	atomic_set(&v->inject, SCX_INJ_IDLE);
	/*
	 * The poison page stays allocated and unmapped for the view's life:
	 * its bus address (mapped once, then unmapped) is RAM that nothing
	 * maps for the device, the "stale address" of the injected fault.
	 */
	v->poison_page = alloc_page(GFP_KERNEL | __GFP_ZERO);
	if (!v->poison_page)
		goto err;
	dma = dma_map_page(dev, v->poison_page, 0, PAGE_SIZE, DMA_TO_DEVICE);
	if (scx_map_failed(dev, dma)) {
		__free_page(v->poison_page);
		goto err;
	}
	dma_unmap_page(dev, dma, PAGE_SIZE, DMA_TO_DEVICE);
	v->poison_dma = dma;
	dev_set_drvdata(dev, v);
	return 0;

err:
	kfree(v);
	return -ENOMEM;
}

void scx_dma_view_destroy(struct device *dev)
{
	struct scx_dma_view *v = scx_view(dev);

	if (!v)
		return;
	dev_set_drvdata(dev, NULL);
	/* Everything was unmapped and every pool removed before the adapter went. */
	WARN_ON_ONCE(scx_pages_free(v));
	WARN_ON_ONCE(!hash_empty(v->pools));
	__free_page(v->poison_page);
	kfree(v);
}

/* debugfs: the next skb head mapping reaches the core as a stale address. */
int scx_dma_inject_fault(struct device *dev)
{
	struct scx_dma_view *v = scx_view(dev);

	if (!scx_dma_view_on() || !v)
		return -EOPNOTSUPP;
	if (atomic_cmpxchg(&v->inject, SCX_INJ_IDLE, SCX_INJ_ARMED) != SCX_INJ_IDLE)
		return -EBUSY;
	return 0;
}
