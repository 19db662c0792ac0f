// SPDX-License-Identifier: GPL-2.0
#include "gro_ref.h"

#include <cstring>
#include <deque>
#include <list>
#include <map>

namespace gro {

using frames::get16;
using frames::get32;
using frames::put16;
using frames::put32;

namespace {

constexpr size_t kMaxHeld = 8;		/* MAX_GRO_SKBS */
constexpr size_t kMaxSize = 65536;	/* GRO_LEGACY_MAX_SIZE: skb->len (from L2's end) stays below */
constexpr size_t kEthHdr = 14;		/* what eth_type_trans pulls: skb->len excludes it */

uint16_t fold_add(uint32_t acc, const uint8_t *p, size_t n)
{
	for (size_t i = 0; i + 1 < n; i += 2)
		acc += (uint32_t)(p[i] << 8 | p[i + 1]);
	if (n & 1)
		acc += (uint32_t)p[n - 1] << 8;
	while (acc >> 16)
		acc = (acc & 0xffff) + (acc >> 16);
	return (uint16_t)acc;
}

/* The pseudo-header sum, folded and not inverted (what ~tcp_v4/v6_check(len, s, d, 0) stores). */
uint16_t pseudo_sum(const Bytes &f, const Parsed &p, size_t l4_len)
{
	uint32_t acc = 6 + (uint32_t)(l4_len & 0xffff) + (uint32_t)(l4_len >> 16);
	return p.v6 ? fold_add(acc, &f[p.l3 + 8], 32) : fold_add(acc, &f[p.l3 + 12], 8);
}

bool ipv4_hdr_ok(const Bytes &f, size_t l3) { return fold_add(0, &f[l3], 20) == 0xffff; }

bool tcp_csum_ok(const Bytes &f, const Parsed &p)
{
	size_t l4_len = p.payload + p.payload_len - p.l4;
	uint32_t acc = pseudo_sum(f, p, l4_len);
	return fold_add(acc, &f[p.l4], l4_len) == 0xffff;
}

/* A held skb and its NAPI_GRO_CB state. */
struct Held {
	Bytes data;
	Parsed p;		/* of the first segment; p.payload_len: all payload so far */
	uint16_t mss = 0;	/* gso_size: the first segment's payload */
	uint16_t count = 1;
	bool is_atomic = false;	/* IPv4 DF (IPv6: always) and the ID not seen incrementing */
};

Skb complete(Held &h)
{
	Skb s;

	s.data = std::move(h.data);
	if (h.count == 1)
		return s;	/* napi_gro_complete leaves a single packet alone */
	const Parsed &p = h.p;
	size_t l4_len = s.data.size() - p.l4;
	if (p.v6) {
		put16(s.data, p.l3 + 4, (uint16_t)(s.data.size() - p.l3 - 40));
		s.gso_type = SCX_RX_GSO_TCPV6;
	} else {
		put16(s.data, p.l3 + 2, (uint16_t)(s.data.size() - p.l3));
		put16(s.data, p.l3 + 10, 0);
		put16(s.data, p.l3 + 10, (uint16_t)~fold_add(0, &s.data[p.l3], 20));
		s.gso_type = SCX_RX_GSO_TCPV4 | (h.is_atomic ? SCX_RX_GSO_FIXEDID : 0);
	}
	put16(s.data, p.l4 + 16, pseudo_sum(s.data, p, l4_len));
	if (s.data[p.l4 + 13] & frames::kCwr)
		s.gso_type |= SCX_RX_GSO_ECN;
	s.gso_size = h.mss;
	s.gso_segs = h.count;
	return s;
}

} /* namespace */

Parsed parse(const Bytes &f)
{
	Parsed p;
	size_t off = 12;

	while (off + 2 <= f.size() && (get16(f, off) == 0x8100 || get16(f, off) == 0x88a8))
		off += 4;
	if (off + 2 > f.size())
		return p;
	uint16_t type = get16(f, off);
	p.l3 = off + 2;
	p.v6 = type == 0x86dd;
	if (type == 0x0800) {
		if (f.size() < p.l3 + 20 || f[p.l3 + 9] != 6)
			return p;
		size_t ihl = (size_t)(f[p.l3] & 0xf) * 4;
		size_t tot = get16(f, p.l3 + 2);
		if (ihl < 20 || tot < ihl + 20 || f.size() < p.l3 + tot)
			return p;
		p.l4 = p.l3 + ihl;
		p.payload_len = tot - ihl;
	} else if (type == 0x86dd) {
		if (f.size() < p.l3 + 40 || f[p.l3 + 6] != 6)
			return p;
		p.l4 = p.l3 + 40;
		p.payload_len = get16(f, p.l3 + 4);
		if (p.payload_len < 20 || f.size() < p.l4 + p.payload_len)
			return p;
	} else {
		return p;
	}
	size_t doff = (size_t)(f[p.l4 + 12] >> 4) * 4;
	if (doff < 20 || p.payload_len < doff)
		return p;
	p.payload = p.l4 + doff;
	p.payload_len -= doff;
	p.seq = get32(f, p.l4 + 4);
	p.flags = f[p.l4 + 13];
	p.tcp = true;
	p.flow.assign(f.begin(), f.begin() + (long)p.l3);
	if (p.v6) {	/* version and flow label (not the traffic class), addresses */
		p.flow += (char)(f[p.l3] & 0xf0);
		p.flow += (char)(f[p.l3 + 1] & 0x0f);
		p.flow.append(f.begin() + (long)p.l3 + 2, f.begin() + (long)p.l3 + 4);
		p.flow.append(f.begin() + (long)p.l3 + 8, f.begin() + (long)p.l3 + 40);
	} else {
		p.flow.append(f.begin() + (long)p.l3 + 12, f.begin() + (long)p.l3 + 20);
	}
	p.flow.append(f.begin() + (long)p.l4, f.begin() + (long)p.l4 + 4);
	return p;
}

std::vector<Skb> receive(const std::vector<Bytes> &poll)
{
	std::vector<Skb> out;
	std::list<Held> held;	/* oldest first */

	for (const Bytes &f : poll) {
		Parsed p = parse(f);
		bool ip_ok = p.tcp;
		bool ip_flush = false;	/* NAPI_GRO_CB(skb)->flush from the IP layer */

		if (ip_ok && !p.v6) {
			uint16_t frag = get16(f, p.l3 + 6);
			ip_ok = f[p.l3] == 0x45 && !(frag & 0x3fff) && ipv4_hdr_ok(f, p.l3);
			ip_flush = get16(f, p.l3 + 2) != f.size() - p.l3 || (frag & ~0x4000);
		} else if (ip_ok) {
			ip_flush = p.l4 + get16(f, p.l3 + 4) != f.size();
		}
		if (!ip_ok) {	/* no GRO for it: handed up at once, nothing held flushed */
			out.push_back(Skb{ f, 0, 0, 0 });
			continue;
		}

		auto it = held.begin();
		for (; it != held.end(); ++it)
			if (it->p.flow == p.flow)
				break;
		Held *h = it == held.end() ? nullptr : &*it;
		const uint8_t *ip = &f[p.l3];
		bool flush = false;	/* NAPI_GRO_CB(p)->flush + the TCP checks */
		uint16_t flush_id = 0;
		bool df = !p.v6 && (ip[6] & 0x40);

		if (h) {
			const uint8_t *ip2 = &h->data[h->p.l3];
			flush = ip_flush;
			if (p.v6) {
				flush |= ((ip[0] ^ ip2[0]) & 0x0f) || ((ip[1] ^ ip2[1]) & 0xf0) ||
					 ip[7] != ip2[7];
			} else {
				flush |= ip[8] != ip2[8] || ip[1] != ip2[1] || ((ip[6] ^ ip2[6]) & 0x40);
				flush_id = (uint16_t)(get16(f, p.l3 + 4) - get16(h->data, h->p.l3 + 4));
				if (!h->is_atomic || !df)
					flush_id = (flush_id ^ h->count) & 0xffff ? 0xffff : 0;
			}
		}
		/* checksums are validated unless the frame is flushed anyway */
		if (!ip_flush && !tcp_csum_ok(f, p)) {
			out.push_back(Skb{ f, 0, 0, 0 });
			continue;
		}

		bool merged = false;
		uint32_t mss = 1;
		size_t len = p.payload_len;
		if (h) {
			const uint8_t *th = &f[p.l4], *th2 = &h->data[h->p.l4];
			size_t thlen = p.payload - p.l4;

			flush |= (th[13] & frames::kCwr) != 0;
			/* data offset, flags but CWR/FIN/PSH, window; ack; options */
			flush |= th[12] != th2[12] ||
				 ((th[13] ^ th2[13]) & ~(frames::kCwr | frames::kFin | frames::kPsh)) ||
				 memcmp(th + 14, th2 + 14, 2) || memcmp(th + 8, th2 + 8, 4) ||
				 memcmp(th + 20, th2 + 20, thlen - 20);
			if (flush_id != 1 || h->count != 1 || !h->is_atomic)
				flush |= flush_id != 0;
			else
				h->is_atomic = false;
			mss = h->mss;
			flush |= len - 1 >= mss;	/* no payload, or more than the first */
			flush |= h->p.seq + (uint32_t)h->p.payload_len != p.seq;
			/* skb_gro_receive: the skb stays below 64 KiB */
			if (!flush && h->data.size() - kEthHdr + len < kMaxSize) {
				h->data.insert(h->data.end(), f.begin() + (long)p.payload,
					       f.begin() + (long)(p.payload + len));
				h->data[h->p.l4 + 13] |= p.flags & (frames::kFin | frames::kPsh);
				h->p.payload_len += len;
				h->count++;
				merged = true;
			} else {
				mss = 1;
			}
		}
		bool final_flush = len < mss ||
				   (p.flags & (frames::kUrg | frames::kPsh | frames::kRst | frames::kSyn |
					       frames::kFin));
		if (h && (!merged || final_flush)) {
			out.push_back(complete(*h));
			held.erase(it);
		}
		if (merged)
			continue;
		if (ip_flush || final_flush) {
			out.push_back(Skb{ f, 0, 0, 0 });
			continue;
		}
		if (held.size() >= kMaxHeld) {
			out.push_back(complete(held.front()));
			held.pop_front();
		}
		Held n;
		n.data = f;
		n.p = p;
		n.mss = (uint16_t)len;
		n.is_atomic = p.v6 || df;
		held.push_back(std::move(n));
	}
	for (Held &h : held)
		out.push_back(complete(h));
	return out;
}

std::vector<Bytes> resegment(const Skb &s)
{
	if (!s.gso_segs)
		return { s.data };
	std::vector<Bytes> segs;
	Parsed p = parse(s.data);
	size_t hdr = p.payload, total = s.data.size() - hdr;
	uint16_t id = p.v6 ? 0 : get16(s.data, p.l3 + 4);

	for (size_t off = 0, i = 0; off < total || i == 0; off += s.gso_size, i++) {
		size_t n = total - off < s.gso_size ? total - off : s.gso_size;
		Bytes f(s.data.begin(), s.data.begin() + (long)hdr);
		f.insert(f.end(), s.data.begin() + (long)(hdr + off), s.data.begin() + (long)(hdr + off + n));
		bool last = off + n >= total;
		if (p.v6) {
			put16(f, p.l3 + 4, (uint16_t)(f.size() - p.l4));
		} else {
			put16(f, p.l3 + 2, (uint16_t)(f.size() - p.l3));
			if (!(s.gso_type & SCX_RX_GSO_FIXEDID))
				put16(f, p.l3 + 4, (uint16_t)(id + i));
		}
		put32(f, p.l4 + 4, p.seq + (uint32_t)off);
		if (!last)
			f[p.l4 + 13] &= (uint8_t)~(frames::kFin | frames::kPsh);
		if (i)
			f[p.l4 + 13] &= (uint8_t)~frames::kCwr;
		frames::fill_reference_csums(f);
		segs.push_back(std::move(f));
		if (last)
			break;
	}
	return segs;
}

bool gro_could_build(const Skb &s)
{
	std::vector<Skb> again = receive(resegment(s));
	return again.size() == 1 && again[0] == s;
}

std::vector<size_t> skb_of_frames(const std::vector<Bytes> &frames, const std::vector<Skb> &skbs)
{
	std::map<Bytes, std::deque<size_t>> of;
	std::vector<size_t> out;

	for (size_t i = 0; i < skbs.size(); i++)
		for (const Bytes &f : resegment(skbs[i]))
			of[f].push_back(i);
	for (const Bytes &f : frames) {
		auto &q = of[f];
		out.push_back(q.empty() ? kNoSkb : q.front());
		if (!q.empty())
			q.pop_front();
	}
	return out;
}

std::string describe(const Skb &s)
{
	Parsed p = parse(s.data);
	std::string d;

	if (!p.tcp)
		return "non-TCP, " + std::to_string(s.data.size()) + " bytes";
	d = p.v6 ? "v6" : "v4";
	d += " sport " + std::to_string(get16(s.data, p.l4)) + " seq " + std::to_string(p.seq) +
	     " len " + std::to_string(p.payload_len) + " flags " + std::to_string(p.flags);
	if (s.gso_segs)
		d += " segs " + std::to_string(s.gso_segs) + " size " + std::to_string(s.gso_size) +
		     " type " + std::to_string(s.gso_type);
	return d;
}

} /* namespace gro */
