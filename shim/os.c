// SPDX-License-Identifier: GPL-2.0
/*
 * softcx OS services for the C++ core (include/softcx/os.h): memory, locks
 * and logging. DMA (the driver's mappings and the emulated device's view
 * of them) lives in dma.c, the per-packet hooks in napi.c (interrupts),
 * rx.c (RX buffers, skb delivery), tx.c (TX completion) and xdp_path.c (XDP).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/bug.h>
#include <linux/hrtimer.h>
#include <linux/lockdep.h>
#include <linux/printk.h>
#include <linux/sched/clock.h>
#include <linux/slab.h>
#include <linux/spinlock.h>

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

/* ---- locks ---- */

struct scx_os_lock {
	spinlock_t lock;	/* taken with BHs off: NAPI and xmit share it */
	bool bh;		/* the holder turned BHs off for it (holder only) */
};

static struct lock_class_key scx_lock_keys[SCX_LOCK_NR_CLASSES];
static const char *const scx_lock_names[SCX_LOCK_NR_CLASSES] = {
	[SCX_LOCK_HW_CMD]	= "scx_hw_cmd",
	[SCX_LOCK_HW_SQ]	= "scx_hw_sq",
	[SCX_LOCK_HW_RQ]	= "scx_hw_rq",
	[SCX_LOCK_PORT_STATS]	= "scx_port_stats",
	[SCX_LOCK_HW_LINK]	= "scx_hw_link",
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

/*
 * The device model takes its queue locks from xmit and NAPI, where BHs
 * are already off, and from commands, where they are on. Only the latter
 * need spin_lock_bh(): turning BHs off and on again where they are off
 * cost about 12 instructions a lock (__local_bh_enable_ip), four locks a
 * packet at burst 1 (bench/vm/icount.sh). Never taken in hard interrupt
 * context (the moderation timer takes no lock).
 */
void scx_os_lock(struct scx_os_lock *l)
	__acquires(&l->lock)
{
	if (softirq_count()) {
		spin_lock(&l->lock);
		l->bh = false;
	} else {
		spin_lock_bh(&l->lock);
		l->bh = true;
	}
}

void scx_os_unlock(struct scx_os_lock *l)
	__releases(&l->lock)
{
	if (l->bh)
		spin_unlock_bh(&l->lock);
	else
		spin_unlock(&l->lock);
}

/* ---- misc ---- */

/*
 * One line of the core's at its level. With a netdev the line names the
 * interface; ratelimit: queue lines can come from every NAPI poll. Debug
 * lines go through dynamic debug either way.
 */
static void scx_vlog(struct net_device *dev, int level, bool ratelimit,
		     struct va_format *vaf)
{
	const char *kl = level <= SCX_LOG_ERR ? KERN_ERR :
			 level == SCX_LOG_WARN ? KERN_WARNING : KERN_INFO;

	if (level >= SCX_LOG_DEBUG) {
		if (dev)
			netdev_dbg(dev, "%pV", vaf);
		else
			pr_debug("%pV", vaf);
	} else if (!dev) {
		printk("%s" pr_fmt("%pV"), kl, vaf);
	} else if (!ratelimit || net_ratelimit()) {
		netdev_printk(kl, dev, "%pV", vaf);
	}
}

/* The body of a log hook: its arguments after fmt as a %pV to scx_vlog(). */
#define scx_log_args(dev, level, ratelimit, fmt) do {		\
	struct va_format vaf;					\
	va_list args;						\
								\
	va_start(args, fmt);					\
	vaf.fmt = fmt;						\
	vaf.va = &args;						\
	scx_vlog(dev, level, ratelimit, &vaf);			\
	va_end(args);						\
} while (0)

void scx_os_log(int level, const char *fmt, ...)
{
	scx_log_args(NULL, level, false, fmt);
}

void scx_os_port_log(void *os_port, int level, const char *fmt, ...)
{
	struct scx_priv *priv = os_port;

	scx_log_args(priv ? priv->netdev : NULL, level, false, fmt);
}

void scx_os_chan_log(void *os_channel, int level, const char *fmt, ...)
{
	struct scx_chan *ch = os_channel;

	scx_log_args(ch->priv->netdev, level, true, fmt);
}

uint64_t scx_os_clock_ns(void)
{
	return local_clock();
}

/* ---- device model timers: hrtimers in hardirq context, like an MSI-X message ---- */

struct scx_os_timer {
	struct hrtimer t;
	uint64_t (*fn)(void *arg, uint64_t expired);
	void *arg;
};

/*
 * Re-armed in place when the callback asks: the expiry set here, unlocked,
 * is safe only because the core lets nobody start the timer meanwhile (a
 * timer queued under us would sit in the tree at the wrong place).
 */
static enum hrtimer_restart scx_os_timer_fire(struct hrtimer *h)
{
	struct scx_os_timer *t = container_of(h, struct scx_os_timer, t);
	uint64_t again = t->fn(t->arg, ktime_to_ns(hrtimer_get_expires(h)));

	if (!again || WARN_ON_ONCE(hrtimer_is_queued(h)))
		return HRTIMER_NORESTART;
	hrtimer_set_expires(h, ns_to_ktime(again));
	return HRTIMER_RESTART;
}

struct scx_os_timer *scx_os_timer_create(uint64_t (*fn)(void *arg, uint64_t expired), void *arg)
{
	struct scx_os_timer *t = kmalloc(sizeof(*t), GFP_KERNEL);

	if (!t)
		return NULL;
	hrtimer_init(&t->t, CLOCK_MONOTONIC, HRTIMER_MODE_ABS_HARD);
	t->t.function = scx_os_timer_fire;
	t->fn = fn;
	t->arg = arg;
	return t;
}

void scx_os_timer_destroy(struct scx_os_timer *t)
{
	hrtimer_cancel(&t->t);
	kfree(t);
}

uint64_t scx_os_timer_now(void)
{
	return ktime_get_ns();
}

void scx_os_timer_start(struct scx_os_timer *t, uint64_t expires)
{
	hrtimer_start(&t->t, ns_to_ktime(expires), HRTIMER_MODE_ABS_HARD);
}

int scx_os_timer_cancel(struct scx_os_timer *t)
{
	return hrtimer_cancel(&t->t);
}
