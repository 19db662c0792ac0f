/* SPDX-License-Identifier: GPL-2.0 */
/*
 * OS services the C++ core calls. Implemented in C by the kernel shim
 * (shim/os.c, dma.c, napi.c, rx.c, tx.c, xdp_path.c) and by the host test
 * layer (tests/host/os_host.cpp).
 * Valid C and C++; fixed-width types and opaque handles only.
 */
#ifndef SOFTCX_OS_H
#define SOFTCX_OS_H

#ifdef __cplusplus
extern "C" {
#endif

#include "types.h"

/* ---- memory (process context only) ---- */
void *scx_os_zalloc(uint64_t size);
void scx_os_free(void *p);

/*
 * Coherent DMA memory for rings and doorbell records, on the adapter's
 * device. Returns the CPU address, stores the bus address in *dma.
 */
void *scx_os_dma_alloc(void *os_dev, uint32_t size, uint64_t *dma);
void scx_os_dma_free(void *os_dev, uint32_t size, void *cpu, uint64_t dma);

/*
 * Device side: the CPU address behind [dma, dma + len), or NULL when that
 * range is not memory the device may reach. Any context.
 */
void *scx_os_dma_to_cpu(void *os_dev, uint64_t dma, uint32_t len);
/*
 * The same for n ranges at once (a striding RQ WQE's pages, when the device
 * starts the WQE): cpu[i] is what scx_os_dma_to_cpu(os_dev, dma[i], len[i])
 * returns, at less cost per range than a call each. Any context.
 */
void scx_os_dma_to_cpu_n(void *os_dev, const uint64_t *dma, const uint32_t *len, void **cpu,
			 uint32_t n);

/* Unmap a TX mapping the shim made (kind: SCX_DMA_SINGLE or SCX_DMA_PAGE). */
enum { SCX_DMA_SINGLE = 0, SCX_DMA_PAGE = 1 };
void scx_os_dma_unmap(void *os_dev, uint64_t dma, uint32_t len, uint32_t kind);

/* ---- locks (spinlocks that disable BH; lockdep sees each class) ---- */
enum scx_lock_class {
	SCX_LOCK_HW_CMD,	/* device command interface */
	SCX_LOCK_HW_SQ,		/* device TX engine, per SQ */
	SCX_LOCK_HW_RQ,		/* device RX engine, per RQ */
	SCX_LOCK_PORT_STATS,	/* driver: channel set vs. stats readers */
	SCX_LOCK_HW_LINK,	/* device: the cables' link state (inside a command) */
	SCX_LOCK_NR_CLASSES
};
struct scx_os_lock;
struct scx_os_lock *scx_os_lock_create(enum scx_lock_class cls);
void scx_os_lock_destroy(struct scx_os_lock *l);
void scx_os_lock(struct scx_os_lock *l);
void scx_os_unlock(struct scx_os_lock *l);

/* ---- misc ---- */
enum { SCX_LOG_ERR = 3, SCX_LOG_WARN = 4, SCX_LOG_INFO = 6, SCX_LOG_DEBUG = 7 };
void scx_os_log(int level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/*
 * A line about a port (os_port as given to scx_port_create), such as a
 * command the device refused: the OS names the interface. Not rate-limited
 * (commands are not per packet). NULL: a queue made without a port (the
 * KUnit CQ suite's), named by no interface. Any context.
 */
void scx_os_port_log(void *os_port, int level, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/*
 * A line about one of a channel's queues (os_channel as given at channel
 * creation): the OS names the interface and rate-limits it, as such lines
 * can come from NAPI on every poll. Any context.
 */
void scx_os_chan_log(void *os_channel, int level, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/*
 * A queue of the channel that NAPI recovers itself (kind: an RQ, or an XDP
 * SQ) went through recovery: err 0, or the failure (NAPI retries). The OS
 * reports it (devlink health). NAPI context.
 */
enum { SCX_OS_QUEUE_RQ, SCX_OS_QUEUE_XDPSQ };
void scx_os_queue_recovered(void *os_channel, uint32_t kind, int err);
/* A monotonic clock in ns for durations on one CPU (the kernel's local_clock()). Any context. */
uint64_t scx_os_clock_ns(void);

/*
 * ---- device model timers (CQ moderation) ----
 * A one-shot timer per object, on a clock that is monotonic across CPUs
 * (the kernel's hrtimer on CLOCK_MONOTONIC; the host tests' a fake clock
 * they advance by hand). The callback runs in interrupt context (hardirq
 * in the kernel), like the device raising an MSI-X message; it may call
 * scx_os_raise_irq(). `expired` is the expiry it fires for: the device's
 * timer goes off at that instant, so the callback takes it as the time
 * instead of reading the clock. It returns 0, or the expiry to run again
 * at (the timer re-armed from the callback, as an hrtimer's
 * HRTIMER_RESTART: the caller must make sure that nobody starts the timer
 * meanwhile).
 */
struct scx_os_timer;
/* Process context; NULL without memory. */
struct scx_os_timer *scx_os_timer_create(uint64_t (*fn)(void *arg, uint64_t expired), void *arg);
/* Cancels it (waiting for a running callback) and frees it. Process context. */
void scx_os_timer_destroy(struct scx_os_timer *t);
/* The timers' clock in ns. Any context. */
uint64_t scx_os_timer_now(void);
/* (Re)start it to expire at `expires` (scx_os_timer_now() time; past: at once). Any context. */
void scx_os_timer_start(struct scx_os_timer *t, uint64_t expires);
/*
 * Stop it; a callback running on another CPU has finished on return (may
 * spin: never from the callback, nor under a lock the callback takes).
 * 1: it was queued (a callback that re-armed it counts), and is no more;
 * 0: it was not.
 */
int scx_os_timer_cancel(struct scx_os_timer *t);

/* ---- device model -> "interrupt controller" ---- */
/*
 * CQ `cqn`, whose c_eqn is `vector`, raised its completion event (mlx5's
 * completion EQE, naming the CQ, then the vector's interrupt); irq_ctx from
 * scx_hw_set_irq_ctx(). The event took the CQ's arm: the CQ raises no
 * other until armed again, and nothing but an event disarms a live CQ.
 * Any context.
 */
void scx_os_raise_irq(void *irq_ctx, uint32_t vector, uint32_t cqn);
/*
 * A CQ error event (mlx5's CQ error async event): CQ `cqn`, whose c_eqn is
 * `vector`, stopped with `syndrome` (1: overrun, a CQE due while it was
 * full). It writes no CQE until the queue it serves is reset; the driver
 * finds it with QUERY_CQ (scx_channel_cq_error()). Raised once per error,
 * with no device lock held, from any context.
 */
void scx_os_cq_error(void *irq_ctx, uint32_t vector, uint32_t cqn, uint32_t syndrome);

/* ---- driver core -> RX buffers (page_pool per RQ) ---- */
struct scx_os_rxq;
/*
 * One pool for `size` buffers of PAGE_SIZE << order, bound to the channel's
 * NAPI. flags: SCX_RXQ_XDP when the RQ runs an XDP program (buffers mapped
 * bidirectionally: XDP_TX sends them back out); SCX_RXQ_FRAGS when the
 * driver cuts pages up (striding RQ strides, cyclic RQ fragments): each
 * page then holds references (scx_os_rx_frag_set), one per skb, XDP frame
 * or fragment built on it and the driver's own; whatever gives one back
 * (skb free, recycle, frame return) drops one, and the last returns the
 * page to the pool.
 */
enum { SCX_RXQ_XDP = 1, SCX_RXQ_FRAGS = 2 };
struct scx_os_rxq *scx_os_rxq_create(void *os_channel, uint32_t size, uint32_t order,
				     uint32_t flags);
void scx_os_rxq_destroy(struct scx_os_rxq *q);
/* Allocate one buffer; returns the page handle (NULL on failure) and its DMA address. */
void *scx_os_rx_alloc(struct scx_os_rxq *q, uint64_t *dma);
/*
 * Give back a buffer the driver still owns (teardown, drop, XDP_TX
 * completion). napi != 0: called from the RQ's own NAPI poll, so the page
 * may go straight into the pool's cache.
 */
void scx_os_rx_recycle(struct scx_os_rxq *q, void *page, int napi);
/* SCX_RXQ_FRAGS: a freshly allocated page holds n references. */
void scx_os_rx_frag_set(struct scx_os_rxq *q, void *page, uint32_t n);
/* SCX_RXQ_FRAGS: drop n references (the driver's unused ones); the last returns the page. */
void scx_os_rx_frag_put(struct scx_os_rxq *q, void *page, uint32_t n, int napi);

/*
 * A received packet handed to the stack; the page (one reference of it in
 * an SCX_RXQ_FRAGS pool) moves to the skb. The skb is built on the buffer
 * at page address + buf_off of buf_size bytes (0: the whole buffer).
 */
struct scx_rx_pkt {
	void *page;
	uint32_t buf_off;
	uint32_t buf_size;
	uint32_t headroom;	/* packet starts at page address + headroom */
	uint32_t len;
	uint32_t hash;
	uint8_t hash_type;	/* SCX_HASH_* */
	uint8_t csum;		/* SCX_CSUM_* */
	uint16_t meta_len;	/* XDP metadata bytes right before the packet */
	uint16_t vlan_tci;	/* vlan: the 802.1Q tag the device stripped (skb hwaccel tag) */
	uint8_t vlan;
	/*
	 * SCX_CSUM_UNNECESSARY of a VXLAN or GENEVE frame whose inner
	 * checksums the device checked too: one checksum level more
	 * (csum_level 1), and the skb is encapsulated.
	 */
	uint8_t csum_inner;
	/*
	 * SCX_CSUM_COMPLETE: the CQE's check_sum as it lies in the CQE (the
	 * 16 bits of a folded, not inverted, one's-complement sum over the
	 * frame from its IP header to the end of what the device placed:
	 * padding included, the FCS too when the RQ scatters it, tags before
	 * the IP header not) in the low 16 bits; the rest 0.
	 */
	uint32_t csum_raw;
	/*
	 * The device's raw 64-bit timer value when the frame arrived (a
	 * session's: its first packet's), 0 unless the RQ's RX timestamps are
	 * on (scx_port_set_rx_tstamp); the OS converts it (its PHC).
	 */
	uint64_t ts;
};
enum { SCX_HASH_NONE = 0, SCX_HASH_L3 = 1, SCX_HASH_L4 = 2 };
/*
 * The checksum verdict: none; L3 and L4 (TCP/UDP) checksums right
 * (CHECKSUM_UNNECESSARY); or the sum in csum_raw (CHECKSUM_COMPLETE: what
 * mlx5 hands up by default for IP frames longer than 64 bytes).
 */
enum { SCX_CSUM_NONE = 0, SCX_CSUM_UNNECESSARY = 1, SCX_CSUM_COMPLETE = 2 };
/* Returns 0 when the stack took it, -1 when the skb could not be built (page recycled by the shim). */
int scx_os_rx_deliver(void *os_channel, const struct scx_rx_pkt *pkt);
/*
 * XDP_PASS of a multi-buffer frame (scx_xdp_buf.nr_frags > 0): as
 * scx_os_rx_deliver() for its first page (buf_size: the whole page), and
 * the skb takes the nr_frags pages after it as fragments, as
 * scx_os_xdp_run() left them in that page's skb_shared_info (on failure
 * the shim recycles them too).
 */
int scx_os_rx_deliver_xdp_mb(void *os_channel, const struct scx_rx_pkt *pkt, uint32_t nr_frags);
/*
 * A packet in pieces (a non-linear RQ of either type): n pieces of pages of an
 * SCX_RXQ_FRAGS pool, in order, each holding one reference the shim takes
 * over; pkt gives the metadata and the total length (page and buffer
 * fields unused). Its headers (up to 256 bytes, all in pieces[0]) are
 * copied into a small skb, the rest attached as page fragments; a piece
 * left unused gives its reference back. Returns as scx_os_rx_deliver().
 */
struct scx_rx_piece {
	void *page;
	uint32_t off;
	uint32_t len;
	uint32_t truesize;	/* of the strides it fills */
};
int scx_os_rx_deliver_pieces(void *os_channel, const struct scx_rx_pkt *pkt,
			     const struct scx_rx_piece *pieces, uint32_t n);
/*
 * A packet whose headers the device split from its payload (SHAMPO), or
 * a hardware GRO session of several: the hdr_len header bytes (L2..L4,
 * those of the session's first segment with the lengths, IPv4 header
 * checksum and TCP flags already as software GRO leaves a merged packet)
 * are copied into the skb's head, the payload attached from the n pieces
 * (n may be 0: a packet without payload) as page fragments, each holding
 * one reference the shim takes over. pkt->len = hdr_len + the pieces.
 * gso NULL: one packet, checksum verdict pkt->csum. gso set: a session of
 * gso->segs segments of gso->size payload bytes (the last may be
 * shorter), the TCP checksum field holding the pseudo-header sum
 * (CHECKSUM_PARTIAL at gso->l4_off). Returns as scx_os_rx_deliver().
 */
#define SCX_RX_GRO_MAX_FRAGS 17	/* pieces of one session at most (MAX_SKB_FRAGS) */
#define SCX_RX_HDS_HEAD 128	/* head bytes a split skb gets for its headers, unless longer */
struct scx_rx_gso {
	uint16_t size;		/* payload bytes of every segment but the last */
	uint16_t segs;		/* segments merged (> 1) */
	uint16_t l4_off;	/* TCP header offset in the frame */
	uint8_t type;		/* SCX_RX_GSO_* */
};
enum {
	SCX_RX_GSO_TCPV4 = 1,
	SCX_RX_GSO_TCPV6 = 2,
	SCX_RX_GSO_FIXEDID = 4,	/* IPv4 with DF: every segment carries the same ID */
	SCX_RX_GSO_ECN = 8,	/* CWR set in the first segment */
};
int scx_os_rx_deliver_hds(void *os_channel, const struct scx_rx_pkt *pkt, const void *hdr,
			  uint32_t hdr_len, const struct scx_rx_piece *pieces, uint32_t n,
			  const struct scx_rx_gso *gso);

/* ---- driver core -> XDP (NAPI context) ---- */
enum {
	SCX_XDP_ABORTED = 0,	/* aborted, unknown verdict or failed redirect (traced by the OS) */
	SCX_XDP_DROP = 1,
	SCX_XDP_PASS = 2,
	SCX_XDP_TX = 3,
	SCX_XDP_REDIRECT = 4,
};
#define SCX_XDP_MAX_FRAGS 3	/* buffers of a multi-buffer frame after its first */
/* A buffer of a multi-buffer frame after its first: a whole page of the RQ's pool. */
struct scx_xdp_frag {
	void *page;
	uint64_t dma;		/* of the page */
	uint32_t off;		/* the bytes' start in the page */
	uint32_t len;		/* in/out: bytes (a program may shrink or grow the last) */
};
struct scx_xdp_buf {
	struct scx_os_rxq *rxq;	/* the RQ's pool the page came from */
	void *page;		/* RX buffer (page_pool page) */
	uint64_t dma;		/* of the page */
	uint32_t frame_sz;	/* buffer size */
	uint32_t headroom;	/* in/out: frame start in the page */
	uint32_t len;		/* in/out: frame length (multi-buffer: in the first buffer) */
	uint32_t meta_len;	/* out: metadata bytes before the frame (PASS) */
	const uint8_t *data;	/* out (PASS, TX): CPU address of the frame start (TX inlines from it) */
	/*
	 * Multi-buffer frames (a program that takes them, an MTU past
	 * caps.xdp_max_mtu): in, the buffers the frame filled after the
	 * first; out, those still the frame's. A program that cut the tail
	 * short gave the buffers it dropped back to their pool itself: from
	 * frags[nr_frags] on they are no longer the core's.
	 */
	uint32_t nr_frags;
	struct scx_xdp_frag frags[SCX_XDP_MAX_FRAGS];
};
/*
 * Run the channel's program on a received frame and return its verdict.
 * ABORTED / DROP: the pages (the first and frags[0..nr_frags)) stay the
 * core's (it recycles them). PASS: the core delivers the adjusted frame
 * with scx_os_rx_deliver() (multi-buffer: scx_os_rx_deliver_xdp_mb()). TX: the adjusted frame
 * is synced for the device; the core posts it and recycles the pages on
 * completion. REDIRECT: xdp_do_redirect() took the pages (the OS flushes
 * at the end of its poll).
 */
int scx_os_xdp_run(void *os_channel, struct scx_xdp_buf *b);
/* A verdict the core could not carry out (XDP_TX with the SQ full or in error): trace it. */
void scx_os_xdp_exception(void *os_channel, int verdict);
/*
 * Frames from scx_channel_xdp_xmit() completed (their DMA mappings are
 * unmapped). They belong to other pools (another port, channel or
 * driver), so they never go to a pool's lock-free cache ("direct"):
 * frame_free returns one (any context), frames_free_bulk a batch from
 * NAPI, in bulk to their owners.
 */
void scx_os_xdp_frame_free(void *os_channel, void *frame);
void scx_os_xdp_frames_free_bulk(void *os_channel, void *const *frames, uint32_t n);

/* ---- driver core -> TX completion ---- */
/* Release one transmitted skb (its DMA mappings were unmapped already). */
void scx_os_tx_free(void *os_channel, void *skb, int napi_budget);
/*
 * A skb posted with scx_tx_pkt.tstamp completed: ts is the raw device
 * timer value of its completion CQE. Called right before its
 * scx_os_tx_free(), from NAPI (or the drain of a close).
 */
void scx_os_tx_tstamp(void *os_channel, void *skb, uint64_t ts);

#ifdef __cplusplus
}
#endif

#endif /* SOFTCX_OS_H */
