// SPDX-License-Identifier: GPL-2.0
/*
 * devlink: one instance for the adapter (`devlink dev info`), a port per
 * netdev, and per port the health reporters "tx" and "rx" as mlx5 has
 * them. The driver recovers a queue on its own as before (TX: the recovery
 * work; RQ and XDP SQs: NAPI); each recovery is then reported from a work
 * (scx_health_event(): devlink may sleep), with what failed in the dump
 * and the recovery's result as the reporter's recover step; several
 * recoveries of one kind between two runs of the work are one report. `devlink health recover` on demand rebuilds the port's channels
 * (the safe switch); diagnose lists every channel's queues.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/netdevice.h>
#include <linux/rtnetlink.h>
#include <net/devlink.h>

#include "softcx.h"

/* What one report carries to dump and recover. */
struct scx_health_ctx {
	u32 channel;
	const char *queue;	/* "SQ", "RQ", "XDP SQ" */
	const char *cause;
	int err;		/* the driver's recovery: 0 or its errno */
};

static int scx_health_recover(struct devlink_health_reporter *reporter, void *priv_ctx,
			      struct netlink_ext_ack *extack)
{
	struct scx_priv *priv = devlink_health_reporter_priv(reporter);
	struct scx_health_ctx *ctx = priv_ctx;
	int err;

	if (ctx)	/* the driver recovered the queue already: its result */
		return ctx->err;
	/* on demand: rebuild the port's channels (the live set runs until the new one is up) */
	rtnl_lock();
	err = priv->up ? scx_datapath_switch(priv, priv->nch, priv->netdev->mtu,
					     priv->xdp_prog) : 0;
	rtnl_unlock();
	if (err)
		NL_SET_ERR_MSG_MOD(extack, "cannot rebuild the channels");
	return err;
}

static int scx_health_dump(struct devlink_health_reporter *reporter, struct devlink_fmsg *fmsg,
			   void *priv_ctx, struct netlink_ext_ack *extack)
{
	struct scx_health_ctx *ctx = priv_ctx;
	int err;

	if (!ctx)
		return 0;
	err = devlink_fmsg_u32_pair_put(fmsg, "channel", ctx->channel);
	err = err ?: devlink_fmsg_string_pair_put(fmsg, "queue", ctx->queue);
	err = err ?: devlink_fmsg_string_pair_put(fmsg, "cause", ctx->cause);
	err = err ?: devlink_fmsg_u32_pair_put(fmsg, "recovery errno", -ctx->err);
	return err;
}

/* Every channel in use: its CQ numbers, and (tx) whether its queue is stopped. */
static int scx_health_diagnose(struct devlink_health_reporter *reporter,
			       struct devlink_fmsg *fmsg, struct netlink_ext_ack *extack, bool rx)
{
	struct scx_priv *priv = devlink_health_reporter_priv(reporter);
	int err;
	u32 i;

	rtnl_lock();	/* the channel set does not change meanwhile */
	err = devlink_fmsg_bool_pair_put(fmsg, "up", priv->up);
	err = err ?: devlink_fmsg_arr_pair_nest_start(fmsg, "channels");
	for (i = 0; !err && priv->up && i < priv->nch; i++) {
		struct scx_chan *ch = &priv->ch[i];

		if (!ch->core)
			continue;
		err = devlink_fmsg_obj_nest_start(fmsg);
		err = err ?: devlink_fmsg_u32_pair_put(fmsg, "channel", i);
		err = err ?: devlink_fmsg_u32_pair_put(fmsg, "cqn", scx_channel_cqn(ch->core, rx));
		if (!rx)
			err = err ?: devlink_fmsg_bool_pair_put(fmsg, "stopped",
							       netif_tx_queue_stopped(ch->txq));
		err = err ?: devlink_fmsg_obj_nest_end(fmsg);
	}
	err = err ?: devlink_fmsg_arr_pair_nest_end(fmsg);
	rtnl_unlock();
	return err;
}

static int scx_health_diagnose_tx(struct devlink_health_reporter *reporter,
				  struct devlink_fmsg *fmsg, struct netlink_ext_ack *extack)
{
	return scx_health_diagnose(reporter, fmsg, extack, false);
}

static int scx_health_diagnose_rx(struct devlink_health_reporter *reporter,
				  struct devlink_fmsg *fmsg, struct netlink_ext_ack *extack)
{
	return scx_health_diagnose(reporter, fmsg, extack, true);
}

static const struct devlink_health_reporter_ops scx_tx_reporter_ops = {
	.name = "tx",
	.recover = scx_health_recover,
	.dump = scx_health_dump,
	.diagnose = scx_health_diagnose_tx,
};

static const struct devlink_health_reporter_ops scx_rx_reporter_ops = {
	.name = "rx",
	.recover = scx_health_recover,
	.dump = scx_health_dump,
	.diagnose = scx_health_diagnose_rx,
};

/*
 * Process context. devlink counts the error and keeps a dump; with
 * auto_recover its recover step takes the driver's result (healthy again
 * when the queue recovered). Without auto_recover, or after a recovery
 * that failed, the reporter stays in error (later reports only count)
 * until `devlink health recover` rebuilds the channels; the queue itself
 * runs again as soon as the driver recovered it.
 */
static void scx_health_report(struct scx_priv *priv, bool rx, u32 channel, const char *queue,
			      const char *cause, int err)
{
	struct devlink_health_reporter *r = rx ? priv->rx_reporter : priv->tx_reporter;
	struct scx_health_ctx ctx = { channel, queue, cause, err };
	char msg[64];

	if (!r)
		return;
	snprintf(msg, sizeof(msg), "%s %u: %s", queue, channel, cause);
	devlink_health_report(r, msg, &ctx);
}

/* What each SCX_HEALTH_* event reports: reporter, queue, cause, result. */
static const struct {
	bool rx;
	const char *queue;
	const char *cause;
	int err;
} scx_health_events[SCX_HEALTH_NR] = {
	[SCX_HEALTH_RQ_OK] = { true, "RQ", "error CQE or CQ error", 0 },
	[SCX_HEALTH_RQ_FAILED] = { true, "RQ", "error CQE or CQ error", -EIO },
	[SCX_HEALTH_XDPSQ_OK] = { false, "XDP SQ", "error CQE or CQ error", 0 },
	[SCX_HEALTH_XDPSQ_FAILED] = { false, "XDP SQ", "error CQE or CQ error", -EIO },
	[SCX_HEALTH_SQ_OK] = { false, "SQ", "error CQE or CQ error", 0 },
	[SCX_HEALTH_SQ_FAILED] = { false, "SQ", "error CQE or CQ error", -EIO },
	[SCX_HEALTH_SQ_TIMEOUT_OK] = { false, "SQ", "TX timeout", 0 },
	[SCX_HEALTH_SQ_TIMEOUT_FAILED] = { false, "SQ", "TX timeout", -EIO },
};

/* The recoveries of a channel since the last run (scx_health_event), in process context. */
void scx_health_work(struct work_struct *work)
{
	struct scx_chan *ch = container_of(work, struct scx_chan, health_work);
	unsigned long ev = xchg(&ch->health_events, 0);
	int i;

	for_each_set_bit(i, &ev, SCX_HEALTH_NR)
		scx_health_report(ch->priv, scx_health_events[i].rx, ch->ix,
				  scx_health_events[i].queue, scx_health_events[i].cause,
				  scx_health_events[i].err);
}

/* ---- the instance and its ports ---- */

static int scx_devlink_info_get(struct devlink *dl, struct devlink_info_req *req,
				struct netlink_ext_ack *extack)
{
	struct scx_adapter *ad = *(struct scx_adapter **)devlink_priv(dl);
	int err;

	err = devlink_info_driver_name_put(req, KBUILD_MODNAME);
	err = err ?: devlink_info_serial_number_put(req, dev_name(&ad->pdev->dev));
	err = err ?: devlink_info_version_fixed_put(req, DEVLINK_INFO_VERSION_GENERIC_ASIC_ID,
						     scx_hw_model_name(ad->model));
	err = err ?: devlink_info_version_running_put(req, DEVLINK_INFO_VERSION_GENERIC_FW,
						       SCX_DRV_VERSION);
	return err;
}

static const struct devlink_ops scx_devlink_ops = {
	.info_get = scx_devlink_info_get,
};

int scx_devlink_create(struct scx_adapter *ad)
{
	ad->devlink = devlink_alloc(&scx_devlink_ops, sizeof(ad), &ad->pdev->dev);
	if (!ad->devlink)
		return -ENOMEM;
	*(struct scx_adapter **)devlink_priv(ad->devlink) = ad;
	return 0;
}

void scx_devlink_register(struct scx_adapter *ad)
{
	devlink_register(ad->devlink);
	ad->devlink_registered = true;
}

/* Before the ports go. */
void scx_devlink_unregister(struct scx_adapter *ad)
{
	if (ad->devlink_registered)
		devlink_unregister(ad->devlink);
	ad->devlink_registered = false;
}

/* After the ports went. */
void scx_devlink_free(struct scx_adapter *ad)
{
	if (ad->devlink)
		devlink_free(ad->devlink);
	ad->devlink = NULL;
}

/* Before register_netdev: the port and its reporters. */
int scx_devlink_port_add(struct scx_priv *priv)
{
	struct devlink_port_attrs attrs = {
		.flavour = DEVLINK_PORT_FLAVOUR_PHYSICAL,
		.phys.port_number = priv->index,
	};
	struct devlink_health_reporter *r;
	int err;

	devlink_port_attrs_set(&priv->dl_port, &attrs);
	err = devlink_port_register(priv->adapter->devlink, &priv->dl_port, priv->index);
	if (err)
		return err;
	priv->dl_port_registered = true;
	r = devlink_port_health_reporter_create(&priv->dl_port, &scx_tx_reporter_ops, 0, priv);
	if (IS_ERR(r))
		return PTR_ERR(r);
	priv->tx_reporter = r;
	r = devlink_port_health_reporter_create(&priv->dl_port, &scx_rx_reporter_ops, 0, priv);
	if (IS_ERR(r))
		return PTR_ERR(r);
	priv->rx_reporter = r;
	return 0;
}

/* After unregister_netdev (no recovery runs any more). */
void scx_devlink_port_del(struct scx_priv *priv)
{
	if (priv->rx_reporter)
		devlink_port_health_reporter_destroy(priv->rx_reporter);
	if (priv->tx_reporter)
		devlink_port_health_reporter_destroy(priv->tx_reporter);
	priv->rx_reporter = NULL;
	priv->tx_reporter = NULL;
	if (priv->dl_port_registered) {
		devlink_port_type_clear(&priv->dl_port);
		devlink_port_unregister(&priv->dl_port);
	}
	priv->dl_port_registered = false;
}

struct devlink_port *scx_get_devlink_port(struct net_device *dev)
{
	struct scx_priv *priv = netdev_priv(dev);

	return priv->dl_port_registered ? &priv->dl_port : NULL;
}
