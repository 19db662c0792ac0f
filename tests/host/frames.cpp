// SPDX-License-Identifier: GPL-2.0
#include "frames.h"

#include <arpa/inet.h>

#include <cstring>
#include <stdexcept>

namespace frames {
namespace {

/* One word at a time with the end-around carry folded immediately. */
uint16_t ones_add(uint16_t a, uint16_t b)
{
	uint32_t s = (uint32_t)a + b;
	return (uint16_t)((s & 0xffff) + (s >> 16));
}

uint16_t sum_bytes(uint16_t acc, const uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i += 2) {
		uint16_t w = (uint16_t)(p[i] << 8);
		if (i + 1 < n)
			w |= p[i + 1];
		acc = ones_add(acc, w);
	}
	return acc;
}

size_t l2_len(const Bytes &f)
{
	size_t off = 12;
	while (get16(f, off) == 0x8100 || get16(f, off) == 0x88a8)
		off += 4;
	return off + 2;
}

bool is_v6(const Bytes &f) { return get16(f, l2_len(f) - 2) == 0x86dd; }

uint8_t proto_of(const Bytes &f)
{
	size_t l3 = l3_off(f);
	return is_v6(f) ? f[l3 + 6] : f[l3 + 9];
}

size_t l4_len(const Bytes &f)
{
	size_t l3 = l3_off(f);
	if (is_v6(f))
		return get16(f, l3 + 4);
	return get16(f, l3 + 2) - (size_t)(f[l3] & 0xf) * 4;
}

} /* namespace */

Bytes ip_bytes(const std::string &addr)
{
	Bytes b(16);
	if (inet_pton(AF_INET, addr.c_str(), b.data()) == 1) {
		b.resize(4);
		return b;
	}
	if (inet_pton(AF_INET6, addr.c_str(), b.data()) == 1)
		return b;
	throw std::runtime_error("bad address " + addr);
}

Bytes vxlan(const Bytes &inner, uint16_t dport, uint16_t ip_id)
{
	Spec o;
	o.proto = 17;
	o.sport = 51000;
	o.dport = dport;
	o.ip_id = ip_id;
	o.payload = { 0x08, 0, 0, 0, 0x00, 0x00, 0x2a, 0 };	/* I flag, VNI 42 */
	o.payload.insert(o.payload.end(), inner.begin(), inner.end());
	Bytes f = build(o);
	put16(f, l4_off(f) + 6, 0);
	return f;
}

Bytes geneve(const Bytes &inner, uint8_t opt_words, uint16_t ip_id)
{
	Spec o;
	o.proto = 17;
	o.sport = 51001;
	o.dport = 6081;
	o.ip_id = ip_id;
	/* version 0, option length, no flags, Ethernet (0x6558), VNI 0x00002b */
	o.payload = { (uint8_t)(opt_words & 0x3f), 0, 0x65, 0x58, 0, 0, 0x2b, 0 };
	for (uint8_t w = 0; w < opt_words; w++) {
		if (w == 0)	/* class 0x0102, type 0x80, no data beyond this word */
			o.payload.insert(o.payload.end(), { 0x01, 0x02, 0x80, 0 });
		else
			o.payload.insert(o.payload.end(), { 0xa5, 0x5a, (uint8_t)w, 0 });
	}
	o.payload.insert(o.payload.end(), inner.begin(), inner.end());
	Bytes f = build(o);
	put16(f, l4_off(f) + 6, 0);
	return f;
}

Bytes gre(const Bytes &inner, uint16_t proto, uint16_t flags, uint16_t ip_id)
{
	Spec o;
	o.proto = 47;
	o.ip_id = ip_id;
	o.payload = { (uint8_t)(flags >> 8), (uint8_t)flags, (uint8_t)(proto >> 8), (uint8_t)proto };
	if (flags & kGreCsum)
		o.payload.insert(o.payload.end(), { 0, 0, 0, 0 });
	if (flags & kGreKey)
		o.payload.insert(o.payload.end(), { 0x00, 0x00, 0x01, 0x2c });
	if (flags & kGreSeq)
		o.payload.insert(o.payload.end(), { 0x00, 0x00, 0x00, 0x07 });
	o.payload.insert(o.payload.end(), inner.begin() + (proto == 0x6558 ? 0 : 14), inner.end());
	Bytes f = build(o);
	if (flags & kGreCsum)
		put16(f, l4_off(f) + 4, (uint16_t)~ref_sum(f, l4_off(f)));
	return f;
}

Bytes ipip(const Bytes &inner, uint16_t ip_id)
{
	Spec o;
	o.proto = (inner[14] >> 4) == 6 ? 41 : 4;
	o.ip_id = ip_id;
	o.payload.assign(inner.begin() + 14, inner.end());
	return build(o);
}

Bytes payload(size_t n, uint8_t seed)
{
	Bytes p(n);
	uint32_t x = seed * 2654435761u + 12345;
	for (size_t i = 0; i < n; i++) {
		x = x * 1103515245u + 12345u;
		p[i] = (uint8_t)(x >> 16);
	}
	return p;
}

size_t l3_off(const Bytes &f) { return l2_len(f); }

size_t l4_off(const Bytes &f)
{
	size_t l3 = l3_off(f);
	return is_v6(f) ? l3 + 40 : l3 + (size_t)(f[l3] & 0xf) * 4;
}

Bytes build(const Spec &s)
{
	Bytes f = { 0x02, 0, 0, 0, 0, 0x02, 0x02, 0, 0, 0, 0, 0x01 };
	if (s.vlan >= 0) {
		f.insert(f.end(), { 0x81, 0x00, (uint8_t)(s.vlan >> 8), (uint8_t)s.vlan });
	}
	f.insert(f.end(), { (uint8_t)(s.v6 ? 0x86 : 0x08), (uint8_t)(s.v6 ? 0xdd : 0x00) });

	Bytes l4;
	if (s.proto == 6) {
		Bytes opts = s.tcp_opts;
		while (opts.size() % 4)
			opts.push_back(1);	/* NOP */
		l4.assign(20, 0);
		put16(l4, 0, s.sport);
		put16(l4, 2, s.dport);
		put32(l4, 4, s.tcp_seq);
		put32(l4, 8, s.tcp_ack);
		l4[12] = (uint8_t)((5 + opts.size() / 4) << 4);
		l4[13] = s.tcp_flags;
		put16(l4, 14, s.tcp_window);
		put16(l4, 16, 0xdead);	/* garbage until filled */
		l4.insert(l4.end(), opts.begin(), opts.end());
	} else if (s.proto == 17) {
		l4.assign(8, 0);
		put16(l4, 0, s.sport);
		put16(l4, 2, s.dport);
		put16(l4, 4, (uint16_t)(8 + s.payload.size()));
		put16(l4, 6, 0xbeef);
	}
	l4.insert(l4.end(), s.payload.begin(), s.payload.end());

	Bytes src = ip_bytes(s.src), dst = ip_bytes(s.dst);
	if (s.v6) {
		Bytes ip(40, 0);
		put32(ip, 0, 6u << 28 | (uint32_t)s.tos << 20 | (s.flow_label & 0xfffff));
		put16(ip, 4, (uint16_t)l4.size());
		ip[6] = s.proto;
		ip[7] = s.ttl;
		memcpy(&ip[8], src.data(), 16);
		memcpy(&ip[24], dst.data(), 16);
		f.insert(f.end(), ip.begin(), ip.end());
	} else {
		Bytes ip(20, 0);
		ip.insert(ip.end(), s.ip_opts.begin(), s.ip_opts.end());
		while (ip.size() % 4)
			ip.push_back(1);	/* NOP */
		ip[0] = (uint8_t)(0x40 | ip.size() / 4);
		ip[1] = s.tos;
		put16(ip, 2, (uint16_t)(ip.size() + l4.size()));
		put16(ip, 4, s.ip_id);
		put16(ip, 6, s.df ? 0x4000 : 0);
		ip[8] = s.ttl;
		ip[9] = s.proto;
		put16(ip, 10, 0xabcd);	/* garbage until filled */
		memcpy(&ip[12], src.data(), 4);
		memcpy(&ip[16], dst.data(), 4);
		f.insert(f.end(), ip.begin(), ip.end());
	}
	f.insert(f.end(), l4.begin(), l4.end());
	if (s.good_csums)
		fill_reference_csums(f);
	if (s.good_csums && s.bad_l4_csum && (s.proto == 6 || s.proto == 17)) {
		size_t at = l4_off(f) + (s.proto == 6 ? 16 : 6);
		put16(f, at, (uint16_t)(get16(f, at) ^ 0x0101));	/* never another form of the same sum */
	}
	return f;
}

uint16_t ref_ipv4_hdr_csum(const Bytes &f)
{
	size_t l3 = l3_off(f);
	size_t ihl = (size_t)(f[l3] & 0xf) * 4;
	Bytes h(f.begin() + l3, f.begin() + l3 + ihl);
	h[10] = h[11] = 0;
	return (uint16_t)~sum_bytes(0, h.data(), h.size());
}

uint16_t ref_l4_csum(const Bytes &f)
{
	size_t l3 = l3_off(f), l4 = l4_off(f), len = l4_len(f);
	uint8_t proto = proto_of(f);
	Bytes seg(f.begin() + l4, f.begin() + l4 + len);
	seg[proto == 6 ? 16 : 6] = 0;
	seg[proto == 6 ? 17 : 7] = 0;

	uint16_t acc = 0;
	if (is_v6(f))
		acc = sum_bytes(acc, &f[l3 + 8], 32);
	else
		acc = sum_bytes(acc, &f[l3 + 12], 8);
	acc = ones_add(acc, proto);
	acc = ones_add(acc, (uint16_t)len);
	if (len >> 16)
		acc = ones_add(acc, (uint16_t)(len >> 16));
	acc = sum_bytes(acc, seg.data(), seg.size());
	uint16_t c = (uint16_t)~acc;
	if (proto == 17 && c == 0)
		c = 0xffff;
	return c;
}

uint16_t ref_sum(const Bytes &f, size_t from) { return sum_bytes(0, f.data() + from, f.size() - from); }

void fill_reference_csums(Bytes &f)
{
	size_t l3 = l3_off(f);
	if (!is_v6(f))
		put16(f, l3 + 10, ref_ipv4_hdr_csum(f));
	uint8_t proto = proto_of(f);
	if (proto == 6)
		put16(f, l4_off(f) + 16, ref_l4_csum(f));
	else if (proto == 17)
		put16(f, l4_off(f) + 6, ref_l4_csum(f));
}

Bytes tcp_ts_option(uint32_t tsval, uint32_t tsecr)
{
	Bytes o = { 1, 1, 8, 10, 0, 0, 0, 0, 0, 0, 0, 0 };
	put32(o, 4, tsval);
	put32(o, 8, tsecr);
	return o;
}

Bytes Flow::next(size_t n, uint8_t flags)
{
	Spec s = tmpl;

	s.proto = 6;
	s.tcp_seq = seq;
	s.tcp_flags = flags;
	s.ip_id = id;
	s.payload = payload(n, (uint8_t)(seq * 7 + sent.size()));
	sent.insert(sent.end(), s.payload.begin(), s.payload.end());
	seq += (uint32_t)n;
	id = (uint16_t)(id + id_step);
	return build(s);
}

Bytes small(uint8_t seed)
{
	Spec s;
	s.payload = payload(10 + seed % 7, seed);
	return build(s);
}

Bytes vlan_insert(const Bytes &f, uint16_t tci)
{
	Bytes o(f.begin(), f.begin() + 12);
	o.insert(o.end(), { 0x81, 0x00, (uint8_t)(tci >> 8), (uint8_t)tci });
	o.insert(o.end(), f.begin() + 12, f.end());
	return o;
}

Bytes vlan_strip(const Bytes &f)
{
	Bytes o(f.begin(), f.begin() + 12);
	o.insert(o.end(), f.begin() + 16, f.end());
	return o;
}

Bytes fcs_of(const Bytes &f)
{
	uint32_t c = 0xffffffff;
	for (uint8_t b : f) {
		c ^= b;
		for (int i = 0; i < 8; i++)
			c = c & 1 ? (c >> 1) ^ 0xedb88320 : c >> 1;
	}
	c = ~c;
	return { (uint8_t)c, (uint8_t)(c >> 8), (uint8_t)(c >> 16), (uint8_t)(c >> 24) };
}

/* Bit-serial reference Toeplitz, independent of the device's byte-window version. */
uint32_t ref_toeplitz(const uint8_t *key, const Bytes &in)
{
	uint32_t result = 0;
	uint64_t window = 0;	/* key bits [i, i+32) in the low 32 bits */
	for (int b = 0; b < 32; b++)
		window = (window << 1) | ((key[b / 8] >> (7 - b % 8)) & 1);
	for (size_t i = 0; i < in.size() * 8; i++) {
		if ((in[i / 8] >> (7 - i % 8)) & 1)
			result ^= (uint32_t)window;
		size_t k = i + 32;
		window = (window << 1) | ((key[k / 8] >> (7 - k % 8)) & 1);
	}
	return result;
}


} /* namespace frames */
