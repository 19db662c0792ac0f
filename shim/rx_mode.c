// SPDX-License-Identifier: GPL-2.0
/*
 * The RX address filter: the port's own address, its secondary unicast
 * addresses (IFF_UNICAST_FLT: macvlan and the like list them instead of
 * making the port promiscuous), its multicast list and its promiscuous
 * flags, kept in the device (scx_port_set_rx_filter). The device takes
 * commands in any context, so the filter is set from ndo_set_rx_mode
 * itself, with the address lists' lock held: it holds before the call
 * that changed it returns (mlx5e, whose firmware commands sleep, defers
 * to a work item and has a window instead).
 *
 * And the VLAN filter (scx_port_set_rx_vlans), as mlx5's: the VLAN IDs of
 * the port's 802.1Q uppers (rx-vlan-filter, on by default; off takes every
 * C-tag) and of its 802.1ad ones (always filtered, [fixed] on). Untagged
 * frames and a promiscuous port are not filtered: the device's rule.
 */
#include <linux/etherdevice.h>
#include <linux/if_vlan.h>

#include "softcx.h"

/* Room for the addresses the device lists (the caps), allocated once. */
int scx_rx_mode_init(struct scx_priv *priv, u32 max_uc, u32 max_mc)
{
	priv->max_uc_addrs = max_uc;
	priv->max_mc_addrs = max_mc;
	priv->rx_addrs = kcalloc(max_uc + max_mc, ETH_ALEN, GFP_KERNEL);
	return priv->rx_addrs ? 0 : -ENOMEM;
}

void scx_rx_mode_fini(struct scx_priv *priv)
{
	kfree(priv->rx_addrs);
	priv->rx_addrs = NULL;
}

/* ndo_set_rx_mode: the address lists' lock held (BHs off). */
void scx_set_rx_mode(struct net_device *dev)
{
	struct scx_priv *priv = netdev_priv(dev);
	u32 max_uc = priv->max_uc_addrs, max_mc = priv->max_mc_addrs;
	u8 *uc = priv->rx_addrs, *mc = uc + max_uc * ETH_ALEN;
	u32 promisc = 0, n_uc = 1, n_mc = 0;
	struct netdev_hw_addr *ha;
	int err;

	if (dev->flags & IFF_PROMISC)
		promisc |= SCX_RX_PROMISC_ALL;
	if (dev->flags & IFF_ALLMULTI)
		promisc |= SCX_RX_PROMISC_MC;
	/* the own address first (the device's one-compare path); counts past the room: promisc */
	ether_addr_copy(uc, dev->dev_addr);
	netdev_for_each_uc_addr(ha, dev)
		if (n_uc++ < max_uc)
			ether_addr_copy(uc + (n_uc - 1) * ETH_ALEN, ha->addr);
	netdev_for_each_mc_addr(ha, dev)
		if (n_mc++ < max_mc)
			ether_addr_copy(mc + (n_mc - 1) * ETH_ALEN, ha->addr);
	err = scx_port_set_rx_filter(priv->port, promisc, uc, n_uc, mc, n_mc);
	if (err)
		netdev_warn_once(dev, "RX address filter not updated: %d\n", err);
}

/* ndo_set_mac_address (RTNL): the new address is in the filter before this returns. */
int scx_set_mac_address(struct net_device *dev, void *addr)
{
	int err = eth_mac_addr(dev, addr);

	if (!err && netif_running(dev)) {
		netif_addr_lock_bh(dev);
		scx_set_rx_mode(dev);
		netif_addr_unlock_bh(dev);
	}
	return err;
}

/* RTNL: the VLAN filter as the maps and rx-vlan-filter say. */
int scx_rx_vlans_sync(struct net_device *dev)
{
	struct scx_priv *priv = netdev_priv(dev);
	u32 flags = SCX_RX_VLAN_STAG;

	if (priv->rx_vlan_ctag_filter)
		flags |= SCX_RX_VLAN_CTAG;
	return scx_port_set_rx_vlans(priv->port, flags, priv->rx_cvids, priv->rx_svids);
}

/*
 * ndo_set_features (RTNL), rx-vlan-filter: off takes every C-tag (S-tags
 * stay filtered, as mlx5). The kernel then removes the VLAN IDs (or adds
 * them back when it comes on) with dev->features still the old ones.
 */
int scx_set_vlan_filter(struct net_device *dev, netdev_features_t features)
{
	struct scx_priv *priv = netdev_priv(dev);
	bool on = features & NETIF_F_HW_VLAN_CTAG_FILTER;
	int err;

	if (on == priv->rx_vlan_ctag_filter)
		return 0;
	priv->rx_vlan_ctag_filter = on;
	err = scx_rx_vlans_sync(dev);
	if (err) {
		priv->rx_vlan_ctag_filter = !on;
		netdev_err(dev, "cannot switch the device's VLAN filter: %d\n", err);
	}
	return err;
}

static u64 *scx_vid_map(struct scx_priv *priv, __be16 proto)
{
	if (proto == htons(ETH_P_8021Q))
		return priv->rx_cvids;
	if (proto == htons(ETH_P_8021AD))
		return priv->rx_svids;
	return NULL;
}

/* ndo_vlan_rx_add_vid (RTNL): an upper device on VLAN @vid; in the device before this returns. */
int scx_vlan_rx_add_vid(struct net_device *dev, __be16 proto, u16 vid)
{
	u64 *map = scx_vid_map(netdev_priv(dev), proto);
	int err;

	if (!map || vid >= VLAN_N_VID)
		return -EOPNOTSUPP;
	map[vid / 64] |= BIT_ULL(vid % 64);
	err = scx_rx_vlans_sync(dev);
	if (err) {
		map[vid / 64] &= ~BIT_ULL(vid % 64);
		netdev_warn(dev, "VLAN %u not added to the RX filter: %d\n", vid, err);
	}
	return err;
}

/* ndo_vlan_rx_kill_vid (RTNL). */
int scx_vlan_rx_kill_vid(struct net_device *dev, __be16 proto, u16 vid)
{
	u64 *map = scx_vid_map(netdev_priv(dev), proto);

	if (!map || vid >= VLAN_N_VID)
		return -EOPNOTSUPP;
	map[vid / 64] &= ~BIT_ULL(vid % 64);
	return scx_rx_vlans_sync(dev);
}
