// SPDX-License-Identifier: GPL-2.0
/*
 * softcx_dma: the emulated device's view of memory (shim/dma.c) in the
 * kernel's own code path. The device reaches a range only while it is
 * mapped for the adapter: coherent memory until freed, TX mappings until
 * unmapped, pages of the adapter's registered page_pools. Stale and wrong
 * addresses are refused even though the memory behind them is still RAM
 * (before the view, any valid pfn translated); and through a cabled pair,
 * the refusal is an error CQE, bus_dma_faults and a recovered SQ.
 */
#include <kunit/test.h>
#include <linux/dma-mapping.h>
#include <linux/skbuff.h>
#include <net/page_pool.h>

#include "../shim/softcx.h"
#include "pair.h"

static int scx_dma_test_init(struct kunit *test)
{
	test->priv = kunit_kzalloc(test, sizeof(struct scx_pair), GFP_KERNEL);
	return test->priv ? 0 : -ENOMEM;
}

static void scx_dma_test_exit(struct kunit *test)
{
	scx_pair_destroy(test->priv);
}

static struct device *scx_dma_dev(struct kunit *test)
{
	struct scx_pair *p = test->priv;

	p->dev = scx_kt_dev_create(test);
	KUNIT_ASSERT_NOT_NULL(test, p->dev);
	return p->dev;
}

/* A TX mapping translates while it lives, and not a moment after its unmap. */
static void scx_dma_stale_tx_mapping(struct kunit *test)
{
	struct device *dev = scx_dma_dev(test);
	u8 *buf = kunit_kzalloc(test, 512, GFP_KERNEL);
	dma_addr_t dma;

	KUNIT_ASSERT_NOT_NULL(test, buf);
	dma = scx_map_head(dev, buf + 100, 300);
	KUNIT_ASSERT_FALSE(test, scx_map_failed(dev, dma));
	KUNIT_EXPECT_PTR_EQ(test, scx_os_dma_to_cpu(dev, dma, 300), (void *)(buf + 100));
	KUNIT_EXPECT_PTR_EQ(test, scx_os_dma_to_cpu(dev, dma + 10, 20), (void *)(buf + 110));
	scx_os_dma_unmap(dev, dma, 300, SCX_DMA_SINGLE);
	/* The memory is still ours and still RAM: only the view refuses it. */
	KUNIT_EXPECT_NULL(test, scx_os_dma_to_cpu(dev, dma, 300));
	KUNIT_EXPECT_NULL(test, scx_os_dma_to_cpu(dev, dma + 10, 20));
}

/*
 * A mapping across a page boundary: each of its pages and the whole
 * range translate; a range running on into the next page, RAM that
 * nothing maps, does not (the one-page shortcut of the hint's chunk must
 * not take it), nor does that page alone.
 */
static void scx_dma_range_across_pages(struct kunit *test)
{
	struct device *dev = scx_dma_dev(test);
	struct page *pages = alloc_pages(GFP_KERNEL | __GFP_ZERO, 2);
	u8 *buf;
	dma_addr_t dma;

	KUNIT_ASSERT_NOT_NULL(test, pages);
	buf = page_address(pages);
	dma = scx_map_head(dev, buf + PAGE_SIZE - 100, 300);
	KUNIT_ASSERT_FALSE(test, scx_map_failed(dev, dma));
	KUNIT_EXPECT_PTR_EQ(test, scx_os_dma_to_cpu(dev, dma, 300), (void *)(buf + PAGE_SIZE - 100));
	KUNIT_EXPECT_PTR_EQ(test, scx_os_dma_to_cpu(dev, dma + 150, 10), (void *)(buf + PAGE_SIZE + 50));
	KUNIT_EXPECT_PTR_EQ(test, scx_os_dma_to_cpu(dev, dma, 20), (void *)(buf + PAGE_SIZE - 100));
	KUNIT_EXPECT_NULL(test, scx_os_dma_to_cpu(dev, dma, PAGE_SIZE + 300));
	KUNIT_EXPECT_NULL(test, scx_os_dma_to_cpu(dev, dma + PAGE_SIZE + 100, 8));
	scx_os_dma_unmap(dev, dma, 300, SCX_DMA_SINGLE);
	KUNIT_EXPECT_NULL(test, scx_os_dma_to_cpu(dev, dma, 20));
	KUNIT_EXPECT_NULL(test, scx_os_dma_to_cpu(dev, dma + 150, 10));
	__free_pages(pages, 2);
}

/* Page fragments too, and two mappings of one page keep it reachable until both are gone. */
static void scx_dma_frag_refcount(struct kunit *test)
{
	struct device *dev = scx_dma_dev(test);
	struct page *page = alloc_page(GFP_KERNEL);
	skb_frag_t a, b;
	dma_addr_t da, db;

	KUNIT_ASSERT_NOT_NULL(test, page);
	__skb_frag_set_page(&a, page);
	skb_frag_off_set(&a, 0);
	skb_frag_size_set(&a, 1000);
	__skb_frag_set_page(&b, page);
	skb_frag_off_set(&b, 2000);
	skb_frag_size_set(&b, 1000);
	da = scx_map_frag(dev, &a);
	db = scx_map_frag(dev, &b);
	KUNIT_ASSERT_FALSE(test, scx_map_failed(dev, da));
	KUNIT_ASSERT_FALSE(test, scx_map_failed(dev, db));
	KUNIT_EXPECT_NOT_NULL(test, scx_os_dma_to_cpu(dev, da, 1000));
	scx_os_dma_unmap(dev, da, 1000, SCX_DMA_PAGE);
	KUNIT_EXPECT_NOT_NULL(test, scx_os_dma_to_cpu(dev, db, 1000));
	scx_os_dma_unmap(dev, db, 1000, SCX_DMA_PAGE);
	KUNIT_EXPECT_NULL(test, scx_os_dma_to_cpu(dev, db, 1000));
	KUNIT_EXPECT_NULL(test, scx_os_dma_to_cpu(dev, da, 1000));
	__free_page(page);
}

/* Coherent memory: reachable until freed, and not beyond its pages. */
static void scx_dma_coherent(struct kunit *test)
{
	struct device *dev = scx_dma_dev(test);
	u64 dma;
	void *cpu = scx_os_dma_alloc(dev, PAGE_SIZE, &dma);

	KUNIT_ASSERT_NOT_NULL(test, cpu);
	KUNIT_EXPECT_PTR_EQ(test, scx_os_dma_to_cpu(dev, dma, PAGE_SIZE), cpu);
	KUNIT_EXPECT_NULL(test, scx_os_dma_to_cpu(dev, dma, PAGE_SIZE + 1));
	KUNIT_EXPECT_NULL(test, scx_os_dma_to_cpu(dev, dma + PAGE_SIZE, 64));
	scx_os_dma_free(dev, PAGE_SIZE, cpu, dma);
	KUNIT_EXPECT_NULL(test, scx_os_dma_to_cpu(dev, dma, 64));
}

/* page_pool pages: reachable while a registered pool holds them, within the pool's mapping. */
static void scx_dma_pool_pages(struct kunit *test)
{
	struct device *dev = scx_dma_dev(test);
	struct page_pool_params pp;
	struct page_pool *pool;
	struct page *page, *plain;
	dma_addr_t dma;

	scx_pp_params_init(&pp, dev, 16, 0, DMA_FROM_DEVICE);
	pool = page_pool_create(&pp);
	KUNIT_ASSERT_FALSE(test, IS_ERR(pool));
	page = page_pool_dev_alloc_pages(pool);
	KUNIT_ASSERT_NOT_NULL(test, page);
	dma = scx_rx_page_dma(page);
	/* a pool the adapter never registered */
	KUNIT_EXPECT_NULL(test, scx_os_dma_to_cpu(dev, dma + 256, 1500));

	KUNIT_ASSERT_EQ(test, scx_dma_pool_add(dev, pool, 0), 0);
	KUNIT_EXPECT_PTR_EQ(test, scx_os_dma_to_cpu(dev, dma + 256, 1500),
			    (void *)((u8 *)page_address(page) + 256));
	KUNIT_EXPECT_NULL(test, scx_os_dma_to_cpu(dev, dma + 256, PAGE_SIZE));
	/* a page that is no pool's */
	plain = alloc_page(GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, plain);
	KUNIT_EXPECT_NULL(test, scx_os_dma_to_cpu(dev, page_to_phys(plain), 64));
	__free_page(plain);

	scx_dma_pool_del(dev, pool);
	KUNIT_EXPECT_NULL(test, scx_os_dma_to_cpu(dev, dma + 256, 1500));
	page_pool_put_full_page(pool, page, false);
	page_pool_destroy(pool);
	synchronize_rcu();	/* the view frees its pool entry after a grace period */
}

/*
 * Several ranges in one call (a striding WQE's pages): each answer is the
 * one-range call's, with pages of a registered pool around a page of a
 * pool the adapter does not know (the pool looked up last must not answer
 * for it), the end of a pool page, a TX mapping, a stale one, coherent
 * memory and a wrapping range.
 */
static void scx_dma_batch_as_single(struct kunit *test)
{
	struct device *dev = scx_dma_dev(test);
	struct page_pool *pool, *other;
	struct page_pool_params pp;
	struct page *a, *b, *q;
	u8 *buf = kunit_kzalloc(test, 512, GFP_KERNEL);
	/* a page of its own (kmalloc aligns a power-of-two size): nothing else maps it */
	u8 *old = kunit_kzalloc(test, PAGE_SIZE, GFP_KERNEL);
	dma_addr_t tx, stale;
	void *coh, *cpu[9];
	u64 coh_dma, dma[9];
	u32 len[9];
	int i;

	KUNIT_ASSERT_TRUE(test, buf && old);
	scx_pp_params_init(&pp, dev, 16, 0, DMA_FROM_DEVICE);
	pool = page_pool_create(&pp);
	KUNIT_ASSERT_FALSE(test, IS_ERR(pool));
	other = page_pool_create(&pp);
	KUNIT_ASSERT_FALSE(test, IS_ERR(other));
	KUNIT_ASSERT_EQ(test, scx_dma_pool_add(dev, pool, 0), 0);
	a = page_pool_dev_alloc_pages(pool);
	b = page_pool_dev_alloc_pages(pool);
	q = page_pool_dev_alloc_pages(other);
	KUNIT_ASSERT_TRUE(test, a && b && q);
	tx = scx_map_head(dev, buf, 300);
	stale = scx_map_head(dev, old + 300, 100);
	KUNIT_ASSERT_FALSE(test, scx_map_failed(dev, tx) || scx_map_failed(dev, stale));
	scx_os_dma_unmap(dev, stale, 100, SCX_DMA_SINGLE);
	coh = scx_os_dma_alloc(dev, PAGE_SIZE, &coh_dma);
	KUNIT_ASSERT_NOT_NULL(test, coh);

	dma[0] = scx_rx_page_dma(a) + 256;	len[0] = PAGE_SIZE - 256;
	dma[1] = scx_rx_page_dma(q);		len[1] = 64;
	dma[2] = scx_rx_page_dma(b);		len[2] = PAGE_SIZE;
	dma[3] = scx_rx_page_dma(b) + 256;	len[3] = PAGE_SIZE;
	dma[4] = tx + 10;			len[4] = 200;
	dma[5] = stale;				len[5] = 100;
	dma[6] = coh_dma;			len[6] = PAGE_SIZE;
	dma[7] = ~0ull - 10;			len[7] = 64;
	dma[8] = scx_rx_page_dma(a);		len[8] = 64;
	scx_os_dma_to_cpu_n(dev, dma, len, cpu, 9);
	for (i = 0; i < 9; i++)
		KUNIT_EXPECT_PTR_EQ_MSG(test, cpu[i], scx_os_dma_to_cpu(dev, dma[i], len[i]),
					"range %d", i);
	KUNIT_EXPECT_PTR_EQ(test, cpu[0], (void *)((u8 *)page_address(a) + 256));
	KUNIT_EXPECT_NULL(test, cpu[1]);
	KUNIT_EXPECT_PTR_EQ(test, cpu[2], page_address(b));
	KUNIT_EXPECT_NULL(test, cpu[3]);
	KUNIT_EXPECT_PTR_EQ(test, cpu[4], (void *)(buf + 10));
	KUNIT_EXPECT_NULL(test, cpu[5]);
	KUNIT_EXPECT_PTR_EQ(test, cpu[6], coh);
	KUNIT_EXPECT_NULL(test, cpu[7]);
	KUNIT_EXPECT_PTR_EQ(test, cpu[8], page_address(a));

	scx_os_dma_free(dev, PAGE_SIZE, coh, coh_dma);
	scx_os_dma_unmap(dev, tx, 300, SCX_DMA_SINGLE);
	scx_dma_pool_del(dev, pool);
	page_pool_put_full_page(pool, a, false);
	page_pool_put_full_page(pool, b, false);
	page_pool_put_full_page(other, q, false);
	page_pool_destroy(pool);
	page_pool_destroy(other);
	synchronize_rcu();
}

/* The debugfs hook: the next skb head reaches the core unreachable; the unmap finds the real one. */
static void scx_dma_inject(struct kunit *test)
{
	struct device *dev = scx_dma_dev(test);
	u8 *buf = kunit_kzalloc(test, 256, GFP_KERNEL);
	dma_addr_t dma;

	KUNIT_ASSERT_NOT_NULL(test, buf);
	KUNIT_ASSERT_EQ(test, scx_dma_inject_fault(dev), 0);
	KUNIT_EXPECT_EQ(test, scx_dma_inject_fault(dev), -EBUSY);
	dma = scx_map_head(dev, buf, 200);
	KUNIT_ASSERT_FALSE(test, scx_map_failed(dev, dma));
	KUNIT_EXPECT_NULL(test, scx_os_dma_to_cpu(dev, dma, 200));
	KUNIT_EXPECT_EQ(test, scx_dma_inject_fault(dev), -EBUSY);
	scx_os_dma_unmap(dev, dma, 200, SCX_DMA_SINGLE);
	/* released: the view is empty again (scx_dma_view_destroy warns otherwise) */
	KUNIT_EXPECT_EQ(test, scx_dma_inject_fault(dev), 0);
	dma = scx_map_head(dev, buf, 200);
	KUNIT_ASSERT_FALSE(test, scx_map_failed(dev, dma));
	scx_os_dma_unmap(dev, dma, 200, SCX_DMA_SINGLE);
}

/* Through the device: a stale data segment is an error CQE and a DMA fault; the SQ recovers. */
static void scx_dma_pair_fault_recovers(struct kunit *test)
{
	struct scx_pair *p = test->priv;
	struct scx_tx_done done = {};
	struct scx_tx_pkt *pkt;
	struct scx_channel *c;
	u32 dups;

	KUNIT_ASSERT_EQ(test, scx_pair_create(test, p, "cx7", 1), 0);
	KUNIT_ASSERT_EQ(test, scx_pair_open(p, 0, 1, 1500, 6, 6), 0);
	KUNIT_ASSERT_EQ(test, scx_pair_open(p, 1, 1, 1500, 6, 6), 0);
	c = scx_port_channel(p->port[0], 0);
	pkt = kunit_kzalloc(test, sizeof(*pkt), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, pkt);

	KUNIT_ASSERT_EQ(test, scx_dma_inject_fault(p->dev), 0);
	KUNIT_ASSERT_EQ(test, scx_kt_tx_build(&p->ch[0][0], 0, 200, false, pkt), 0);
	KUNIT_ASSERT_GE(test, scx_channel_xmit(c, pkt), 0);
	scx_channel_doorbell(c);
	scx_pair_poll(p, 1);
	KUNIT_EXPECT_EQ(test, scx_pair_received(p, 1, 0, 1, &dups), 0u);
	scx_kt_napi(scx_pair_chan(p, 0, 0), 64, &done);
	KUNIT_EXPECT_EQ(test, done.tx_error, 1u);
	KUNIT_EXPECT_EQ(test, scx_pair_stat(test, p->port[0], "bus_dma_faults"), 1ull);
	KUNIT_EXPECT_EQ(test, scx_pair_stat(test, p->port[1], "bus_dma_faults"), 0ull);
	KUNIT_EXPECT_EQ(test, scx_pair_stat(test, p->port[0], "tx_cqe_err"), 1ull);
	KUNIT_EXPECT_EQ(test, scx_channel_tx_recover(c, 0), 0);
	KUNIT_EXPECT_EQ(test, scx_pair_sum(p, 0, tx_freed), 1ull);

	KUNIT_EXPECT_EQ(test, scx_pair_send(p, 0, 0, 1, 40, 4), 40);
	KUNIT_EXPECT_EQ(test, scx_pair_received(p, 1, 1, 40, &dups), 40u);
	KUNIT_EXPECT_EQ(test, scx_pair_stat(test, p->port[0], "bus_dma_faults"), 1ull);
	/* the injection was released with the skb: a new one can be armed */
	KUNIT_EXPECT_EQ(test, scx_dma_inject_fault(p->dev), 0);
	KUNIT_EXPECT_EQ(test, scx_pair_send(p, 0, 0, 41, 1, 1), 1);
	scx_pair_poll(p, 0);
	KUNIT_EXPECT_EQ(test, scx_pair_stat(test, p->port[0], "bus_dma_faults"), 2ull);
	KUNIT_EXPECT_EQ(test, scx_channel_tx_recover(c, 0), 0);
}

static struct kunit_case scx_dma_cases[] = {
	KUNIT_CASE(scx_dma_stale_tx_mapping),
	KUNIT_CASE(scx_dma_range_across_pages),
	KUNIT_CASE(scx_dma_frag_refcount),
	KUNIT_CASE(scx_dma_coherent),
	KUNIT_CASE(scx_dma_pool_pages),
	KUNIT_CASE(scx_dma_batch_as_single),
	KUNIT_CASE(scx_dma_inject),
	KUNIT_CASE(scx_dma_pair_fault_recovers),
	{}
};

static struct kunit_suite scx_dma_suite = {
	.name = "softcx_dma",
	.init = scx_dma_test_init,
	.exit = scx_dma_test_exit,
	.test_cases = scx_dma_cases,
};

kunit_test_suite(scx_dma_suite);
