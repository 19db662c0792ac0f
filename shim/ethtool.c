// SPDX-License-Identifier: GPL-2.0
/* softcx ethtool_ops: driver info, link, channels and the core's counter table. */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/ethtool.h>
#include <linux/netdevice.h>

#include "softcx.h"

static void scx_get_drvinfo(struct net_device *dev, struct ethtool_drvinfo *info)
{
	struct scx_priv *priv = netdev_priv(dev);

	strscpy(info->driver, SCX_DRV_NAME, sizeof(info->driver));
	strscpy(info->version, SCX_DRV_VERSION, sizeof(info->version));
	snprintf(info->bus_info, sizeof(info->bus_info), "%s:p%u",
		 dev_name(priv->dmadev), priv->index);
}

static int scx_get_sset_count(struct net_device *dev, int sset)
{
	struct scx_priv *priv = netdev_priv(dev);

	if (sset != ETH_SS_STATS)
		return -EOPNOTSUPP;
	return scx_stats_count(priv->port);
}

static void scx_get_strings(struct net_device *dev, u32 sset, u8 *data)
{
	struct scx_priv *priv = netdev_priv(dev);

	BUILD_BUG_ON(SCX_STAT_NAME_LEN != ETH_GSTRING_LEN);
	if (sset == ETH_SS_STATS)
		scx_stats_names(priv->port, (char *)data);
}

static void scx_get_ethtool_stats(struct net_device *dev,
				  struct ethtool_stats *stats, u64 *data)
{
	struct scx_priv *priv = netdev_priv(dev);

	scx_stats_values(priv->port, data);
}

static void scx_get_channels(struct net_device *dev, struct ethtool_channels *ch)
{
	struct scx_priv *priv = netdev_priv(dev);

	ch->max_combined = priv->nch;
	ch->combined_count = priv->nch;
}

const struct ethtool_ops scx_ethtool_ops = {
	.get_drvinfo		= scx_get_drvinfo,
	.get_link		= ethtool_op_get_link,
	.get_sset_count		= scx_get_sset_count,
	.get_strings		= scx_get_strings,
	.get_ethtool_stats	= scx_get_ethtool_stats,
	.get_channels		= scx_get_channels,
};
