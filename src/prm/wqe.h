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

struct EthSeg {
	u8 swp_offsets[4];
	u8 cs_flags;
	u8 swp_flags;
	be16 mss;
	be32 flow_table_metadata;
	be16 inline_hdr_sz;	/* bytes inlined; first two live in inline_hdr_start */
	u8 inline_hdr_start[2];
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

/* A cyclic RQ WQE: one data segment pointing at the receive buffer. */
struct RxWqeCyc {
	DataSeg data;
};
static_assert(sizeof(RxWqeCyc) == 16);
constexpr u8 kRxWqeCycLogStride = 4;	/* CREATE_RQ log_wq_stride of a cyclic RQ */
static_assert((1u << kRxWqeCycLogStride) == sizeof(RxWqeCyc));

constexpr u32 kReservedLkey = 0x100;	/* the "physical" mkey the driver uses */

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

} /* namespace softcx::prm */
