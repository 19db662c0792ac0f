// SPDX-License-Identifier: GPL-2.0
/*
 * softcx debugfs: test hooks per port, /sys/kernel/debug/softcx/scxN/.
 *
 *   inject_tx_error (write-only): every TX WQE the port's SQs post from now
 *   on carries a bad lkey until the SQ recovers, so the device answers the
 *   next WQE of each SQ with an error CQE (LOCAL_PROT_ERR) and the driver's
 *   recovery (tx_cqe_err, tx_recover) runs for real.
 *
 *   inject_tx_stall (write-only): the SQs' doorbells are lost until they
 *   recover: the queues fill, stop, and the TX watchdog (ndo_tx_timeout)
 *   recovers them (tx_timeout, tx_flushed, tx_recover).
 *
 *   inject_rx_error (write-only): every RX WQE posted carries a bad lkey
 *   until the RQ recovers: the next frame gets an error CQE and the RQ goes
 *   to ERR; NAPI recovers it (rx_wqe_err, rx_recover).
 *
 *   cqs (read-only): the live channel set's CQ numbers, one line per
 *   channel, "ch<i> rq 0x<cqn> sq 0x<cqn>" (nothing while down). A channel
 *   rebuild creates new CQs with new numbers; a change made in place
 *   (ethtool -C) keeps them.
 *
 *   inject_rx_cq_overrun (write-only): the RQs' CQs stop publishing their
 *   consumer index (set_ci) until the RQ recovers, as a driver that forgot
 *   to would: a ring of frames later the device finds the CQ full, drops
 *   the frame (rx_cq_overrun), stops the CQ and raises a CQ error event
 *   (cq_overrun); NAPI finds the CQ and recovers the RQ (rx_recover).
 *
 *   inject_fcs_error (write-only, a count N from 1 to 1000000): the next N
 *   frames the port sends reach its peer with a wrong FCS, as over a
 *   damaged cable: the peer counts them in rx_crc_errors_phy (ip -s link:
 *   crc errors) and drops them, unless its rx-all is on. Up or down. Where
 *   the link runs a FEC, each is also an uncorrectable FEC block at the peer.
 *
 *   inject_bit_error (write-only, a count N from 1 to 1000000): the next N
 *   frames the port sends take bit errors on the wire, as over a noisy
 *   cable: where the link runs a FEC, the peer corrects them (a corrected
 *   block each, ethtool --show-fec -I) and the frames arrive intact;
 *   without FEC they are FCS errors as above.
 *
 * And one per adapter, /sys/kernel/debug/softcx/:
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
#include <linux/seq_file.h>

#include "softcx.h"

static struct dentry *scx_debugfs_root;

/*
 * The per-port inject files: each the core's injection on every channel,
 * with the part of the data path it touches quiesced (NAPI for the RQs,
 * the queue's TX lock for the SQs). Any write injects; what is written
 * is not read. The write handler finds its entry from the file's own
 * file_operations, which each entry carries.
 */
struct scx_inject_file {
	const char *name;
	void (*inject)(struct scx_channel *c);
	bool rx;
	const char *effect;	/* for the log */
	struct file_operations fops;
};

static ssize_t scx_inject_write(struct file *file, const char __user *buf, size_t count,
				loff_t *ppos);

#define SCX_INJECT_FILE(file, core_call, on_rx, what)					\
	{										\
		.name = file, .inject = core_call, .rx = on_rx, .effect = what,		\
		.fops = { .owner = THIS_MODULE, .open = simple_open,			\
			  .write = scx_inject_write, .llseek = noop_llseek },		\
	}

static const struct scx_inject_file scx_inject_files[] = {
	SCX_INJECT_FILE("inject_tx_error", scx_channel_inject_tx_error, false,
			"the next TX WQE of each queue will fail"),
	SCX_INJECT_FILE("inject_tx_stall", scx_channel_inject_tx_stall, false,
			"TX doorbells of each queue are lost until it recovers"),
	SCX_INJECT_FILE("inject_rx_error", scx_channel_inject_rx_error, true,
			"the next RX buffer of each queue will fail"),
	SCX_INJECT_FILE("inject_rx_cq_overrun", scx_channel_inject_rx_cq_overrun, true,
			"the RX CQs stop publishing set_ci until their RQ recovers"),
};

static void scx_inject(struct scx_chan *ch, const struct scx_inject_file *f)
{
	if (f->rx) {
		napi_disable(&ch->napi);
		f->inject(ch->core);
		napi_enable(&ch->napi);
		return;
	}
	__netif_tx_lock_bh(ch->txq);
	f->inject(ch->core);
	__netif_tx_unlock_bh(ch->txq);
}

static ssize_t scx_inject_write(struct file *file, const char __user *buf, size_t count,
				loff_t *ppos)
{
	const struct scx_inject_file *f =
		container_of(debugfs_real_fops(file), struct scx_inject_file, fops);
	struct scx_priv *priv = file->private_data;
	u32 i;

	rtnl_lock();
	if (!priv->up) {
		rtnl_unlock();
		return -ENETDOWN;
	}
	for (i = 0; i < priv->nch; i++)
		scx_inject(&priv->ch[i], f);
	rtnl_unlock();
	netdev_info(priv->netdev, "debugfs: %s\n", f->effect);
	return count;
}

/* Frames to damage: a count from 1 to 1000000 written, passed to @inject. */
static ssize_t scx_inject_frames(struct file *file, const char __user *buf, size_t count,
				 void (*inject)(struct scx_hw_function *fn, uint32_t n),
				 const char *what)
{
	struct scx_priv *priv = file->private_data;
	u32 n;
	int err = kstrtou32_from_user(buf, count, 0, &n);

	if (err)
		return err;
	if (!n || n > 1000000)
		return -EINVAL;
	inject(priv->fn, n);
	netdev_info(priv->netdev, "debugfs: the next %u frames sent %s\n", n, what);
	return count;
}

static ssize_t scx_inject_fcs_write(struct file *file, const char __user *buf, size_t count,
				    loff_t *ppos)
{
	return scx_inject_frames(file, buf, count, scx_hw_inject_fcs_errors, "get a wrong FCS");
}

static ssize_t scx_inject_bits_write(struct file *file, const char __user *buf, size_t count,
				     loff_t *ppos)
{
	return scx_inject_frames(file, buf, count, scx_hw_inject_bit_errors, "take bit errors");
}

static const struct file_operations scx_inject_fcs_fops = {
	.owner	= THIS_MODULE,
	.open	= simple_open,
	.write	= scx_inject_fcs_write,
	.llseek	= noop_llseek,
};

static const struct file_operations scx_inject_bits_fops = {
	.owner	= THIS_MODULE,
	.open	= simple_open,
	.write	= scx_inject_bits_write,
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
	dev_info(&ad->pdev->dev,
		 "debugfs: the next skb head mapping will be unreachable for the device\n");
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

static int scx_cqs_show(struct seq_file *m, void *unused)
{
	struct scx_priv *priv = m->private;
	u32 i;

	/* the live set changes under RTNL */
	if (!rtnl_trylock())
		return restart_syscall();
	for (i = 0; i < priv->nch; i++) {
		struct scx_channel *c = priv->ch[i].core;

		if (c)
			seq_printf(m, "ch%u rq 0x%x sq 0x%x\n", i, scx_channel_cqn(c, 1),
				   scx_channel_cqn(c, 0));
	}
	rtnl_unlock();
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(scx_cqs);

void scx_debugfs_exit(void)
{
	debugfs_remove_recursive(scx_debugfs_root);
	scx_debugfs_root = NULL;
}

void scx_debugfs_port_add(struct scx_priv *priv)
{
	u32 i;

	if (IS_ERR_OR_NULL(scx_debugfs_root))
		return;
	priv->debugfs = debugfs_create_dir(netdev_name(priv->netdev), scx_debugfs_root);
	for (i = 0; i < ARRAY_SIZE(scx_inject_files); i++)
		debugfs_create_file(scx_inject_files[i].name, 0200, priv->debugfs, priv,
				    &scx_inject_files[i].fops);
	debugfs_create_file("inject_fcs_error", 0200, priv->debugfs, priv, &scx_inject_fcs_fops);
	debugfs_create_file("inject_bit_error", 0200, priv->debugfs, priv, &scx_inject_bits_fops);
	debugfs_create_file("cqs", 0400, priv->debugfs, priv, &scx_cqs_fops);
}

void scx_debugfs_port_del(struct scx_priv *priv)
{
	debugfs_remove_recursive(priv->debugfs);
	priv->debugfs = NULL;
}
