// SPDX-License-Identifier: GPL-2.0
/*
 * softcx XDP data path: the XDP hooks of include/softcx/os.h (running the
 * channel's program on a received frame, tracing a verdict the core could
 * not carry out, returning completed frames) and ndo_xdp_xmit. ndo_bpf,
 * which rebuilds channel sets, is control path and lives in xdp.c.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/bpf_trace.h>
#include <linux/filter.h>
#include <linux/netdevice.h>
#include <net/page_pool.h>
#include <net/xdp.h>

#include "softcx.h"

/*
 * A multi-buffer frame: its later pages as the xdp_buff's fragments, listed
 * in the first page's shared info (where an skb built on the page finds
 * them).
 */
static noinline void scx_xdp_frags_in(struct xdp_buff *xdp, const struct scx_xdp_buf *b,
				      struct device *dev, enum dma_data_direction dir)
{
	struct skb_shared_info *sh = scx_rx_buf_shinfo(xdp->data_hard_start, xdp->frame_sz);
	u32 i, size = 0;

	for (i = 0; i < b->nr_frags; i++) {
		const struct scx_xdp_frag *f = &b->frags[i];
		struct page *page = f->page;

		scx_rx_sync_for_cpu(dev, f->dma + f->off, f->len, dir);
		__skb_frag_set_page(&sh->frags[i], page);
		skb_frag_off_set(&sh->frags[i], f->off);
		skb_frag_size_set(&sh->frags[i], f->len);
		if (page_is_pfmemalloc(page))
			xdp_buff_set_frag_pfmemalloc(xdp);
		size += f->len;
	}
	sh->nr_frags = b->nr_frags;
	sh->xdp_frags_size = size;
	xdp_buff_set_frags_flag(xdp);
}

/*
 * What the program left of a multi-buffer frame: the fragments still its
 * own (a tail cut short gave the others back to the pool) and their
 * lengths; XDP_TX: synced for the device.
 */
static noinline void scx_xdp_frags_out(struct xdp_buff *xdp, struct scx_xdp_buf *b,
				       struct device *dev, bool tx)
{
	struct skb_shared_info *sh = scx_rx_buf_shinfo(xdp->data_hard_start, xdp->frame_sz);
	u32 i;

	b->nr_frags = xdp_buff_has_frags(xdp) ? sh->nr_frags : 0;
	for (i = 0; i < b->nr_frags; i++) {
		b->frags[i].len = skb_frag_size(&sh->frags[i]);
		if (tx)
			scx_rx_sync_for_device(dev, b->frags[i].dma + b->frags[i].off,
					       b->frags[i].len);
	}
}

int scx_os_xdp_run(void *os_channel, struct scx_xdp_buf *b)
{
	struct scx_chan *ch = os_channel;
	struct bpf_prog *prog = READ_ONCE(ch->xdp_prog);
	struct scx_os_rxq *q = b->rxq;
	struct page *page = b->page;
	struct xdp_buff xdp;
	u8 *va = page_address(page);
	u32 act;
	int err;

	/* A set built for XDP never runs without a program; be safe anyway. */
	if (unlikely(!prog))
		return SCX_XDP_PASS;
	scx_rx_sync_for_cpu(q->pool->p.dev, b->dma + b->headroom, b->len, q->dir);
	xdp_init_buff(&xdp, b->frame_sz, &q->xdp_rxq);
	xdp_prepare_buff(&xdp, va, b->headroom, b->len, true);
	if (unlikely(b->nr_frags))
		scx_xdp_frags_in(&xdp, b, q->pool->p.dev, q->dir);

	act = bpf_prog_run_xdp(prog, &xdp);
	/* all but a redirect that took the frame leave its pages to the core */
	if (unlikely(b->nr_frags))
		scx_xdp_frags_out(&xdp, b, q->pool->p.dev, act == XDP_TX);
	switch (act) {
	case XDP_PASS:
	case XDP_TX:
		b->headroom = xdp.data - (void *)va;
		b->len = xdp.data_end - xdp.data;
		b->meta_len = xdp.data - xdp.data_meta;
		b->data = xdp.data;
		if (act == XDP_PASS)
			return SCX_XDP_PASS;
		scx_rx_sync_for_device(q->pool->p.dev, b->dma + b->headroom, b->len);
		return SCX_XDP_TX;
	case XDP_REDIRECT:
		err = xdp_do_redirect(ch->priv->netdev, &xdp, prog);
		if (unlikely(err))
			break;
		ch->xdp_redirected = true;
		return SCX_XDP_REDIRECT;
	case XDP_DROP:
		return SCX_XDP_DROP;
	default:
		bpf_warn_invalid_xdp_action(ch->priv->netdev, prog, act);
		fallthrough;
	case XDP_ABORTED:
		break;
	}
	trace_xdp_exception(ch->priv->netdev, prog, act);
	return SCX_XDP_ABORTED;
}

void scx_os_xdp_exception(void *os_channel, int verdict)
{
	struct scx_chan *ch = os_channel;
	struct bpf_prog *prog = READ_ONCE(ch->xdp_prog);

	if (prog)
		trace_xdp_exception(ch->priv->netdev, prog,
				    verdict == SCX_XDP_TX ? XDP_TX : XDP_ABORTED);
}

void scx_os_xdp_frame_free(void *os_channel, void *frame)
{
	xdp_return_frame(frame);
}

void scx_os_xdp_frames_free_bulk(void *os_channel, void *const *frames, uint32_t n)
{
	struct xdp_frame_bulk bq;
	u32 i;

	xdp_frame_bulk_init(&bq);
	rcu_read_lock();	/* the memory model lookup */
	for (i = 0; i < n; i++)
		xdp_return_frame_bulk(frames[i], &bq);
	xdp_flush_frame_bulk(&bq);
	rcu_read_unlock();
}

/*
 * ndo_xdp_xmit: frames redirected to this port (from another device's
 * NAPI, a devmap or a cpumap) go out through the XDP SQ of the channel
 * this CPU maps to. Returns how many frames were taken; the caller frees
 * the rest. The first frame refused ends the batch: the device sends one
 * buffer per frame, so a multi-buffer frame is refused whole (never
 * truncated to its first buffer), and so are the frames behind it.
 */
int scx_xdp_xmit(struct net_device *dev, int n, struct xdp_frame **frames, u32 flags)
{
	struct scx_priv *priv = netdev_priv(dev);
	struct scx_xdp_frame f;
	struct scx_chan *ch;
	int i, err = 0, counted = 0;
	u32 cpu, nch;

	if (unlikely(flags & ~XDP_XMIT_FLAGS_MASK))
		return -EINVAL;
	/*
	 * RCU reader (the caller's NAPI or BH section): the switch waits for
	 * us. Ready (acquire, pairs with scx_datapath_resume()): nch is the
	 * live set's.
	 */
	if (unlikely(!smp_load_acquire(&priv->xdp_xmit_ready)))
		return -ENETDOWN;
	cpu = smp_processor_id();
	nch = READ_ONCE(priv->nch);
	ch = &priv->ch[cpu < nch ? cpu : cpu % nch];
	if (unlikely(!ch->core))
		return -ENETDOWN;

	spin_lock(&ch->xdp_xmit_lock);
	for (i = 0; i < n; i++) {
		struct xdp_frame *xdpf = frames[i];

		if (unlikely(xdp_frame_has_frags(xdpf))) {
			err = -EINVAL;
			break;
		}
		f.frame = xdpf;
		f.data = xdpf->data;
		f.len = xdpf->len;
		f.dma = scx_map_xdp_frame(priv->dmadev, xdpf);
		if (unlikely(scx_map_failed(priv->dmadev, f.dma))) {
			err = -ENOMEM;
			break;
		}
		err = scx_channel_xdp_xmit(ch->core, &f);
		if (unlikely(err)) {
			scx_os_dma_unmap(priv->dmadev, f.dma, f.len, SCX_DMA_SINGLE);
			counted = 1;	/* the core counted the frame it refused */
			break;
		}
	}
	/* frames[i..n-1] stay the caller's: count those the core did not, as err */
	if (unlikely(i + counted < n))
		scx_channel_xdp_xmit_refused(ch->core, n - i - counted, err);
	scx_channel_xdp_xmit_flush(ch->core, flags & XDP_XMIT_FLUSH);
	spin_unlock(&ch->xdp_xmit_lock);
	return i;
}
