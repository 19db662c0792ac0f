// SPDX-License-Identifier: GPL-2.0
/*
 * ethtool -t: the port's self-test, the tests mlx5e runs under the same
 * names. Each result is 0 (pass) or 1 (fail), with the reason in dmesg;
 * every test runs whether or not the user asked for offline ones (they
 * disturb nothing).
 *
 *   Link Test      the carrier is on and the device reports the link up
 *   Speed Test     the device reports the speed the link runs
 *   Loopback Test  a UDP frame to the port's own address, sent through
 *                  the stack with the device's local loopback on, comes
 *                  back to the port's RX within half a second; it needs
 *                  the port up with carrier, without which the stack
 *                  sends nothing
 *
 * mlx5e's Health Test (the device's fatal error state) has no counterpart:
 * the device model has no fatal state to report.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/completion.h>
#include <linux/etherdevice.h>
#include <linux/ethtool.h>
#include <linux/ip.h>
#include <linux/netdevice.h>
#include <linux/random.h>
#include <linux/udp.h>

#include "softcx.h"

enum { SCX_ST_LINK, SCX_ST_SPEED, SCX_ST_LOOPBACK, SCX_ST_NUM };

static const char scx_st_names[SCX_ST_NUM][ETH_GSTRING_LEN] = {
	[SCX_ST_LINK] = "Link Test",
	[SCX_ST_SPEED] = "Speed Test",
	[SCX_ST_LOOPBACK] = "Loopback Test",
};

#define SCX_LB_MAGIC	0x736f66746378ULL	/* "softcx" */
#define SCX_LB_PORT	9			/* UDP discard */
#define SCX_LB_WAIT_MS	500

/* What the loopback frame carries after its UDP header. */
struct scx_lb_payload {
	__be64 magic;
	__be64 cookie;		/* this run's: nothing else passes */
};

struct scx_lb_ctx {
	struct packet_type pt;
	struct completion done;
	u64 cookie;
};

static u64 scx_test_link(struct scx_priv *priv)
{
	struct scx_link l;

	if (!netif_carrier_ok(priv->netdev)) {
		netdev_info(priv->netdev, "self-test: no carrier\n");
		return 1;
	}
	if (scx_port_link_get(priv->port, &l) || !l.up) {
		netdev_info(priv->netdev, "self-test: the device reports the link down\n");
		return 1;
	}
	return 0;
}

static u64 scx_test_speed(struct scx_priv *priv)
{
	struct scx_link l;

	if (!netif_carrier_ok(priv->netdev) || scx_port_link_get(priv->port, &l) || !l.oper ||
	    !scx_link_proto_mbps(__ffs(l.oper))) {
		netdev_info(priv->netdev, "self-test: no link speed\n");
		return 1;
	}
	return 0;
}

/* The port's RX: our frame, this run's cookie? */
static int scx_lb_rcv(struct sk_buff *skb, struct net_device *dev, struct packet_type *pt,
		      struct net_device *orig_dev)
{
	struct scx_lb_ctx *ctx = pt->af_packet_priv;
	struct scx_lb_payload pl_buf;
	const struct scx_lb_payload *pl;
	struct udphdr uh_buf;
	const struct udphdr *uh;
	struct iphdr ih_buf;
	const struct iphdr *ih;

	ih = skb_header_pointer(skb, 0, sizeof(ih_buf), &ih_buf);
	if (!ih || ih->protocol != IPPROTO_UDP || ih->ihl != 5)
		goto out;
	uh = skb_header_pointer(skb, sizeof(*ih), sizeof(uh_buf), &uh_buf);
	if (!uh || uh->dest != htons(SCX_LB_PORT))
		goto out;
	pl = skb_header_pointer(skb, sizeof(*ih) + sizeof(*uh), sizeof(pl_buf), &pl_buf);
	if (pl && pl->magic == cpu_to_be64(SCX_LB_MAGIC) && pl->cookie == cpu_to_be64(ctx->cookie))
		complete(&ctx->done);
out:
	consume_skb(skb);
	return NET_RX_SUCCESS;
}

static struct sk_buff *scx_lb_skb(struct net_device *dev, u64 cookie)
{
	const u32 len = sizeof(struct iphdr) + sizeof(struct udphdr) +
			sizeof(struct scx_lb_payload);
	struct scx_lb_payload *pl;
	struct sk_buff *skb;
	struct udphdr *uh;
	struct iphdr *ih;

	skb = netdev_alloc_skb_ip_align(dev, ETH_HLEN + len);
	if (!skb)
		return NULL;
	skb_reserve(skb, ETH_HLEN);
	skb_reset_network_header(skb);
	ih = skb_put_zero(skb, sizeof(*ih));
	ih->version = 4;
	ih->ihl = 5;
	ih->ttl = 64;
	ih->protocol = IPPROTO_UDP;
	ih->tot_len = htons(len);
	ih->check = ip_fast_csum(ih, ih->ihl);
	skb_set_transport_header(skb, skb->len);
	uh = skb_put_zero(skb, sizeof(*uh));
	uh->source = htons(SCX_LB_PORT);
	uh->dest = htons(SCX_LB_PORT);
	uh->len = htons(len - sizeof(*ih));	/* checksum 0: none (IPv4) */
	pl = skb_put(skb, sizeof(*pl));
	pl->magic = cpu_to_be64(SCX_LB_MAGIC);
	pl->cookie = cpu_to_be64(cookie);
	/* to the port's own address, from it */
	eth_header(skb, dev, ETH_P_IP, dev->dev_addr, dev->dev_addr, skb->len);
	skb_reset_mac_header(skb);
	skb->protocol = htons(ETH_P_IP);
	skb->dev = dev;
	skb_set_queue_mapping(skb, 0);
	return skb;
}

static u64 scx_test_loopback(struct scx_priv *priv)
{
	struct net_device *dev = priv->netdev;
	struct scx_lb_ctx *ctx;
	struct sk_buff *skb;
	u64 fail = 1;
	int err;

	if (!priv->up) {
		netdev_info(dev, "self-test: the loopback test needs the port up\n");
		return 1;
	}
	/* the frame goes through the stack, whose qdisc sends nothing without a carrier */
	if (!netif_carrier_ok(dev)) {
		netdev_info(dev, "self-test: the loopback test needs the carrier\n");
		return 1;
	}
	ctx = kzalloc(sizeof(*ctx), GFP_KERNEL);
	if (!ctx)
		return 1;
	init_completion(&ctx->done);
	ctx->cookie = get_random_u64();
	ctx->pt.type = htons(ETH_P_IP);
	ctx->pt.dev = dev;
	ctx->pt.func = scx_lb_rcv;
	ctx->pt.af_packet_priv = ctx;

	err = scx_port_set_local_lb(priv->port, 1);
	if (err) {
		netdev_info(dev, "self-test: cannot turn the local loopback on (%d)\n", err);
		goto free;
	}
	dev_add_pack(&ctx->pt);
	skb = scx_lb_skb(dev, ctx->cookie);
	err = skb ? dev_queue_xmit(skb) : -ENOMEM;
	if (err)
		netdev_info(dev, "self-test: the loopback frame was not sent (%d)\n", err);
	else if (!wait_for_completion_timeout(&ctx->done, msecs_to_jiffies(SCX_LB_WAIT_MS)))
		netdev_info(dev, "self-test: the loopback frame did not come back\n");
	else
		fail = 0;
	dev_remove_pack(&ctx->pt);	/* waits for a receiver still running */
	err = scx_port_set_local_lb(priv->port, 0);
	if (err) {
		netdev_err(dev, "self-test: cannot turn the local loopback off (%d)\n", err);
		fail = 1;
	}
free:
	kfree(ctx);
	return fail;
}

int scx_self_test_count(void)
{
	return SCX_ST_NUM;
}

void scx_self_test_names(u8 *data)
{
	memcpy(data, scx_st_names, sizeof(scx_st_names));
}

/* RTNL held (ethtool). */
void scx_self_test(struct net_device *dev, struct ethtool_test *test, u64 *buf)
{
	struct scx_priv *priv = netdev_priv(dev);
	int i;

	buf[SCX_ST_LINK] = scx_test_link(priv);
	buf[SCX_ST_SPEED] = scx_test_speed(priv);
	buf[SCX_ST_LOOPBACK] = scx_test_loopback(priv);
	for (i = 0; i < SCX_ST_NUM; i++)
		if (buf[i])
			test->flags |= ETH_TEST_FL_FAILED;
}
