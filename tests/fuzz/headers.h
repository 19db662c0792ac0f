/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Well-formed header templates (Ethernet [+ VLAN] + IPv4/IPv6 + TCP/UDP) the
 * targets start from, so that the fuzzer reaches the paths behind the
 * parser (LSO, checksums, RSS L4 hashing) without having to discover every
 * length field first. The fuzzer still mutates them afterwards.
 */
#pragma once

#include <cstdint>
#include <cstring>

namespace fz {

enum Tmpl : uint8_t { kV4Tcp, kV6Tcp, kV4Udp, kV6Udp, kVlanV4Tcp, kQinQV6Udp, kNrTmpl };

/* Writes the headers of template t for `payload` bytes of L4 payload into h; returns their length. */
inline uint32_t build_headers(uint8_t t, uint32_t payload, uint8_t *h)
{
	t %= kNrTmpl;
	uint32_t off = 12;
	static const uint8_t macs[12] = { 2, 0, 0, 0, 0, 2, 2, 0, 0, 0, 0, 1 };
	memcpy(h, macs, 12);
	if (t == kVlanV4Tcp || t == kQinQV6Udp) {
		h[off] = t == kQinQV6Udp ? 0x88 : 0x81;
		h[off + 1] = t == kQinQV6Udp ? 0xa8 : 0x00;
		h[off + 2] = 0;
		h[off + 3] = 5;
		off += 4;
	}
	bool v6 = t == kV6Tcp || t == kV6Udp || t == kQinQV6Udp;
	bool tcp = t == kV4Tcp || t == kV6Tcp || t == kVlanV4Tcp;
	uint32_t l4 = tcp ? 20 : 8;
	h[off] = v6 ? 0x86 : 0x08;
	h[off + 1] = v6 ? 0xdd : 0x00;
	off += 2;
	uint8_t *ip = h + off;
	if (v6) {
		memset(ip, 0, 40);
		ip[0] = 0x60;
		ip[4] = (uint8_t)((l4 + payload) >> 8);
		ip[5] = (uint8_t)(l4 + payload);
		ip[6] = tcp ? 6 : 17;
		ip[7] = 64;
		ip[8] = 0xfd;
		ip[23] = 1;
		ip[24] = 0xfd;
		ip[39] = 2;
		off += 40;
	} else {
		memset(ip, 0, 20);
		ip[0] = 0x45;
		uint32_t tot = 20 + l4 + payload;
		ip[2] = (uint8_t)(tot >> 8);
		ip[3] = (uint8_t)tot;
		ip[4] = 0x12;
		ip[8] = 64;
		ip[9] = tcp ? 6 : 17;
		ip[12] = 10;
		ip[15] = 1;
		ip[16] = 10;
		ip[19] = 2;
		off += 20;
	}
	uint8_t *p = h + off;
	memset(p, 0, l4);
	p[0] = 0x03;
	p[1] = 0xe8;
	p[2] = 0x07;
	p[3] = 0xd0;
	if (tcp) {
		p[7] = 1;	/* seq */
		p[12] = 0x50;	/* data offset 5 */
		p[13] = 0x18;	/* PSH|ACK */
		p[15] = 0xff;
	} else {
		p[4] = (uint8_t)((8 + payload) >> 8);
		p[5] = (uint8_t)(8 + payload);
	}
	return off + l4;
}

} /* namespace fz */
