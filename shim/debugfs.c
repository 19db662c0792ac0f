// SPDX-License-Identifier: GPL-2.0
/*
 * softcx debugfs: test hooks per port, /sys/kernel/debug/softcx/scxN/.
 *
 *   inject_tx_error (write-only): every TX WQE the port's SQs post from now
 *   on carries a bad lkey until the SQ recovers, so the device answers the
 *   next WQE of each SQ with an error CQE (LOCAL_PROT_ERR) and the driver's
 *   recovery (tx_cqe_err, tx_recover) runs for real.
 *
 * and one per adapter, /sys/kernel/debug/softcx/:
 *
 *   inject_dma_fault (write-only): the next skb head the adapter maps (any
 *   port) reaches the driver core at a bus address nothing maps for the
 *   device (a page softcx holds and never maps), so the device's view
 *   refuses the WQE's data segment: an error CQE (LOCAL_PROT_ERR),
 *   bus_dma_faults on the port that sent it, and the TX recovery. The real
 *   mapping is unmapped when the driver releases the skb. -EBUSY while an
 *   earlier injection has not been released yet.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/debugfs.h>
#include <linux/netdevice.h>
#include <linux/rtnetlink.h>

#include "softcx.h"

static struct dentry *scx_debugfs_root;

static ssize_t scx_inject_tx_error_write(struct file *file, const char __user *buf,
					 size_t count, loff_t *ppos)
{
	struct scx_priv *priv = file->private_data;
	u32 i;

	rtnl_lock();
	if (!priv->up) {
		rtnl_unlock();
		return -ENETDOWN;
	}
	for (i = 0; i < priv->nch; i++) {
		struct scx_chan *ch = &priv->ch[i];

		__netif_tx_lock_bh(ch->txq);
		scx_channel_inject_tx_error(ch->core);
		__netif_tx_unlock_bh(ch->txq);
	}
	rtnl_unlock();
	netdev_info(priv->netdev, "debugfs: the next TX WQE of each queue will fail\n");
	return count;
}

static const struct file_operations scx_inject_tx_error_fops = {
	.owner	= THIS_MODULE,
	.open	= simple_open,
	.write	= scx_inject_tx_error_write,
	.llseek	= noop_llseek,
};

static ssize_t scx_inject_dma_fault_write(struct file *file, const char __user *buf,
					  size_t count, loff_t *ppos)
{
	struct scx_adapter *ad = file->private_data;
	int err;

	err = scx_dma_inject_fault(&ad->pdev->dev);
	if (err)
		return err;
	pr_info("debugfs: the next skb head mapping will be unreachable for the device\n");
	return count;
}

static const struct file_operations scx_inject_dma_fault_fops = {
	.owner	= THIS_MODULE,
	.open	= simple_open,
	.write	= scx_inject_dma_fault_write,
	.llseek	= noop_llseek,
};

void scx_debugfs_adapter_add(struct scx_adapter *ad)
{
	if (IS_ERR_OR_NULL(scx_debugfs_root))
		return;
	ad->debugfs_dma = debugfs_create_file("inject_dma_fault", 0200, scx_debugfs_root, ad,
					      &scx_inject_dma_fault_fops);
}

void scx_debugfs_adapter_del(struct scx_adapter *ad)
{
	debugfs_remove(ad->debugfs_dma);
	ad->debugfs_dma = NULL;
}

void scx_debugfs_init(void)
{
	scx_debugfs_root = debugfs_create_dir(SCX_DRV_NAME, NULL);
}

void scx_debugfs_exit(void)
{
	debugfs_remove_recursive(scx_debugfs_root);
	scx_debugfs_root = NULL;
}

void scx_debugfs_port_add(struct scx_priv *priv)
{
	if (IS_ERR_OR_NULL(scx_debugfs_root))
		return;
	priv->debugfs = debugfs_create_dir(netdev_name(priv->netdev), scx_debugfs_root);
	debugfs_create_file("inject_tx_error", 0200, priv->debugfs, priv,
			    &scx_inject_tx_error_fops);
}

void scx_debugfs_port_del(struct scx_priv *priv)
{
	debugfs_remove_recursive(priv->debugfs);
	priv->debugfs = NULL;
}
