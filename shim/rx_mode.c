// SPDX-License-Identifier: GPL-2.0
/*
 * The RX address filter: the port's own address, its secondary unicast
 * addresses (IFF_UNICAST_FLT: macvlan and the like list them instead of
 * making the port promiscuous), its multicast list and its promiscuous
 * flags, kept in the device (scx_port_set_rx_filter). The stack changes
 * them in atomic context (ndo_set_rx_mode), so a work item brings the
 * device up to date, as mlx5e's set_rx_mode_work does.
 */
#include <linux/etherdevice.h>

#include "softcx.h"

/* Copy the netdev's addresses and flags, then set the device's filter (process context). */
static void scx_rx_mode_sync(struct scx_priv *priv)
{
	struct net_device *dev = priv->netdev;
	u32 max_uc = priv->max_uc_addrs, max_mc = priv->max_mc_addrs;
	u32 promisc = 0, n_uc = 1, n_mc = 0;
	struct netdev_hw_addr *ha;
	u8 *uc, *mc;
	int err;

	uc = kmalloc_array(max_uc + max_mc, ETH_ALEN, GFP_KERNEL);
	if (!uc) {
		netdev_warn(dev, "RX address filter not updated: no memory\n");
		return;
	}
	mc = uc + max_uc * ETH_ALEN;
	mutex_lock(&priv->rx_mode_lock);
	netif_addr_lock_bh(dev);
	if (dev->flags & IFF_PROMISC)
		promisc |= SCX_RX_PROMISC_ALL;
	if (dev->flags & IFF_ALLMULTI)
		promisc |= SCX_RX_PROMISC_MC;
	/* the own address first: the device's one-compare path; counts past the room mean promisc */
	ether_addr_copy(uc, dev->dev_addr);
	netdev_for_each_uc_addr(ha, dev)
		if (n_uc++ < max_uc)
			ether_addr_copy(uc + (n_uc - 1) * ETH_ALEN, ha->addr);
	netdev_for_each_mc_addr(ha, dev)
		if (n_mc++ < max_mc)
			ether_addr_copy(mc + (n_mc - 1) * ETH_ALEN, ha->addr);
	netif_addr_unlock_bh(dev);
	err = scx_port_set_rx_filter(priv->port, promisc, uc, n_uc, mc, n_mc);
	mutex_unlock(&priv->rx_mode_lock);
	kfree(uc);
	if (err)
		netdev_warn(dev, "RX address filter not updated: %d\n", err);
}

static void scx_rx_mode_work(struct work_struct *work)
{
	scx_rx_mode_sync(container_of(work, struct scx_priv, rx_mode_work));
}

void scx_rx_mode_init(struct scx_priv *priv, u32 max_uc, u32 max_mc)
{
	priv->max_uc_addrs = max_uc;
	priv->max_mc_addrs = max_mc;
	mutex_init(&priv->rx_mode_lock);
	INIT_WORK(&priv->rx_mode_work, scx_rx_mode_work);
}

/* ndo_set_rx_mode: the address lists' lock held (atomic). */
void scx_set_rx_mode(struct net_device *dev)
{
	struct scx_priv *priv = netdev_priv(dev);

	queue_work(system_wq, &priv->rx_mode_work);
}

/* ndo_set_mac_address (RTNL): the new address is in the filter before this returns. */
int scx_set_mac_address(struct net_device *dev, void *addr)
{
	int err = eth_mac_addr(dev, addr);

	if (!err && netif_running(dev))
		scx_rx_mode_sync(netdev_priv(dev));
	return err;
}
