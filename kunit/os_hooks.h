/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The KUnit side of the OS layer. The KUnit build links the core with the
 * shim's own OS hooks: os.c (memory, locks, log), dma.c (DMA and the
 * device's view), rx.c (page_pool RX queues, skb build and delivery),
 * tx.c (skb DMA mapping, TX completion) and xdp_path.c (the XDP hooks and
 * ndo_xdp_xmit). Their os_channel is a real struct scx_chan of a real
 * (unregistered) netdev with real NAPI contexts, made by the pair fixture
 * (pair.c), which watches what they do from the outside:
 *   - delivered skbs reach the netdev's rx_handler (scx_kt_rx_handler):
 *     checked against what was sent (scx_kt_frame_*) or handed to a
 *     suite's rx_hook, then consumed (the page goes back to its pool);
 *   - page_pools: the XDP memory model's connect and disconnect
 *     tracepoints say when an RQ's pool was created and when it was freed
 *     (which page_pool does only once every page came back);
 *   - transmitted skbs carry a destructor counting their release.
 * One hook stays here: scx_os_raise_irq, the interrupt controller, counts
 * interrupts per vector (irq_ctx: scx_kt_irq) and hands a port's on to the
 * shim's hook (shim/napi.c, built as scx_shim_raise_irq), which schedules
 * the channel's NAPI. The fixture's NAPI contexts poll with the shim's
 * scx_napi_poll but stay disabled unless a suite enables them: the suites
 * mostly run NAPI rounds themselves (scx_kt_napi), so every poll happens
 * where a test expects it.
 */
#ifndef SCX_KUNIT_OS_HOOKS_H
#define SCX_KUNIT_OS_HOOKS_H

#include <kunit/test.h>
#include <linux/atomic.h>
#include <linux/device.h>
#include <linux/in6.h>
#include <linux/netdevice.h>
#include <linux/skbuff.h>

#include <softcx/core.h>
#include <softcx/os.h>

#define SCX_KT_MAX_SEQ	4096	/* frames one test may send */
#define SCX_KT_NCH	4	/* channels per port, at most */

struct scx_chan;

/*
 * A received skb's checksum as the stack can trust it: the device's verdict
 * (CHECKSUM_UNNECESSARY), or a CHECKSUM_COMPLETE sum equal to the sum of
 * every byte after the MAC header, computed here.
 */
static inline bool scx_kt_csum_ok(const struct sk_buff *skb)
{
	if (skb->ip_summed == CHECKSUM_UNNECESSARY)
		return true;
	return skb->ip_summed == CHECKSUM_COMPLETE &&
	       csum_fold(skb->csum) == csum_fold(skb_checksum(skb, 0, skb->len, 0));
}

/* What the fixture observes of one channel (the real os_channel is a struct scx_chan). */
struct scx_kt_chan {
	struct device *dev;		/* page_pool / DMA device */
	u32 ix;
	u32 min_inline;			/* the port's caps: what the TX path pulls into the head */
	/* RX buffers: the channel's page_pools (mem_connect / mem_disconnect) */
	u32 pools_created;
	u32 pools_freed;		/* freed: every page of the pool came back */
	u32 order;			/* of the last pool */
	/* skbs the real scx_os_rx_deliver() handed to the stack (rx_handler) */
	u64 rx_delivered;		/* skbs received and consumed */
	u64 rx_bad;			/* delivered, but not the frame that was sent */
	u64 rx_bytes;			/* frame bytes, from the MAC header */
	u32 rx_csum_ok;			/* scx_kt_csum_ok() */
	u32 rx_hash_l4;			/* an L4 hash */
	u32 rx_last_seq;
	unsigned long *seen;		/* bitmap of received sequence numbers */
	u32 rx_dups;
	/*
	 * Optional: called with every delivered frame (from its MAC header,
	 * skb not yet freed) instead of the scx_kt_frame_check() bookkeeping.
	 */
	void (*rx_hook)(struct scx_kt_chan *ch, const u8 *frame, u32 len,
			const struct sk_buff *skb);
	void *rx_hook_ctx;
	/* TX skbs released (by scx_os_tx_free() on completion, or by a close) */
	u64 tx_freed;
};

/* What the suites pass to scx_hw_set_irq_ctx(). */
struct scx_kt_irq {
	atomic_t count[SCX_MAX_CHANNELS];
	atomic_t bad_vector;
	struct scx_priv *priv;	/* a port: counted interrupts go on to the shim's hook */
};
/* shim/napi.c's scx_os_raise_irq and scx_os_cq_error (kunit.mk renames them in this build). */
void scx_shim_raise_irq(void *irq_ctx, uint32_t vector, uint32_t cqn);
void scx_shim_cq_error(void *irq_ctx, uint32_t vector, uint32_t cqn, uint32_t syndrome);

/* A platform device with a 64-bit DMA mask: the adapter's os_dev. */
struct device *scx_kt_dev_create(struct kunit *test);
void scx_kt_dev_destroy(struct device *dev);

/* Channel bookkeeping; the bitmap is test-managed memory. */
void scx_kt_chan_init(struct kunit *test, struct scx_kt_chan *ch, struct device *dev, u32 ix);

/*
 * rx_handler of the fixture's netdevs (rx_handler_data: their array of
 * struct scx_kt_chan, indexed by the skb's recorded RX queue).
 */
rx_handler_result_t scx_kt_rx_handler(struct sk_buff **pskb);

/*
 * Test frames: Ethernet + IPv4 + UDP, the UDP source port and the payload
 * derived from seq so the receiver can verify them alone. len >= 60.
 */
#define SCX_KT_FRAME_MIN	60
void scx_kt_frame_fill(u8 *buf, u32 len, u32 seq);
/* 0 and the sequence number when the frame is exactly what fill() wrote. */
int scx_kt_frame_check(const u8 *buf, u32 len, u32 *seq);

/*
 * TCP/UDP test frames (softcx_lso, softcx_hwgro): the Ethernet and IP
 * headers of a flow, and the L4 checksum with its pseudo header.
 */
struct scx_kt_flow {
	const u8 *dst, *src;		/* MAC addresses */
	bool v6;
	u32 saddr4, daddr4;		/* IPv4, host order */
	struct in6_addr saddr6, daddr6;
};
/*
 * Ethernet + IPv6 (hop limit 64) or IPv4 header (no options, TTL 64, DF,
 * ID id, header checksum) at h, carrying l4_len bytes of proto: the L4
 * offset.
 */
u32 scx_kt_ip_fill(u8 *h, const struct scx_kt_flow *fl, u8 proto, u32 l4_len, u16 id);
/*
 * csum_tcpudp_magic() / csum_ipv6_magic() for the addresses of frame f
 * (its Ethernet type says which): sum = the L4 bytes' partial sum.
 */
__sum16 scx_kt_l4_csum(const u8 *f, u8 proto, u32 l4_len, __wsum sum);

/*
 * Build one skb holding frame seq (len bytes; with split, the payload after
 * the headers goes into a page fragment) and its scx_tx_pkt, DMA-mapped by
 * the shim's own scx_tx_pkt_build() on ch's device. Its release is counted
 * in ch->tx_freed. Returns 0 or a negative errno.
 */
int scx_kt_tx_build(struct scx_kt_chan *ch, u32 seq, u32 len, bool split, struct scx_tx_pkt *pkt);
/* The same for a ready skb (scx_tx_pkt_build(): 0, -EINVAL or -ENOMEM, skb kept). */
int scx_kt_tx_map(struct scx_kt_chan *ch, struct sk_buff *skb, struct scx_tx_pkt *pkt);
/* Undo scx_kt_tx_build() (or scx_kt_tx_map()) for a packet the core refused: not counted. */
void scx_kt_tx_abort(struct device *dev, struct scx_tx_pkt *pkt);

/*
 * One NAPI round as the shim runs it: poll with BHs off, hand what GRO
 * batched to the stack as napi_complete_done() would, re-arm when done.
 */
int scx_kt_napi(struct scx_chan *ch, int budget, struct scx_tx_done *done);

#endif /* SCX_KUNIT_OS_HOOKS_H */
