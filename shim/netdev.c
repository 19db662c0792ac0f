// SPDX-License-Identifier: GPL-2.0
/*
 * softcx net_device_ops: open/stop bring the core's channel set up and down
 * around the NAPI contexts; carrier follows the device's link (link.c).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/bottom_half.h>
#include <linux/etherdevice.h>
#include <linux/netdevice.h>
#include <linux/timer.h>
#include <linux/uaccess.h>
#include <linux/workqueue.h>

#include "softcx.h"

void scx_fill_params(const struct scx_priv *priv, u32 nch, u32 mtu, const struct bpf_prog *xdp,
		     struct scx_port_params *params)
{
	*params = (struct scx_port_params){
		.nch = nch,
		.mtu = mtu,
		.log_sq_size = priv->log_sq_size,
		.log_rq_size = priv->log_rq_size,
		.tx_mpwqe = priv->tx_mpwqe,
		.xdp = !!xdp,
		.xdp_frags = xdp && xdp->aux->xdp_has_frags,
		.xdp_tx_mpwqe = priv->xdp_tx_mpwqe,
		/* the user's indirection table stays; else it spreads over the new set */
		.rss_keep_table = netif_is_rxfh_configured(priv->netdev),
		.rx_striding = priv->rx_striding,
		.rx_cqe_compress = priv->rx_cqe_compress,
		.rx_hw_gro = priv->rx_hw_gro,
		.rx_tstamp = priv->ptp.cfg.rx_filter != HWTSTAMP_FILTER_NONE,
	};
}

/* NAPI, TX and ndo_xdp_xmit on the live channel set (RTNL). */
static void scx_datapath_resume(struct scx_priv *priv)
{
	u32 i;

	scx_dim_start(priv);	/* each DIM from its start, like the CQs */
	for (i = 0; i < priv->nch; i++)
		napi_enable(&priv->ch[i].napi);
	priv->up = true;
	netif_tx_start_all_queues(priv->netdev);
	/* Pairs with scx_xdp_xmit(): who sees the set ready sees its nch too. */
	smp_store_release(&priv->xdp_xmit_ready, true);

	/* The CQs start unarmed: one poll per channel arms them. */
	local_bh_disable();
	for (i = 0; i < priv->nch; i++)
		napi_schedule(&priv->ch[i].napi);
	local_bh_enable();
}

/*
 * Stop everything that touches the channel set. ndo_xdp_xmit callers run
 * under RCU: after synchronize_net() none is inside. Then NAPI: once no
 * poll runs, nothing can wake a TX queue behind netif_tx_disable().
 */
static void scx_datapath_quiesce(struct scx_priv *priv)
{
	u32 i;

	WRITE_ONCE(priv->xdp_xmit_ready, false);
	synchronize_net();
	for (i = 0; i < priv->nch; i++) {
		napi_disable(&priv->ch[i].napi);
		/* NAPI fed it last: a new profile must not reach the set after it goes */
		cancel_work_sync(&priv->ch[i].rx_dim.work);
		cancel_work_sync(&priv->ch[i].tx_dim.work);
	}
	netif_tx_disable(priv->netdev);
	priv->up = false;
}

/*
 * The core's live set changed: point the channels at it, with @prog; BQL
 * from 0. Slots above the set's channel count get no core channel (a
 * recovery work still queued for one finds nothing to do).
 */
static void scx_datapath_rebind(struct scx_priv *priv, struct bpf_prog *prog)
{
	u32 i;

	for (i = 0; i < priv->nch_max; i++) {
		bool live = i < priv->nch;

		scx_chan_bind(&priv->ch[i], live ? scx_port_channel(priv->port, i) : NULL);
		WRITE_ONCE(priv->ch[i].xdp_prog, live ? prog : NULL);
		netdev_tx_reset_queue(priv->ch[i].txq);
	}
}

/* Open the core's channel set at @mtu and start NAPI and TX. RTNL held. */
static int scx_datapath_start(struct scx_priv *priv, u32 mtu)
{
	struct scx_port_params params;
	int err;

	scx_fill_params(priv, priv->nch, mtu, priv->xdp_prog, &params);
	err = scx_port_open(priv->port, &params, priv->os_channels);
	if (err)
		return err;
	scx_datapath_rebind(priv, priv->xdp_prog);
	scx_datapath_resume(priv);
	return 0;
}

static void scx_datapath_stop(struct scx_priv *priv)
{
	scx_datapath_quiesce(priv);
	scx_port_close(priv->port);
	scx_datapath_rebind(priv, NULL);
}

/*
 * Switch the open port to a channel set of @nch channels at @mtu with
 * @prog. The new set is built next to the live one, which keeps running if
 * that fails. With another channel count the stack's queue counts follow
 * while nothing transmits; if they cannot, the old set resumes.
 */
int scx_datapath_switch(struct scx_priv *priv, u32 nch, u32 mtu, struct bpf_prog *prog)
{
	struct scx_port_params params;
	int err;

	scx_fill_params(priv, nch, mtu, prog, &params);
	err = scx_port_prepare(priv->port, &params, priv->os_channels);
	if (err)
		return err;
	scx_datapath_quiesce(priv);
	if (nch != priv->nch) {
		err = netif_set_real_num_queues(priv->netdev, nch, nch);
		if (err) {
			scx_port_abort(priv->port);
			scx_datapath_resume(priv);
			return err;
		}
		/*
		 * Before the new set goes live: its CQs raise no interrupt
		 * before the first poll after the switch arms them.
		 */
		WRITE_ONCE(priv->nch, nch);
	}
	scx_port_commit(priv->port);
	scx_datapath_rebind(priv, prog);
	scx_datapath_resume(priv);
	return 0;
}

/*
 * The device's counters reach ndo_get_stats64 through the core's cache:
 * querying them takes device commands, which ndo_get_stats64 (any
 * context, often under RCU or a caller's lock) must not run. Refreshed
 * every SCX_STATS_PERIOD while the port is open, once more at close;
 * ethtool -S queries them itself.
 */
void scx_stats_work(struct work_struct *work)
{
	struct scx_priv *priv = container_of(to_delayed_work(work), struct scx_priv,
					     stats_work);

	scx_stats_refresh(priv->port);
	schedule_delayed_work(&priv->stats_work, round_jiffies_relative(SCX_STATS_PERIOD));
}

static int scx_open(struct net_device *dev)
{
	struct scx_priv *priv = netdev_priv(dev);
	int err;

	err = scx_datapath_start(priv, dev->mtu);
	if (err) {
		netdev_err(dev, "cannot open the channel set: %d\n", err);
		return err;
	}
	/* first refresh now: drops the device counted while the port was down */
	schedule_delayed_work(&priv->stats_work, 0);
	scx_link_sync(priv);
	return 0;
}

static int scx_stop(struct net_device *dev)
{
	struct scx_priv *priv = netdev_priv(dev);

	/* It re-queues itself; the _sync cancel also stops that. */
	cancel_delayed_work_sync(&priv->stats_work);
	if (priv->up)
		scx_datapath_stop(priv);
	scx_link_sync(priv);
	/* What the device counted up to the close stays in the link counters while down. */
	scx_stats_refresh(priv->port);
	return 0;
}

static int scx_change_mtu(struct net_device *dev, int new_mtu)
{
	struct scx_priv *priv = netdev_priv(dev);
	int err;

	if (priv->xdp_prog && new_mtu > priv->xdp_max_mtu && !priv->xdp_prog->aux->xdp_has_frags) {
		netdev_err(dev, "MTU too large for XDP: %d > %u for a program without multi-buffer support (SEC(\"xdp.frags\")); detach it first\n",
			   new_mtu, priv->xdp_max_mtu);
		return -EINVAL;
	}
	if (priv->up) {
		err = scx_datapath_switch(priv, priv->nch, new_mtu, priv->xdp_prog);
		if (err) {
			netdev_err(dev, "cannot build channels for MTU %d: %d; keeping MTU %u\n",
				   new_mtu, err, dev->mtu);
			return err;
		}
	}
	dev->mtu = new_mtu;
	return 0;
}

/* No device command here: the rings' counters and the cached device counters. */
static void scx_get_stats64(struct net_device *dev, struct rtnl_link_stats64 *stats)
{
	struct scx_priv *priv = netdev_priv(dev);
	struct scx_link_stats s = {};

	scx_stats_link(priv->port, &s);
	stats->rx_packets = s.rx_packets;
	stats->rx_bytes = s.rx_bytes;
	stats->tx_packets = s.tx_packets;
	stats->tx_bytes = s.tx_bytes;
	stats->rx_dropped = s.rx_dropped;
	stats->tx_dropped = s.tx_dropped;
	stats->rx_missed_errors = s.rx_missed_errors;
	stats->rx_crc_errors = s.rx_crc_errors;
	stats->rx_errors = s.rx_crc_errors;
	stats->tx_aborted_errors = s.tx_aborted_errors;
	stats->tx_errors = s.tx_aborted_errors;
}

/*
 * rx-gro-hw is dropped (with the reason in the log, as mlx5) while a rule
 * between features forbids it: XDP attached, the legacy RQ, CQE
 * compression. It comes back on its own once the conflict is gone
 * (netdev_update_features() after the change that removed it).
 */
static netdev_features_t scx_fix_features(struct net_device *dev, netdev_features_t features)
{
	struct scx_priv *priv = netdev_priv(dev);
	struct scx_port_params params;
	const char *why;

	if (!(features & NETIF_F_GRO_HW))
		return features;
	scx_fill_params(priv, priv->nch, dev->mtu, priv->xdp_prog, &params);
	params.rx_hw_gro = 1;
	why = scx_params_conflict(priv->port, &params);
	if (why) {
		netdev_warn(dev, "rx-gro-hw stays off: %s\n", why);
		features &= ~NETIF_F_GRO_HW;
	}
	return features;
}

/* RTNL. rx-gro-hw switches to a channel set with (or without) SHAMPO RQs; the old one runs on if that fails. */
static int scx_set_gro_hw(struct net_device *dev, netdev_features_t features)
{
	struct scx_priv *priv = netdev_priv(dev);
	bool gro_hw = features & NETIF_F_GRO_HW;
	int err;

	if (gro_hw == priv->rx_hw_gro)
		return 0;
	priv->rx_hw_gro = gro_hw;
	if (!priv->up)
		return 0;
	err = scx_datapath_switch(priv, priv->nch, dev->mtu, priv->xdp_prog);
	if (err) {
		netdev_err(dev, "cannot build channels with rx-gro-hw %s: %d; keeping the old ones\n",
			   gro_hw ? "on" : "off", err);
		priv->rx_hw_gro = !gro_hw;
	}
	return err;
}

/*
 * rx-vlan-offload switches the live RQs' stripping (MODIFY_RQ, no
 * rebuild); tx-vlan-offload needs nothing: the stack then puts the tag in
 * the data itself, and skbs stop carrying it in metadata.
 */
static int scx_set_vlan_features(struct net_device *dev, netdev_features_t features)
{
	struct scx_priv *priv = netdev_priv(dev);
	int err;

	if (!((dev->features ^ features) & NETIF_F_HW_VLAN_CTAG_RX))
		return 0;
	err = scx_port_set_rx_vlan_strip(priv->port, !!(features & NETIF_F_HW_VLAN_CTAG_RX));
	if (err)
		netdev_err(dev, "cannot switch VLAN stripping on every RQ: %d\n", err);
	return err;
}

/*
 * rx-fcs switches the live RQs' FCS scatter as VLAN stripping does (the
 * kernel drops rx-gro-hw while it is on); rx-all turns the MAC's FCS check
 * off (MODIFY_PORT).
 */
static int scx_set_fcs_features(struct net_device *dev, netdev_features_t features)
{
	struct scx_priv *priv = netdev_priv(dev);
	netdev_features_t changed = dev->features ^ features;
	int err;

	if (changed & NETIF_F_RXALL) {
		err = scx_port_set_fcs_check(priv->port, !(features & NETIF_F_RXALL));
		if (err) {
			netdev_err(dev, "cannot switch the port's FCS check: %d\n", err);
			return err;
		}
	}
	if (!(changed & NETIF_F_RXFCS))
		return 0;
	err = scx_port_set_rx_fcs(priv->port, !!(features & NETIF_F_RXFCS));
	if (err)
		netdev_err(dev, "cannot switch FCS scatter on every RQ: %d\n", err);
	return err;
}

/*
 * RTNL. HW-GRO going off goes first (rx-fcs may be what drops it: SHAMPO
 * RQs take no FCS), coming on last: a channel set rx-gro-hw builds takes
 * the new VLAN and FCS settings, and rx-fcs is off by then (the kernel
 * never asks for both).
 */
static int scx_set_features(struct net_device *dev, netdev_features_t features)
{
	struct scx_priv *priv = netdev_priv(dev);
	bool gro_hw_off = (dev->features & NETIF_F_GRO_HW) && !(features & NETIF_F_GRO_HW);
	int err = gro_hw_off ? scx_set_gro_hw(dev, features) : 0;

	/* rx-checksum off: the core hands every packet over unverified (rx_csum_none) */
	if (!err && ((dev->features ^ features) & NETIF_F_RXCSUM))
		scx_port_set_rx_csum(priv->port, !!(features & NETIF_F_RXCSUM));
	/* ntuple off removes every rule from the device, as mlx5 */
	if (!err && ((dev->features ^ features) & NETIF_F_NTUPLE))
		scx_port_set_ntuple(priv->port, !!(features & NETIF_F_NTUPLE));
	err = err ?: scx_set_vlan_filter(dev, features);
	err = err ?: scx_set_vlan_features(dev, features);
	err = err ?: scx_set_fcs_features(dev, features);
	return err ?: scx_set_gro_hw(dev, features);
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

static int scx_eth_ioctl(struct net_device *dev, struct ifreq *ifr, int cmd)
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

const struct net_device_ops scx_netdev_ops = {
	.ndo_open		= scx_open,
	.ndo_stop		= scx_stop,
	.ndo_start_xmit		= scx_start_xmit,
	.ndo_features_check	= scx_features_check,
	.ndo_fix_features	= scx_fix_features,
	.ndo_set_features	= scx_set_features,
	.ndo_tx_timeout		= scx_tx_timeout,
	.ndo_get_stats64	= scx_get_stats64,
	.ndo_set_mac_address	= scx_set_mac_address,
	.ndo_set_rx_mode	= scx_set_rx_mode,
	.ndo_vlan_rx_add_vid	= scx_vlan_rx_add_vid,
	.ndo_vlan_rx_kill_vid	= scx_vlan_rx_kill_vid,
	.ndo_validate_addr	= eth_validate_addr,
	.ndo_change_mtu		= scx_change_mtu,
	.ndo_bpf		= scx_ndo_bpf,
	.ndo_xdp_xmit		= scx_xdp_xmit,
	.ndo_get_devlink_port	= scx_get_devlink_port,
	.ndo_eth_ioctl		= scx_eth_ioctl,
};

/* Everything of the netdev that does not depend on the core. */
void scx_netdev_setup(struct net_device *dev)
{
	const netdev_features_t features = NETIF_F_SG | NETIF_F_IP_CSUM |
		NETIF_F_IPV6_CSUM | NETIF_F_RXCSUM | NETIF_F_RXHASH |
		NETIF_F_TSO | NETIF_F_TSO6 | NETIF_F_GSO_UDP_L4;
	/* strip and insert 802.1Q tags, insert 802.1ad tags (on by default, as mlx5) */
	const netdev_features_t vlan = NETIF_F_HW_VLAN_CTAG_RX | NETIF_F_HW_VLAN_CTAG_TX |
		NETIF_F_HW_VLAN_STAG_TX;

	dev->netdev_ops = &scx_netdev_ops;
	dev->ethtool_ops = &scx_ethtool_ops;
	dev->min_mtu = SCX_MIN_MTU;
	dev->max_mtu = SCX_MAX_MTU;
	dev->watchdog_timeo = 15 * HZ;	/* ndo_tx_timeout after a queue stalls this long (mlx5e) */
	/* any address the DMA API gives: not a switch (ethtool shows it [fixed]) */
	dev->features |= features | vlan | NETIF_F_HIGHDMA;
	dev->hw_features |= features | vlan;
	/* off by default, as mlx5: keep the FCS (rx-fcs), take frames with a bad one (rx-all) */
	dev->hw_features |= NETIF_F_RXFCS | NETIF_F_RXALL;
	/* ethtool ntuple rules (off by default, as mlx5) */
	dev->hw_features |= NETIF_F_NTUPLE;
	/*
	 * The device's VLAN filter (rx_mode.c), on by default as mlx5's:
	 * rx-vlan-filter for 802.1Q tags, 802.1ad tags always ([fixed] on).
	 */
	dev->features |= NETIF_F_HW_VLAN_CTAG_FILTER | NETIF_F_HW_VLAN_STAG_FILTER;
	dev->hw_features |= NETIF_F_HW_VLAN_CTAG_FILTER;
	/* what a VLAN device on the port may offload through it */
	dev->vlan_features |= (features & ~NETIF_F_RXHASH) | NETIF_F_HIGHDMA;
	/*
	 * The device filters by destination MAC (rx_mode.c): secondary unicast
	 * addresses go in its list rather than making the port promiscuous,
	 * and the address may change while up (the filter follows it).
	 */
	dev->priv_flags |= IFF_UNICAST_FLT | IFF_LIVE_ADDR_CHANGE;
	/* netpoll transmits with IRQs off; the core's locks are _bh locks. */
	dev->priv_flags |= IFF_DISABLE_NETPOLL;
	/* ether_setup's default, kept on purpose: pktgen clone_skb / burst (xmit_more) */
	dev->priv_flags |= IFF_TX_SKB_SHARING;
	eth_hw_addr_random(dev);
	netif_carrier_off(dev);
}
