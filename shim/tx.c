// SPDX-License-Identifier: GPL-2.0
/*
 * softcx TX: ndo_start_xmit (the skb described and mapped by tx_build.h)
 * and ndo_features_check, the TX recovery work and ndo_tx_timeout, and the TX
 * completion hook of include/softcx/os.h (scx_os_tx_free).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/bottom_half.h>
#include <linux/etherdevice.h>
#include <linux/netdevice.h>
#include <linux/rtnetlink.h>
#include <linux/skbuff.h>
#include <linux/tcp.h>
#include <linux/udp.h>
#include <linux/if_vlan.h>
#include <linux/ipv6.h>
#include <net/ipv6.h>

#include "softcx.h"
#include "tx_build.h"

void scx_tx_unmap(struct device *dmadev, const struct scx_tx_pkt *pkt)
{
	u32 i;

	for (i = 0; i < pkt->nr_frags; i++)
		scx_os_dma_unmap(dmadev, pkt->frags[i].dma, pkt->frags[i].len,
				 pkt->frags[i].kind);
}

static void scx_tx_drop(struct scx_chan *ch, struct sk_buff *skb, int err)
{
	if (err == -EMSGSIZE)
		net_ratelimited_function(netdev_warn, ch->priv->netdev,
					 "TX queue %u: dropped a %u-byte %s skb the device cannot send (gso_size %u)\n",
					 ch->ix, skb->len, skb_is_gso(skb) ? "GSO" : "linear",
					 skb_is_gso(skb) ? skb_shinfo(skb)->gso_size : 0);
	dev_kfree_skb_any(skb);
	scx_channel_count_drop(ch->core);
	/* Earlier packets of an xmit_more batch still wait for a doorbell. */
	if (!netdev_xmit_more())
		scx_channel_doorbell(ch->core);
}

netdev_tx_t scx_start_xmit(struct sk_buff *skb, struct net_device *dev)
{
	struct scx_priv *priv = netdev_priv(dev);
	u16 qid = skb_get_queue_mapping(skb);
	struct netdev_queue *txq;
	/*
	 * Every field is written by scx_tx_pkt_build() before use, frags[] up to
	 * nr_frags: not zeroed first (INIT_STACK_ALL_ZERO would clear 350 bytes
	 * per packet).
	 */
	struct scx_tx_pkt pkt __attribute__((uninitialized));
	struct scx_chan *ch;
	int ret;

	BUILD_BUG_ON(MAX_SKB_FRAGS + 1 > SCX_TX_MAX_FRAGS);

	if (unlikely(qid >= priv->nch || !priv->ch[qid].core)) {
		dev_core_stats_tx_dropped_inc(dev);
		dev_kfree_skb_any(skb);
		return NETDEV_TX_OK;
	}
	ch = &priv->ch[qid];
	txq = ch->txq;

	ret = scx_tx_pkt_build(priv->dmadev, priv->min_inline, skb, &pkt);
	if (unlikely(ret)) {
		scx_tx_drop(ch, skb, ret);
		return NETDEV_TX_OK;
	}

	if (unlikely(skb_shinfo(skb)->tx_flags & SKBTX_HW_TSTAMP) &&
	    READ_ONCE(priv->ptp.cfg.tx_type) == HWTSTAMP_TX_ON) {
		skb_shinfo(skb)->tx_flags |= SKBTX_IN_PROGRESS;
		pkt.tstamp = 1;
	}
	ret = scx_channel_xmit(ch->core, &pkt);
	if (unlikely(ret < 0)) {
		scx_tx_unmap(priv->dmadev, &pkt);
		scx_tx_drop(ch, skb, ret);
		return NETDEV_TX_OK;
	}
	/* Last touch of the skb: after the doorbell its completion may free it. */
	skb_tx_timestamp(skb);

	if (unlikely(ret & SCX_TX_STOP)) {
		netif_tx_stop_queue(txq);
		scx_channel_count_stop(ch->core);
		/* Pairs with the barrier in scx_napi_poll(): no lost wake-up. */
		smp_mb();
		if (scx_channel_tx_room(ch->core)) {
			netif_tx_start_queue(txq);
			scx_channel_count_wake(ch->core);
		}
	}

	if (__netdev_tx_sent_queue(txq, pkt.num_bytes, netdev_xmit_more()))
		scx_channel_doorbell(ch->core);
	return NETDEV_TX_OK;
}

/*
 * Headers the LSO WQE cannot inline: let the stack segment in software.
 * (An skb is dropped, not sent, when the core cannot express it.)
 */
netdev_features_t scx_features_check(struct sk_buff *skb, struct net_device *dev,
				     netdev_features_t features)
{
	/*
	 * The device parses no IPv6 extension header: it finds neither the L4
	 * checksum nor an LSO template behind one. The stack does both then;
	 * only BIG TCP's jumbo hop-by-hop header, which the core leaves out of
	 * the template, stays offloaded.
	 */
	if (skb->ip_summed == CHECKSUM_PARTIAL && vlan_get_protocol(skb) == htons(ETH_P_IPV6) &&
	    skb_transport_offset(skb) != skb_network_offset(skb) + sizeof(struct ipv6hdr) &&
	    !(skb_is_gso(skb) && ipv6_has_hopopt_jumbo(skb)))
		features &= ~(NETIF_F_CSUM_MASK | NETIF_F_GSO_MASK);
	if (unlikely(skb->encapsulation) &&
	    (skb->ip_summed == CHECKSUM_PARTIAL || skb_is_gso(skb))) {
		features = scx_tunnel_features_check(netdev_priv(dev), skb, features);
		if (!(features & NETIF_F_GSO_MASK))
			return features;
	}
	if (skb_is_gso(skb)) {
		const struct scx_priv *priv = netdev_priv(dev);
		u32 gso_type = skb_shinfo(skb)->gso_type;
		u32 hdr = gso_type & SCX_GSO_TUNNELS ?
			  skb_inner_tcp_all_headers(skb) :
			  gso_type & SKB_GSO_UDP_L4 ?
			  skb_transport_offset(skb) + sizeof(struct udphdr) :
			  skb_tcp_all_headers(skb);

		/* a tag from metadata goes into the inline template too */
		if (skb_vlan_tag_present(skb))
			hdr += VLAN_HLEN;

		if (unlikely(hdr > priv->max_lso_hdr))
			features &= ~NETIF_F_GSO_MASK;
	}
	return features;
}

/*
 * TX recovery, process context, after an error CQE or a TX timeout: with
 * xmit (tx lock) and this channel's NAPI quiesced, the core completes what
 * the device sent, flushes the rest (tx_flushed) and resets the SQ to RDY;
 * BQL restarts from 0; the queue wakes.
 */
void scx_tx_recover_work(struct work_struct *work)
{
	struct scx_chan *ch = container_of(work, struct scx_chan, tx_recover_work);
	struct scx_priv *priv = ch->priv;
	struct netdev_queue *txq = ch->txq;
	bool timeout;
	int err;

	rtnl_lock();
	timeout = xchg(&ch->tx_timed_out, false);
	/* Closed meanwhile: the close released everything. */
	if (!priv->up || !ch->core)
		goto out;
	napi_disable(&ch->napi);
	__netif_tx_lock_bh(txq);
	netif_tx_stop_queue(txq);
	err = scx_channel_tx_recover(ch->core, timeout);
	netdev_tx_reset_queue(txq);
	__netif_tx_unlock_bh(txq);
	napi_enable(&ch->napi);
	if (err <= 0)
		scx_health_event(ch, (timeout ? SCX_HEALTH_SQ_TIMEOUT_OK : SCX_HEALTH_SQ_OK) +
				     (err != 0));
	if (err < 0) {
		netdev_err(priv->netdev, "TX queue %u: recovery failed (%d); queue stays stopped\n",
			   ch->ix, err);
		goto out;
	}
	if (err == 0)
		netdev_info(priv->netdev, "TX queue %u: recovered after %s\n", ch->ix,
			    timeout ? "a TX timeout" : "an error CQE");
	netif_tx_wake_queue(txq);
	/* One poll re-arms the CQs in case the last one was consumed by the error. */
	local_bh_disable();
	napi_schedule(&ch->napi);
	local_bh_enable();
out:
	rtnl_unlock();
}

/*
 * TX watchdog (ndo_tx_timeout): the queue stayed stopped with work posted
 * for watchdog_timeo. Recover it as after an error CQE, from process context.
 */
void scx_tx_timeout(struct net_device *dev, unsigned int txqueue)
{
	struct scx_priv *priv = netdev_priv(dev);
	struct scx_chan *ch;

	/* the watchdog timer, not under RTNL: nch read locklessly */
	if (txqueue >= READ_ONCE(priv->nch) || !priv->ch[txqueue].core)
		return;
	ch = &priv->ch[txqueue];
	scx_channel_count_timeout(ch->core);
	netdev_warn(dev, "TX queue %u timed out: recovering it\n", txqueue);
	WRITE_ONCE(ch->tx_timed_out, true);
	schedule_work(&ch->tx_recover_work);
}

/* ---- OS hook: TX completion ---- */

void scx_os_tx_free(void *os_channel, void *skb, int napi_budget)
{
	napi_consume_skb(skb, napi_budget);
}

void scx_os_tx_tstamp(void *os_channel, void *skb, uint64_t ts)
{
	struct scx_chan *ch = os_channel;
	struct skb_shared_hwtstamps hwts = {
		.hwtstamp = scx_ptp_to_ktime(&ch->priv->ptp, ts),
	};

	skb_tstamp_tx(skb, &hwts);
}
