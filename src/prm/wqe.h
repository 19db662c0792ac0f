/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Send and receive work queue entry formats (big-endian, as the PRM has them).
 * A send WQE is a sequence of 16-byte segments ("DS") packed into 64-byte
 * basic blocks (WQEBBs): ctrl, eth, then data pointers or inline data.
 */
#pragma once

#include "types.h"

namespace softcx::prm {

constexpr u32 kSendWqeBB = 64;		/* WQEBB size */
constexpr u32 kSendWqeDS = 16;		/* data segment unit */
constexpr u32 kDsPerWqeBB = kSendWqeBB / kSendWqeDS;
constexpr u32 kMaxSendWqeBBs = 16;	/* 1 KiB */
constexpr u32 kMaxDsCount = 63;		/* 6-bit ds field */
constexpr u32 kEmptyDsCount = 2;	/* ctrl + eth */
constexpr u32 kMaxWqeBytes = kMaxSendWqeBBs * kSendWqeBB;

enum Opcode : u8 {
	kOpNop = 0x00,
	kOpSend = 0x0a,
	kOpLso = 0x0e,
	kOpEnhancedMpsw = 0x29,
};

/* ctrl.fm_ce_se */
constexpr u8 kCtrlCqUpdate = 0x08;	/* CE = 2: write a CQE for this WQE */

struct CtrlSeg {
	be32 opmod_idx_opcode;	/* 31:24 opmod, 23:8 wqe_index, 7:0 opcode */
	be32 qpn_ds;		/* 31:8 sqn, 5:0 ds count (whole WQE) */
	u8 signature;
	u8 rsvd[2];
	u8 fm_ce_se;
	be32 general_id;

	u8 opcode() const { return (u8)opmod_idx_opcode.get(); }
	u16 wqe_index() const { return (u16)(opmod_idx_opcode.get() >> 8); }
	u32 sqn() const { return qpn_ds.get() >> 8; }
	u32 ds_count() const { return qpn_ds.get() & 0x3f; }
	void set(u8 opcode, u16 index, u32 sqn, u32 ds)
	{
		opmod_idx_opcode.set(((u32)index << 8) | opcode);
		qpn_ds.set((sqn << 8) | (ds & 0x3f));
	}
};
static_assert(sizeof(CtrlSeg) == 16);

/* eth.cs_flags */
constexpr u8 kCsL3Inner = 0x10;
constexpr u8 kCsL4Inner = 0x20;
constexpr u8 kCsL3 = 0x40;
constexpr u8 kCsL4 = 0x80;

/*
 * eth bytes 12..15 are a union: inline_hdr {sz, start[2]} or insert
 * {type, vlan_tci}. type has kEthInsertVlan (bit 15, which no inline size
 * has): the device inserts a VLAN tag (TPID 0x8100, or 0x88a8 with
 * kEthInsertSvlan) with vlan_tci right after the source MAC, and the WQE
 * inlines no headers. Only a SEND on an SQ that needs no inline headers
 * may ask for it; the device refuses it (error CQE) in an LSO or MPSW WQE,
 * on an SQ whose min_wqe_inline_mode needs L2 headers inline, with any
 * other type bit, and for a gathered frame shorter than an Ethernet header.
 * A driver that inlines headers writes the tag into them instead.
 */
constexpr u16 kEthInsertVlan = 0x8000;
constexpr u16 kEthInsertSvlan = 0x0001;

struct EthSeg {
	u8 swp_offsets[4];
	u8 cs_flags;
	u8 swp_flags;
	be16 mss;
	be32 flow_table_metadata;
	be16 inline_hdr_sz;	/* bytes inlined; first two live in inline_hdr_start */
	u8 inline_hdr_start[2];

	/* insert view of bytes 12..15 */
	bool vlan_insert() const { return inline_hdr_sz.get() & kEthInsertVlan; }
	u16 insert_type() const { return inline_hdr_sz.get(); }
	u16 insert_vlan_tci() const { return load_be16(inline_hdr_start); }
	void set_vlan_insert(u16 tci, bool svlan)
	{
		inline_hdr_sz.set(kEthInsertVlan | (svlan ? kEthInsertSvlan : 0));
		store_be16(inline_hdr_start, tci);
	}
};
static_assert(sizeof(EthSeg) == 16);
/* Inline header bytes 2.. continue right after the eth segment. */
constexpr u32 kInlineHdrRestOff = sizeof(CtrlSeg) + sizeof(EthSeg);

constexpr u32 kInlineSegFlag = 0x80000000u;	/* data seg byte_count bit 31 */

struct DataSeg {
	be32 byte_count;
	be32 lkey;
	be64 addr;
};
static_assert(sizeof(DataSeg) == 16);

/* The single-packet send WQE header: ctrl + eth, then data segments. */
struct SendWqe {
	CtrlSeg ctrl;
	EthSeg eth;
	DataSeg data[2];
};
static_assert(sizeof(SendWqe) == kSendWqeBB);

/*
 * A cyclic RQ WQE: 2^(log_wq_stride - 4) data segments, 1 to 4 (CREATE_RQ
 * log_wq_stride 4 to 6). The device scatters a frame into them in order;
 * the list ends at the WQE's end or at the first segment whose lkey is
 * kInvalidLkey (the driver pads a WQE with those, length 0). RxWqeCyc is
 * its first segment.
 */
struct RxWqeCyc {
	DataSeg data;
};
static_assert(sizeof(RxWqeCyc) == 16);
constexpr u8 kRxWqeCycMinLogStride = 4;
constexpr u8 kRxWqeCycMaxLogStride = 6;
static_assert((1u << kRxWqeCycMinLogStride) == sizeof(RxWqeCyc));
constexpr u32 kRxWqeCycMaxSegs = (1u << kRxWqeCycMaxLogStride) / sizeof(DataSeg);

/*
 * A striding RQ WQE (linked list): the next-WQE segment, then the data
 * segments that together make the WQE's receive buffer, 2^(log stride size
 * + log number of strides) bytes, in order. The driver links WQE i to the
 * one it posts after i; the device follows next_wqe_index when it retires
 * a WQE. [emulator: a real ConnectX maps the buffer through a UMR-updated
 * mkey; here the WQE carries the page list itself, one data segment per
 * piece, so there is no ICOSQ. A segment with byte_count 0 ends the list.]
 */
struct SrqNextSeg {
	u8 rsvd0[2];
	be16 next_wqe_index;
	u8 signature;
	u8 rsvd1[11];
};
static_assert(sizeof(SrqNextSeg) == 16);

struct RxWqeStriding {
	SrqNextSeg next;
	DataSeg data[1];	/* 2^log_wq_stride / 16 - 1 of them */
};
static_assert(sizeof(RxWqeStriding) == 32);
/* WQE size of a striding RQ: a next segment and 1..63 data segments. */
constexpr u8 kRxWqeStridingMinLogStride = 5;
constexpr u8 kRxWqeStridingMaxLogStride = 10;

/*
 * Stride geometry in CREATE_RQ, encoded as the PRM does: stride size
 * 2^(6 + log_wqe_stride_size) bytes (64 B .. 8 KiB); number of strides
 * 2^(9 + n) for n = 0..7 (512 .. 64 Ki), or with the extended range bit
 * 2^(3 + n) for n = 0..5 (8 .. 256), a cap of newer devices
 * (HcaCaps.ext_stride_num_range). The driver encodes and the device
 * decodes with the pairs below, and nothing else.
 */
constexpr u32 kStrideSizeLogBase = 6;
constexpr u32 kStrideSizeLogMax = 13;
constexpr u32 kNumStridesLogBase = 9;
constexpr u32 kNumStridesLogMax = 16;
constexpr u32 kNumStridesLogExtBase = 3;
constexpr u32 kNumStridesLogExtMax = kNumStridesLogBase - 1;
constexpr u8 kNumStridesExt = 0x10;

/* What a decoder returns for a field value out of range (no valid log is 0). */
constexpr u32 kStrideLogInvalid = 0;

/* log_wqe_stride_size for strides of 2^log_stride bytes (6..13). */
constexpr u8 enc_log_stride_size(u32 log_stride)
{
	return (u8)(log_stride - kStrideSizeLogBase);
}

/* log2 of the stride size log_wqe_stride_size names, or kStrideLogInvalid. */
constexpr u32 dec_log_stride_size(u8 v)
{
	return v <= kStrideSizeLogMax - kStrideSizeLogBase ? kStrideSizeLogBase + v :
							       kStrideLogInvalid;
}

/* log_wqe_num_of_strides for 2^log_num strides: 9..16, or 3..8 in the extended range. */
constexpr u8 enc_log_num_strides(u32 log_num)
{
	return log_num >= kNumStridesLogBase ?
		       (u8)(log_num - kNumStridesLogBase) :
		       (u8)(kNumStridesExt | (u8)(log_num - kNumStridesLogExtBase));
}

/*
 * log2 of the strides per WQE log_wqe_num_of_strides names, or
 * kStrideLogInvalid; the extended range only where ext_range (the cap).
 */
constexpr u32 dec_log_num_strides(u8 v, bool ext_range)
{
	if (v & kNumStridesExt) {
		u32 n = v & (u8)~kNumStridesExt;
		return ext_range && n <= kNumStridesLogExtMax - kNumStridesLogExtBase ?
			       kNumStridesLogExtBase + n :
			       kStrideLogInvalid;
	}
	return v <= kNumStridesLogMax - kNumStridesLogBase ? kNumStridesLogBase + v :
							    kStrideLogInvalid;
}

/* The edges: each range's ends round-trip, one past them is refused. */
static_assert(enc_log_stride_size(6) == 0 && dec_log_stride_size(0) == 6);
static_assert(enc_log_stride_size(13) == 7 && dec_log_stride_size(7) == 13);
static_assert(dec_log_stride_size(enc_log_stride_size(5)) == kStrideLogInvalid);
static_assert(dec_log_stride_size(enc_log_stride_size(14)) == kStrideLogInvalid);
static_assert(enc_log_num_strides(9) == 0 && dec_log_num_strides(0, false) == 9);
static_assert(enc_log_num_strides(16) == 7 && dec_log_num_strides(7, false) == 16);
static_assert(dec_log_num_strides(enc_log_num_strides(17), true) == kStrideLogInvalid);
static_assert(enc_log_num_strides(3) == kNumStridesExt &&
	      dec_log_num_strides(kNumStridesExt, true) == 3);
static_assert(enc_log_num_strides(8) == (kNumStridesExt | 5) &&
	      dec_log_num_strides(kNumStridesExt | 5, true) == 8);
static_assert(dec_log_num_strides(enc_log_num_strides(2), true) == kStrideLogInvalid);
static_assert(dec_log_num_strides(kNumStridesExt | 6, true) == kStrideLogInvalid);
static_assert(dec_log_num_strides(enc_log_num_strides(8), false) == kStrideLogInvalid);
static_assert(dec_log_num_strides(enc_log_num_strides(9), true) == 9);

/* Striding RQ CQE: byte_cnt = filler bit, consumed strides, packet length. */
constexpr u32 kMpwrqCqeFiller = 0x80000000u;
constexpr u32 kMpwrqCqeStridesShift = 16;
constexpr u32 kMpwrqCqeStridesMask = 0x7fff;
constexpr u32 kMpwrqCqeLenMask = 0xffff;

constexpr u32 kReservedLkey = 0x100;	/* the "physical" mkey the driver uses */
/*
 * The lkey that ends a cyclic WQE's scatter list. [emulator: a ConnectX
 * takes MLX5_INVALID_LKEY (0x100) for this; here 0x100 is already the
 * driver's data mkey, so the end mark is 0, which no mkey has.]
 */
constexpr u32 kInvalidLkey = 0;

/*
 * A SHAMPO header ring entry (cmd.h: CreateRqIn headers_pas): one data
 * segment naming the entry's buffer, byte_count = the entry size, lkey
 * kReservedLkey; the device reads it each time it writes the entry, so
 * the driver may point an entry at another buffer while the entry is its
 * own. [emulator: a ConnectX maps the header buffer through a KSM UMR.]
 */
struct ShampoHdrWqe {
	DataSeg data;
};
static_assert(sizeof(ShampoHdrWqe) == 16);

/* Doorbell record words (host memory, big-endian). */
constexpr u32 kRcvDbr = 0;
constexpr u32 kSndDbr = 1;


/* Layout as the PRM has it: sizes and field offsets are part of the format. */
static_assert(__builtin_offsetof(CtrlSeg, opmod_idx_opcode) == 0);
static_assert(__builtin_offsetof(CtrlSeg, qpn_ds) == 4);
static_assert(__builtin_offsetof(CtrlSeg, signature) == 8);
static_assert(__builtin_offsetof(CtrlSeg, rsvd) == 9);
static_assert(__builtin_offsetof(CtrlSeg, fm_ce_se) == 11);
static_assert(__builtin_offsetof(CtrlSeg, general_id) == 12);
static_assert(__builtin_offsetof(EthSeg, swp_offsets) == 0);
static_assert(__builtin_offsetof(EthSeg, cs_flags) == 4);
static_assert(__builtin_offsetof(EthSeg, swp_flags) == 5);
static_assert(__builtin_offsetof(EthSeg, mss) == 6);
static_assert(__builtin_offsetof(EthSeg, flow_table_metadata) == 8);
static_assert(__builtin_offsetof(EthSeg, inline_hdr_sz) == 12);
static_assert(__builtin_offsetof(EthSeg, inline_hdr_start) == 14);
static_assert(__builtin_offsetof(DataSeg, byte_count) == 0);
static_assert(__builtin_offsetof(DataSeg, lkey) == 4);
static_assert(__builtin_offsetof(DataSeg, addr) == 8);
static_assert(__builtin_offsetof(SendWqe, ctrl) == 0);
static_assert(__builtin_offsetof(SendWqe, eth) == 16);
static_assert(__builtin_offsetof(SendWqe, data) == 32);
static_assert(__builtin_offsetof(RxWqeCyc, data) == 0);
static_assert(__builtin_offsetof(ShampoHdrWqe, data) == 0);
static_assert(__builtin_offsetof(SrqNextSeg, next_wqe_index) == 2);
static_assert(__builtin_offsetof(SrqNextSeg, signature) == 4);
static_assert(__builtin_offsetof(RxWqeStriding, next) == 0);
static_assert(__builtin_offsetof(RxWqeStriding, data) == 16);

} /* namespace softcx::prm */
