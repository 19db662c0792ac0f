// SPDX-License-Identifier: GPL-2.0
/*
 * softcx module: parameters, the adapter's platform device, the emulated
 * adapter and one netdev per function (scx0 <-> scx1, scx2 <-> scx3, ...).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cpumask.h>
#include <linux/etherdevice.h>
#include <linux/minmax.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/mm.h>
#include <linux/mutex.h>
#include <linux/slab.h>

#include "softcx.h"

static unsigned int nr_pairs = 1;
module_param(nr_pairs, uint, 0444);
MODULE_PARM_DESC(nr_pairs, "Back-to-back port pairs, pair N is scx(2N) <-> scx(2N+1) (1..8, default 1)");

static unsigned int channels;
module_param(channels, uint, 0444);
MODULE_PARM_DESC(channels, "Channels per port, one NAPI, SQ and RQ each (1..64; default 0 = min(online CPUs, 8))");

static char *model = "cx7";
module_param(model, charp, 0444);
MODULE_PARM_DESC(model, "Emulated device generation: cx4, cx5, cx6dx, cx7 (default cx7; cx4 requires L2 headers inline)");

static struct scx_adapter *scx_adapter;

/* emul_timing may change at run time: the adapter is published under this lock. */
static DEFINE_MUTEX(scx_timing_lock);
static bool emul_timing;

static int scx_emul_timing_set(const char *val, const struct kernel_param *kp)
{
	int err;

	mutex_lock(&scx_timing_lock);
	err = param_set_bool(val, kp);
	if (!err && scx_adapter)
		scx_hw_set_timing(scx_adapter->hw, emul_timing);
	mutex_unlock(&scx_timing_lock);
	return err;
}

static const struct kernel_param_ops scx_emul_timing_ops = {
	.set = scx_emul_timing_set,
	.get = param_get_bool,
};
module_param_cb(emul_timing, &scx_emul_timing_ops, &emul_timing, 0644);
MODULE_PARM_DESC(emul_timing, "Time the emulated device's doorbell work into the emul_ns counter (default off; writable)");

static void scx_port_free(struct scx_adapter *ad, u32 ix)
{
	struct net_device *dev = ad->netdevs[ix];
	struct scx_priv *priv;
	u32 i;

	if (!dev)
		return;
	priv = netdev_priv(dev);
	scx_debugfs_port_del(priv);
	/* unregistered: no new recovery or stats refresh can be scheduled */
	if (priv->port) {
		for (i = 0; i < priv->nch_max; i++) {
			cancel_work_sync(&priv->ch[i].tx_recover_work);
			cancel_work_sync(&priv->ch[i].health_work);
		}
		cancel_delayed_work_sync(&priv->stats_work);
	}
	scx_ptp_fini(priv);	/* no PHC reads the port from here on */
	scx_devlink_port_del(priv);	/* no recovery left to report */
	if (priv->port) {
		scx_tunnel_fini(priv);
		scx_hw_set_irq_ctx(priv->fn, NULL);
		scx_port_destroy(priv->port);
	}
	scx_rx_mode_fini(priv);
	free_netdev(dev);	/* also deletes the NAPI contexts */
	ad->netdevs[ix] = NULL;
}

static int scx_port_alloc(struct scx_adapter *ad, u32 ix)
{
	const struct scx_os_layout os = SCX_OS_LAYOUT;
	struct scx_port_caps caps = {};
	struct scx_queue_sizes qs;
	struct scx_priv *priv;
	struct net_device *dev;
	struct scx_rss rss;
	const char *why;
	u32 i;
	int err;

	dev = alloc_etherdev_mqs(struct_size(priv, ch, ad->nch), ad->nch, ad->nch);
	if (!dev)
		return -ENOMEM;
	ad->netdevs[ix] = dev;
	snprintf(dev->name, IFNAMSIZ, "scx%u", ix);
	dev->name_assign_type = NET_NAME_PREDICTABLE;	/* udev keeps it */
	SET_NETDEV_DEV(dev, &ad->pdev->dev);
	scx_netdev_setup(dev);

	priv = netdev_priv(dev);
	priv->netdev = dev;
	priv->dmadev = &ad->pdev->dev;
	priv->adapter = ad;
	priv->index = ix;
	priv->nch = ad->nch;
	priv->nch_max = ad->nch;
	INIT_DELAYED_WORK(&priv->stats_work, scx_stats_work);
	priv->fn = scx_hw_function(ad->hw, ix);
	if (!priv->fn)
		return -ENODEV;

	for (i = 0; i < priv->nch_max; i++) {
		struct scx_chan *ch = &priv->ch[i];

		ch->priv = priv;
		ch->ix = i;
		ch->txq = netdev_get_tx_queue(dev, i);
		priv->os_channels[i] = ch;
		INIT_WORK(&ch->tx_recover_work, scx_tx_recover_work);
		INIT_WORK(&ch->health_work, scx_health_work);
		scx_dim_init(ch);
		spin_lock_init(&ch->xdp_xmit_lock);
		netif_napi_add(dev, &ch->napi, scx_napi_poll);
	}

	err = scx_port_create(priv->fn, &ad->pdev->dev, priv, priv->nch, &os, &priv->port);
	if (err) {
		priv->port = NULL;
		return err;
	}
	scx_hw_set_irq_ctx(priv->fn, priv);

	scx_port_get_caps(priv->port, &caps);
	priv->min_inline = caps.min_inline;
	priv->max_lso_hdr = caps.max_lso_hdr;
	priv->xdp_max_mtu = caps.xdp_max_mtu;
	err = scx_tunnel_init(priv, &caps);
	if (err)
		return err;
	priv->max_log_sq = caps.max_log_sq_size;
	priv->max_log_rq = caps.max_log_rq_size;
	err = scx_rx_mode_init(priv, caps.max_uc_addrs, caps.max_mc_addrs);
	if (err)
		return err;
	/* the VLAN filter with no VLAN yet (it acts once the address filter is set: open) */
	priv->rx_vlan_ctag_filter = dev->features & NETIF_F_HW_VLAN_CTAG_FILTER;
	err = scx_rx_vlans_sync(dev);
	if (err)
		return err;
	scx_params_queue_sizes(&qs);
	priv->log_sq_size = qs.log_sq_size;
	priv->log_rq_size = qs.log_rq_size;
	priv->tx_mpwqe = caps.tx_mpwqe;	/* skb_tx_mpwqe: on where the device can */
	priv->xdp_tx_mpwqe = caps.xdp_tx_mpwqe;	/* xdp_tx_mpwqe: likewise */
	priv->rx_striding = caps.rx_striding;	/* rx_striding_rq: likewise */
	/* rx-gro-hw (SHAMPO) changeable where the device has it, off by default as mlx5 */
	if (caps.rx_hw_gro)
		priv->netdev->hw_features |= NETIF_F_GRO_HW;
	/* RSS: the kernel's key, so a flow hashes as the stack's RSS tools expect */
	scx_port_get_rss(priv->port, priv->nch, &rss);
	netdev_rss_key_fill(rss.key, sizeof(rss.key));
	err = scx_port_set_rss(priv->port, &rss, &why);
	if (err)
		return err;
	err = scx_devlink_port_add(priv);
	if (err)
		return err;
	/*
	 * moderation: the core's defaults (rx_cqe_moder on where the device
	 * can), adaptive RX and TX where the device moderates, as mlx5e
	 */
	scx_port_get_moder(priv->port, &priv->moder);
	err = scx_moder_update(priv, &priv->moder, caps.cq_moderation, caps.cq_moderation, NULL);
	if (err)
		return err;
	scx_ptp_init(priv);
	if (caps.max_lso)
		netif_set_tso_max_size(dev, caps.max_lso);
	if (caps.max_mtu && caps.max_mtu < dev->max_mtu)
		dev->max_mtu = max_t(u32, caps.max_mtu, dev->min_mtu);
	return 0;
}

static void scx_adapter_destroy(struct scx_adapter *ad)
{
	u32 i;

	scx_debugfs_adapter_del(ad);
	/* Close every port first: no traffic reaches a port being destroyed. */
	for (i = 0; i < ad->nr_ports; i++)
		if (ad->netdevs[i] && ad->netdevs[i]->reg_state == NETREG_REGISTERED)
			unregister_netdev(ad->netdevs[i]);
	scx_devlink_unregister(ad);
	for (i = 0; i < ad->nr_ports; i++)
		scx_port_free(ad, i);
	scx_devlink_free(ad);
	if (ad->hw)
		scx_hw_adapter_destroy(ad->hw);
	scx_dma_view_destroy(&ad->pdev->dev);
	platform_device_unregister(ad->pdev);
	kfree(ad);
}

static int scx_adapter_create(int hw_model, u32 pairs, u32 nch,
			      struct scx_adapter **out)
{
	struct platform_device_info info = {
		.name = SCX_DRV_NAME,
		.id = PLATFORM_DEVID_NONE,
		.dma_mask = DMA_BIT_MASK(64),
	};
	struct scx_adapter *ad;
	u32 i;
	int err;

	ad = kzalloc(struct_size(ad, netdevs, 2 * pairs), GFP_KERNEL);
	if (!ad)
		return -ENOMEM;
	ad->model = hw_model;
	ad->nr_ports = 2 * pairs;
	ad->nch = nch;

	ad->pdev = platform_device_register_full(&info);
	if (IS_ERR(ad->pdev)) {
		err = PTR_ERR(ad->pdev);
		pr_err("cannot register the adapter's platform device: %d\n", err);
		kfree(ad);
		return err;
	}
	/* The device's view of memory, before anything is mapped for it. */
	err = scx_dma_view_create(&ad->pdev->dev);
	if (err) {
		dev_err(&ad->pdev->dev, "cannot create the adapter: %d\n", err);
		platform_device_unregister(ad->pdev);
		kfree(ad);
		return err;
	}

	err = scx_devlink_create(ad);
	if (err)
		goto fail;
	err = scx_hw_adapter_create(hw_model, ad->nr_ports, &ad->pdev->dev, &ad->hw);
	if (err) {
		dev_err(&ad->pdev->dev, "cannot create the emulated %s adapter: %d\n",
			scx_hw_model_name(hw_model), err);
		ad->hw = NULL;
		goto fail;
	}

	for (i = 0; i < ad->nr_ports; i++) {
		err = scx_port_alloc(ad, i);
		if (err) {
			dev_err(&ad->pdev->dev, "cannot create port scx%u: %d\n", i, err);
			goto fail;
		}
	}
	for (i = 0; i < ad->nr_ports; i++) {
		struct scx_priv *priv = netdev_priv(ad->netdevs[i]);

		priv->peer = ad->netdevs[i ^ 1];
	}
	for (i = 0; i < ad->nr_ports; i++) {
		err = register_netdev(ad->netdevs[i]);
		if (err) {
			dev_err(&ad->pdev->dev, "cannot register scx%u: %d\n", i, err);
			goto fail;
		}
		devlink_port_type_eth_set(&((struct scx_priv *)netdev_priv(ad->netdevs[i]))->dl_port,
					  ad->netdevs[i]);
		scx_debugfs_port_add(netdev_priv(ad->netdevs[i]));
	}
	scx_devlink_register(ad);
	scx_debugfs_adapter_add(ad);

	*out = ad;
	return 0;

fail:
	scx_adapter_destroy(ad);
	return err;
}

/*
 * Refuse parameters whose queues cannot fit the machine: the core's bound
 * for one port (two channel sets, RX buffers for the largest MTU) times the ports,
 * against half of RAM. The queues are pinned kernel memory that every port
 * can claim at once (all up at the largest MTU, each in a channel switch); the
 * other half is left to what the traffic needs besides the rings (skbs
 * queued in sockets and qdiscs, page_pool caches beyond the posted
 * buffers), the rest of the kernel and user space. A setting above it would
 * load and then fail to open ports, or push the machine into the OOM
 * killer, at the first jumbo MTU or channel switch.
 */
static int scx_check_memory(u32 pairs, u32 nch)
{
	const struct scx_os_layout os = SCX_OS_LAYOUT;
	struct scx_queue_sizes qs;
	u64 per_port, need;
	u64 ram = (u64)totalram_pages() << PAGE_SHIFT;
	u64 avail = ram / 2;

	scx_params_queue_sizes(&qs);
	per_port = scx_port_mem_estimate(nch, qs.log_sq_size, qs.log_rq_size, &os);
	need = per_port * 2 * pairs;
	if (!per_port) {
		pr_err("channels=%u: no queue geometry for it\n", nch);
		return -EINVAL;
	}
	if (need > avail) {
		pr_err("nr_pairs=%u channels=%u: the queues of %u ports may take %llu MiB (two channel sets each, RX buffers for MTU %u), more than half of the machine's %llu MiB RAM (%llu MiB); use fewer pairs or channels\n",
		       pairs, nch, 2 * pairs, need >> 20, SCX_MAX_MTU, ram >> 20, avail >> 20);
		return -ENOMEM;
	}
	pr_debug("nr_pairs=%u channels=%u: queues up to %llu MiB of %llu MiB available\n",
		 pairs, nch, need >> 20, avail >> 20);
	return 0;
}

static int __init scx_init(void)
{
	unsigned int nch = channels;
	struct scx_adapter *ad;
	int hw_model;
	int err;

	if (nr_pairs < 1 || nr_pairs > SCX_MAX_PAIRS) {
		pr_err("nr_pairs=%u is out of range (valid: 1..%u)\n",
		       nr_pairs, SCX_MAX_PAIRS);
		return -EINVAL;
	}
	if (nch > SCX_MAX_CHANNELS) {
		pr_err("channels=%u is out of range (valid: 1..%u, or 0 for min(online CPUs, %u))\n",
		       nch, SCX_MAX_CHANNELS, SCX_DEF_CHANNELS);
		return -EINVAL;
	}
	if (!nch)
		nch = min_t(unsigned int, num_online_cpus(), SCX_DEF_CHANNELS);
	err = scx_check_memory(nr_pairs, nch);
	if (err)
		return err;
	hw_model = model ? scx_hw_model_parse(model) : -1;
	if (hw_model < 0) {
		pr_err("model=%s is not a known model (valid: cx4, cx5, cx6dx, cx7)\n",
		       model ? model : "(null)");
		return -EINVAL;
	}

	scx_debugfs_init();
	/* scx_adapter_create() names what failed */
	err = scx_adapter_create(hw_model, nr_pairs, nch, &ad);
	if (err) {
		scx_debugfs_exit();
		return err;
	}
	mutex_lock(&scx_timing_lock);
	scx_hw_set_timing(ad->hw, emul_timing);
	scx_adapter = ad;
	mutex_unlock(&scx_timing_lock);
	dev_info(&ad->pdev->dev, "%s: %u port pairs, %u channels per port\n",
		 scx_hw_model_name(hw_model), nr_pairs, nch);
	return 0;
}

static void __exit scx_exit(void)
{
	struct scx_adapter *ad;

	mutex_lock(&scx_timing_lock);
	ad = scx_adapter;
	scx_adapter = NULL;
	mutex_unlock(&scx_timing_lock);
	scx_adapter_destroy(ad);
	scx_debugfs_exit();
}

module_init(scx_init);
module_exit(scx_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("softcx: emulated ConnectX-class Ethernet ports, cabled back to back");
MODULE_VERSION(SCX_DRV_VERSION);
