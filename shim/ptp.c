// SPDX-License-Identifier: GPL-2.0
/*
 * softcx PTP hardware clock and hardware timestamping. The device has a
 * free-running 64-bit timer (include/softcx/core.h scx_port_read_clock,
 * caps.timer_khz, a few ppm off as any oscillator) that every CQE carries;
 * each port's PHC is a timecounter over it: adjfine scales its rate,
 * adjtime and settime move its offset, and a periodic read keeps the
 * cycle delta short enough for the multiplication. The timestamping
 * configuration is netdev.c's (SIOCSHWTSTAMP) and ethtool.c's (-T).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/math64.h>

#include "softcx.h"

#define SCX_PTP_SHIFT		28	/* cc.mult fits u32 at 156.25 MHz + max_adj */
#define SCX_PTP_MAX_ADJ		100000000	/* ppb */
#define SCX_PTP_OVERFLOW_PERIOD	HZ	/* far below the 60 s a delta * mult takes to wrap */

static u64 scx_ptp_read(const struct cyclecounter *cc)
{
	struct scx_ptp *ptp = container_of(cc, struct scx_ptp, cc);

	return scx_port_read_clock(ptp->port);
}

static struct scx_ptp *scx_ptp_of(struct ptp_clock_info *info)
{
	return container_of(info, struct scx_ptp, info);
}

static int scx_ptp_adjfine(struct ptp_clock_info *info, long scaled_ppm)
{
	struct scx_ptp *ptp = scx_ptp_of(info);
	u64 ppm = scaled_ppm < 0 ? -(u64)scaled_ppm : (u64)scaled_ppm;
	/* scaled_ppm: ppm with a 16-bit fraction */
	u64 diff = mul_u64_u64_div_u64(ptp->nominal_mult, ppm, 1000000ULL << 16);
	unsigned long flags;

	write_seqlock_irqsave(&ptp->lock, flags);
	timecounter_read(&ptp->tc);	/* time so far at the old rate */
	ptp->cc.mult = scaled_ppm < 0 ? ptp->nominal_mult - (u32)diff :
					ptp->nominal_mult + (u32)diff;
	write_sequnlock_irqrestore(&ptp->lock, flags);
	return 0;
}

static int scx_ptp_adjtime(struct ptp_clock_info *info, s64 delta)
{
	struct scx_ptp *ptp = scx_ptp_of(info);
	unsigned long flags;

	write_seqlock_irqsave(&ptp->lock, flags);
	timecounter_adjtime(&ptp->tc, delta);
	write_sequnlock_irqrestore(&ptp->lock, flags);
	return 0;
}

static int scx_ptp_gettimex64(struct ptp_clock_info *info, struct timespec64 *ts,
			      struct ptp_system_timestamp *sts)
{
	struct scx_ptp *ptp = scx_ptp_of(info);
	unsigned long flags;
	u64 cycles, ns;

	write_seqlock_irqsave(&ptp->lock, flags);
	ptp_read_system_prets(sts);
	cycles = scx_port_read_clock(ptp->port);
	ptp_read_system_postts(sts);
	ns = timecounter_cyc2time(&ptp->tc, cycles);
	write_sequnlock_irqrestore(&ptp->lock, flags);
	*ts = ns_to_timespec64(ns);
	return 0;
}

static int scx_ptp_settime64(struct ptp_clock_info *info, const struct timespec64 *ts)
{
	struct scx_ptp *ptp = scx_ptp_of(info);
	unsigned long flags;

	write_seqlock_irqsave(&ptp->lock, flags);
	timecounter_init(&ptp->tc, &ptp->cc, timespec64_to_ns(ts));
	write_sequnlock_irqrestore(&ptp->lock, flags);
	return 0;
}

/* No pins, alarms, external timestamps or PPS: every request is refused. */
static int scx_ptp_enable(struct ptp_clock_info *info, struct ptp_clock_request *rq, int on)
{
	return -EOPNOTSUPP;
}

static void scx_ptp_overflow_work(struct work_struct *work)
{
	struct scx_ptp *ptp = container_of(to_delayed_work(work), struct scx_ptp, overflow_work);
	unsigned long flags;

	write_seqlock_irqsave(&ptp->lock, flags);
	timecounter_read(&ptp->tc);
	write_sequnlock_irqrestore(&ptp->lock, flags);
	schedule_delayed_work(&ptp->overflow_work, SCX_PTP_OVERFLOW_PERIOD);
}

void scx_ptp_init(struct scx_priv *priv)
{
	struct scx_ptp *ptp = &priv->ptp;
	struct scx_port_caps caps = {};

	scx_port_get_caps(priv->port, &caps);
	ptp->port = priv->port;
	seqlock_init(&ptp->lock);
	ptp->cc.read = scx_ptp_read;
	ptp->cc.mask = CLOCKSOURCE_MASK(64);
	ptp->cc.shift = SCX_PTP_SHIFT;
	ptp->nominal_mult = clocksource_khz2mult(caps.timer_khz, SCX_PTP_SHIFT);
	ptp->cc.mult = ptp->nominal_mult;
	timecounter_init(&ptp->tc, &ptp->cc, ktime_get_real_ns());
	ptp->ready = true;
	ptp->cfg.tx_type = HWTSTAMP_TX_OFF;
	ptp->cfg.rx_filter = HWTSTAMP_FILTER_NONE;
	INIT_DELAYED_WORK(&ptp->overflow_work, scx_ptp_overflow_work);
	schedule_delayed_work(&ptp->overflow_work, SCX_PTP_OVERFLOW_PERIOD);

	ptp->info = (struct ptp_clock_info){
		.owner = THIS_MODULE,
		.max_adj = SCX_PTP_MAX_ADJ,
		.adjfine = scx_ptp_adjfine,
		.adjtime = scx_ptp_adjtime,
		.gettimex64 = scx_ptp_gettimex64,
		.settime64 = scx_ptp_settime64,
		.enable = scx_ptp_enable,
	};
	snprintf(ptp->info.name, sizeof(ptp->info.name), "softcx scx%u", priv->index);
	ptp->clock = ptp_clock_register(&ptp->info, priv->dmadev);
	if (IS_ERR_OR_NULL(ptp->clock)) {
		dev_warn(priv->dmadev, "scx%u: no PTP clock (%ld): no hardware timestamps\n",
			 priv->index, PTR_ERR(ptp->clock));
		ptp->clock = NULL;
	}
}

void scx_ptp_fini(struct scx_priv *priv)
{
	struct scx_ptp *ptp = &priv->ptp;

	if (!ptp->ready)
		return;
	if (ptp->clock)
		ptp_clock_unregister(ptp->clock);
	ptp->clock = NULL;
	cancel_delayed_work_sync(&ptp->overflow_work);
	ptp->ready = false;
}
