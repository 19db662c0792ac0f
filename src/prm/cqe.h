/* SPDX-License-Identifier: GPL-2.0 */
/* Completion queue entry format (64 bytes, big-endian). */
#pragma once

#include "types.h"

namespace softcx::prm {

constexpr u32 kCqeSize = 64;

enum CqeOpcode : u8 {
	kCqeReq = 0x0,		/* send completed */
	kCqeRespSend = 0x2,	/* packet received */
	kCqeReqErr = 0xd,
	kCqeRespErr = 0xe,
	kCqeInvalid = 0xf,
};

/* hds_ip_ext bits */
constexpr u8 kCqeL2Ok = 0x01;
constexpr u8 kCqeL3Ok = 0x02;
constexpr u8 kCqeL4Ok = 0x04;

/* l4_l3_hdr_type: bits 3:2 L3, bits 6:4 L4 */
constexpr u8 kCqeL3None = 0, kCqeL3Ipv6 = 1, kCqeL3Ipv4 = 2;
constexpr u8 kCqeL4None = 0, kCqeL4TcpNoAck = 1, kCqeL4Udp = 2, kCqeL4TcpAckNoData = 3,
	     kCqeL4TcpAckData = 4;

/* rss_hash_type: bits 3:2 IP kind, bits 7:6 L4 kind */
constexpr u8 kRssHashIpv4 = 1 << 2;
constexpr u8 kRssHashIpv6 = 2 << 2;
constexpr u8 kRssHashTcp = 1 << 6;
constexpr u8 kRssHashUdp = 2 << 6;
constexpr u8 kRssHashIpMask = 3 << 2;
constexpr u8 kRssHashL4Mask = 3 << 6;

/* Error syndromes */
enum CqeSyndrome : u8 {
	kSyndLocalLengthErr = 0x01,
	kSyndLocalQpOpErr = 0x02,
	kSyndLocalProtErr = 0x04,
	kSyndWrFlushErr = 0x05,
};

struct Cqe64 {
	u8 tls_outer_l3_tunneled;
	u8 rsvd0;
	be16 wqe_id;
	u8 lro[8];
	be32 rss_hash_result;
	u8 rss_hash_type;
	u8 ml_path;
	u8 rsvd20[2];
	be16 check_sum;
	be16 slid;
	be32 flags_rqpn;
	u8 hds_ip_ext;
	u8 l4_l3_hdr_type;
	be16 vlan_info;
	be32 srqn;
	be32 immediate;
	u8 rsvd40[4];
	be32 byte_cnt;
	be32 timestamp_h;
	be32 timestamp_l;
	be32 sop_drop_qpn;
	be16 wqe_counter;
	u8 signature;
	u8 op_own;	/* 7:4 opcode, 3:2 format, 0 owner; written last */

	u8 opcode() const { return op_own >> 4; }
	u8 owner() const { return op_own & 1; }
	u8 l3_type() const { return (l4_l3_hdr_type >> 2) & 3; }
	u8 l4_type() const { return (l4_l3_hdr_type >> 4) & 7; }
};
static_assert(sizeof(Cqe64) == kCqeSize);

/* Error CQE view of the same 64 bytes. */
struct ErrCqe {
	u8 rsvd0[32];
	be32 srqn;
	u8 rsvd36[18];
	u8 vendor_err_synd;
	u8 syndrome;
	be32 s_wqe_opcode_qpn;
	be16 wqe_counter;
	u8 signature;
	u8 op_own;
};
static_assert(sizeof(ErrCqe) == kCqeSize);

/* Initial op_own of every CQE: opcode INVALID, owner 1 (never valid on lap 0). */
constexpr u8 kCqeInitOpOwn = 0xf1;

/*
 * CQ status (QUERY_CQ): a CQE due while the CQ is full (producer index a
 * whole ring ahead of set_ci) is an overrun: the device writes nothing,
 * the CQ goes to OVERFLOW and a CQ error event (syndrome overrun) is raised.
 */
constexpr u8 kCqStatusOk = 0x0;
constexpr u8 kCqStatusOverflow = 0x9;
constexpr u8 kCqErrSyndOverrun = 0x1;

/* CQ doorbell record: word 0 set_ci, word 1 arm. */
constexpr u32 kCqSetCiDbr = 0;
constexpr u32 kCqArmDbr = 1;
constexpr u32 kCqDbReqNot = 0;
/* The consumer index in set_ci and in the arm word: 24 bits. */
constexpr u32 kCqCiMask = 0xffffff;


/* Layout as the PRM has it: sizes and field offsets are part of the format. */
static_assert(__builtin_offsetof(Cqe64, tls_outer_l3_tunneled) == 0);
static_assert(__builtin_offsetof(Cqe64, rsvd0) == 1);
static_assert(__builtin_offsetof(Cqe64, wqe_id) == 2);
static_assert(__builtin_offsetof(Cqe64, lro) == 4);
static_assert(__builtin_offsetof(Cqe64, rss_hash_result) == 12);
static_assert(__builtin_offsetof(Cqe64, rss_hash_type) == 16);
static_assert(__builtin_offsetof(Cqe64, ml_path) == 17);
static_assert(__builtin_offsetof(Cqe64, rsvd20) == 18);
static_assert(__builtin_offsetof(Cqe64, check_sum) == 20);
static_assert(__builtin_offsetof(Cqe64, slid) == 22);
static_assert(__builtin_offsetof(Cqe64, flags_rqpn) == 24);
static_assert(__builtin_offsetof(Cqe64, hds_ip_ext) == 28);
static_assert(__builtin_offsetof(Cqe64, l4_l3_hdr_type) == 29);
static_assert(__builtin_offsetof(Cqe64, vlan_info) == 30);
static_assert(__builtin_offsetof(Cqe64, srqn) == 32);
static_assert(__builtin_offsetof(Cqe64, immediate) == 36);
static_assert(__builtin_offsetof(Cqe64, rsvd40) == 40);
static_assert(__builtin_offsetof(Cqe64, byte_cnt) == 44);
static_assert(__builtin_offsetof(Cqe64, timestamp_h) == 48);
static_assert(__builtin_offsetof(Cqe64, timestamp_l) == 52);
static_assert(__builtin_offsetof(Cqe64, sop_drop_qpn) == 56);
static_assert(__builtin_offsetof(Cqe64, wqe_counter) == 60);
static_assert(__builtin_offsetof(Cqe64, signature) == 62);
static_assert(__builtin_offsetof(Cqe64, op_own) == 63);
static_assert(__builtin_offsetof(ErrCqe, rsvd0) == 0);
static_assert(__builtin_offsetof(ErrCqe, srqn) == 32);
static_assert(__builtin_offsetof(ErrCqe, rsvd36) == 36);
static_assert(__builtin_offsetof(ErrCqe, vendor_err_synd) == 54);
static_assert(__builtin_offsetof(ErrCqe, syndrome) == 55);
static_assert(__builtin_offsetof(ErrCqe, s_wqe_opcode_qpn) == 56);
static_assert(__builtin_offsetof(ErrCqe, wqe_counter) == 60);
static_assert(__builtin_offsetof(ErrCqe, signature) == 62);
static_assert(__builtin_offsetof(ErrCqe, op_own) == 63);

} /* namespace softcx::prm */
