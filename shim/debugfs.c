// SPDX-License-Identifier: GPL-2.0
/*
 * softcx debugfs: test hooks per port, /sys/kernel/debug/softcx/scxN/.
 *
 *   inject_tx_error (write-only): every TX WQE the port's SQs post from now
 *   on carries a bad lkey until the SQ recovers, so the device answers the
 *   next WQE of each SQ with an error CQE (LOCAL_PROT_ERR) and the driver's
 *   recovery (tx_cqe_err, tx_recover) runs for real.
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
