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
};

Bytes build(const Spec &s);
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

inline uint16_t get16(const Bytes &f, size_t off) { return (uint16_t)(f[off] << 8 | f[off + 1]); }
inline void put16(Bytes &f, size_t off, uint16_t v)
{
	f[off] = (uint8_t)(v >> 8);
	f[off + 1] = (uint8_t)v;
}

} /* namespace frames */
