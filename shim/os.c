// SPDX-License-Identifier: GPL-2.0
/*
 * softcx OS services for the C++ core (include/softcx/os.h): memory, DMA
 * (both the driver's and the emulated device's view), locks and logging.
 * The per-packet hooks (interrupts, RX buffers, skbs) live in txrx.c.
 *
 * Also builds on UML for KUnit, where there is no DMA API: there the bus
 * address is the physical address (see the CONFIG_HAS_DMA split below and
 * in softcx.h).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/bug.h>
#include <linux/dma-mapping.h>
#include <linux/gfp.h>
#include <linux/io.h>
#include <linux/lockdep.h>
#include <linux/mm.h>
#include <linux/printk.h>
#include <linux/sched/clock.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#ifdef CONFIG_HAS_DMA
#include <linux/dma-direct.h>
#endif

#include "softcx.h"

/* ---- memory ---- */

void *scx_os_zalloc(uint64_t size)
{
	if (size > INT_MAX)
		return NULL;
	return kvzalloc(size, GFP_KERNEL);
}

void scx_os_free(void *p)
{
	kvfree(p);
}

/* ---- DMA: the CONFIG_HAS_DMA split ---- */

#ifdef CONFIG_HAS_DMA
void *scx_os_dma_alloc(void *os_dev, uint32_t size, uint64_t *dma)
{
	dma_addr_t handle;
	void *cpu;

	cpu = dma_alloc_coherent(os_dev, size, &handle, GFP_KERNEL);
	if (cpu)
		*dma = handle;
	return cpu;
}

void scx_os_dma_free(void *os_dev, uint32_t size, void *cpu, uint64_t dma)
{
	dma_free_coherent(os_dev, size, cpu, dma);
}

static phys_addr_t scx_dma_to_phys(struct device *dev, u64 dma)
{
	return dma_to_phys(dev, dma);
}
#else
void *scx_os_dma_alloc(void *os_dev, uint32_t size, uint64_t *dma)
{
	void *cpu;

	cpu = alloc_pages_exact(size, GFP_KERNEL | __GFP_ZERO);
	if (cpu)
		*dma = virt_to_phys(cpu);
	return cpu;
}

void scx_os_dma_free(void *os_dev, uint32_t size, void *cpu, uint64_t dma)
{
	free_pages_exact(cpu, size);
}

static phys_addr_t scx_dma_to_phys(struct device *dev, u64 dma)
{
	return dma;
}
#endif

/*
 * The device's view of memory: a bus address range is reachable when every
 * page behind it is RAM with a memory map; the CPU address is then the
 * direct mapping. With swiotlb this is the bounce buffer, as for real DMA.
 */
void *scx_os_dma_to_cpu(void *os_dev, uint64_t dma, uint32_t len)
{
	phys_addr_t phys = scx_dma_to_phys(os_dev, dma);
	phys_addr_t last = phys + (len ? len - 1 : 0);
	unsigned long pfn;

	if (unlikely(last < phys))
		return NULL;
	for (pfn = PHYS_PFN(phys); pfn <= PHYS_PFN(last); pfn++)
		if (unlikely(!pfn_valid(pfn)))
			return NULL;
	return phys_to_virt(phys);
}

void scx_os_dma_unmap(void *os_dev, uint64_t dma, uint32_t len, uint32_t kind)
{
	if (kind == SCX_DMA_PAGE)
		dma_unmap_page(os_dev, dma, len, DMA_TO_DEVICE);
	else
		dma_unmap_single(os_dev, dma, len, DMA_TO_DEVICE);
}

/* ---- locks ---- */

struct scx_os_lock {
	spinlock_t lock;	/* taken with BHs off: NAPI and xmit share it */
};

static struct lock_class_key scx_lock_keys[SCX_LOCK_NR_CLASSES];
static const char *const scx_lock_names[SCX_LOCK_NR_CLASSES] = {
	[SCX_LOCK_HW_CMD]	= "scx_hw_cmd",
	[SCX_LOCK_HW_SQ]	= "scx_hw_sq",
	[SCX_LOCK_HW_RQ]	= "scx_hw_rq",
	[SCX_LOCK_PORT_STATS]	= "scx_port_stats",
};

struct scx_os_lock *scx_os_lock_create(enum scx_lock_class cls)
{
	struct scx_os_lock *l;

	if (WARN_ON_ONCE((unsigned int)cls >= SCX_LOCK_NR_CLASSES))
		return NULL;
	l = kmalloc(sizeof(*l), GFP_KERNEL);
	if (!l)
		return NULL;
	spin_lock_init(&l->lock);
	lockdep_set_class_and_name(&l->lock, &scx_lock_keys[cls],
				   scx_lock_names[cls]);
	return l;
}

void scx_os_lock_destroy(struct scx_os_lock *l)
{
	kfree(l);
}

void scx_os_lock(struct scx_os_lock *l)
	__acquires(&l->lock)
{
	spin_lock_bh(&l->lock);
}

void scx_os_unlock(struct scx_os_lock *l)
	__releases(&l->lock)
{
	spin_unlock_bh(&l->lock);
}

/* ---- misc ---- */

void scx_os_log(int level, const char *fmt, ...)
{
	struct va_format vaf;
	va_list args;

	va_start(args, fmt);
	vaf.fmt = fmt;
	vaf.va = &args;
	if (level <= SCX_LOG_ERR)
		pr_err("%pV", &vaf);
	else if (level == SCX_LOG_WARN)
		pr_warn("%pV", &vaf);
	else if (level < SCX_LOG_DEBUG)
		pr_info("%pV", &vaf);
	else
		pr_debug("%pV", &vaf);
	va_end(args);
}

void scx_os_fatal(const char *what)
{
	pr_crit("fatal core error: %s\n", what);
	BUG();
}

uint64_t scx_os_clock_ns(void)
{
	return local_clock();
}
