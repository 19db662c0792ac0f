/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Test frames (Ethernet, optional VLAN, IPv4/IPv6, TCP/UDP) and a plain
 * reference implementation of the Internet checksum to check the device
 * against. Written independently of src/hw on purpose.
 */
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace frames {

using Bytes = std::vector<uint8_t>;

struct Spec {
	bool v6 = false;
	uint8_t proto = 6;		/* 6 TCP, 17 UDP, anything else: raw payload */
	std::string src = "10.0.0.1";	/* textual IPv4 or IPv6 address */
	std::string dst = "10.0.0.2";
	uint16_t sport = 1000, dport = 2000;
	uint8_t tcp_flags = 0x18;	/* PSH|ACK */
	uint32_t tcp_seq = 1;
	int vlan = -1;			/* TCI when >= 0 */
	Bytes payload;
	bool good_csums = true;		/* fill correct checksums, else leave garbage */
	/* TCP */
	uint32_t tcp_ack = 0;
	uint16_t tcp_window = 65535;
	Bytes tcp_opts;			/* padded with NOPs to a multiple of 4 */
	bool bad_l4_csum = false;	/* correct checksums but a wrong TCP/UDP one */
	/* IPv4 */
	uint16_t ip_id = 0x1234;
	bool df = true;
	uint8_t ttl = 64;		/* IPv4 TTL, IPv6 hop limit */
	uint8_t tos = 0;		/* IPv4 TOS, IPv6 traffic class (ECN in bits 1:0) */
	Bytes ip_opts;			/* IPv4 options, padded with NOPs to a multiple of 4 */
	/* IPv6 */
	uint32_t flow_label = 0;
};

/* TCP flag bits */
enum : uint8_t {
	kFin = 0x01, kSyn = 0x02, kRst = 0x04, kPsh = 0x08, kAck = 0x10, kUrg = 0x20,
	kEce = 0x40, kCwr = 0x80,
};
/* NOP, NOP, timestamps (the 12 option bytes Linux sends on an established flow). */
Bytes tcp_ts_option(uint32_t tsval, uint32_t tsecr);

Bytes build(const Spec &s);
/*
 * inner (an Ethernet frame) in VXLAN (VNI 42) in UDP 51000 -> dport over
 * IPv4 10.0.0.1 -> 10.0.0.2 with IP id ip_id: the outer IPv4 checksum
 * right, the outer UDP checksum 0 (Linux's default for VXLAN over IPv4).
 */
constexpr size_t kVxlanInnerOff = 14 + 20 + 8 + 8;
Bytes vxlan(const Bytes &inner, uint16_t dport = 4789, uint16_t ip_id = 0x1234);
/*
 * inner in GENEVE (RFC 8926) to UDP port 6081 with opt_words 4-byte words
 * of options (a TLV, then padding), outer UDP checksum 0
 */
Bytes geneve(const Bytes &inner, uint8_t opt_words = 0, uint16_t ip_id = 0x1234);
/* Where geneve()'s inner frame starts */
inline size_t geneve_inner_off(uint8_t opt_words) { return 14 + 20 + 8 + 8 + 4 * (size_t)opt_words; }
/*
 * inner (an Ethernet frame) in GRE over IPv4 10.0.0.1 -> 10.0.0.2 (IP
 * protocol 47, IP id ip_id), protocol type proto: 0x6558 carries the whole
 * frame, IPv4 (0x0800) and IPv6 (0x86dd) its IP packet. flags may hold the
 * checksum (filled in, right), key and sequence bits; their fields follow.
 */
constexpr uint16_t kGreCsum = 0x8000, kGreKey = 0x2000, kGreSeq = 0x1000;
Bytes gre(const Bytes &inner, uint16_t proto, uint16_t flags = 0, uint16_t ip_id = 0x1234);
/* inner's IP packet straight in IPv4: protocol 4 or 41 by its version. */
Bytes ipip(const Bytes &inner, uint16_t ip_id = 0x1234);
Bytes payload(size_t n, uint8_t seed = 1);
/* A default-Spec frame with 10..16 payload bytes, length and content chosen by seed. */
Bytes small(uint8_t seed);
Bytes ip_bytes(const std::string &addr);	/* 4 or 16 bytes */

/* Offsets in a frame built by build(). */
size_t l3_off(const Bytes &f);
size_t l4_off(const Bytes &f);

/* Reference checksums, RFC 1071 style: the value to store in the header. */
uint16_t ref_ipv4_hdr_csum(const Bytes &f);
uint16_t ref_l4_csum(const Bytes &f);
/* One's-complement sum (not inverted) of f[from..end). */
uint16_t ref_sum(const Bytes &f, size_t from);
/* Recompute every checksum with the reference. */
void fill_reference_csums(Bytes &f);

/*
 * Consecutive TCP segments of one flow: next() builds the segment after
 * the last one from tmpl (addresses, ports, options, IP fields), at seq,
 * with IPv4 ID id (then advanced by id_step), and appends its payload to
 * sent. Payload bytes differ from segment to segment.
 */
struct Flow {
	Spec tmpl;
	uint32_t seq = 1000;
	uint16_t id = 0x100;
	uint16_t id_step = 1;
	Bytes sent;

	Bytes next(size_t n, uint8_t flags = kAck);
};

/* f with an 802.1Q tag (TPID 0x8100, tci) after the MACs; f without its outer tag. */
Bytes vlan_insert(const Bytes &f, uint16_t tci);
Bytes vlan_strip(const Bytes &f);
/*
 * IEEE 802.3 CRC-32 one bit at a time (independent of the device's table):
 * the 4 bytes that follow f on the wire.
 */
Bytes fcs_of(const Bytes &f);

inline uint16_t get16(const Bytes &f, size_t off) { return (uint16_t)(f[off] << 8 | f[off + 1]); }
inline void put16(Bytes &f, size_t off, uint16_t v)
{
	f[off] = (uint8_t)(v >> 8);
	f[off + 1] = (uint8_t)v;
}

inline uint32_t get32(const Bytes &f, size_t off) { return (uint32_t)get16(f, off) << 16 | get16(f, off + 2); }
inline void put32(Bytes &f, size_t off, uint32_t v)
{
	put16(f, off, (uint16_t)(v >> 16));
	put16(f, off + 2, (uint16_t)v);
}

/* Bit-serial reference Toeplitz, independent of the device's byte-window version. */
uint32_t ref_toeplitz(const uint8_t *key, const Bytes &in);

} /* namespace frames */
