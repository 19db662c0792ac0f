/* SPDX-License-Identifier: GPL-2.0 */
/*
 * softcx kernel shim: private header. The shim owns the kernel objects
 * (platform device, netdevs, NAPI, page_pools, skbs); the C++ core behind
 * include/softcx/core.h owns rings, descriptors and counters.
 */
#ifndef SCX_SHIM_H
#define SCX_SHIM_H

#include <linux/bpf.h>
#include <linux/clocksource.h>
#include <linux/dim.h>
#include <linux/dma-mapping.h>
#include <linux/ethtool.h>
#include <linux/jump_label.h>
#include <linux/net_tstamp.h>
#include <linux/netdevice.h>
#include <linux/platform_device.h>
#include <linux/ptp_clock_kernel.h>
#include <linux/seqlock.h>
#include <linux/skbuff.h>
#include <linux/timecounter.h>
#include <net/devlink.h>
#include <net/page_pool.h>
#include <net/udp_tunnel.h>
#include <net/xdp.h>

#include <softcx/core.h>
#include <softcx/os.h>

#define SCX_DRV_NAME		"softcx"
#define SCX_DRV_VERSION		"0.1.0"
#define SCX_MAX_PAIRS		8	/* the device model cables at most 16 functions */
#define SCX_DEF_CHANNELS	8
/*
 * The kernel's part of the RX buffer layout, given to the core (which owns
 * every limit and rule: include/softcx/core.h) once per port.
 */
#define SCX_RX_HEADROOM		XDP_PACKET_HEADROOM
#define SCX_RX_TAILROOM		SKB_DATA_ALIGN(sizeof(struct skb_shared_info))
#define SCX_MAX_VXLAN_PORTS	4	/* the most the shim keeps of the caps' max_vxlan_ports */
/* GSO of TCP inside the tunnels the device may parse (scx_tunnel_features_check() says which) */
#define SCX_GSO_TUNNELS		(SKB_GSO_UDP_TUNNEL | SKB_GSO_UDP_TUNNEL_CSUM | SKB_GSO_GRE | \
				 SKB_GSO_GRE_CSUM | SKB_GSO_IPXIP4 | SKB_GSO_IPXIP6)
#define SCX_RX_MAX_HEAD		256	/* header bytes copied from a non-linear frame (core: kRxMaxHead) */
#define SCX_OS_LAYOUT ((struct scx_os_layout){		\
	.page_size = PAGE_SIZE,				\
	.rx_headroom = SCX_RX_HEADROOM,			\
	.rx_tailroom = SCX_RX_TAILROOM,			\
	.rx_skb_headroom = NET_SKB_PAD + NET_IP_ALIGN,	\
})
#define SCX_STATS_PERIOD	HZ	/* device counters in ndo_get_stats64 lag by at most this */

/* The emulated adapter: one platform device, one device model, 2 * pairs ports. */
struct scx_adapter {
	struct platform_device *pdev;
	struct scx_hw_adapter *hw;
	int model;
	u32 nr_ports;
	u32 nch;
	struct dentry *debugfs_dma;	/* softcx/inject_dma_fault */
	struct devlink *devlink;	/* devlink.c: the instance, registered after the ports */
	bool devlink_registered;
	struct net_device *netdevs[];
};

/* scx_chan.health_events bits: recoveries NAPI made, for devlink health */
enum {
	SCX_HEALTH_RQ_OK, SCX_HEALTH_RQ_FAILED, SCX_HEALTH_XDPSQ_OK, SCX_HEALTH_XDPSQ_FAILED,
	SCX_HEALTH_SQ_OK, SCX_HEALTH_SQ_FAILED, SCX_HEALTH_SQ_TIMEOUT_OK, SCX_HEALTH_SQ_TIMEOUT_FAILED,
	SCX_HEALTH_NR
};

/* One channel: a NAPI context and the core channel it polls. */
struct scx_chan {
	struct napi_struct napi;
	struct work_struct tx_recover_work;	/* after an error CQE or a TX timeout */
	bool tx_timed_out;		/* the watchdog asked for tx_recover_work */
	unsigned long cq_error;		/* bit 0: a CQ error event for this channel, not yet handled */
	struct work_struct health_work;	/* reports health_events to devlink */
	unsigned long health_events;	/* SCX_HEALTH_* bits set in NAPI */
	struct scx_channel *core;	/* NULL while the port is closed */
	struct netdev_queue *txq;
	struct scx_priv *priv;
	u32 ix;
	/*
	 * The program the channel's RQ runs (when the core built it for XDP).
	 * Read in NAPI; written only with this NAPI disabled (RTNL).
	 */
	struct bpf_prog *xdp_prog;
	bool xdp_redirected;		/* this poll redirected: xdp_do_flush() at its end */
	spinlock_t xdp_xmit_lock;	/* ndo_xdp_xmit callers sharing the channel's XDP SQ */
	/*
	 * Adaptive moderation: the kernel's DIM per direction, fed at NAPI
	 * completion; its work applies a new profile to the channel's CQs.
	 */
	u64 rx_cq_bit, tx_cq_bit;	/* bit cqn % 64 of the RQ's CQ, the stack SQ's CQ */
	u16 rx_events, tx_events;	/* their events so far (NAPI): DIM's event counters */
	/*
	 * Bit cqn % 64 of each CQ event since the last re-arm, which takes
	 * them (scx_channel_arm(): a CQ without one still holds its arm).
	 */
	atomic64_t cq_events;
	struct dim rx_dim;
	struct dim tx_dim;
};

/*
 * ptp.c: the port's PTP hardware clock, a timecounter over the device's
 * free-running timer (scx_port_read_clock), and its timestamping config.
 */
struct scx_ptp {
	seqlock_t lock;			/* tc and cc.mult: writers (PHC ops, overflow work) vs. readers */
	struct cyclecounter cc;
	struct timecounter tc;
	u32 nominal_mult;		/* cc.mult at the device's nominal rate (adjfine's base) */
	struct ptp_clock_info info;
	struct ptp_clock *clock;	/* NULL: no PHC (PTP support off, or registration failed) */
	struct delayed_work overflow_work;	/* reads the timecounter before cc wraps its delta */
	struct scx_port *port;
	bool ready;			/* lock, cc and tc initialised (stamps may be converted) */
	struct hwtstamp_config cfg;	/* SIOCSHWTSTAMP (RTNL): tx_type OFF/ON, rx_filter NONE/ALL */
};

/* A raw device timestamp as the port's PHC time (0 before the clock exists). Any context. */
static inline ktime_t scx_ptp_to_ktime(struct scx_ptp *ptp, u64 raw)
{
	unsigned int seq;
	u64 ns;

	if (!ptp->ready)
		return 0;
	do {
		seq = read_seqbegin(&ptp->lock);
		ns = timecounter_cyc2time(&ptp->tc, raw);
	} while (read_seqretry(&ptp->lock, seq));
	return ns_to_ktime(ns);
}

/* netdev_priv(): one port of the adapter. */
struct scx_priv {
	struct net_device *netdev;
	struct net_device *peer;	/* other end of the cable */
	struct device *dmadev;		/* the adapter's platform device */
	struct scx_adapter *adapter;
	struct scx_hw_function *fn;
	struct scx_port *port;
	u32 index;			/* function index: scx<index> */
	/*
	 * Channels in use (ethtool -L): written under RTNL with WRITE_ONCE
	 * while the data path is quiesced; the interrupt hooks and
	 * ndo_xdp_xmit read it locklessly (READ_ONCE, once).
	 */
	u32 nch;
	u32 nch_max;			/* channel slots: NAPI, TX queues (channels=) */
	/* the core's limits (scx_port_get_caps), read once at port creation */
	u32 min_inline;			/* headers each SEND inlines */
	u32 max_lso_hdr;		/* longest LSO header (scx_features_check) */
	u32 xdp_max_mtu;		/* largest MTU with an XDP program */
	/*
	 * tunnel.c: the device's VXLAN UDP ports (network order, 0 = free;
	 * [0] is IANA's 4789, always there), written under RTNL with
	 * WRITE_ONCE, read by scx_features_check() with READ_ONCE; and what
	 * the kernel's UDP tunnel port table (udp_tunnel_nic) learns of them.
	 */
	__be16 vxlan_ports[SCX_MAX_VXLAN_PORTS];
	struct udp_tunnel_nic_info tunnel_info;
	bool geneve;			/* GENEVE on 6081 offloaded too (caps.geneve) */
	bool gre, ip_over_ip;		/* and GRE, IP in IP (caps) */
	u8 max_log_sq, max_log_rq;	/* ethtool -g maximums, log2 (scx_port_ring_check judges -G) */
	u8 log_sq_size, log_rq_size;	/* ring sizes the channels run with (RTNL) */
	bool tx_mpwqe;			/* priv flag skb_tx_mpwqe (RTNL) */
	bool xdp_tx_mpwqe;		/* priv flag xdp_tx_mpwqe (RTNL) */
	bool rx_striding;		/* priv flag rx_striding_rq (RTNL) */
	bool rx_cqe_compress;		/* priv flag rx_cqe_compress (RTNL), off by default as mlx5 */
	bool rx_no_csum_complete;	/* priv flag rx_no_csum_complete (RTNL), off by default as mlx5 */
	bool rx_hw_gro;			/* NETIF_F_GRO_HW in features: SHAMPO (RTNL) */
	struct scx_ptp ptp;		/* PHC and hardware timestamping (ptp.c) */
	/*
	 * Interrupt moderation (RTNL): ethtool -c's static values (their
	 * from_cqe are the priv flags rx_cqe_moder / tx_cqe_moder) and
	 * whether DIM drives a direction instead (adaptive-rx/tx; NAPI reads
	 * these, paused while they change: scx_dim_pause()).
	 */
	struct scx_port_moder moder;
	bool rx_dim_enabled;
	bool tx_dim_enabled;
	struct bpf_prog *xdp_prog;	/* attached program, one reference (RTNL) */
	bool xdp_xmit_ready;		/* ndo_xdp_xmit may use the channels (RCU readers) */
	struct dentry *debugfs;		/* softcx/scxN */
	/* devlink.c: the port and its health reporters (NULL until created) */
	struct devlink_port dl_port;
	bool dl_port_registered;
	struct devlink_health_reporter *tx_reporter;
	struct devlink_health_reporter *rx_reporter;
	/*
	 * Refreshes the core's cache of the device's counters (commands)
	 * every SCX_STATS_PERIOD while the port is open: ndo_get_stats64
	 * reads only that cache and the rings' counters.
	 */
	struct delayed_work stats_work;
	/* rx_mode.c: the device's RX address filter (the address lists' lock) */
	u32 max_uc_addrs, max_mc_addrs;	/* the caps' list sizes */
	u8 *rx_addrs;			/* room for them, ETH_ALEN each: the unicast, then the multicast */
	/* rx_mode.c: the VLAN IDs of the port's upper devices, by tag (RTNL) */
	u64 rx_cvids[SCX_VLAN_MAP_WORDS];
	u64 rx_svids[SCX_VLAN_MAP_WORDS];
	/*
	 * rx-vlan-filter as last set: not dev->features, which the kernel
	 * updates only after it has removed (or re-added) every VLAN ID
	 * through ndo_vlan_rx_kill_vid (add_vid) for the change
	 */
	bool rx_vlan_ctag_filter;
	bool up;			/* channel set open (RTNL) */
	void *os_channels[SCX_MAX_CHANNELS];
	struct scx_chan ch[];
};

/* A page_pool behind one core RQ (struct scx_os_rxq is opaque to the core). */
struct scx_os_rxq {
	struct page_pool *pool;
	u32 order;
	enum dma_data_direction dir;
	struct xdp_rxq_info xdp_rxq;	/* memory model of the pool, queue of the channel */
};

extern const struct net_device_ops scx_netdev_ops;
extern const struct ethtool_ops scx_ethtool_ops;

/* link.c: the link's settings (ethtool) and the carrier of both ends */
void scx_link_sync(struct scx_priv *priv);
int scx_get_link_ksettings(struct net_device *dev, struct ethtool_link_ksettings *ks);
int scx_get_module_eeprom_by_page(struct net_device *dev,
				  const struct ethtool_module_eeprom *req,
				  struct netlink_ext_ack *extack);
int scx_get_module_info(struct net_device *dev, struct ethtool_modinfo *info);
int scx_get_module_eeprom(struct net_device *dev, struct ethtool_eeprom *ee, u8 *data);
int scx_set_link_ksettings(struct net_device *dev, const struct ethtool_link_ksettings *ks);
int scx_get_link_ext_state(struct net_device *dev, struct ethtool_link_ext_state_info *info);
int scx_get_fecparam(struct net_device *dev, struct ethtool_fecparam *fp);
int scx_set_fecparam(struct net_device *dev, struct ethtool_fecparam *fp);
void scx_get_fec_stats(struct net_device *dev, struct ethtool_fec_stats *fs);

/* selftest.c: ethtool -t */
int scx_self_test_count(void);
void scx_self_test_names(u8 *data);
void scx_self_test(struct net_device *dev, struct ethtool_test *test, u64 *buf);

/* netdev.c */
void scx_netdev_setup(struct net_device *dev);
void scx_stats_work(struct work_struct *work);
/*
 * Switch the running port to a channel set built for @mtu and @prog (RTNL,
 * port up): the new set is built first; a failure leaves the old one running.
 */
int scx_datapath_switch(struct scx_priv *priv, u32 nch, u32 mtu, struct bpf_prog *prog);
/* The core's parameters for the port as configured, with nch, mtu and the XDP program (or none). */
void scx_fill_params(const struct scx_priv *priv, u32 nch, u32 mtu, const struct bpf_prog *xdp,
		     struct scx_port_params *params);
int scx_ndo_bpf(struct net_device *dev, struct netdev_bpf *bpf);

/* tunnel.c */
int scx_tunnel_init(struct scx_priv *priv, const struct scx_port_caps *caps);
void scx_tunnel_fini(struct scx_priv *priv);
netdev_features_t scx_tunnel_features_check(const struct scx_priv *priv, struct sk_buff *skb,
					    netdev_features_t features);

/* rx_mode.c */
int scx_rx_mode_init(struct scx_priv *priv, u32 max_uc, u32 max_mc);
void scx_rx_mode_fini(struct scx_priv *priv);
void scx_set_rx_mode(struct net_device *dev);
int scx_set_mac_address(struct net_device *dev, void *addr);
int scx_rx_vlans_sync(struct net_device *dev);
int scx_set_vlan_filter(struct net_device *dev, netdev_features_t features);
int scx_vlan_rx_add_vid(struct net_device *dev, __be16 proto, u16 vid);
int scx_vlan_rx_kill_vid(struct net_device *dev, __be16 proto, u16 vid);

/* tx.c */
netdev_tx_t scx_start_xmit(struct sk_buff *skb, struct net_device *dev);
netdev_features_t scx_features_check(struct sk_buff *skb, struct net_device *dev,
				     netdev_features_t features);
void scx_tx_recover_work(struct work_struct *work);
void scx_tx_timeout(struct net_device *dev, unsigned int txqueue);
/* Undo the mappings of scx_tx_pkt_build() (tx_build.h). */
void scx_tx_unmap(struct device *dmadev, const struct scx_tx_pkt *pkt);

/* ptp.c */
/* The port's PHC (after scx_port_create); its absence is logged, not fatal. Process context. */
void scx_ptp_init(struct scx_priv *priv);
void scx_ptp_fini(struct scx_priv *priv);

/* devlink.c */
int scx_devlink_create(struct scx_adapter *ad);
void scx_devlink_register(struct scx_adapter *ad);
void scx_devlink_unregister(struct scx_adapter *ad);
void scx_devlink_free(struct scx_adapter *ad);
int scx_devlink_port_add(struct scx_priv *priv);
void scx_devlink_port_del(struct scx_priv *priv);
struct devlink_port *scx_get_devlink_port(struct net_device *dev);
void scx_health_work(struct work_struct *work);

/* napi.c */
/* A recovery for devlink health (SCX_HEALTH_*), reported from process context. Any context. */
void scx_health_event(struct scx_chan *ch, int event);
int scx_napi_poll(struct napi_struct *napi, int budget);
/*
 * Adaptive moderation (RTNL). init: once per channel at probe. start: a
 * channel set goes live (each DIM from its start, in the period modes of
 * priv->moder). pause: no NAPI feeds DIM and no DIM work runs when it
 * returns (before the CQs change under it or the set goes).
 */
/*
 * Point a channel at the core's channel @core (or none), and note the
 * event bits of its RQ's and stack SQ's CQs for DIM. With its NAPI off.
 */
void scx_chan_bind(struct scx_chan *ch, struct scx_channel *core);
void scx_dim_init(struct scx_chan *ch);
void scx_dim_start(struct scx_priv *priv);
void scx_dim_pause(struct scx_priv *priv);
/*
 * Apply new moderation (RTNL): static values, adaptive per direction.
 * Checked first (refused with the reason in extack); then remembered and,
 * while up, given to the live CQs with MODIFY_CQ (no rebuild).
 */
int scx_moder_update(struct scx_priv *priv, const struct scx_port_moder *m, bool rx_dim,
		     bool tx_dim, struct netlink_ext_ack *extack);

/* xdp_path.c */
int scx_xdp_xmit(struct net_device *dev, int n, struct xdp_frame **frames, u32 flags);

/* debugfs.c */
void scx_debugfs_init(void);
void scx_debugfs_exit(void);
void scx_debugfs_port_add(struct scx_priv *priv);
void scx_debugfs_port_del(struct scx_priv *priv);
void scx_debugfs_adapter_add(struct scx_adapter *ad);
void scx_debugfs_adapter_del(struct scx_adapter *ad);

/* cxxrt.c: the C++ runtime, by Itanium-mangled name (size_t = unsigned long) */
void *_Znwm(unsigned long size);		/* operator new(size_t) */
void *_Znam(unsigned long size);		/* operator new[](size_t) */
void _ZdlPv(void *p);				/* operator delete(void *) */
void _ZdaPv(void *p);				/* operator delete[](void *) */
void _ZdlPvm(void *p, unsigned long size);	/* operator delete(void *, size_t) */
void _ZdaPvm(void *p, unsigned long size);	/* operator delete[](void *, size_t) */
void __cxa_pure_virtual(void);

/*
 * softcx needs the DMA API: x86_64 has it, and so has UML for KUnit (the
 * virtio-PCI emulation kunit.py configures selects it; kunit/Kconfig
 * depends on it).
 */
#ifndef CONFIG_HAS_DMA
#error "softcx needs the DMA API (CONFIG_HAS_DMA)"
#endif

#define SCX_PP_FLAGS	(PP_FLAG_DMA_MAP | PP_FLAG_DMA_SYNC_DEV)

static inline bool scx_map_failed(struct device *dev, dma_addr_t dma)
{
	return dma_mapping_error(dev, dma);
}

static inline dma_addr_t scx_rx_page_dma(struct page *page)
{
	return page_pool_get_dma_addr(page);
}

/*
 * An RX buffer's skb_shared_info, where a multi-buffer XDP frame lists its
 * later pages: the last SCX_RX_TAILROOM bytes of the size bytes at buf, as
 * build_skb() places it and xdp_get_shared_info_from_buff() finds it for an
 * xdp_buff over the buffer (data_hard_start, frame_sz).
 */
static inline struct skb_shared_info *scx_rx_buf_shinfo(void *buf, u32 size)
{
	return buf + size - SCX_RX_TAILROOM;
}

static inline void scx_rx_sync_for_cpu(struct device *dev, dma_addr_t dma, u32 len,
				       enum dma_data_direction dir)
{
	dma_sync_single_for_cpu(dev, dma, len, dir);
}

static inline void scx_rx_sync_for_device(struct device *dev, dma_addr_t dma, u32 len)
{
	dma_sync_single_for_device(dev, dma, len, DMA_BIDIRECTIONAL);
}

/*
 * dma.c: streaming TX mappings (unmapped with scx_os_dma_unmap) and the
 * emulated device's IOMMU-like view of this adapter's memory: it reaches
 * only coherent allocations, live TX mappings and the pages of the
 * page_pools registered here. The view is the drvdata of the adapter's
 * device, created before anything is mapped on it.
 */
DECLARE_STATIC_KEY_TRUE(scx_dma_view_key);

/* The view is on (module parameter dma_view): one patched jump, no load. */
static __always_inline bool scx_dma_view_on(void)
{
	return static_branch_likely(&scx_dma_view_key);
}

dma_addr_t scx_dma_track(struct device *dev, dma_addr_t dma, u32 len, u32 kind, bool head);

/*
 * A fresh TX mapping: with the view on, counted (scx_dma_track(), which
 * undoes it and returns DMA_MAPPING_ERROR when it cannot count it); with
 * the view off, the DMA API's mapping as it is.
 */
static __always_inline dma_addr_t scx_map_tx(struct device *dev, dma_addr_t dma, u32 len,
					     u32 kind, bool head)
{
	if (!scx_dma_view_on() || unlikely(scx_map_failed(dev, dma)))
		return dma;
	return scx_dma_track(dev, dma, len, kind, head);
}

static inline dma_addr_t scx_map_head(struct device *dev, void *va, u32 len)
{
	return scx_map_tx(dev, dma_map_single(dev, va, len, DMA_TO_DEVICE), len, SCX_DMA_SINGLE,
			  true);
}

static inline dma_addr_t scx_map_frag(struct device *dev, const skb_frag_t *f)
{
	return scx_map_tx(dev, skb_frag_dma_map(dev, f, 0, skb_frag_size(f), DMA_TO_DEVICE),
			  skb_frag_size(f), SCX_DMA_PAGE, false);
}

static inline dma_addr_t scx_map_xdp_frame(struct device *dev, struct xdp_frame *f)
{
	return scx_map_tx(dev, dma_map_single(dev, f->data, f->len, DMA_TO_DEVICE), f->len,
			  SCX_DMA_SINGLE, false);
}

int scx_dma_view_create(struct device *dev);
void scx_dma_view_destroy(struct device *dev);
/* An RQ's page_pool: its pages are reachable from creation until removal. */
int scx_dma_pool_add(struct device *dev, struct page_pool *pool, u32 order);
void scx_dma_pool_del(struct device *dev, struct page_pool *pool);
/* Test hook: the next skb head mapping reaches the core as an unmapped address. */
int scx_dma_inject_fault(struct device *dev);

/* RX buffer pool of one RQ: @size buffers of PAGE_SIZE << @order on @dev. */
static inline void scx_pp_params_init(struct page_pool_params *pp, struct device *dev,
				      u32 size, u32 order, enum dma_data_direction dir)
{
	*pp = (struct page_pool_params){
		.flags = SCX_PP_FLAGS,
		.order = order,
		.pool_size = size,
		.nid = dev_to_node(dev),
		.dev = dev,
		.dma_dir = dir,
		.max_len = PAGE_SIZE << order,
		.offset = 0,
	};
}

#endif /* SCX_SHIM_H */
