// SPDX-License-Identifier: GPL-2.0
/*
 * softcx ndo_bpf: attaching, replacing and detaching the native XDP
 * program. Attach and detach change the RX buffer geometry and add or
 * remove the XDP_TX SQs, so they rebuild the channel set (new set first);
 * a replacement only swaps the pointer each RQ reads, one channel at a time.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/bpf.h>
#include <linux/filter.h>
#include <linux/netdevice.h>

#include "softcx.h"

/* Replace the program of a running set: each RQ pauses only for its swap. */
static void scx_xdp_swap(struct scx_priv *priv, struct bpf_prog *prog)
{
	u32 i;

	for (i = 0; i < priv->nch; i++) {
		struct scx_chan *ch = &priv->ch[i];

		/* No poll of this channel runs the old program after this. */
		napi_disable(&ch->napi);
		WRITE_ONCE(ch->xdp_prog, prog);
		napi_enable(&ch->napi);
		/* The CQs may have been armed for the poll that did not run. */
		local_bh_disable();
		napi_schedule(&ch->napi);
		local_bh_enable();
	}
}

static int scx_xdp_set(struct net_device *dev, struct bpf_prog *prog,
		       struct netlink_ext_ack *extack)
{
	struct scx_priv *priv = netdev_priv(dev);
	struct bpf_prog *old = priv->xdp_prog;
	int err;

	if (prog && !old) {
		struct scx_port_params params;
		const char *why;

		scx_fill_params(priv, priv->nch, dev->mtu, prog, &params);
		why = scx_params_conflict(priv->port, &params);
		if (why) {
			/* the core's reason, a static string (NL_SET_ERR_MSG takes literals only) */
			if (extack)
				extack->_msg = why;
			netdev_warn(dev, "XDP refused: %s; turn rx-gro-hw off first\n", why);
			return -EOPNOTSUPP;
		}
	}
	/* past a page a frame comes in several buffers: only for a program that takes them */
	if (prog && dev->mtu > priv->xdp_max_mtu && !prog->aux->xdp_has_frags) {
		NL_SET_ERR_MSG_MOD(extack,
				   "MTU too large for XDP: a frame must fit one page with the XDP headroom, unless the program takes multi-buffer frames (xdp.frags)");
		netdev_warn(dev, "XDP refused: MTU %u > %u for a program without multi-buffer support\n",
			    dev->mtu, priv->xdp_max_mtu);
		return -EINVAL;
	}

	if (priv->up) {
		if (!old != !prog) {
			err = scx_datapath_switch(priv, priv->nch, dev->mtu, prog);
			if (err) {
				NL_SET_ERR_MSG_MOD(extack,
						   "cannot build the channel set for the XDP change; the old one keeps running");
				return err;
			}
		} else if (prog) {
			scx_xdp_swap(priv, prog);
		}
	}
	/* The kernel handed us one reference to @prog; drop the old program's. */
	priv->xdp_prog = prog;
	if (old)
		bpf_prog_put(old);
	/* rx-gro-hw, wanted but held off by the program, may come back */
	if (old && !prog)
		netdev_update_features(dev);
	return 0;
}

int scx_ndo_bpf(struct net_device *dev, struct netdev_bpf *bpf)
{
	switch (bpf->command) {
	case XDP_SETUP_PROG:
		return scx_xdp_set(dev, bpf->prog, bpf->extack);
	case XDP_SETUP_PROG_HW:
		NL_SET_ERR_MSG_MOD(bpf->extack, "no XDP offload: use native (xdpdrv) or generic mode");
		return -EOPNOTSUPP;
	default:
		return -EINVAL;
	}
}
