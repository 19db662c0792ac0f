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

/*
 * op_own bits 3:2, the CQE format. A compressed CQE (basic layout: the
 * title; enhanced layout: a slot of mini CQEs) has format 3.
 */
constexpr u8 kCqeFormatShift = 2;
constexpr u8 kCqeFormatCompressed = 3;

/*
 * tls_outer_l3_tunneled bit 0: the device parsed the frame's inner frame
 * (VXLAN to a port of the function's table, GENEVE to 6081 with cap
 * geneve: hw/tunnel.h); hds_ip_ext's L3/L4 verdicts then cover the inner
 * headers as well as the outer ones.
 */
constexpr u8 kCqeTunneled = 0x01;

/* hds_ip_ext bits */
constexpr u8 kCqeL2Ok = 0x01;
constexpr u8 kCqeL3Ok = 0x02;
constexpr u8 kCqeL4Ok = 0x04;

/*
 * l4_l3_hdr_type: bit 0 an outer 802.1Q tag was stripped (the RQ's vsd
 * is 0; vlan_info holds its TCI and the frame is written without it),
 * bits 3:2 L3, bits 6:4 L4
 */
constexpr u8 kCqeVlanStripped = 0x01;
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

/*
 * SHAMPO (cmd.h: the RQ context) writes one CQE per packet on a striding
 * RQ, bytes 4..11 being CqeShampo:
 *
 * - header_size: bytes of L2..L4 headers (VLAN tags and IP/TCP options
 *   included) written to header entry header_entry_index; 0: not split.
 * - header_entry_index: the header ring entry this packet took. Every
 *   packet CQE takes the next one in ring order, split or not (an unsplit
 *   packet's entry is left unwritten); error and filler CQEs take none.
 * - data_offset: byte offset in the WQE buffer (wqe_id) of the payload
 *   (split) or of the whole frame (not split). A packet without payload:
 *   the next free stride's offset.
 * - wqe_counter: as in every striding RQ CQE, the first stride this CQE
 *   counts, i.e. the WQE's strides counted by the CQEs before it (a
 *   payload continuing a session mid-stride starts in the stride before).
 * - byte_cnt: header_size + payload (split: IP length, Ethernet padding not
 *   written), or the frame length (not split); bits 30:16 the strides it
 *   consumed: the strides its data newly touched (a payload continuing a
 *   session mid-stride counts only the strides after that one). Every
 *   stride of a WQE is counted once, by a packet or a filler CQE (the rest
 *   of a reservation a packet does not fit, or of the WQE).
 * - match: this packet continues the session of the RQ's previous packet
 *   CQE; its payload follows that one's byte for byte.
 * - flush: the session ends with this packet.
 * - lro_num_seg (srqn 31:24) stays 0: the session's size is the run of
 *   matching CQEs. The other fields are those of any RX CQE, of this packet.
 *
 * Split: TCP over IPv4 (not a fragment) or IPv6 (no extension header),
 * the IP length consistent with the frame, headers of at most
 * min(header entry, 255) bytes, with or without payload (a pure ACK is
 * header only: header_size > 0, no data, no stride). Anything else
 * (UDP, ICMP, fragments, other ethertypes) is placed whole at a new stride,
 * header_size 0, match 0, flush 1.
 *
 * The device keeps one open session per RQ [emulator choice]. A split
 * packet continues it (match 1) when all of these hold, as Linux's
 * inet/ipv6/tcp_gro_receive would merge it:
 *   - the session is open (its last packet had no flush), match criteria
 *     EXTENDED;
 *   - same L2 header bytes (MACs, VLAN tags, ethertype) and the same
 *     stripped VLAN tag (none, or the same TCI: vsd 0); IPv4: same
 *     version/IHL byte (20-byte header, no options), TOS (so ECN too), TTL,
 *     protocol, addresses, DF bit, and an IP ID of the previous + 1, or
 *     equal to the previous when DF is set (fixed ID), the session's second
 *     packet choosing which for the rest; IPv6: same first word (traffic
 *     class, ECN, flow label), next header, hop limit, addresses;
 *   - TCP: same ports, ack_seq, data offset, window and option bytes
 *     (timestamps included) as the session's first packet; flags equal to
 *     the first packet's but for PSH and FIN, and no CWR; seq = the
 *     previous packet's seq + its payload;
 *   - 0 < payload <= the first packet's payload (the session's MSS);
 *   - valid IPv4 header and TCP checksums (CQE L3_OK and L4_OK);
 *   - its payload fits the session's reservation after the previous one,
 *     the reservation has taken fewer than its packet limit, and first
 *     header + all payload stays <= 65535 bytes.
 * Otherwise the packet starts a new session (match 0) at the next stride
 * boundary, in the current reservation or the next one (a filler CQE
 * covering the strides skipped), and the open session is over.
 * flush is set on a packet that ends its session: a packet that cannot
 * be merged at all (not split, no payload, bad checksum, IPv4 options,
 * match criteria NO_MATCH), TCP FIN, PSH, URG, RST or SYN, a payload
 * shorter than the session's MSS (a continuing packet), no room left
 * for another MSS-sized payload (reservation, its packet limit, 64 KiB),
 * or the packet takes the WQE's last stride (the WQE is done).
 */
struct CqeShampo {
	u8 flags;		/* kCqeShampoMatch, kCqeShampoFlush */
	u8 header_size;
	be16 header_entry_index;
	be32 data_offset;
};
static_assert(sizeof(CqeShampo) == 8);
constexpr u8 kCqeShampoMatch = 1 << 1;
constexpr u8 kCqeShampoFlush = 1 << 2;

struct Cqe64 {
	u8 tls_outer_l3_tunneled;
	u8 rsvd0;
	be16 wqe_id;
	union {
		u8 lro[8];
		CqeShampo shampo;	/* an RQ with shampo_enable */
	};
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
	be32 timestamp_h;	/* the internal timer (cmd.h kInitSegTimerH/L) at completion: */
	be32 timestamp_l;	/* RX: the frame arrived; TX: the WQE's (first) frame left */
	be32 sop_drop_qpn;
	be16 wqe_counter;
	u8 signature;	/* enhanced CQE compression: validity_iteration_count */
	u8 op_own;	/* 7:4 opcode, 3:2 format, 0 owner; written last */

	u8 opcode() const { return op_own >> 4; }
	u8 owner() const { return op_own & 1; }
	u8 format() const { return (op_own >> kCqeFormatShift) & 3; }
	u8 l3_type() const { return (l4_l3_hdr_type >> 2) & 3; }
	u8 l4_type() const { return (l4_l3_hdr_type >> 4) & 7; }
	bool has_vlan() const { return l4_l3_hdr_type & kCqeVlanStripped; }
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

/*
 * CQE compression (CQ context cqe_comp_en). Instead of one CQE per packet
 * the device writes, for a run of RX CQEs that agree in every field a mini
 * CQE does not carry (but the timestamp, which a run does not compare and
 * its mini CQEs' packets take from the title: RX timestamps and
 * compression do not go together), one title and 8-byte mini CQEs:
 *
 * basic layout: a title CQE (format 3, byte_cnt = N, the number of mini
 * CQEs, all other fields the packets' shared ones and the first packet's
 * wqe_counter) followed by ceil(N / 8) slots of 8 mini CQEs each. The title
 * is not a packet; the N mini CQEs are. Only the title has an owner bit:
 * byte 63 of a mini slot is mini CQE data, which the driver overwrites with
 * kCqeInvalid and the slot's lap parity once it has consumed the slot.
 *
 * enhanced layout (cap enhanced_cqe_compression): every CQE of the CQ is
 * valid by its validity_iteration_count (byte 62 = lap & 0xff; the driver
 * stamps 0xff at creation), the title is the last regular CQE before the
 * slots, and each slot is a self-contained EnhancedMiniSlot: format 3,
 * opcode nibble = mini CQEs in it - 1.
 *
 * A mini CQE's packet has the title's fields except those in the mini CQE
 * and wqe_counter, which the mini CQE gives (stride index format) or the
 * driver derives: + 1 from the previous packet's (cyclic RQ), + the strides
 * the previous packet consumed (striding RQ).
 */
enum MiniCqeFormat : u8 {		/* CQ context mini_cqe_res_format */
	kMiniCqeHash = 0,		/* rx_hash_result, byte_cnt */
	kMiniCqeCsum = 1,		/* checksum, byte_cnt */
	kMiniCqeCsumStridx = 3,		/* checksum, stride index, byte_cnt */
};

enum CqeCompLayout : u8 {		/* CQ context cqe_comp_layout */
	kCqeCompBasic = 0,
	kCqeCompEnhanced = 1,
};

struct MiniCqeCsum {
	be16 checksum;
	be16 stridx;		/* kMiniCqeCsumStridx: the packet's wqe_counter */
};

struct MiniCqe8 {
	union {
		be32 rx_hash_result;	/* kMiniCqeHash */
		MiniCqeCsum csum;	/* kMiniCqeCsum, kMiniCqeCsumStridx */
	};
	be32 byte_cnt;		/* as a full CQE's (striding: filler, strides, length) */
};
static_assert(sizeof(MiniCqe8) == 8);

constexpr u32 kMiniCqesPerSlot = kCqeSize / sizeof(MiniCqe8);	/* basic layout: 8 */

/*
 * An enhanced layout slot. Bytes 62-63 stay the validity iteration and
 * op_own, so a slot holds at most 7 mini CQEs: the emulator's reading of
 * "opcode + 1 mini CQEs" (the 4-bit nibble allows more than fit).
 */
constexpr u32 kMiniCqesPerEnhancedSlot = 7;
struct EnhancedMiniSlot {
	MiniCqe8 mini[kMiniCqesPerEnhancedSlot];
	u8 rsvd56[6];
	u8 validity_iteration_count;
	u8 op_own;	/* 7:4 mini CQEs - 1, 3:2 kCqeFormatCompressed, 0 owner */
};
static_assert(sizeof(EnhancedMiniSlot) == kCqeSize);

/* Initial validity_iteration_count of every CQE (enhanced layout): never valid on lap 0. */
constexpr u8 kCqeInitValidity = 0xff;

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
static_assert(__builtin_offsetof(Cqe64, shampo) == 4);
static_assert(__builtin_offsetof(CqeShampo, flags) == 0);
static_assert(__builtin_offsetof(CqeShampo, header_size) == 1);
static_assert(__builtin_offsetof(CqeShampo, header_entry_index) == 2);
static_assert(__builtin_offsetof(CqeShampo, data_offset) == 4);
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
static_assert(__builtin_offsetof(MiniCqe8, rx_hash_result) == 0);
static_assert(__builtin_offsetof(MiniCqe8, csum) == 0);
static_assert(__builtin_offsetof(MiniCqeCsum, checksum) == 0);
static_assert(__builtin_offsetof(MiniCqeCsum, stridx) == 2);
static_assert(__builtin_offsetof(MiniCqe8, byte_cnt) == 4);
static_assert(__builtin_offsetof(EnhancedMiniSlot, mini) == 0);
static_assert(__builtin_offsetof(EnhancedMiniSlot, rsvd56) == 56);
static_assert(__builtin_offsetof(EnhancedMiniSlot, validity_iteration_count) == 62);
static_assert(__builtin_offsetof(EnhancedMiniSlot, op_own) == 63);
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
