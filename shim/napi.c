// SPDX-License-Identifier: GPL-2.0
/*
 * softcx NAPI: the poll of one channel (RX, TX completions, BQL, queue
 * wake) and the interrupt hook of include/softcx/os.h that schedules it.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/bottom_half.h>
#include <linux/filter.h>
#include <linux/netdevice.h>

#include "softcx.h"

int scx_napi_poll(struct napi_struct *napi, int budget)
{
	struct scx_chan *ch = container_of(napi, struct scx_chan, napi);
	struct scx_tx_done done = {};
	struct netdev_queue *txq = ch->txq;
	int work;

	/* A CQ error event (overrun): find the CQ, mark its queue for recovery. */
	if (unlikely(test_and_clear_bit(0, &ch->cq_error)) && scx_channel_cq_error(ch->core))
		done.tx_error = 1;
	work = scx_channel_poll(ch->core, budget, &done);
	if (ch->xdp_redirected) {
		ch->xdp_redirected = false;
		xdp_do_flush();
	}

	netdev_tx_completed_queue(txq, done.packets, done.bytes);
	if (unlikely(done.tx_error)) {
		/* The SQ is in ERR: no wake until the recovery work reset it. */
		netif_tx_stop_queue(txq);
		schedule_work(&ch->tx_recover_work);
	}
	/* The core freed SQ room: pairs with the barrier in scx_start_xmit(). */
	smp_mb();
	if (unlikely(netif_tx_queue_stopped(txq)) &&
	    scx_channel_tx_room(ch->core) &&
	    netif_running(ch->priv->netdev)) {
		netif_tx_wake_queue(txq);
		scx_channel_count_wake(ch->core);
	}

	if (work < budget && napi_complete_done(napi, work))
		scx_channel_arm(ch->core);
	return min(work, budget);
}

/* ---- OS hooks: interrupts ---- */

void scx_os_raise_irq(void *irq_ctx, uint32_t vector)
{
	struct scx_priv *priv = irq_ctx;

	if (unlikely(!priv || vector >= priv->nch))
		return;
	/* From process context, let the softirq run when BHs come back on. */
	if (in_hardirq() || irqs_disabled()) {
		napi_schedule(&priv->ch[vector].napi);
		return;
	}
	local_bh_disable();
	napi_schedule(&priv->ch[vector].napi);
	local_bh_enable();
}

/* The core's NAPI handler queries the CQs (scx_channel_cq_error()) and logs the one it finds. */
void scx_os_cq_error(void *irq_ctx, uint32_t vector, uint32_t cqn, uint32_t syndrome)
{
	struct scx_priv *priv = irq_ctx;

	if (unlikely(!priv || vector >= priv->nch))
		return;
	set_bit(0, &priv->ch[vector].cq_error);
	scx_os_raise_irq(irq_ctx, vector);
}
