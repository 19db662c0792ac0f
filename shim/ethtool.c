// SPDX-License-Identifier: GPL-2.0
/*
 * softcx ethtool_ops: driver info, link (link.c), channels, rings, interrupt
 * moderation, private flags, RSS and its contexts, ntuple rules, the
 * core's counter table and the
 * standard statistics groups.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/etherdevice.h>
#include <linux/ethtool.h>
#include <linux/ethtool_netlink.h>
#include <linux/netdevice.h>

#include "softcx.h"

static void scx_get_drvinfo(struct net_device *dev, struct ethtool_drvinfo *info)
{
	struct scx_priv *priv = netdev_priv(dev);

	strscpy(info->driver, SCX_DRV_NAME, sizeof(info->driver));
	/*
	 * version: the kernel's release, which the core fills in (drivers do
	 * not report their own). firmware-version as mlx5 ("fw (board)"):
	 * the device model's version, as devlink info's running fw, and its model.
	 */
	snprintf(info->fw_version, sizeof(info->fw_version), "%s (%s)", SCX_DRV_VERSION,
		 scx_hw_model_name(priv->adapter->model));
	snprintf(info->bus_info, sizeof(info->bus_info), "%s:p%u",
		 dev_name(priv->dmadev), priv->index);
}

/* Private flags, in bit order: mlx5e's order (6.1: en.h, enum mlx5e_priv_flag). */
enum {
	SCX_PFLAG_RX_CQE_MODER,
	SCX_PFLAG_TX_CQE_MODER,
	SCX_PFLAG_RX_CQE_COMPRESS,
	SCX_PFLAG_RX_STRIDING_RQ,
	SCX_PFLAG_RX_NO_CSUM_COMPLETE,
	SCX_PFLAG_XDP_TX_MPWQE,
	SCX_PFLAG_SKB_TX_MPWQE,
	SCX_NUM_PFLAGS
};
static const char scx_pflag_names[SCX_NUM_PFLAGS][ETH_GSTRING_LEN] = {
	[SCX_PFLAG_RX_CQE_MODER] = "rx_cqe_moder",
	[SCX_PFLAG_TX_CQE_MODER] = "tx_cqe_moder",
	[SCX_PFLAG_RX_CQE_COMPRESS] = "rx_cqe_compress",
	[SCX_PFLAG_RX_STRIDING_RQ] = "rx_striding_rq",
	[SCX_PFLAG_RX_NO_CSUM_COMPLETE] = "rx_no_csum_complete",
	[SCX_PFLAG_XDP_TX_MPWQE] = "xdp_tx_mpwqe",
	[SCX_PFLAG_SKB_TX_MPWQE] = "skb_tx_mpwqe",
};
/* the flags that need a channel set built with them */
#define SCX_PFLAGS_REBUILD (BIT(SCX_PFLAG_SKB_TX_MPWQE) | BIT(SCX_PFLAG_XDP_TX_MPWQE) | \
			    BIT(SCX_PFLAG_RX_STRIDING_RQ) | BIT(SCX_PFLAG_RX_CQE_COMPRESS))
#define SCX_PFLAGS_MODER (BIT(SCX_PFLAG_RX_CQE_MODER) | BIT(SCX_PFLAG_TX_CQE_MODER))

static int scx_get_sset_count(struct net_device *dev, int sset)
{
	struct scx_priv *priv = netdev_priv(dev);

	switch (sset) {
	case ETH_SS_STATS:
		return scx_stats_count(priv->port);
	case ETH_SS_PRIV_FLAGS:
		return SCX_NUM_PFLAGS;
	case ETH_SS_TEST:
		return scx_self_test_count();
	default:
		return -EOPNOTSUPP;
	}
}

static u32 scx_get_priv_flags(struct net_device *dev)
{
	struct scx_priv *priv = netdev_priv(dev);

	return (priv->tx_mpwqe ? BIT(SCX_PFLAG_SKB_TX_MPWQE) : 0) |
	       (priv->xdp_tx_mpwqe ? BIT(SCX_PFLAG_XDP_TX_MPWQE) : 0) |
	       (priv->moder.rx.from_cqe ? BIT(SCX_PFLAG_RX_CQE_MODER) : 0) |
	       (priv->moder.tx.from_cqe ? BIT(SCX_PFLAG_TX_CQE_MODER) : 0) |
	       (priv->rx_striding ? BIT(SCX_PFLAG_RX_STRIDING_RQ) : 0) |
	       (priv->rx_no_csum_complete ? BIT(SCX_PFLAG_RX_NO_CSUM_COMPLETE) : 0) |
	       (priv->rx_cqe_compress ? BIT(SCX_PFLAG_RX_CQE_COMPRESS) : 0);
}

/* The flags a channel set is built with, into priv (scx_port_params_of reads them). */
static void scx_set_rebuild_flags(struct scx_priv *priv, u32 flags)
{
	priv->tx_mpwqe = flags & BIT(SCX_PFLAG_SKB_TX_MPWQE);
	priv->xdp_tx_mpwqe = flags & BIT(SCX_PFLAG_XDP_TX_MPWQE);
	priv->rx_striding = flags & BIT(SCX_PFLAG_RX_STRIDING_RQ);
	priv->rx_cqe_compress = flags & BIT(SCX_PFLAG_RX_CQE_COMPRESS);
}

/*
 * The period mode of a direction, in place (MODIFY_CQ). Like mlx5, the
 * static values become the new mode's defaults (DIM switches profiles).
 */
static int scx_set_cqe_moder(struct scx_priv *priv, u32 flags)
{
	struct scx_port_moder m = priv->moder;
	bool rx = flags & BIT(SCX_PFLAG_RX_CQE_MODER), tx = flags & BIT(SCX_PFLAG_TX_CQE_MODER);
	int err;

	if (rx != !!m.rx.from_cqe)
		scx_moder_default(1, rx, &m.rx);
	if (tx != !!m.tx.from_cqe)
		scx_moder_default(0, tx, &m.tx);
	err = scx_moder_update(priv, &m, priv->rx_dim_enabled, priv->tx_dim_enabled, NULL);
	if (err)
		netdev_err(priv->netdev, "CQ period mode not supported by this device (model %s)\n",
			   scx_hw_model_name(priv->adapter->model));
	return err;
}

/* The core's feature behind each flag: the core decides who may turn it on. */
static const u32 scx_pflag_features[SCX_NUM_PFLAGS] = {
	[SCX_PFLAG_SKB_TX_MPWQE] = SCX_FEATURE_TX_MPWQE,
	[SCX_PFLAG_XDP_TX_MPWQE] = SCX_FEATURE_XDP_TX_MPWQE,
	[SCX_PFLAG_RX_STRIDING_RQ] = SCX_FEATURE_RX_STRIDING,
	[SCX_PFLAG_RX_CQE_COMPRESS] = SCX_FEATURE_RX_CQE_COMPRESS,
};

/* Refuse turning on a flag the device cannot do. */
static bool scx_pflag_supported(struct scx_priv *priv, u32 changed, u32 flags, u32 bit)
{
	const char *why = "";

	if (!(changed & BIT(bit)) || !(flags & BIT(bit)) ||
	    !scx_port_feature_check(priv->port, scx_pflag_features[bit], &why))
		return true;
	netdev_err(priv->netdev, "%s: not supported by this device (model %s: %s)\n",
		   scx_pflag_names[bit], scx_hw_model_name(priv->adapter->model), why);
	return false;
}

/*
 * Refuse flags that break a rule between features (rx-gro-hw with the
 * legacy RQ or compression, RX hardware timestamps with compression).
 */
static bool scx_pflags_conflict(struct scx_priv *priv, u32 flags)
{
	struct scx_port_params params;
	const char *why;

	scx_fill_params(priv, priv->nch, priv->netdev->mtu, priv->xdp_prog, &params);
	params.rx_striding = !!(flags & BIT(SCX_PFLAG_RX_STRIDING_RQ));
	params.rx_cqe_compress = !!(flags & BIT(SCX_PFLAG_RX_CQE_COMPRESS));
	why = scx_params_conflict(priv->port, &params);
	if (!why)
		return false;
	netdev_err(priv->netdev, "private flags refused: %s; turn %s off first\n", why,
		   params.rx_tstamp && params.rx_cqe_compress ? "hardware RX timestamps (SIOCSHWTSTAMP)" :
								  "rx-gro-hw");
	return true;
}

/*
 * RTNL held (ethtool). A change while up switches to a channel set built
 * with the new flags, like an MTU change; on failure the old set runs on.
 */
static int scx_set_priv_flags(struct net_device *dev, u32 flags)
{
	struct scx_priv *priv = netdev_priv(dev);
	u32 old = scx_get_priv_flags(dev), changed = flags ^ old;
	int err;

	if (!changed)
		return 0;
	if (!scx_pflag_supported(priv, changed, flags, SCX_PFLAG_SKB_TX_MPWQE) ||
	    !scx_pflag_supported(priv, changed, flags, SCX_PFLAG_XDP_TX_MPWQE) ||
	    !scx_pflag_supported(priv, changed, flags, SCX_PFLAG_RX_STRIDING_RQ) ||
	    !scx_pflag_supported(priv, changed, flags, SCX_PFLAG_RX_CQE_COMPRESS))
		return -EOPNOTSUPP;
	if (scx_pflags_conflict(priv, flags))
		return -EINVAL;
	/* the period modes and the checksum kind apply in place, the WQE kinds through a rebuild */
	if (changed & SCX_PFLAGS_MODER) {
		err = scx_set_cqe_moder(priv, flags);
		if (err)
			return err;
	}
	if (changed & BIT(SCX_PFLAG_RX_NO_CSUM_COMPLETE)) {
		priv->rx_no_csum_complete = flags & BIT(SCX_PFLAG_RX_NO_CSUM_COMPLETE);
		scx_port_set_rx_no_csum_complete(priv->port, priv->rx_no_csum_complete);
	}
	if (!(changed & SCX_PFLAGS_REBUILD))
		return 0;
	scx_set_rebuild_flags(priv, flags);
	if (!priv->up)
		return 0;
	err = scx_datapath_switch(priv, priv->nch, dev->mtu, priv->xdp_prog);
	if (err) {
		netdev_err(dev, "cannot build channels with the new private flags: %d; keeping the old ones\n",
			   err);
		scx_set_rebuild_flags(priv, old);
	}
	return err;
}

static void scx_get_strings(struct net_device *dev, u32 sset, u8 *data)
{
	struct scx_priv *priv = netdev_priv(dev);

	BUILD_BUG_ON(SCX_STAT_NAME_LEN != ETH_GSTRING_LEN);
	if (sset == ETH_SS_STATS)
		scx_stats_names(priv->port, (char *)data);
	else if (sset == ETH_SS_PRIV_FLAGS)
		memcpy(data, scx_pflag_names, sizeof(scx_pflag_names));
	else if (sset == ETH_SS_TEST)
		scx_self_test_names(data);
}

static void scx_get_ethtool_stats(struct net_device *dev,
				  struct ethtool_stats *stats, u64 *data)
{
	struct scx_priv *priv = netdev_priv(dev);

	scx_stats_values(priv->port, data);
}

/*
 * Standard statistics groups, from the port's MAC counters. The emulated
 * wire damages no frame (but the FCS errors debugfs inject_fcs_error asks
 * for) and carries none longer than the ports take, and the link is full
 * duplex: alignment and too-long errors are true zeros; collision counters
 * stay unreported. Each read queries the device.
 */
static void scx_read_mac_stats(struct net_device *dev, struct scx_mac_stats *s)
{
	struct scx_priv *priv = netdev_priv(dev);

	scx_stats_mac(priv->port, s);
}

static void scx_get_eth_mac_stats(struct net_device *dev, struct ethtool_eth_mac_stats *mac)
{
	struct scx_mac_stats s;

	scx_read_mac_stats(dev, &s);
	mac->FramesTransmittedOK = s.tx_packets;
	mac->FramesReceivedOK = s.rx_packets;
	mac->OctetsTransmittedOK = s.tx_bytes;
	mac->OctetsReceivedOK = s.rx_bytes;
	mac->MulticastFramesXmittedOK = s.tx_multicast;
	mac->BroadcastFramesXmittedOK = s.tx_broadcast;
	mac->MulticastFramesReceivedOK = s.rx_multicast;
	mac->BroadcastFramesReceivedOK = s.rx_broadcast;
	mac->FrameCheckSequenceErrors = s.rx_crc_errors;
	mac->AlignmentErrors = 0;
	mac->FrameTooLongErrors = 0;
}

static void scx_get_eth_ctrl_stats(struct net_device *dev, struct ethtool_eth_ctrl_stats *ctrl)
{
	struct scx_mac_stats s;

	scx_read_mac_stats(dev, &s);
	ctrl->MACControlFramesTransmitted = s.tx_mac_control;
	ctrl->MACControlFramesReceived = s.rx_mac_control;
	ctrl->UnsupportedOpcodesReceived = s.rx_unsupported_op;
}

static void scx_get_rmon_stats(struct net_device *dev, struct ethtool_rmon_stats *rmon,
			       const struct ethtool_rmon_hist_range **ranges)
{
	struct scx_mac_stats s;
	int i;

	BUILD_BUG_ON(SCX_RX_HIST_BUCKETS > ETHTOOL_RMON_HIST_MAX);
	BUILD_BUG_ON(sizeof(struct scx_hist_range) != sizeof(struct ethtool_rmon_hist_range));
	BUILD_BUG_ON(offsetof(struct scx_hist_range, high) !=
		     offsetof(struct ethtool_rmon_hist_range, high));
	scx_read_mac_stats(dev, &s);
	rmon->undersize_pkts = 0;
	rmon->oversize_pkts = 0;
	rmon->fragments = 0;
	rmon->jabbers = 0;
	for (i = 0; i < SCX_RX_HIST_BUCKETS; i++)
		rmon->hist[i] = s.rx_hist[i];
	*ranges = (const struct ethtool_rmon_hist_range *)scx_rx_hist_ranges;
}

/* No flow control: the port neither sends nor honours PAUSE of its own. */
static void scx_get_pauseparam(struct net_device *dev, struct ethtool_pauseparam *pause)
{
	pause->autoneg = 0;
	pause->rx_pause = 0;
	pause->tx_pause = 0;
}

/* PAUSE frames the MAC carried for the host (counted, never acted on). */
static void scx_get_pause_stats(struct net_device *dev, struct ethtool_pause_stats *ps)
{
	struct scx_mac_stats s;

	scx_read_mac_stats(dev, &s);
	ps->tx_pause_frames = s.tx_pause;
	ps->rx_pause_frames = s.rx_pause;
}

static void scx_get_ringparam(struct net_device *dev, struct ethtool_ringparam *ring,
			      struct kernel_ethtool_ringparam *kring,
			      struct netlink_ext_ack *extack)
{
	struct scx_priv *priv = netdev_priv(dev);

	ring->rx_max_pending = 1u << priv->max_log_rq;
	ring->tx_max_pending = 1u << priv->max_log_sq;
	ring->rx_pending = 1u << priv->log_rq_size;
	ring->tx_pending = 1u << priv->log_sq_size;
	/* headers and payload apart: SHAMPO (rx-gro-hw), as mlx5 reports it */
	kring->tcp_data_split = READ_ONCE(priv->rx_hw_gro) ? ETHTOOL_TCP_DATA_SPLIT_ENABLED :
							     ETHTOOL_TCP_DATA_SPLIT_DISABLED;
}

/*
 * One ring size from ethtool -G, by the core's rule (scx_port_ring_check):
 * a power of two within the limits; others are rounded up, and the user
 * is told (extack and log).
 */
static int scx_ring_log(struct scx_priv *priv, const char *name, u32 want, int rx, u8 *log,
			struct netlink_ext_ack *extack)
{
	const char *why = "";
	int ret = scx_port_ring_check(priv->port, rx, want, log, &why);

	/* the core's reasons are static strings, as NL_SET_ERR_MSG keeps them */
	if (ret && extack)
		extack->_msg = why;
	if (ret < 0)
		netdev_err(priv->netdev, "%s ring size %u: %s\n", name, want, why);
	else if (ret)
		netdev_info(priv->netdev, "%s ring size %u rounded up to %u\n", name, want,
			    1u << *log);
	return ret < 0 ? ret : 0;
}

/*
 * RTNL held. While up, the port switches to a channel set built with the
 * new rings (the old one runs on if that fails); counters carry over.
 */
static int scx_set_ringparam(struct net_device *dev, struct ethtool_ringparam *ring,
			     struct kernel_ethtool_ringparam *kring,
			     struct netlink_ext_ack *extack)
{
	struct scx_priv *priv = netdev_priv(dev);
	u8 old_rq = priv->log_rq_size, old_sq = priv->log_sq_size, rq, sq;
	int err;

	if (ring->rx_mini_pending || ring->rx_jumbo_pending) {
		NL_SET_ERR_MSG_MOD(extack, "no mini or jumbo RX rings");
		return -EINVAL;
	}
	err = scx_ring_log(priv, "rx", ring->rx_pending, 1, &rq, extack);
	if (!err)
		err = scx_ring_log(priv, "tx", ring->tx_pending, 0, &sq, extack);
	if (err)
		return err;
	if (rq == old_rq && sq == old_sq)
		return 0;
	priv->log_rq_size = rq;
	priv->log_sq_size = sq;
	if (!priv->up)
		return 0;
	err = scx_datapath_switch(priv, priv->nch, dev->mtu, priv->xdp_prog);
	if (err) {
		NL_SET_ERR_MSG_MOD(extack, "cannot build channels with these rings; keeping the old ones");
		netdev_err(dev, "cannot build channels with rx %u tx %u: %d; keeping rx %u tx %u\n",
			   1u << rq, 1u << sq, err, 1u << old_rq, 1u << old_sq);
		priv->log_rq_size = old_rq;
		priv->log_sq_size = old_sq;
	}
	return err;
}

static int scx_get_coalesce(struct net_device *dev, struct ethtool_coalesce *ec,
			    struct kernel_ethtool_coalesce *kec, struct netlink_ext_ack *extack)
{
	struct scx_priv *priv = netdev_priv(dev);

	ec->rx_coalesce_usecs = priv->moder.rx.usecs;
	ec->rx_max_coalesced_frames = priv->moder.rx.frames;
	ec->tx_coalesce_usecs = priv->moder.tx.usecs;
	ec->tx_max_coalesced_frames = priv->moder.tx.frames;
	ec->use_adaptive_rx_coalesce = priv->rx_dim_enabled;
	ec->use_adaptive_tx_coalesce = priv->tx_dim_enabled;
	/* the period modes, as the private flags rx_cqe_moder / tx_cqe_moder */
	kec->use_cqe_mode_rx = priv->moder.rx.from_cqe;
	kec->use_cqe_mode_tx = priv->moder.tx.from_cqe;
	return 0;
}

/* RTNL held. Applied to the live CQs in place: no channel rebuild. */
static int scx_set_coalesce(struct net_device *dev, struct ethtool_coalesce *ec,
			    struct kernel_ethtool_coalesce *kec, struct netlink_ext_ack *extack)
{
	struct scx_priv *priv = netdev_priv(dev);
	struct scx_port_moder m = priv->moder;

	m.rx.usecs = ec->rx_coalesce_usecs;
	m.rx.frames = ec->rx_max_coalesced_frames;
	m.tx.usecs = ec->tx_coalesce_usecs;
	m.tx.frames = ec->tx_max_coalesced_frames;
	/*
	 * cqe-mode-rx/tx: a direction whose period mode changes takes that
	 * mode's default values, as with the private flags and in mlx5
	 */
	if (kec->use_cqe_mode_rx != !!m.rx.from_cqe)
		scx_moder_default(1, kec->use_cqe_mode_rx, &m.rx);
	if (kec->use_cqe_mode_tx != !!m.tx.from_cqe)
		scx_moder_default(0, kec->use_cqe_mode_tx, &m.tx);
	return scx_moder_update(priv, &m, ec->use_adaptive_rx_coalesce,
				ec->use_adaptive_tx_coalesce, extack);
}

static void scx_get_channels(struct net_device *dev, struct ethtool_channels *ch)
{
	struct scx_priv *priv = netdev_priv(dev);

	ch->max_combined = priv->nch_max;
	ch->combined_count = priv->nch;
}

/*
 * RTNL held. Combined channels only, 1 .. the channels= slots (the ethtool
 * core has refused more, or separate RX/TX channels). While up the port
 * switches to a set of that many channels; RSS spreads over all of them.
 */
static int scx_set_channels(struct net_device *dev, struct ethtool_channels *ch)
{
	struct scx_priv *priv = netdev_priv(dev);
	const char *why = "";
	int err;

	err = scx_port_channels_check(priv->port, ch->combined_count, ch->rx_count, ch->tx_count,
				      ch->other_count, &why);
	if (err) {
		netdev_err(dev, "channels: %s (combined 1..%u)\n", why, priv->nch_max);
		return err;
	}
	if (ch->combined_count == priv->nch)
		return 0;
	if (!priv->up) {
		err = netif_set_real_num_queues(dev, ch->combined_count, ch->combined_count);
		if (!err)
			WRITE_ONCE(priv->nch, ch->combined_count);
		return err;
	}
	err = scx_datapath_switch(priv, ch->combined_count, dev->mtu, priv->xdp_prog);
	if (err)
		netdev_err(dev, "cannot build %u channels: %d; keeping %u\n", ch->combined_count,
			   err, priv->nch);
	return err;
}

/* ---- RSS: ethtool -x/-X (key, indirection table), -n/-N rx-flow-hash ---- */

static u32 scx_get_rxfh_key_size(struct net_device *dev)
{
	return SCX_RSS_KEY_SIZE;
}

static u32 scx_get_rxfh_indir_size(struct net_device *dev)
{
	return SCX_RSS_TABLE_SIZE;
}

/* The port's RSS; its table as the live set has it (spread unless the user set one). */
static void scx_rss_read(struct net_device *dev, struct scx_rss *rss)
{
	struct scx_priv *priv = netdev_priv(dev);

	scx_port_get_rss(priv->port, netif_is_rxfh_configured(dev) ? 0 : priv->nch, rss);
}

static int scx_rss_write(struct net_device *dev, const struct scx_rss *rss)
{
	struct scx_priv *priv = netdev_priv(dev);
	const char *why = "";
	int err;

	err = scx_port_set_rss(priv->port, rss, &why);
	if (err)
		netdev_err(dev, "RSS: %s (%d)\n", why, err);
	return err;
}

/* An RSS configuration as ethtool asks for it (any of the three may be NULL). */
static void scx_rxfh_out(const struct scx_rss *rss, u32 *indir, u8 *key, u8 *hfunc)
{
	if (indir)
		memcpy(indir, rss->table, sizeof(rss->table));
	if (key)
		memcpy(key, rss->key, sizeof(rss->key));
	if (hfunc)
		*hfunc = ETH_RSS_HASH_TOP;
}

static int scx_get_rxfh(struct net_device *dev, u32 *indir, u8 *key, u8 *hfunc)
{
	struct scx_rss rss;

	scx_rss_read(dev, &rss);
	scx_rxfh_out(&rss, indir, key, hfunc);
	return 0;
}

/*
 * RTNL held. The ethtool core has checked every entry against
 * ETHTOOL_GRXRINGS; the live set's RSS object changes in place.
 */
static int scx_set_rxfh(struct net_device *dev, const u32 *indir, const u8 *key, const u8 hfunc)
{
	struct scx_rss rss;

	if (hfunc != ETH_RSS_HASH_NO_CHANGE && hfunc != ETH_RSS_HASH_TOP) {
		netdev_err(dev, "RSS: the device hashes with Toeplitz only\n");
		return -EOPNOTSUPP;
	}
	scx_rss_read(dev, &rss);
	if (indir)
		memcpy(rss.table, indir, sizeof(rss.table));
	if (key)
		memcpy(rss.key, key, sizeof(rss.key));
	return scx_rss_write(dev, &rss);
}

/*
 * RTNL held. RSS contexts: create (*ctx ETH_RXFH_CONTEXT_ALLOC), change or
 * delete one; the ethtool core has checked the table against GRXRINGS.
 */
static int scx_set_rxfh_context(struct net_device *dev, const u32 *indir, const u8 *key,
				const u8 hfunc, u32 *ctx, bool delete)
{
	struct scx_priv *priv = netdev_priv(dev);
	const char *why = "";
	int err;

	if (hfunc != ETH_RSS_HASH_NO_CHANGE && hfunc != ETH_RSS_HASH_TOP) {
		netdev_err(dev, "RSS: the device hashes with Toeplitz only\n");
		return -EOPNOTSUPP;
	}
	if (delete)
		err = scx_port_rss_ctx_delete(priv->port, *ctx, &why);
	else if (*ctx == ETH_RXFH_CONTEXT_ALLOC)
		err = scx_port_rss_ctx_create(priv->port, priv->nch, indir, key, ctx, &why);
	else
		err = scx_port_rss_ctx_set(priv->port, priv->nch, *ctx, indir, key, &why);
	if (err)
		netdev_err(dev, "RSS context %u: %s (%d)\n", *ctx, why, err);
	return err;
}

static int scx_get_rxfh_context(struct net_device *dev, u32 *indir, u8 *key, u8 *hfunc, u32 ctx)
{
	struct scx_priv *priv = netdev_priv(dev);
	struct scx_rss rss;

	if (scx_port_rss_ctx_get(priv->port, ctx, &rss))
		return -ENOENT;
	scx_rxfh_out(&rss, indir, key, hfunc);
	return 0;
}

/* ethtool's flow type -> the core's traffic type, or -1. */
static int scx_rss_type(u32 flow_type)
{
	switch (flow_type) {
	case TCP_V4_FLOW: return SCX_RSS_TCP4;
	case UDP_V4_FLOW: return SCX_RSS_UDP4;
	case IPV4_FLOW: return SCX_RSS_IP4;
	case TCP_V6_FLOW: return SCX_RSS_TCP6;
	case UDP_V6_FLOW: return SCX_RSS_UDP6;
	case IPV6_FLOW: return SCX_RSS_IP6;
	default: return -1;
	}
}

static const struct { u64 rxh; u8 field; } scx_rxh_fields[] = {
	{ RXH_IP_SRC, SCX_RSS_SRC_IP },
	{ RXH_IP_DST, SCX_RSS_DST_IP },
	{ RXH_L4_B_0_1, SCX_RSS_SRC_PORT },
	{ RXH_L4_B_2_3, SCX_RSS_DST_PORT },
};

/*
 * ---- ntuple rules: ethtool -N/-n (the rxnfc CLSRL commands) ----
 * 6.1's rxnfc path has no extack: a refusal is an errno and a
 * rate-limited line naming the interface and the reason.
 */

static int scx_rxnfc_refuse(struct net_device *dev, int err, const char *why)
{
	if (net_ratelimit())
		netdev_err(dev, "ntuple: %s (%d)\n", why, err);
	return err;
}

/* ethtool's ntuple flow type -> the core's traffic type, or -1. */
static int scx_ntuple_type(u32 flow_type)
{
	switch (flow_type) {
	case TCP_V4_FLOW: return SCX_RSS_TCP4;
	case UDP_V4_FLOW: return SCX_RSS_UDP4;
	case IPV4_USER_FLOW: return SCX_RSS_IP4;
	case TCP_V6_FLOW: return SCX_RSS_TCP6;
	case UDP_V6_FLOW: return SCX_RSS_UDP6;
	case IPV6_USER_FLOW: return SCX_RSS_IP6;
	case ETHER_FLOW: return SCX_FLOW_ETHER;
	default: return -1;
	}
}

static const u32 scx_ntuple_flow[SCX_FLOW_ETHER + 1] = {
	[SCX_RSS_TCP4] = TCP_V4_FLOW, [SCX_RSS_UDP4] = UDP_V4_FLOW,
	[SCX_RSS_IP4] = IPV4_USER_FLOW, [SCX_RSS_TCP6] = TCP_V6_FLOW,
	[SCX_RSS_UDP6] = UDP_V6_FLOW, [SCX_RSS_IP6] = IPV6_USER_FLOW,
	[SCX_FLOW_ETHER] = ETHER_FLOW,
};

/* Addresses of a rule from a spec's value (h) and mask (m) source and destination, len bytes. */
static void scx_flow_addrs_in(struct scx_flow_rule *r, const void *hs, const void *ms,
			      const void *hd, const void *md, size_t len)
{
	memcpy(r->src_ip, hs, len);
	memcpy(r->src_ip_mask, ms, len);
	memcpy(r->dst_ip, hd, len);
	memcpy(r->dst_ip_mask, md, len);
}

static void scx_flow_addrs_out(const struct scx_flow_rule *r, void *hs, void *ms, void *hd,
			       void *md, size_t len)
{
	memcpy(hs, r->src_ip, len);
	memcpy(ms, r->src_ip_mask, len);
	memcpy(hd, r->dst_ip, len);
	memcpy(md, r->dst_ip_mask, len);
}

/*
 * ethtool_rx_flow_spec -> the core's rule; NULL, or what the device cannot
 * match (the core checks the values).
 */
static const char *scx_flow_from_spec(const struct ethtool_rxnfc *nfc, struct scx_flow_rule *r)
{
	const struct ethtool_rx_flow_spec *fs = &nfc->fs;
	int type = scx_ntuple_type(fs->flow_type & ~(FLOW_EXT | FLOW_RSS | FLOW_MAC_EXT));
	const union ethtool_flow_union *h = &fs->h_u, *m = &fs->m_u;

	memset(r, 0, sizeof(*r));
	if (type < 0)
		return "flow types tcp4, udp4, ip4, tcp6, udp6, ip6 and ether only";
	if (fs->flow_type & FLOW_EXT) {
		if (fs->m_ext.vlan_etype || fs->m_ext.data[0] || fs->m_ext.data[1])
			return "no vlan-etype or user-def match";
		/* the core takes the VLAN ID whole: ethtool's "vlan N vlan-mask 0xf000" */
		r->vlan_id = be16_to_cpu(fs->h_ext.vlan_tci);
		r->vlan_id_mask = be16_to_cpu(fs->m_ext.vlan_tci);
	}
	r->type = type;
	switch (type) {
	case SCX_FLOW_ETHER:
		ether_addr_copy(r->dst_mac, h->ether_spec.h_dest);
		ether_addr_copy(r->dst_mac_mask, m->ether_spec.h_dest);
		ether_addr_copy(r->src_mac, h->ether_spec.h_source);
		ether_addr_copy(r->src_mac_mask, m->ether_spec.h_source);
		r->ethertype = be16_to_cpu(h->ether_spec.h_proto);
		r->ethertype_mask = be16_to_cpu(m->ether_spec.h_proto);
		break;
	case SCX_RSS_TCP4:
	case SCX_RSS_UDP4:
		if (m->tcp_ip4_spec.tos)
			return "no tos match";
		scx_flow_addrs_in(r, &h->tcp_ip4_spec.ip4src, &m->tcp_ip4_spec.ip4src,
				  &h->tcp_ip4_spec.ip4dst, &m->tcp_ip4_spec.ip4dst, 4);
		r->src_port = be16_to_cpu(h->tcp_ip4_spec.psrc);
		r->src_port_mask = be16_to_cpu(m->tcp_ip4_spec.psrc);
		r->dst_port = be16_to_cpu(h->tcp_ip4_spec.pdst);
		r->dst_port_mask = be16_to_cpu(m->tcp_ip4_spec.pdst);
		break;
	case SCX_RSS_IP4:
		if (m->usr_ip4_spec.tos)
			return "no tos match";
		if (m->usr_ip4_spec.l4_4_bytes)
			return "no l4data match";
		scx_flow_addrs_in(r, &h->usr_ip4_spec.ip4src, &m->usr_ip4_spec.ip4src,
				  &h->usr_ip4_spec.ip4dst, &m->usr_ip4_spec.ip4dst, 4);
		r->l4proto = h->usr_ip4_spec.proto;
		r->l4proto_mask = m->usr_ip4_spec.proto;
		break;
	case SCX_RSS_TCP6:
	case SCX_RSS_UDP6:
		if (m->tcp_ip6_spec.tclass)
			return "no tclass match";
		scx_flow_addrs_in(r, h->tcp_ip6_spec.ip6src, m->tcp_ip6_spec.ip6src,
				  h->tcp_ip6_spec.ip6dst, m->tcp_ip6_spec.ip6dst, 16);
		r->src_port = be16_to_cpu(h->tcp_ip6_spec.psrc);
		r->src_port_mask = be16_to_cpu(m->tcp_ip6_spec.psrc);
		r->dst_port = be16_to_cpu(h->tcp_ip6_spec.pdst);
		r->dst_port_mask = be16_to_cpu(m->tcp_ip6_spec.pdst);
		break;
	default:	/* SCX_RSS_IP6 */
		if (m->usr_ip6_spec.tclass)
			return "no tclass match";
		if (m->usr_ip6_spec.l4_4_bytes)
			return "no l4data match";
		scx_flow_addrs_in(r, h->usr_ip6_spec.ip6src, m->usr_ip6_spec.ip6src,
				  h->usr_ip6_spec.ip6dst, m->usr_ip6_spec.ip6dst, 16);
		r->l4proto = h->usr_ip6_spec.l4_proto;
		r->l4proto_mask = m->usr_ip6_spec.l4_proto;
		break;
	}
	/* dst-mac of any flow type (an ether flow's own one gives way to it) */
	if ((fs->flow_type & FLOW_MAC_EXT) && !is_zero_ether_addr(fs->m_ext.h_dest)) {
		ether_addr_copy(r->dst_mac, fs->h_ext.h_dest);
		ether_addr_copy(r->dst_mac_mask, fs->m_ext.h_dest);
	}
	if (fs->ring_cookie == RX_CLS_FLOW_DISC) {
		r->action = SCX_FLOW_DROP;
	} else if (fs->ring_cookie == RX_CLS_FLOW_WAKE) {
		return "no wake-on-LAN action";
	} else if (ethtool_get_flow_spec_ring_vf(fs->ring_cookie)) {
		return "no VF queues";
	} else {
		/* the queue, capped: one above any channel, refused by the core */
		r->action = min_t(u64, ethtool_get_flow_spec_ring(fs->ring_cookie), SCX_MAX_CHANNELS);
	}
	if (fs->flow_type & FLOW_RSS) {
		if (!nfc->rss_context)
			return "context 0 is the port's own RSS: give a queue instead";
		r->context = nfc->rss_context;
	}
	return NULL;
}

/* The core's rule -> ethtool_rx_flow_spec (ETHTOOL_GRXCLSRULE). */
static void scx_flow_to_spec(const struct scx_flow_rule *r, u32 loc, struct ethtool_rxnfc *nfc)
{
	struct ethtool_rx_flow_spec *fs = &nfc->fs;
	union ethtool_flow_union *h = &fs->h_u, *m = &fs->m_u;

	memset(fs, 0, sizeof(*fs));
	fs->flow_type = scx_ntuple_flow[r->type] | (r->context ? FLOW_RSS : 0);
	fs->location = loc;
	fs->ring_cookie = r->action == SCX_FLOW_DROP ? RX_CLS_FLOW_DISC : r->action;
	nfc->rss_context = r->context;
	if (r->vlan_id_mask) {
		fs->flow_type |= FLOW_EXT;
		fs->h_ext.vlan_tci = cpu_to_be16(r->vlan_id);
		fs->m_ext.vlan_tci = cpu_to_be16(r->vlan_id_mask);
	}
	if (r->type != SCX_FLOW_ETHER && !is_zero_ether_addr(r->dst_mac_mask)) {
		fs->flow_type |= FLOW_MAC_EXT;
		ether_addr_copy(fs->h_ext.h_dest, r->dst_mac);
		ether_addr_copy(fs->m_ext.h_dest, r->dst_mac_mask);
	}
	switch (r->type) {
	case SCX_FLOW_ETHER:
		ether_addr_copy(h->ether_spec.h_dest, r->dst_mac);
		ether_addr_copy(m->ether_spec.h_dest, r->dst_mac_mask);
		ether_addr_copy(h->ether_spec.h_source, r->src_mac);
		ether_addr_copy(m->ether_spec.h_source, r->src_mac_mask);
		h->ether_spec.h_proto = cpu_to_be16(r->ethertype);
		m->ether_spec.h_proto = cpu_to_be16(r->ethertype_mask);
		break;
	case SCX_RSS_TCP4:
	case SCX_RSS_UDP4:
		scx_flow_addrs_out(r, &h->tcp_ip4_spec.ip4src, &m->tcp_ip4_spec.ip4src,
				   &h->tcp_ip4_spec.ip4dst, &m->tcp_ip4_spec.ip4dst, 4);
		h->tcp_ip4_spec.psrc = cpu_to_be16(r->src_port);
		m->tcp_ip4_spec.psrc = cpu_to_be16(r->src_port_mask);
		h->tcp_ip4_spec.pdst = cpu_to_be16(r->dst_port);
		m->tcp_ip4_spec.pdst = cpu_to_be16(r->dst_port_mask);
		break;
	case SCX_RSS_IP4:
		scx_flow_addrs_out(r, &h->usr_ip4_spec.ip4src, &m->usr_ip4_spec.ip4src,
				   &h->usr_ip4_spec.ip4dst, &m->usr_ip4_spec.ip4dst, 4);
		h->usr_ip4_spec.ip_ver = ETH_RX_NFC_IP4;
		h->usr_ip4_spec.proto = r->l4proto;
		m->usr_ip4_spec.proto = r->l4proto_mask;
		break;
	case SCX_RSS_TCP6:
	case SCX_RSS_UDP6:
		scx_flow_addrs_out(r, h->tcp_ip6_spec.ip6src, m->tcp_ip6_spec.ip6src,
				   h->tcp_ip6_spec.ip6dst, m->tcp_ip6_spec.ip6dst, 16);
		h->tcp_ip6_spec.psrc = cpu_to_be16(r->src_port);
		m->tcp_ip6_spec.psrc = cpu_to_be16(r->src_port_mask);
		h->tcp_ip6_spec.pdst = cpu_to_be16(r->dst_port);
		m->tcp_ip6_spec.pdst = cpu_to_be16(r->dst_port_mask);
		break;
	default:
		scx_flow_addrs_out(r, h->usr_ip6_spec.ip6src, m->usr_ip6_spec.ip6src,
				   h->usr_ip6_spec.ip6dst, m->usr_ip6_spec.ip6dst, 16);
		h->usr_ip6_spec.l4_proto = r->l4proto;
		m->usr_ip6_spec.l4_proto = r->l4proto_mask;
		break;
	}
}

/* RTNL held. ETHTOOL_SRXCLSRLINS: special locations (ANY, LAST: the last free; FIRST) here. */
static int scx_flow_insert(struct net_device *dev, struct ethtool_rxnfc *nfc)
{
	struct scx_priv *priv = netdev_priv(dev);
	u32 loc = nfc->fs.location;
	struct scx_flow_rule r;
	const char *why;
	int err;

	why = scx_flow_from_spec(nfc, &r);
	if (why)
		return scx_rxnfc_refuse(dev, -EOPNOTSUPP, why);
	if (loc & RX_CLS_LOC_SPECIAL) {
		if (loc != RX_CLS_LOC_ANY && loc != RX_CLS_LOC_FIRST && loc != RX_CLS_LOC_LAST)
			return scx_rxnfc_refuse(dev, -EINVAL, "unknown special location");
		if (scx_port_flow_free_loc(priv->port, loc != RX_CLS_LOC_FIRST, &loc))
			return scx_rxnfc_refuse(dev, -ENOSPC, "the rule table is full");
	}
	err = scx_port_flow_set(priv->port, priv->nch, loc, &r, &why);
	if (err)
		return scx_rxnfc_refuse(dev, err, why);
	nfc->fs.location = loc;
	return 0;
}

static int scx_get_rxnfc(struct net_device *dev, struct ethtool_rxnfc *nfc, u32 *rule_locs)
{
	struct scx_priv *priv = netdev_priv(dev);
	struct scx_flow_rule r;
	struct scx_rss rss;
	int type, i;

	switch (nfc->cmd) {
	case ETHTOOL_GRXRINGS:
		nfc->data = priv->nch;
		return 0;
	case ETHTOOL_GRXFH:
		type = scx_rss_type(nfc->flow_type & ~(FLOW_EXT | FLOW_MAC_EXT | FLOW_RSS));
		if (type < 0)
			return -EOPNOTSUPP;
		scx_rss_read(dev, &rss);
		nfc->data = 0;
		for (i = 0; i < ARRAY_SIZE(scx_rxh_fields); i++)
			if (rss.fields[type] & scx_rxh_fields[i].field)
				nfc->data |= scx_rxh_fields[i].rxh;
		return 0;
	case ETHTOOL_GRXCLSRLCNT:
		nfc->rule_cnt = scx_port_flow_count(priv->port);
		nfc->data = scx_port_flow_table_size(priv->port) | RX_CLS_LOC_SPECIAL;
		return 0;
	case ETHTOOL_GRXCLSRULE:
		if (scx_port_flow_get(priv->port, nfc->fs.location, &r))
			return -ENOENT;
		scx_flow_to_spec(&r, nfc->fs.location, nfc);
		return 0;
	case ETHTOOL_GRXCLSRLALL:
		nfc->data = scx_port_flow_table_size(priv->port);
		if (scx_port_flow_locs(priv->port, rule_locs, nfc->rule_cnt) > nfc->rule_cnt)
			return -EMSGSIZE;
		nfc->rule_cnt = scx_port_flow_count(priv->port);
		return 0;
	default:
		return -EOPNOTSUPP;
	}
}

/* RTNL held. ETHTOOL_SRXFH: which header fields feed the hash, per flow type. */
static int scx_set_rxnfc(struct net_device *dev, struct ethtool_rxnfc *nfc)
{
	struct scx_rss rss;
	u64 left = nfc->data;
	u8 fields = 0;
	int type, i;

	switch (nfc->cmd) {
	case ETHTOOL_SRXFH:
		break;
	case ETHTOOL_SRXCLSRLINS:
		return scx_flow_insert(dev, nfc);
	case ETHTOOL_SRXCLSRLDEL:
		if (scx_port_flow_delete(((struct scx_priv *)netdev_priv(dev))->port, nfc->fs.location))
			return scx_rxnfc_refuse(dev, -ENOENT, "no rule at that location");
		return 0;
	default:
		return -EOPNOTSUPP;
	}
	type = scx_rss_type(nfc->flow_type);
	if (type < 0) {
		netdev_err(dev, "rx-flow-hash: tcp4, udp4, ip4, tcp6, udp6 and ip6 only\n");
		return -EOPNOTSUPP;
	}
	for (i = 0; i < ARRAY_SIZE(scx_rxh_fields); i++)
		if (left & scx_rxh_fields[i].rxh) {
			fields |= scx_rxh_fields[i].field;
			left &= ~scx_rxh_fields[i].rxh;
		}
	if (left) {
		netdev_err(dev, "rx-flow-hash: the device hashes IP addresses and L4 ports only (s, d, f, n)\n");
		return -EINVAL;
	}
	scx_rss_read(dev, &rss);
	rss.fields[type] = fields;
	return scx_rss_write(dev, &rss);
}

/* ethtool -T: hardware stamping and the PHC's index once the port has its clock. */
static int scx_get_ts_info(struct net_device *dev, struct ethtool_ts_info *info)
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

const struct ethtool_ops scx_ethtool_ops = {
	.supported_coalesce_params = ETHTOOL_COALESCE_USECS | ETHTOOL_COALESCE_MAX_FRAMES |
				     ETHTOOL_COALESCE_USE_ADAPTIVE | ETHTOOL_COALESCE_USE_CQE,
	.get_drvinfo		= scx_get_drvinfo,
	.get_ts_info		= scx_get_ts_info,
	.get_link		= ethtool_op_get_link,
	.get_link_ksettings	= scx_get_link_ksettings,
	.set_link_ksettings	= scx_set_link_ksettings,
	.get_link_ext_state	= scx_get_link_ext_state,
	.get_module_info	= scx_get_module_info,
	.get_module_eeprom	= scx_get_module_eeprom,
	.get_module_eeprom_by_page = scx_get_module_eeprom_by_page,
	.self_test		= scx_self_test,
	.get_sset_count		= scx_get_sset_count,
	.get_strings		= scx_get_strings,
	.get_ethtool_stats	= scx_get_ethtool_stats,
	.get_eth_mac_stats	= scx_get_eth_mac_stats,
	.get_eth_ctrl_stats	= scx_get_eth_ctrl_stats,
	.get_rmon_stats		= scx_get_rmon_stats,
	.get_fec_stats		= scx_get_fec_stats,
	.get_fecparam		= scx_get_fecparam,
	.set_fecparam		= scx_set_fecparam,
	.get_pauseparam		= scx_get_pauseparam,
	.get_pause_stats	= scx_get_pause_stats,
	.get_channels		= scx_get_channels,
	.set_channels		= scx_set_channels,
	.get_ringparam		= scx_get_ringparam,
	.set_ringparam		= scx_set_ringparam,
	.get_coalesce		= scx_get_coalesce,
	.set_coalesce		= scx_set_coalesce,
	.get_priv_flags		= scx_get_priv_flags,
	.set_priv_flags		= scx_set_priv_flags,
	.get_rxfh_key_size	= scx_get_rxfh_key_size,
	.get_rxfh_indir_size	= scx_get_rxfh_indir_size,
	.get_rxfh		= scx_get_rxfh,
	.set_rxfh		= scx_set_rxfh,
	.get_rxfh_context	= scx_get_rxfh_context,
	.set_rxfh_context	= scx_set_rxfh_context,
	.get_rxnfc		= scx_get_rxnfc,
	.set_rxnfc		= scx_set_rxnfc,
};
