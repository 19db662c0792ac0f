/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The driver core's limits and the rules between its features, in one
 * place: queue geometry, inline header and frame limits, the room an SQ
 * keeps before it stops, which WQE kinds a device and a configuration may
 * use, the RX buffer layout. The queues, the port and the shim (through
 * include/softcx/core.h: scx_port_get_caps, scx_port_feature_check,
 * scx_params_queue_sizes) ask here and restate nothing. Only what the
 * kernel fixes (page size, XDP headroom, skb_shared_info) comes from the
 * OS, once per port (scx_os_layout).
 */
#pragma once

#include "en/os.h"
#include "prm/cmd.h"
#include "prm/cqe.h"
#include "prm/packet.h"
#include "prm/wqe.h"
#include "softcx/core.h"

namespace softcx::en {

/* ---- queue geometry ---- */

/* Ring sizes the driver opens with: SQ in WQEBBs, RQ in packets. */
constexpr u32 kLogSqSize = 10;
constexpr u32 kLogRqSize = 10;
/* Smallest rings: an SQ holds its largest stop room, an RQ two buffers. */
constexpr u32 kMinLogSqSize = 6;
constexpr u32 kMinLogRqSize = 1;
/* Largest rings: the ring counters are 16 bits wide. */
constexpr u32 kMaxLogQueue = 16;
/*
 * Smallest rings a user may set (ethtool -G), mlx5's: 64 entries. The core
 * itself takes smaller RQs, which the tests use to run out of buffers.
 */
constexpr u32 kMinUserLogQueue = 6;
static_assert(kMinUserLogQueue >= kMinLogSqSize && kMinUserLogQueue >= kMinLogRqSize);

/* ---- inline headers ---- */

/* L2 with one VLAN tag: what a SEND inlines on a device that needs L2 inline. */
constexpr u32 kMaxInline = 18;
/* L2..L4 with options: the longest header an LSO WQE inlines (caps.max_lso_hdr). */
constexpr u32 kMaxLsoInline = 256;

/* Bytes of headers every SEND must inline on this device (0 or kMaxInline). */
u32 min_inline(const prm::HcaCaps &caps);

/* ---- frames ---- */

constexpr u32 kHwMtuOverhead = prm::kHwMtuOverhead;
/* Shortest frame the device sends: an Ethernet header. */
constexpr u32 kMinTxFrame = prm::kMinFrame;

/* Largest software MTU on this device. */
u32 max_mtu(const prm::HcaCaps &caps);
/* A refused setting: the reason for the OS's log in *why (when asked), -err returned. */
inline int refuse_err(const char **why, const char *reason, int err)
{
	if (why)
		*why = reason;
	return -err;
}

/* Longest frame an XDP SQ sends at this MTU (XDP frames come from an RQ of that MTU). */
inline u32 xdp_sq_max_frame(u32 mtu) { return mtu + kHwMtuOverhead; }
/* Longest frame the stack's SQ sends: the device's limit (LSO segments included). */
inline u32 skb_sq_max_frame(const prm::HcaCaps &caps) { return caps.max_hw_mtu.get(); }
/* Longest LSO payload the device takes; 0: no LSO. */
u32 max_lso(const prm::HcaCaps &caps);
/* Longest LSO header (caps.max_lso_hdr); 0: no LSO. */
u32 max_lso_hdr(const prm::HcaCaps &caps);

/* ---- SQ WQE sizes and stop room ---- */

/*
 * Enhanced MPWQE session: at most 15 WQEBBs (the ds field cannot express
 * 16 * 4) and an even number on 128-byte cacheline hosts. 64-byte lines:
 * 60 DS, i.e. ctrl + eth + 58 packets.
 */
#ifndef SCX_L1_CACHE_BYTES
#define SCX_L1_CACHE_BYTES 64
#endif
constexpr u32 kMpwMaxWqeBBs = SCX_L1_CACHE_BYTES >= 128 ? 14 : 15;
constexpr u32 kMpwMaxDs = kMpwMaxWqeBBs * prm::kDsPerWqeBB;
constexpr u32 kMpwMaxPkts = kMpwMaxDs - prm::kEmptyDsCount;
static_assert(kMpwMaxDs <= prm::kMaxDsCount);

/* DS of the inline part of a WQE that inlines ihs header bytes (two sit in the eth segment). */
constexpr u32 inline_ds(u32 ihs) { return ihs > 2 ? (ihs - 2 + prm::kSendWqeDS - 1) / prm::kSendWqeDS : 0; }

/* Largest single WQE the stack's SQ posts: ctrl+eth, LSO inline headers, one DS per fragment. */
constexpr u32 kSqMaxDs = prm::kEmptyDsCount + inline_ds(kMaxLsoInline) + SCX_TX_MAX_FRAGS;
constexpr u32 kSqMaxWqeBBs = (kSqMaxDs + prm::kDsPerWqeBB - 1) / prm::kDsPerWqeBB;
static_assert(kSqMaxDs <= prm::kMaxDsCount);
static_assert(kSqMaxWqeBBs <= prm::kMaxSendWqeBBs);
/* An XDP SEND of one buffer (minimum inline headers, one pointer) fits one WQEBB (xdpsq_send_wqe). */
static_assert(prm::kEmptyDsCount + inline_ds(kMaxInline) + 1 <= prm::kDsPerWqeBB);

/*
 * Room a WQE of n WQEBBs needs free before it is posted: up to n - 1
 * one-WQEBB NOPs pad the ring to its edge first.
 */
constexpr u32 wqe_room(u32 n) { return 2 * n - 1; }
/*
 * Room an SQ keeps free: below it the poster stops (the stack's queue is
 * stopped, XDP frames are refused). The stack's largest WQE, plus an open
 * session that may still grow to its maximum (and was padded for it);
 * XDP WQEs are one WQEBB, or a session.
 */
constexpr u32 skb_sq_stop_room(bool mpwqe)
{
	return wqe_room(kSqMaxWqeBBs) + (mpwqe ? wqe_room(kMpwMaxWqeBBs) : 0);
}
constexpr u32 xdp_sq_stop_room(bool mpwqe) { return mpwqe ? wqe_room(kMpwMaxWqeBBs) : wqe_room(1); }
static_assert(skb_sq_stop_room(true) <= 1u << kMinLogSqSize);

/* What one SQ may post, every rule applied: built here, kept by the SQ whole (Sq::lim). */
struct SqLimits {
	u32 min_inline;		/* header bytes every SEND inlines */
	u32 max_frame;		/* longest frame it sends */
	u32 max_lso;		/* longest LSO payload (0: no LSO; XDP SQs never) */
	u16 stop_room;		/* WQEBBs kept free: below it the poster stops */
	bool mpwqe;		/* posts in MPWQE sessions */
};
/* The stack's SQ: the device's frame limit, LSO, its stop room. */
SqLimits skb_sq_limits(const prm::HcaCaps &caps, bool mpwqe);
/* An XDP SQ (XDP_TX, ndo_xdp_xmit) of a channel set at this MTU. */
SqLimits xdp_sq_limits(const prm::HcaCaps &caps, u32 mtu, bool mpwqe);

/* ---- who may use what ---- */

/*
 * Enhanced multi-packet send WQEs. Sessions carry no inline headers: a
 * device that needs them gets none (cx4). For the stack's SQ and for the
 * XDP SQs; false with the reason (for the OS's log) in *why.
 */
bool tx_mpwqe_ok(const prm::HcaCaps &caps, const char **why);
bool xdp_tx_mpwqe_ok(const prm::HcaCaps &caps, const char **why);

/* Striding RQ (multi-packet RX WQEs): where the device has it (cx5 and later). */
bool striding_rq_ok(const prm::HcaCaps &caps, const char **why);
/* SHAMPO header-data split and hardware GRO (rx-gro-hw): where the device has it (cx7). */
bool hw_gro_ok(const prm::HcaCaps &caps, const char **why);
/* Why parameters break a rule between features (ethtool's words), or null. */
const char *params_conflict(const prm::HcaCaps &caps, const scx_port_params &params);

/*
 * RX CQE compression (title + mini CQEs, prm/cqe.h), as the RQ's CQ runs
 * it: off, the basic layout (owner bits), or the enhanced layout (validity
 * iteration). The mini CQEs carry the checksum (mlx5's choice: a run
 * shares its RSS hash), and the stride index too on a striding RQ where
 * the device writes it (the enhanced layout's generations); else the
 * driver derives each packet's WQE counter or stride from the one before.
 */
enum class RxComp : u8 { Off, Basic, Enhanced };
bool cqe_compress_ok(const prm::HcaCaps &caps, const char **why);
/* The mode a device runs with compression asked for. */
RxComp rx_comp_mode(const prm::HcaCaps &caps, bool striding);
/* The mini CQE format of a mode on an RQ type: one rule, for the CQ's creation and the poll loop. */
constexpr prm::MiniCqeFormat rx_comp_format(RxComp c, bool striding)
{
	return c == RxComp::Enhanced && striding ? prm::kMiniCqeCsumStridx : prm::kMiniCqeCsum;
}
constexpr prm::CqeCompLayout rx_comp_layout(RxComp c)
{
	return c == RxComp::Enhanced ? prm::kCqeCompEnhanced : prm::kCqeCompBasic;
}

/* ---- RX buffers ---- */

/*
 * An RQ's buffer layout. Cyclic: each WQE takes nfrags fragments, carved
 * in order out of order-0 pages that several fragments (and packets)
 * share; linear: one fragment of a power-of-two stride holds a frame with
 * its headroom and tailroom, and the skb is built on it (XDP: a whole
 * page); non-linear: a frame spans up to kMaxRxFrags fragments headroom-
 * less, and the headers are copied into a small skb with the fragments the
 * frame used attached (XDP: a page each, the first with the headroom; the
 * program sees the frame in several buffers). Striding: WQEs of pages_per_wqe order-0 pages cut
 * into 2^log_stride-byte strides; linear: every frame fits one stride with
 * its headroom and tailroom and the skb is built on the stride (XDP: one
 * stride per page); non-linear: frames span strides, the headers are
 * copied into a small skb and the rest attached as page fragments.
 */
constexpr u32 kMaxRxFrags = 4;
static_assert(kMaxRxFrags == prm::kRxWqeCycMaxSegs);
struct RxFragInfo {
	u16 size;		/* bytes the device may write in it */
	u16 stride;		/* bytes it takes of its page: a power of two */
};
struct RqLayout {
	u32 headroom;		/* bytes before the frame in its first buffer (its stride when linear) */
	u32 frame_room;		/* bytes the device may write at headroom (striding: the frame limit) */
	u8 nfrags;		/* cyclic: fragments a WQE takes */
	u8 log_wqe_segs;	/* cyclic: data segments a WQE has (those past nfrags end the list) */
	RxFragInfo frag[kMaxRxFrags];	/* cyclic */
	/* cyclic: fragments a page holds when WQE fragment i opens it, carved in order on */
	u8 page_frags[kMaxRxFrags];
	bool striding;
	bool linear;		/* one frame per stride or fragment, built in place */
	u8 log_stride;		/* striding: stride size */
	u8 log_num_strides;	/* striding: strides per WQE */
	u8 log_wqes;		/* striding: WQEs in the ring */
	u8 log_wqe_bytes;	/* striding: WQE size (next segment + data segments) */
	u8 log_cqes;		/* striding: CQ size (a CQE per stride, capped) */
	u16 pages_per_wqe;	/* striding */
	/* SHAMPO (a non-linear striding RQ, headroom 0): reservations and the header ring */
	bool shampo;
	u8 log_res;		/* reservation: a session's payload lies in one */
	u8 log_res_pkts;	/* packet CQEs a reservation takes */
	u8 log_hd_entry;	/* header entry size */
	u8 log_hd_entries;	/* header ring entries: one per packet the posted WQEs take */

	u32 stride_size() const { return 1u << log_stride; }
	u32 wqe_buf_bytes() const { return 1u << (log_stride + log_num_strides); }
	/* data segments of a WQE: its pages, and one for the headroom shift at its end */
	u32 wqe_segs() const { return pages_per_wqe + (headroom ? 1u : 0u); }
};

/* A non-linear cyclic RQ's fragments: 2048 bytes, two to a page (mlx5's DEFAULT_FRAG_SIZE). */
constexpr u32 kRxFragSize = 2048;

/*
 * Striding geometry. A WQE buffer is 64 KiB (16 pages) unless the stride
 * count needs more (devices without the extended range take 512 strides
 * or more); 256 KiB and 62 pages (a 1 KiB WQE) at most. Non-linear strides
 * are 256 bytes, so the headers copied into the skb (up to 256) sit in one
 * stride and one page.
 */
constexpr u32 kLogStridingWqeBuf = 16;
constexpr u32 kMaxLogStridingWqeBuf = 18;
constexpr u32 kLogNonLinearStride = 8;
constexpr u32 kMaxStridingWqeSegs =
	(1u << prm::kRxWqeStridingMaxLogStride) / sizeof(prm::DataSeg) - 1;
/*
 * A striding RQ's CQ holds a CQE for every stride posted (each CQE
 * consumes at least one), up to 2^13 CQEs (512 KiB): beyond that only
 * a flood of minimum-size frames unpolled could overrun it, which the
 * device reports and the RQ recovers from.
 */
constexpr u32 kMaxLogStridingCqes = 13;
/* At least this many WQEs, so one is posted while the device fills another. */
constexpr u32 kMinLogStridingWqes = 2;
/* Header bytes of a non-linear frame copied into its skb's head (mlx5's 256). */
constexpr u32 kRxMaxHead = 256;
static_assert(kRxMaxHead <= 1u << kLogNonLinearStride);

/*
 * Cyclic RQ geometry for an MTU: linear while a frame with its headroom
 * (the OS's XDP headroom with a program, its skb headroom without) and
 * tailroom fits a page, in a stride of that rounded up to a power of two
 * (XDP: a page); otherwise kRxFragSize fragments, the last sized to the
 * rest (kPageSize ones when four of kRxFragSize cannot hold a frame);
 * with XDP, a page per fragment, the first keeping the XDP headroom and
 * tailroom (a multi-buffer frame). False when no layout holds a frame.
 */
bool rx_layout(const scx_os_layout &os, u32 mtu, bool xdp, RqLayout *out);
/*
 * Striding RQ geometry for an MTU and ring size (log packets): linear
 * strides when a frame with its headroom (the OS's XDP headroom with a
 * program, its skb headroom without) and tailroom fits one page, a whole
 * page with XDP; non-linear 256-byte strides otherwise. False when the
 * device cannot take it (no striding RQ, or XDP would need non-linear
 * strides).
 */
bool rx_striding_layout(const prm::HcaCaps &caps, const scx_os_layout &os, u32 mtu,
			u32 log_rq_size, bool xdp, RqLayout *out);
/*
 * SHAMPO geometry: non-linear 256-byte strides (payloads land back to
 * back, the headers go to the header ring), 64 KiB reservations (the GRO
 * limit), 64 packets per reservation (a 1500-byte MTU fills one with 45
 * segments; pure ACKs take no stride), 256-byte header entries (every TCP
 * header with options and two VLAN tags). False where the device has no
 * SHAMPO or cannot take the geometry.
 */
constexpr u32 kShampoLogRes = 16;
constexpr u32 kShampoLogResPkts = 6;
constexpr u32 kShampoLogHdEntry = 8;
bool rx_shampo_layout(const prm::HcaCaps &caps, const scx_os_layout &os, u32 mtu,
		      u32 log_rq_size, RqLayout *out);
/* Largest MTU with an XDP program: one order-0 page per packet with the OS's head- and tailroom. */
u32 xdp_max_mtu(const scx_os_layout &os);
/* The OS's layout is one the core can build buffers for (its page size, a frame fits). */
bool os_layout_ok(const scx_os_layout &os);

/* ---- interrupt moderation (mlx5's defaults; the limits are the CQ fields' widths) ---- */

constexpr u32 kRxModerUsecsFromEqe = 16;
constexpr u32 kRxModerUsecsFromCqe = 3;
constexpr u32 kRxModerFrames = 32;
constexpr u32 kTxModerUsecs = 16;
constexpr u32 kTxModerFrames = 32;
constexpr u32 kMaxModerUsecs = prm::kCqMaxPeriod;
constexpr u32 kMaxModerFrames = prm::kCqMaxCount;

scx_cq_moder moder_default(bool rx, bool from_cqe);
/* A port's moderation at creation: RX from CQE when the device has it, TX from EQE. */
scx_port_moder moder_port_default(const prm::HcaCaps &caps);
/*
 * Moderation this device takes for a direction; false with the reason (in
 * ethtool's words) in *why and the errno in *err.
 */
bool moder_ok(const prm::HcaCaps &caps, const scx_cq_moder &m, bool rx, const char **why,
	      int *err);

/* ---- a channel set's parameters ---- */

struct ChannelParams;

/* Channel parameters from the shim's port parameters, every rule applied; 0 or a negative errno. */
int params_build(const scx_port *p, const scx_port_params *params, ChannelParams *cp);

} /* namespace softcx::en */
