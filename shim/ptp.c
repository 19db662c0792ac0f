// SPDX-License-Identifier: GPL-2.0
/*
 * softcx PTP hardware clock and hardware timestamping. The device has a
 * free-running 64-bit timer (include/softcx/core.h scx_port_read_clock,
 * caps.timer_khz, a few ppm off as any oscillator) that every CQE carries;
 * each port's PHC is a timecounter over it: adjfine scales its rate,
 * adjtime and settime move its offset, and a periodic read keeps the
 * cycle delta short enough for the multiplication. Timestamps: SIOCSHWTSTAMP
 * (tx_type OFF/ON, rx_filter NONE/ALL, any PTP filter promoted to ALL) and
 * ethtool -T (get_ts_info).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/ethtool.h>
#include <linux/math64.h>
#include <linux/uaccess.h>

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

int scx_get_ts_info(struct net_device *dev, struct ethtool_ts_info *info)
{
	struct scx_priv *priv = netdev_priv(dev);

	info->so_timestamping = SOF_TIMESTAMPING_TX_SOFTWARE | SOF_TIMESTAMPING_RX_SOFTWARE |
				SOF_TIMESTAMPING_SOFTWARE;
	info->phc_index = -1;
	if (!priv->ptp.clock)
		return 0;
	info->so_timestamping |= SOF_TIMESTAMPING_TX_HARDWARE | SOF_TIMESTAMPING_RX_HARDWARE |
				 SOF_TIMESTAMPING_RAW_HARDWARE;
	info->phc_index = ptp_clock_index(priv->ptp.clock);
	info->tx_types = BIT(HWTSTAMP_TX_OFF) | BIT(HWTSTAMP_TX_ON);
	info->rx_filters = BIT(HWTSTAMP_FILTER_NONE) | BIT(HWTSTAMP_FILTER_ALL);
	return 0;
}

/*
 * SIOCSHWTSTAMP: TX OFF or ON; RX NONE, or every packet (the device stamps
 * all of them: any filter becomes ALL, reported back). RX stamps are
 * refused while CQE compression is on (a mini CQE carries no timestamp;
 * Documentation/usage: turn rx_cqe_compress off first).
 */
static int scx_hwtstamp_set(struct scx_priv *priv, struct ifreq *ifr)
{
	struct hwtstamp_config cfg;
	struct scx_port_params params;
	const char *why;
	bool rx_on;

	if (!priv->ptp.clock)
		return -EOPNOTSUPP;
	if (copy_from_user(&cfg, ifr->ifr_data, sizeof(cfg)))
		return -EFAULT;
	if (cfg.flags)
		return -EINVAL;
	if (cfg.tx_type != HWTSTAMP_TX_OFF && cfg.tx_type != HWTSTAMP_TX_ON)
		return -ERANGE;
	switch (cfg.rx_filter) {
	case HWTSTAMP_FILTER_NONE:
		break;
	case HWTSTAMP_FILTER_ALL:
	case HWTSTAMP_FILTER_SOME:
	case HWTSTAMP_FILTER_PTP_V1_L4_EVENT:
	case HWTSTAMP_FILTER_PTP_V1_L4_SYNC:
	case HWTSTAMP_FILTER_PTP_V1_L4_DELAY_REQ:
	case HWTSTAMP_FILTER_PTP_V2_L4_EVENT:
	case HWTSTAMP_FILTER_PTP_V2_L4_SYNC:
	case HWTSTAMP_FILTER_PTP_V2_L4_DELAY_REQ:
	case HWTSTAMP_FILTER_PTP_V2_L2_EVENT:
	case HWTSTAMP_FILTER_PTP_V2_L2_SYNC:
	case HWTSTAMP_FILTER_PTP_V2_L2_DELAY_REQ:
	case HWTSTAMP_FILTER_PTP_V2_EVENT:
	case HWTSTAMP_FILTER_PTP_V2_SYNC:
	case HWTSTAMP_FILTER_PTP_V2_DELAY_REQ:
	case HWTSTAMP_FILTER_NTP_ALL:
		cfg.rx_filter = HWTSTAMP_FILTER_ALL;
		break;
	default:
		return -ERANGE;
	}
	rx_on = cfg.rx_filter != HWTSTAMP_FILTER_NONE;
	scx_fill_params(priv, priv->nch, priv->netdev->mtu, priv->xdp_prog, &params);
	params.rx_tstamp = rx_on;
	why = scx_params_conflict(priv->port, &params);
	if (why) {
		netdev_err(priv->netdev, "hardware timestamping refused: %s\n", why);
		return -EINVAL;
	}
	if (copy_to_user(ifr->ifr_data, &cfg, sizeof(cfg)))
		return -EFAULT;
	WRITE_ONCE(priv->ptp.cfg.tx_type, cfg.tx_type);
	priv->ptp.cfg.rx_filter = cfg.rx_filter;
	scx_port_set_rx_tstamp(priv->port, rx_on);
	return 0;
}

int scx_eth_ioctl(struct net_device *dev, struct ifreq *ifr, int cmd)
{
	struct scx_priv *priv = netdev_priv(dev);

	switch (cmd) {
	case SIOCSHWTSTAMP:
		return scx_hwtstamp_set(priv, ifr);
	case SIOCGHWTSTAMP:
		if (!priv->ptp.clock)
			return -EOPNOTSUPP;
		return copy_to_user(ifr->ifr_data, &priv->ptp.cfg, sizeof(priv->ptp.cfg)) ?
		       -EFAULT : 0;
	default:
		return -EOPNOTSUPP;
	}
}
