/* SPDX-License-Identifier: GPL-2.0 */
/*
 * softcx kernel shim: private header. The shim owns the kernel objects
 * (platform device, netdevs, NAPI, page_pools, skbs); the C++ core behind
 * include/softcx/core.h owns rings, descriptors and counters.
 */
#ifndef SCX_SHIM_H
#define SCX_SHIM_H

#include <linux/bpf.h>
#include <linux/dma-mapping.h>
#include <linux/netdevice.h>
#include <linux/platform_device.h>
#include <linux/skbuff.h>
#include <net/page_pool.h>

#include <softcx/core.h>
#include <softcx/os.h>

#define SCX_DRV_NAME		"softcx"
#define SCX_DRV_VERSION		"0.1.0"
#define SCX_MAX_PAIRS		8	/* the device model cables at most 16 functions */
#define SCX_DEF_CHANNELS	8
#define SCX_LOG_SQ_SIZE		10
#define SCX_LOG_RQ_SIZE		10
#define SCX_RX_HEADROOM		XDP_PACKET_HEADROOM
#define SCX_RX_TAILROOM		SKB_DATA_ALIGN(sizeof(struct skb_shared_info))
#define SCX_TX_MAX_LSO_HDR	256	/* the core's LSO inline header limit (caps.max_lso_hdr) */

/* The emulated adapter: one platform device, one device model, 2 * pairs ports. */
struct scx_adapter {
	struct platform_device *pdev;
	struct scx_hw_adapter *hw;
	int model;
	u32 nr_ports;
	u32 nch;
	struct net_device *netdevs[];
};

/* One channel: a NAPI context and the core channel it polls. */
struct scx_chan {
	struct napi_struct napi;
	struct work_struct tx_recover_work;	/* after an error CQE */
	struct scx_channel *core;	/* NULL while the port is closed */
	struct netdev_queue *txq;
	struct scx_priv *priv;
	u32 ix;
};

/* netdev_priv(): one port of the adapter. */
struct scx_priv {
	struct net_device *netdev;
	struct net_device *peer;	/* other end of the cable */
	struct device *dmadev;		/* the adapter's platform device */
	struct scx_adapter *adapter;
	struct scx_hw_function *fn;
	struct scx_port *port;
	u32 index;			/* function index: scx<index> */
	u32 nch;
	u32 min_inline;			/* headers each SEND inlines (core caps) */
	bool tx_mpwqe_cap;		/* the device can do skb MPWQE (core caps) */
	bool tx_mpwqe;			/* priv flag skb_tx_mpwqe (RTNL) */
	struct dentry *debugfs;		/* softcx/scxN */
	bool up;			/* channel set open (RTNL) */
	void *os_channels[SCX_MAX_CHANNELS];
	struct scx_chan ch[];
};

/* A page_pool behind one core RQ (struct scx_os_rxq is opaque to the core). */
struct scx_os_rxq {
	struct page_pool *pool;
	u32 order;
};

extern const struct net_device_ops scx_netdev_ops;
extern const struct ethtool_ops scx_ethtool_ops;

/* netdev.c */
void scx_netdev_setup(struct net_device *dev);
/* Rebuild the channel set with the current params (RTNL, port up). */
int scx_datapath_restart(struct scx_priv *priv);

/* txrx.c */
netdev_tx_t scx_start_xmit(struct sk_buff *skb, struct net_device *dev);
netdev_features_t scx_features_check(struct sk_buff *skb, struct net_device *dev,
				     netdev_features_t features);
int scx_napi_poll(struct napi_struct *napi, int budget);
void scx_tx_recover_work(struct work_struct *work);

/* debugfs.c */
void scx_debugfs_init(void);
void scx_debugfs_exit(void);
void scx_debugfs_port_add(struct scx_priv *priv);
void scx_debugfs_port_del(struct scx_priv *priv);

/* cxxrt.c: the C++ runtime, by Itanium-mangled name (size_t = unsigned long) */
void *_Znwm(unsigned long size);		/* operator new(size_t) */
void *_Znam(unsigned long size);		/* operator new[](size_t) */
void _ZdlPv(void *p);				/* operator delete(void *) */
void _ZdaPv(void *p);				/* operator delete[](void *) */
void _ZdlPvm(void *p, unsigned long size);	/* operator delete(void *, size_t) */
void _ZdaPvm(void *p, unsigned long size);	/* operator delete[](void *, size_t) */
void __cxa_pure_virtual(void);

/*
 * The only DMA-API split between x86_64 and UML (KUnit; no CONFIG_HAS_DMA):
 * without DMA the bus address is the physical address and nothing is
 * mapped or synced.
 */
#ifdef CONFIG_HAS_DMA
#define SCX_PP_FLAGS	(PP_FLAG_DMA_MAP | PP_FLAG_DMA_SYNC_DEV)

static inline dma_addr_t scx_map_head(struct device *dev, void *va, u32 len)
{
	return dma_map_single(dev, va, len, DMA_TO_DEVICE);
}

static inline dma_addr_t scx_map_frag(struct device *dev, const skb_frag_t *f)
{
	return skb_frag_dma_map(dev, f, 0, skb_frag_size(f), DMA_TO_DEVICE);
}

static inline bool scx_map_failed(struct device *dev, dma_addr_t dma)
{
	return dma_mapping_error(dev, dma);
}

static inline dma_addr_t scx_rx_page_dma(struct page *page)
{
	return page_pool_get_dma_addr(page);
}
#else
#define SCX_PP_FLAGS	0

static inline dma_addr_t scx_map_head(struct device *dev, void *va, u32 len)
{
	return virt_to_phys(va);
}

static inline dma_addr_t scx_map_frag(struct device *dev, const skb_frag_t *f)
{
	return page_to_phys(skb_frag_page(f)) + skb_frag_off(f);
}

static inline bool scx_map_failed(struct device *dev, dma_addr_t dma)
{
	return false;
}

static inline dma_addr_t scx_rx_page_dma(struct page *page)
{
	return page_to_phys(page);
}
#endif

/* RX buffer pool of one RQ: @size buffers of PAGE_SIZE << @order on @dev. */
static inline void scx_pp_params_init(struct page_pool_params *pp, struct device *dev,
				      u32 size, u32 order)
{
	*pp = (struct page_pool_params){
		.flags = SCX_PP_FLAGS,
		.order = order,
		.pool_size = size,
		.nid = dev_to_node(dev),
		.dev = dev,
		.dma_dir = DMA_FROM_DEVICE,
		.max_len = PAGE_SIZE << order,
		.offset = 0,
	};
}

#endif /* SCX_SHIM_H */
