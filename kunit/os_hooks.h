/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The KUnit side of the OS layer. The KUnit build links the core with the
 * shim's os.c (memory, DMA, locks, log) but not with its netdev glue
 * (tx.c, rx.c, napi.c, xdp_path.c): the per-packet hooks are implemented here instead and record
 * what the core did, so suites can check it:
 *   scx_os_raise_irq    counts interrupts per vector (irq_ctx: scx_kt_irq)
 *   scx_os_rxq_*,       one page_pool per RQ, with allocations, returns and
 *   scx_os_rx_alloc,    pool teardown accounted (os_channel: scx_kt_chan)
 *   scx_os_rx_recycle
 *   scx_os_rx_deliver   builds a real skb on the page (build_skb), checks the
 *                       frame (scx_kt_frame_*), frees it back to the pool
 *   scx_os_tx_free      counts and frees the transmitted skb
 */
#ifndef SCX_KUNIT_OS_HOOKS_H
#define SCX_KUNIT_OS_HOOKS_H

#include <kunit/test.h>
#include <linux/atomic.h>
#include <linux/device.h>
#include <linux/skbuff.h>

#include <softcx/core.h>
#include <softcx/os.h>

#define SCX_KT_MAX_SEQ	4096	/* frames one test may send */

/* What the suites pass as os_channel. */
struct scx_kt_chan {
	struct device *dev;		/* page_pool / DMA device */
	u32 ix;
	/* RX buffers (scx_os_rxq_* / rx_alloc / rx_recycle) */
	u32 pools_created;
	u32 pools_destroyed;
	u32 pools_inflight;		/* destroyed with pages still out */
	u32 order;			/* of the last pool */
	u64 rx_allocs;
	u64 rx_alloc_fails;
	u64 rx_recycles;
	u64 bufs_out;			/* allocated and not yet returned */
	/* RX deliveries (scx_os_rx_deliver) */
	u64 rx_delivered;		/* skbs built and freed */
	u64 rx_refused;			/* bad geometry or no skb: page recycled, -1 */
	u64 rx_bad;			/* delivered, but not the frame that was sent */
	u64 rx_bytes;
	u32 rx_csum_ok;
	u32 rx_hash_l4;
	u32 rx_last_seq;
	unsigned long *seen;		/* bitmap of received sequence numbers */
	u32 rx_dups;
	/*
	 * Optional: called with every delivered frame (skb built, not yet
	 * freed) instead of the scx_kt_frame_check() bookkeeping above.
	 */
	void (*rx_hook)(struct scx_kt_chan *ch, const struct scx_rx_pkt *pkt,
			const struct sk_buff *skb);
	void *rx_hook_ctx;
	/* TX completions (scx_os_tx_free) */
	u64 tx_freed;
	u64 tx_bad_ctx;
};

/* What the suites pass to scx_hw_set_irq_ctx(). */
struct scx_kt_irq {
	atomic_t count[SCX_MAX_CHANNELS];
	atomic_t bad_vector;
};

/* A platform device with a 64-bit DMA mask: the adapter's os_dev. */
struct device *scx_kt_dev_create(struct kunit *test);
void scx_kt_dev_destroy(struct device *dev);

/* Channel bookkeeping; the bitmap is test-managed memory. */
void scx_kt_chan_init(struct kunit *test, struct scx_kt_chan *ch, struct device *dev, u32 ix);

/*
 * Test frames: Ethernet + IPv4 + UDP, the UDP source port and the payload
 * derived from seq so the receiver can verify them alone. len >= 60.
 */
#define SCX_KT_FRAME_MIN	60
void scx_kt_frame_fill(u8 *buf, u32 len, u32 seq);
/* 0 and the sequence number when the frame is exactly what fill() wrote. */
int scx_kt_frame_check(const u8 *buf, u32 len, u32 *seq);

/*
 * Build one skb holding frame seq (len bytes; with split, the payload after
 * the headers goes into a page fragment) and its scx_tx_pkt (DMA-mapped on
 * dev). Returns 0 or a negative errno.
 */
int scx_kt_tx_build(struct device *dev, u32 seq, u32 len, bool split, struct scx_tx_pkt *pkt);
/*
 * DMA-map skb's linear part and page fragments into pkt->frags the way the
 * shim does, and fill head, headlen and len. 0 or -EIO (nothing left mapped).
 */
int scx_kt_tx_map(struct device *dev, struct sk_buff *skb, struct scx_tx_pkt *pkt);
/* Undo scx_kt_tx_build() (or scx_kt_tx_map()) for a packet the core refused. */
void scx_kt_tx_abort(struct device *dev, struct scx_tx_pkt *pkt);

/* One NAPI round as the shim runs it: poll with BHs off, re-arm when done. */
int scx_kt_napi(struct scx_channel *c, int budget, struct scx_tx_done *done);

#endif /* SCX_KUNIT_OS_HOOKS_H */
