/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Userspace implementation of include/softcx/os.h, plus the hooks and
 * records tests use to look at what the core did to the "OS".
 *
 * DMA: every region the device may reach is registered with a fake bus
 * address (IOVA) that is unrelated to its CPU address, so a driver that
 * hands the device a CPU pointer gets a translation failure, not silent
 * success. Regions are separated by unmapped guard gaps, and an IOVA is
 * never handed out twice: the device reaches exactly the ranges that are
 * mapped at that moment (coherent memory until freed, TX mappings until
 * unmapped, RX buffers until delivered or recycled), so a stale address
 * always fails, as in the kernel's view (shim/dma.c; which is
 * page-granular and keeps page_pool pages mapped while their pool holds
 * them, so it is the more lenient of the two).
 *
 * Misuse the kernel would punish (unmapping what was never mapped, freeing
 * DMA memory twice, lock order inversions between lock classes, nesting a
 * lock class inside itself) is counted in host::errors() and printed; test
 * fixtures assert it stays 0.
 */
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <vector>

#include "softcx/core.h"
#include "softcx/os.h"

namespace host {

/* The shim's RX buffer layout on x86_64: PAGE_SIZE, XDP_PACKET_HEADROOM, aligned skb_shared_info. */
constexpr scx_os_layout kOsLayout = {4096, 256, 320, 64};

/* ---- DMA ---- */
/* Map caller-owned memory for the device (what the shim does for skb data); unmap with scx_os_dma_unmap. */
uint64_t dma_map(const void *cpu, uint32_t len, uint32_t kind = SCX_DMA_SINGLE);
/* Forget a mapping made by dma_map without going through scx_os_dma_unmap (test cleanup). */
void dma_forget(uint64_t dma);
/*
 * Take a live TX mapping away from the device (what the kernel's
 * inject_dma_fault does): the device's translations of it fail from now
 * on, while the driver still unmaps it normally.
 */
void dma_revoke(uint64_t dma);
size_t dma_regions();		/* all registered ranges */
size_t dma_coherent_regions();	/* from scx_os_dma_alloc */
size_t dma_tx_mappings();	/* from dma_map, not yet unmapped */
/* An address no range covers (for negative tests). */
uint64_t dma_unmapped_addr();
/* scx_os_dma_to_cpu_n() calls so far (a striding WQE's pages each). */
uint64_t dma_to_cpu_batches();

/* ---- RX buffers (scx_os_rxq_*) ---- */
size_t rx_buffers_outstanding();	/* allocated and neither delivered nor recycled */
size_t rxqs_live();

struct RxRecord {
	std::vector<uint8_t> data;	/* the packet bytes */
	scx_rx_pkt meta;
	scx_rx_gso gso;		/* scx_os_rx_deliver_hds of a session: segs > 1; else all 0 */
	uint32_t truesize;	/* page bytes the skb holds: its buffer, or its pieces' truesize */
	uint32_t xdp_frags;	/* scx_os_rx_deliver_xdp_mb: the later pages of a multi-buffer frame */
};
/* Packets delivered on an os_channel (scx_os_rx_deliver), oldest first. */
const std::vector<RxRecord> &rx_delivered(void *os_channel);
/* Make the next n scx_os_rx_deliver calls fail (returns -1, buffer recycled). */
void rx_fail_next_deliveries(int n);
/* Make the next n scx_os_rx_alloc calls fail. */
void rx_fail_next_allocs(int n);

/* scx_os_rx_recycle calls since reset(), from NAPI (napi != 0) or not. */
uint64_t rx_recycled(bool napi);

/* ---- XDP ---- */
using Bytes = std::vector<uint8_t>;
/*
 * Native stand-in for a BPF program: sees the page (CPU address) and the
 * buffer, may rewrite bytes and move headroom / len / meta_len, returns a
 * verdict. Without one, scx_os_xdp_run passes everything. On REDIRECT the
 * layer records the frame and takes the page, as xdp_do_redirect does.
 */
using XdpProg = std::function<int(void *os_channel, uint8_t *page, scx_xdp_buf *b)>;
void set_xdp_prog(XdpProg prog);
const std::vector<Bytes> &xdp_redirected(void *os_channel);
uint64_t xdp_exceptions(void *os_channel, int verdict);
/* Frames handed back (scx_os_xdp_frame_free or in bulks), in order. */
const std::vector<void *> &xdp_frames_freed(void *os_channel);
/* Calls of scx_os_xdp_frames_free_bulk (NAPI completions of the redirect SQ). */
uint32_t xdp_frame_bulks(void *os_channel);

/* ---- TX completions (scx_os_tx_free) ---- */
const std::vector<void *> &tx_freed(void *os_channel);
/* scx_os_tx_tstamp calls, in order (each right before its skb's tx_freed entry). */
struct TxTstamp {
	void *skb;
	uint64_t ts;
};
const std::vector<TxTstamp> &tx_tstamps(void *os_channel);

/* ---- interrupts ---- */
uint64_t irq_count(void *irq_ctx, uint32_t vector);
uint64_t irq_total();
/*
 * The CQ events of (irq_ctx, vector) since the last take, bit cqn % 64 each
 * (scx_os_raise_irq, scx_os_cq_error), as scx_channel_arm() takes them.
 */
uint64_t take_cq_events(void *irq_ctx, uint32_t vector);
/* CQ error events (scx_os_cq_error), in order; each also calls the irq hook with its vector. */
struct CqError {
	void *irq_ctx;
	uint32_t vector;
	uint32_t cqn;
	uint32_t syndrome;
};
std::vector<CqError> cq_errors();
/* scx_os_queue_recovered() calls for (os_channel, SCX_OS_QUEUE_*): each one's err. */
std::vector<int> recovered(void *os_channel, uint32_t kind);
/* Called on every scx_os_raise_irq, after counting (may call back into the core). */
void set_irq_hook(std::function<void(void *irq_ctx, uint32_t vector)> hook);

/*
 * ---- timers (scx_os_timer_*) ----
 * A fake clock: it starts at 1 s and moves only by clock_advance(), which
 * runs every timer due by the new time, in expiry order, in the caller's
 * thread (the clock reads each one's expiry while it runs). A timer
 * started in the past fires at the next clock_advance(), even of 0. A
 * callback that re-arms its timer over a start made while it ran is an
 * error (the kernel's hrtimer tree would break).
 */
uint64_t now_ns();
void clock_advance(uint64_t ns);
/*
 * Run `hook` once, at the start of the next scx_os_timer_now() call (in its
 * caller's thread, no lock held): a test's way into the device between two
 * of its steps, as another CPU would come in.
 */
void on_next_timer_now(std::function<void()> hook);
size_t timers_queued();
/* scx_os_timer_start() calls so far (a callback re-arming its timer makes none). */
uint64_t timer_starts();

/* ---- memory and locks ---- */
int64_t zalloc_outstanding();
/*
 * Bytes held now: scx_os_zalloc sizes, coherent DMA memory (whole pages)
 * and RX buffers. mem_peak_reset() makes the current figure the peak (and
 * returns it); mem_peak() is the highest since.
 */
uint64_t mem_bytes();
uint64_t mem_peak_reset();
uint64_t mem_peak();
int64_t locks_live();

/* ---- bookkeeping ---- */
int errors();
/* Forget all records (deliveries, irqs, errors, hooks, XDP program, failure injection); allocations stay. */
void reset();

} /* namespace host */
