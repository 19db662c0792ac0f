/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The emulated adapter: its functions (one per port, cabled in pairs), the
 * capabilities of each model, and the fixed per-function object tables.
 *
 * Every object slot (CQ, SQ, RQ, RSS) and every lock exists from adapter
 * creation to adapter destruction. A data path that holds a stale object
 * number therefore always touches valid memory: it finds the slot, takes
 * the slot's lock and compares the live object number before it goes near
 * ring memory. Object numbers carry a generation so that a stale number
 * never matches a slot that was reused.
 */
#pragma once

#include "prm/cmd.h"
#include "prm/counters.h"
#include "prm/cqe.h"
#include "prm/packet.h"
#include "prm/wqe.h"
#include "prm/types.h"
#include "hw/striding.h"
#include "softcx/hw.h"
#include "softcx/os.h"

namespace softcx::hw {

/*
 * ---- limits: what one adapter and each of its functions can hold ----
 * Reported in HcaCaps where the caps have a field (model_caps()); a driver
 * learns them from QUERY_HCA_CAP and sizes itself (or refuses) by them.
 * The object tables are fixed arrays in each function: a slot costs a few
 * dozen bytes and a lock; an SQ's scratch memory is allocated only by
 * CREATE_SQ.
 */
constexpr u32 kMaxFunctions = 16;
constexpr u32 kMaxSqs = 384;
constexpr u32 kMaxRqs = 128;
/* Data segments of a striding RQ WQE at most (its largest log_wq_stride, less the next segment). */
constexpr u32 kMaxStridingSegs = (1u << prm::kRxWqeStridingMaxLogStride) / 16 - 1;
constexpr u32 kMaxCqs = kMaxSqs + kMaxRqs;	/* one for every queue */
/* RSS objects: a channel set's default one and its contexts, two sets during a switch */
constexpr u32 kMaxRss = 64;
constexpr u32 kMaxVxlanPorts = 4;	/* cap max_vxlan_udp_ports, as mlx5 assumes without the cap */
constexpr u32 kLogMaxFlowTable = 8;	/* flow table entries (prm::SetFlowEntryIn) */
constexpr u32 kMaxFlowEntries = 1u << kLogMaxFlowTable;
/* MODIFY_NIC_VPORT_CONTEXT's address lists */
constexpr u32 kLogMaxUcList = 5;
constexpr u32 kLogMaxMcList = 6;
constexpr u32 kMaxVportAddrs = (1u << kLogMaxUcList) + (1u << kLogMaxMcList);
constexpr u32 kLogMaxSqSize = 13;	/* WQEBBs */
constexpr u32 kLogMaxRqSize = 13;	/* WQEs */
constexpr u32 kLogMaxCqSize = 16;	/* CQEs */
using prm::kMaxHwMtu;
using prm::kMinFrame;
constexpr u32 kMaxLsoSize = 256 * 1024;
/* Largest striding RQ WQE buffer (stride size x strides): 256 KiB. */
constexpr u32 kLogMaxStridingWqeBuf = 18;

/*
 * Object number = type << 21 | generation << 10 | slot. The type keeps an SQ
 * number from naming an RQ (or a CQ ...) by accident; the generation
 * (1..0x7ff) keeps a stale number from matching a reused slot. Numbers are
 * never 0 and fit the 24-bit sqn field of a ctrl segment.
 */
enum class ObjType : u32 { Cq = 1, Sq = 2, Rq = 3, Rss = 4 };
constexpr u32 kObjIxBits = 10;
constexpr u32 kObjIxMask = (1u << kObjIxBits) - 1;
constexpr u32 kObjGenBits = 11;
constexpr u32 kObjGenMax = (1u << kObjGenBits) - 1;
constexpr u32 kObjTypeShift = kObjIxBits + kObjGenBits;
static_assert(kMaxSqs <= kObjIxMask + 1 && kMaxRqs <= kObjIxMask + 1 &&
	      kMaxCqs <= kObjIxMask + 1 && kMaxRss <= kObjIxMask + 1);
static_assert(((u32)ObjType::Rss << kObjTypeShift) + (1u << kObjTypeShift) - 1 < (1u << 24),
	      "object numbers must fit 24 bits");

/* ---- completion queue ---- */

/*
 * A CQ's moderation (prm::CqModeration) packed in one word, so that a
 * MODIFY_CQ changes it with one store while engines read it: period in us
 * (12 bits), max count (16 bits), period mode (1 bit).
 */
constexpr u32 kModerCountShift = 12;
constexpr u32 kModerModeShift = 28;
constexpr u32 moder_pack(u32 period, u32 count, u32 mode)
{
	return period | count << kModerCountShift | (mode & 1) << kModerModeShift;
}
constexpr u32 moder_period(u32 m) { return m & prm::kCqMaxPeriod; }
constexpr u32 moder_count(u32 m) { return (m >> kModerCountShift) & prm::kCqMaxCount; }
constexpr u32 moder_mode(u32 m) { return (m >> kModerModeShift) & 1; }

/*
 * CQE compression state (cq_comp.cpp), under the lock of the queue that
 * writes the CQ. en/fmt/layout: the CQ context, set at CREATE_CQ.
 */
struct CqComp {
	u8 en;			/* cqe_comp_en */
	u8 fmt;			/* prm::MiniCqeFormat */
	u8 layout;		/* prm::CqeCompLayout */
	u8 chain;		/* title holds the run the next CQE may join */
	u32 n;			/* basic: packets held (title slot at pi); enhanced: minis in the slot at pi */
	u32 held;		/* slots written from pi on, not yet published */
	u16 next_wqe_counter;	/* the wqe_counter that continues the run */
	prm::Cqe64 title;	/* the run's first CQE: its shared fields */
};

struct Cq {
	/* Data path (the owning queue's lock serialises writers). */
	u8 *ring;		/* 2^log_size CQEs of 64 bytes */
	u32 log_size;
	u32 pi;			/* producer index, published with __atomic */
	u32 armed;		/* 1 between an arm doorbell and the interrupt */
	u32 c_eqn;
	/*
	 * Moderation (cq.cpp), all __atomic: the writer, the arm doorbell,
	 * the timer and MODIFY_CQ meet here without a lock.
	 */
	u32 moder;		/* moder_pack(); written by commands */
	u32 arm_ci;		/* consumer index the last arm named */
	u32 timer_queued;	/* 1 from a start (or a re-arm) until the callback begins: the right to start it */
	u64 deadline;		/* when the armed CQ's pending CQEs are due (timer clock) */
	u64 last_event;		/* when the CQ last signalled (period from EQE) */
	u64 timer_expires;	/* what the timer was last started for: the callback runs no earlier */
	/* Slot lifetime: set at adapter creation. */
	struct ::scx_hw_function *fn;
	struct scx_os_timer *timer;
	const u32 *dbrec;	/* be32 set_ci, arm */
	u32 ci;			/* the last set_ci read (24 bits): read again when full */
	u8 status;		/* prm::kCqStatus*, __atomic; OVERFLOW until its queue's reset */
	u8 in_place;		/* CQEs are built in their slot (cq_open_slot): no compression, basic layout */
	CqComp comp;
	/*
	 * A compressing CQ's completion ledger (cq.cpp, moderation):
	 * done_at[slot] = completions (packets) published up to the end of
	 * that slot, cumulative; written before pi is published. Allocated by
	 * CREATE_CQ with cqe_comp_en (2^log_size entries), freed by DESTROY_CQ;
	 * nullptr otherwise (one completion a slot).
	 */
	u32 *done_at;
	u32 done;		/* completions published (the writer's) */
	/* Control (command lock); read locklessly by the arm doorbell. */
	u32 num;		/* 0 while the slot is free */
	u32 gen;
	u32 users;		/* SQs/RQs reporting to this CQ (0 or 1) */
};

/* ---- send queue ---- */

struct Rss;

struct RssResult {
	u32 rqn;
	u32 hash;
	u8 hash_type;		/* prm::kRssHash* bits for the CQE */
};

/*
 * The last RSS decision for TCP/UDP frames from one sending SQ (in its
 * scratch, under its lock): an exact-match cache, as software switches
 * keep. Hardware hashes in gates; the model spent about 160 instructions
 * a frame on it (rss_steer and rss_read, bench/vm/icount.sh), a hit costs
 * about 35, and a burst from one SQ is mostly one flow. A miss costs the
 * compare more. A hit needs the same default object at the same
 * sequence count (no command rewrote it since), and the same L3 type,
 * protocol, addresses and ports; the result is then the one the object
 * gave. Empty while rss is null (a new SQ's zeroed scratch).
 */
struct RssCache {
	const Rss *rss;			/* the object that decided */
	u32 seq;			/* its (even) sequence count then */
	u8 l4_proto;
	u8 ipv6;
	u8 key[prm::kRssKeySize - 4];	/* addresses (2 x 4 or 2 x 16 bytes), then ports */
	RssResult res;
};

/* Per-SQ device memory, allocated by CREATE_SQ (process context). */
struct Gather {
	const u8 *cpu;
	u32 len;
};
using prm::kMaxWqeBytes;
struct SqScratch {
	/* the frame being assembled, and room for the FCS a receiving RQ may scatter (rx.h) */
	u8 frame[kMaxHwMtu + prm::kFcsLen];
	u8 lso_hdr[kMaxWqeBytes];	/* LSO header template (inline headers) */
	u8 wqe[kMaxWqeBytes];		/* the WQE being executed, fetched whole (tx_engine.cpp) */
	Gather gather[64];		/* LSO payload segments, translated */
	RssCache rss_cache;		/* where the peer's RSS sent this SQ's last flow (hw/rss.h) */
};

struct Sq {
	struct scx_os_lock *lock;		/* SCX_LOCK_HW_SQ, lives with the slot */
	/* Data path, under lock. */
	u32 num;			/* 0 while free; written under cmd + this lock */
	u8 state;			/* prm::QueueState */
	u16 cc;				/* consumer counter in WQEBBs */
	u8 *ring;
	u32 log_size;			/* WQEBBs */
	const u32 *dbrec;		/* be32[2] */
	Cq *cq;
	SqScratch *scratch;
	u8 min_inline_mode;		/* max(caps, SQ context) */
	u8 allow_mpw;
	/* Control only. */
	u32 gen;
};

/* ---- receive queue (cyclic or striding) ---- */

/*
 * SHAMPO on a striding RQ (shampo.cpp; formats and rules in prm/cmd.h and
 * prm/cqe.h). The context is set by CREATE_RQ; the rest is data path state
 * under the RQ's lock, reset with the RQ.
 */
constexpr u32 kShampoMaxHdr = 255;	/* CqeShampo header_size is 8 bits */
struct ShampoRq {
	/* Context; en == 0: no SHAMPO. */
	u8 en;
	u8 match;		/* prm::ShampoMatchCriteria */
	u8 log_res;		/* reservation bytes */
	u8 log_max_pkts;	/* packet CQEs per reservation */
	u8 log_hd_entry;	/* header entry bytes */
	u8 log_hd_num;		/* header entries */
	const u8 *hd_ring;	/* prm::ShampoHdrWqe[1 << log_hd_num] */
	/* Placement in the current WQE (rq->wqe_ix; rq->stride: the next free stride). */
	u8 wqe_open;		/* its data segments were read (striding_wqe_ok) */
	u32 pos;		/* byte after the last data placed in it */
	u32 res_ix;		/* reservation of the last packet */
	u32 res_pkts;		/* packet CQEs that reservation took */
	u32 hd_pi;		/* header entries taken, free running */
	/* The open session (in reservation res_ix). */
	u8 open;
	u8 id_mode;		/* kIdUnknown, kIdIncrement, kIdFixed (shampo.cpp) */
	u8 hdr_len;		/* its first packet's headers: l2..l4 */
	u8 l3_off, l4_off;
	u16 last_id;		/* IPv4 ID of its last packet */
	u8 vlan;		/* its packets' tag was stripped (RxFrame vlan): same TCI to join */
	u16 vlan_tci;
	u32 next_seq;		/* TCP seq the next packet must carry */
	u32 mss;		/* its first packet's payload */
	u32 bytes;		/* payload so far */
	u8 head[kShampoMaxHdr];	/* its first packet's headers */
};

struct Rq {
	struct scx_os_lock *lock;		/* SCX_LOCK_HW_RQ */
	u32 num;
	u8 state;
	u32 cc;				/* consumed (retired) WQEs, free running */
	u16 posted;			/* last value read from the dbrec */
	u8 *ring;
	u32 log_size;
	const u32 *dbrec;
	Cq *cq;
	u32 gen;
	/* Striding RQ (linked list); striding == 0 for a cyclic RQ. */
	u8 striding;
	u8 log_wqe_bytes;		/* ring stride (cyclic too): [next segment +] data segments */
	u8 log_stride;			/* bytes per stride */
	u8 log_num_strides;		/* strides per WQE */
	u16 wqe_ix;			/* the WQE being filled (follows next_wqe_index) */
	u32 stride;			/* its next free stride */
	StridingShape wqe_shape;	/* its data segments, as the device read them */
	u32 seg_n;			/* its data segments ... */
	void *seg_cpu[kMaxStridingSegs];	/* ... where each is for the CPU (NULL: a DMA fault) */
	u8 vsd;				/* VLAN strip disable (prm::CreateRqIn vsd) */
	u8 scatter_fcs;			/* the FCS follows each frame (prm::CreateRqIn) */
	ShampoRq shampo;
};

struct ToeplitzTable;

/*
 * RSS object (TIR + indirection table). Read by RX engines without a lock
 * under a sequence count; written by commands (under the command lock).
 * The Toeplitz table is allocated by the first CREATE_RSS into the slot and,
 * like the slot, lives until the adapter is destroyed: an RX engine may still
 * be reading it when DESTROY_RSS runs (its sequence count then makes it
 * retry), so it cannot be freed earlier.
 */
struct Rss {
	u32 seq;			/* odd while a command rewrites the object */
	u32 num;
	u32 gen;
	u32 fields;			/* prm::kRssField* of type t at bit t * kRssTypeShift */
	u32 log_size;
	u8 flow_only;			/* prm::kRssFlowOnly: never the default */
	u8 inner;			/* prm::kRssInner */
	u64 created;			/* creation order: the newest live one steers */
	u8 key[prm::kRssKeySize];
	ToeplitzTable *toeplitz;	/* per key; set before the slot is first live */
	u32 rqn[1u << prm::kRssMaxTableLog];
};

/*
 * The flow table (prm::SetFlowEntryIn; hw/flow.h), normalised: a frame's
 * match fields as kFlowWords host-order words (flow_key()), compared
 * under each entry's mask. Read by RX engines without a lock under the
 * sequence count, as an RSS object; written by commands.
 */
/* version/protocol/l4_ok, ports, 4 + 4 address words, DMAC + ethertype, SMAC + cvlan */
constexpr u32 kFlowWords = 14;
struct FlowEntry {
	u32 mask[kFlowWords];
	u32 value[kFlowWords];	/* only bits of mask */
	u32 action;		/* prm::FlowAction; kFlowFree: unused */
	u32 dest;
};
struct FlowTable {
	u32 seq;		/* odd while a command rewrites an entry */
	u32 n;			/* 1 + the highest used index; 0: empty, the RX path's one load */
	FlowEntry e[kMaxFlowEntries];
};

/*
 * The function's RX address and VLAN filter (prm::ModifyNicVportIn), read
 * by the RX engine without a lock: `fast` in one load for the usual frame,
 * the lists and the VLAN maps under the sequence count. Written by the
 * command only.
 */
constexpr u64 kVportPassAll = 1ull << 63;	/* fast: every frame passes */
constexpr u64 kVportFirstUc = 1ull << 62;	/* fast: bits 47:0 hold the first unicast address */
constexpr u32 kVlanMapWords = prm::kVlanIds / 64;
struct VportFilter {
	u64 fast;		/* __atomic: kVportPassAll, or kVportFirstUc | the address */
	u32 seq;		/* odd while a command rewrites the lists */
	u8 promisc;		/* prm::VportPromisc */
	u8 n_uc;
	u8 n_mc;
	u8 vlan;		/* prm::VportVlan: which outer tags are filtered */
	u64 addr[kMaxVportAddrs];	/* __atomic: the unicast, then the multicast (as `fast`'s 47:0) */
	u64 vids[2][kVlanMapWords];	/* __atomic: C-tag, S-tag maps; VLAN ID v is bit v % 64 of word v / 64 */
};

/* A port's link settings and state (hw/link.h; the adapter's link lock). */
struct Link {
	u32 cap;		/* prm::LinkProto bits the port supports */
	u32 admin;		/* offered (autoneg) or forced: a subset of cap, never empty */
	u32 oper;		/* the protocol running, one bit; 0 while down */
	u32 partner;		/* the peer's offer, when both negotiated the running link */
	u8 admin_up;		/* the driver's admin state (mlx5's PAOS) */
	u8 an_disable;		/* autoneg off */
	u8 down_reason;		/* prm::LinkDown */
	u16 fec_admin;		/* prm::FecMode policy, 0 for auto */
	u16 fec_oper;		/* the FEC running, one bit; 0 while down */
};

/*
 * The internal timer's ticks per ns as 64.64 fixed point: at most one tick
 * short of the exact floor(ns * khz * (1e9 + kTimerErrorPpb) / 1e15).
 */
constexpr u32 kTimerErrorPpb = 20000;	/* +20 ppm: the oscillator runs fast */
struct TimerRate {
	u64 whole;
	u64 frac;	/* / 2^64 */
};
TimerRate timer_rate(u32 khz);

} /* namespace softcx::hw */

/* One PCI function = one port. bus::Function aliases this type. */
struct scx_hw_function {
	struct scx_hw_adapter *adapter;
	struct scx_hw_function *peer;		/* the other end of the cable */
	softcx::u32 ix;
	void *irq_ctx;			/* __atomic: set by scx_hw_set_irq_ctx() */
	struct scx_os_lock *cmd_lock;		/* SCX_LOCK_HW_CMD: object tables */
	softcx::s32 active_rss;		/* __atomic; slot index or -1 */
	softcx::u64 rss_created;	/* creation counter (command lock) */
	softcx::u32 timing;		/* __atomic: time doorbells into bus.emul_ns */
	softcx::u32 fcs_chk_off;	/* __atomic: MODIFY_PORT fcs_chk 0 (bad FCS received) */
	/*
	 * ADD/DELETE_VXLAN_UDP_DPORT (command lock), 0 = free: stored with
	 * __atomic, read by the engines without a lock (vxlan_port_known()).
	 */
	softcx::u16 vxlan_port[softcx::hw::kMaxVxlanPorts];
	/*
	 * __atomic: bit (port & 63) of each port in the table, and of
	 * GENEVE's with cap geneve (tunnel_port_bits()); RX tests it first
	 */
	softcx::u64 tunnel_port_bits;
	/*
	 * __atomic: frames still to damage on the wire (hw/mac.h): FCS errors
	 * (scx_hw_inject_fcs_errors) in the low 32 bits, bit errors
	 * (scx_hw_inject_bit_errors) in the high ones; one load per frame.
	 */
	softcx::u64 wire_faults;
	softcx::u32 wire;		/* __atomic: softcx::hw::Wire bits (hw/link.h) */
	softcx::hw::Link link;		/* the adapter's link_lock */
	softcx::prm::BusCounters bus;		/* bus_add()/bus_read() only */
	softcx::prm::QCounters qc;		/* bus_add()/bus_read() only */
	softcx::prm::PortCounters port;		/* the MAC's (hw/mac.h); bus_add()/bus_read() only */
	softcx::hw::Cq cq[softcx::hw::kMaxCqs];
	softcx::hw::Sq sq[softcx::hw::kMaxSqs];
	softcx::hw::Rq rq[softcx::hw::kMaxRqs];
	softcx::hw::Rss rss[softcx::hw::kMaxRss];
	softcx::hw::FlowTable flows;
	softcx::hw::VportFilter vport;
};

struct scx_hw_adapter {
	void *os_dev;
	softcx::prm::HcaCaps caps;	/* as QUERY_HCA_CAP returns them (big-endian fields) */
	softcx::u64 timer_base_ns;	/* scx_os_timer_now() at which the internal timer read 0 */
	softcx::hw::TimerRate timer_rate;	/* caps.device_frequency_khz, kTimerErrorPpb fast */
	softcx::u32 nr_functions;
	struct scx_os_lock *link_lock;	/* SCX_LOCK_HW_LINK: every function's link (hw/link.h) */
	struct scx_hw_function *fn[softcx::hw::kMaxFunctions];
};

namespace softcx::hw {

/* softcx/hw.h also declares a function named scx_hw_function: name the struct explicitly. */
using Function = struct ::scx_hw_function;
using Adapter = struct ::scx_hw_adapter;

inline const prm::HcaCaps &caps_of(const Function *fn) { return fn->adapter->caps; }
inline void *os_dev_of(const Function *fn) { return fn->adapter->os_dev; }

/* Whether UDP destination port `port` (host order) is one of the function's VXLAN ports. */
inline bool vxlan_port_known(const Function *fn, u16 port)
{
	for (u32 i = 0; i < kMaxVxlanPorts; i++)
		if (port && __atomic_load_n(&fn->vxlan_port[i], __ATOMIC_RELAXED) == port)
			return true;
	return false;
}

/* fn->tunnel_port_bits as the table and the caps make them */
inline u64 tunnel_port_bits(const Function *fn)
{
	u64 bits = caps_of(fn).geneve ? 1ull << (prm::kGeneveUdpPort & 63) : 0;

	for (const u16 &p : fn->vxlan_port)
		if (u16 cur = __atomic_load_n(&p, __ATOMIC_RELAXED))
			bits |= 1ull << (cur & 63);
	return bits;
}

/*
 * False when UDP port `port` is surely no tunnel's the device parses: one
 * load and a bit test for the receive path, where most UDP frames are not.
 */
inline bool tunnel_port_maybe(const Function *fn, u16 port)
{
	return (__atomic_load_n(&fn->tunnel_port_bits, __ATOMIC_RELAXED) >> (port & 63)) & 1;
}

/*
 * The free-running internal timer (prm::kInitSegTimerH/L, CQE timestamps):
 * ticks of the adapter's clock since timer_base_ns. Any context; a
 * multiply per read (it is read for every CQE).
 */
inline u64 timer_ticks(u64 elapsed_ns, const TimerRate &r)
{
	return elapsed_ns * r.whole + (u64)(((unsigned __int128)elapsed_ns * r.frac) >> 64);
}
/* The device timer's value at OS timer clock time now_ns. */
inline u64 timer_at(const Function *fn, u64 now_ns)
{
	const Adapter *a = fn->adapter;
	return timer_ticks(now_ns - a->timer_base_ns, a->timer_rate);
}
inline u64 timer_read(const Function *fn) { return timer_at(fn, scx_os_timer_now()); }

/* Slot index named by an object number, or -1 when it cannot name a slot of this table. */
inline int obj_slot(u32 num, ObjType type, u32 table_size)
{
	u32 ix = num & kObjIxMask;
	u32 gen = (num >> kObjIxBits) & kObjGenMax;
	if ((num >> kObjTypeShift) != (u32)type || gen == 0 || ix >= table_size)
		return -1;
	return (int)ix;
}

/* Next object number for a slot being (re)used; bumps the slot's generation. */
inline u32 obj_next_num(u32 *gen, ObjType type, u32 ix)
{
	*gen = *gen >= kObjGenMax ? 1 : *gen + 1;
	return ((u32)type << kObjTypeShift) | (*gen << kObjIxBits) | ix;
}

/*
 * The function's counters (prm/counters.h): engines of different queues
 * update them under different locks, so every update is an atomic add;
 * readers (QUERY_* commands) take a relaxed snapshot.
 */
inline void bus_add(u64 *ctr, u64 v) { __atomic_fetch_add(ctr, v, __ATOMIC_RELAXED); }
inline u64 bus_read(const u64 *ctr) { return __atomic_load_n(ctr, __ATOMIC_RELAXED); }

inline u32 load_u32(const u32 *p) { return __atomic_load_n(p, __ATOMIC_ACQUIRE); }
inline void store_u32(u32 *p, u32 v) { __atomic_store_n(p, v, __ATOMIC_RELEASE); }

/*
 * A sequence count that lock-free readers check (RSS objects, the flow
 * table): odd from begin to end. Writers hold the command lock.
 */
inline void seq_write_begin(u32 *seq)
{
	__atomic_store_n(seq, *seq + 1, __ATOMIC_RELAXED);
	__atomic_thread_fence(__ATOMIC_RELEASE);
}
inline void seq_write_end(u32 *seq) { __atomic_store_n(seq, *seq + 1, __ATOMIC_RELEASE); }

/* A doorbell record word: big-endian in DMA memory, written by the driver at any time. */
inline u32 dbrec_read(Function *fn, const u32 *dbrec, u32 word)
{
	bus_add(&fn->bus.rd_dbr_bytes, 4);
	return __builtin_bswap32(__atomic_load_n(&dbrec[word], __ATOMIC_ACQUIRE));
}

/* A DMA access the OS's view refused (bus_dma_faults). */
inline void dma_fault(Function *fn) { bus_add(&fn->bus.dma_faults, 1); }

/*
 * Every DMA access of the device goes through here: the CPU address behind
 * [dma, dma + len), or NULL (counted in dma_faults) when the OS's view does
 * not map that range for this adapter at this moment, as an IOMMU would
 * refuse it. Callers turn NULL into an error CQE or a failed command.
 */
inline void *dma_translate(Function *fn, u64 dma, u32 len)
{
	void *cpu = scx_os_dma_to_cpu(os_dev_of(fn), dma, len);
	if (__builtin_expect(!cpu, 0))
		dma_fault(fn);
	return cpu;
}

} /* namespace softcx::hw */
