// SPDX-License-Identifier: GPL-2.0
/*
 * SHAMPO on the driver side: a striding RQ (256-byte strides, params.h
 * rx_shampo_layout) whose device writes every TCP packet's headers to the
 * next entry of a header ring and its payload to the strides, payloads of
 * one GRO session back to back (prm/cqe.h CqeShampo, prm/cmd.h).
 *
 * Per packet CQE: a packet that does not continue the open session
 * (match 0) delivers that one first; a new session copies its headers
 * from the header entry, every packet appends its payload as page pieces
 * (a piece that continues the previous one in the same page grows it),
 * one page reference per piece. A session ends with the CQE's flush bit,
 * with a packet that does not match, and at the end of every poll: then
 * the headers are fixed as software GRO leaves a merged packet (IP
 * length and header checksum, FIN/PSH of the later segments, the TCP
 * checksum field holding the pseudo-header sum) and the shim builds one
 * skb: the headers in its head, the payload as fragments, GSO size and
 * segment count set. A session of one packet is an ordinary packet.
 *
 * Header entries need no reposting: an entry is the device's again when
 * the WQE whose packet used it is posted anew, and a session's headers
 * are copied out before that.
 */
#include "en/rq.h"

#include "en/rq_mpw.h"
#include "en/rx_pkt.h"
#include "en/sq.h"

namespace softcx::en {

/* The session being built: the first packet's headers, the payload's pieces. */
struct GroSession {
	u32 segs;		/* packets in it; 0: none open */
	u32 payload;		/* bytes in pieces */
	u32 wire;		/* bytes of its packets (headers of each included) */
	u32 mss;		/* the first packet's payload */
	u16 hdr_len;
	u8 l3_off;
	u8 l4_off;
	bool ipv6;
	bool mergeable;		/* its headers parsed as TCP over IPv4/IPv6 */
	bool fixed_id;		/* IPv4: the second packet has the first one's ID */
	u8 flags;		/* FIN/PSH of the later packets */
	u32 npieces;
	scx_rx_pkt pkt;		/* the first packet's metadata */
	scx_rx_piece pieces[SCX_RX_GRO_MAX_FRAGS];
	u8 hdr[1u << kShampoLogHdEntry];
};

struct Shampo {
	DmaBuf ring;		/* prm::ShampoHdrWqe per entry, naming its buffer */
	DmaBuf bufs;		/* the entries' buffers */
	u32 hd_mask;
	u16 hd_ci;		/* the header entry the next packet CQE names */
	GroSession s;
};

namespace {

using prm::load_be16;
using prm::store_be16;

/* A one's-complement sum folded to 16 bits, not inverted. */
u16 csum_fold16(u32 acc)
{
	while (acc >> 16)
		acc = (acc & 0xffff) + (acc >> 16);
	return (u16)acc;
}

/* The folded sum of big-endian 16-bit words (len even: header fields) after acc. */
u16 csum16(u32 acc, const u8 *p, u32 len)
{
	for (u32 i = 0; i < len; i += 2)
		acc += load_be16(p + i);
	return csum_fold16(acc);
}

/* Where the session's L3 and L4 headers are; false when they are not TCP over IPv4/IPv6. */
bool gro_parse(GroSession *s)
{
	const u8 *h = s->hdr;
	u32 off = prm::kEthHdrLen;
	u16 type = load_be16(h + 12);

	for (int tags = 0; tags < 2 && (type == prm::kEthTypeVlan || type == prm::kEthTypeQinQ);
	     tags++) {
		if (off + prm::kVlanHdrLen > s->hdr_len)
			return false;
		type = load_be16(h + off + 2);
		off += prm::kVlanHdrLen;
	}
	u32 l4;
	if (type == prm::kEthTypeIpv4) {
		if (off + prm::kIpv4MinHdr > s->hdr_len || h[off + 9] != prm::kIpProtoTcp)
			return false;
		l4 = off + (h[off] & 0xf) * 4u;
		s->ipv6 = false;
	} else if (type == prm::kEthTypeIpv6) {
		if (off + prm::kIpv6Hdr > s->hdr_len || h[off + prm::kIpv6NextHdrOff] != prm::kIpProtoTcp)
			return false;
		l4 = off + prm::kIpv6Hdr;
		s->ipv6 = true;
	} else {
		return false;
	}
	if (l4 + prm::kTcpMinHdr > s->hdr_len)
		return false;
	s->l3_off = (u8)off;
	s->l4_off = (u8)l4;
	return true;
}

/* The merged packet's headers as software GRO leaves them (total: headers + all payload). */
void fix_headers(GroSession *s, u32 total)
{
	u8 *ip = s->hdr + s->l3_off, *tcp = s->hdr + s->l4_off;
	u32 l4_len = total - s->l4_off, acc;

	if (s->ipv6) {
		store_be16(ip + prm::kIpv6PayloadLenOff, (u16)(total - s->l3_off - prm::kIpv6Hdr));
		acc = csum16(0, ip + 8, 32);
	} else {
		u32 ihl = s->l4_off - s->l3_off;

		store_be16(ip + 2, (u16)(total - s->l3_off));
		store_be16(ip + prm::kIpv4CsumOff, 0);
		store_be16(ip + prm::kIpv4CsumOff, (u16)~csum16(0, ip, ihl));
		acc = csum16(0, ip + 12, 8);
	}
	tcp[prm::kTcpFlagsOff] |= s->flags;
	store_be16(tcp + prm::kTcpCsumOff, csum_fold16(acc + prm::kIpProtoTcp + l4_len));
}

/* Hand the open session to the stack, if any. */
void gro_flush(Rq *rq)
{
	GroSession *s = &rq->shampo->s;
	RqStats *st = rq->stats;
	scx_rx_gso gso, *g = nullptr;
	u32 stride = rq->layout.stride_size();

	if (!s->segs)
		return;
	s->pkt.len = s->hdr_len + s->payload;
	/* each piece is charged the strides it covers */
	for (u32 i = 0; i < s->npieces; i++) {
		scx_rx_piece *p = &s->pieces[i];

		p->truesize = ((p->off + p->len + stride - 1) & ~(stride - 1)) - (p->off & ~(stride - 1));
	}
	if (s->segs > 1) {
		fix_headers(s, s->pkt.len);
		gso.size = (u16)s->mss;
		gso.segs = (u16)s->segs;
		gso.l4_off = s->l4_off;
		gso.type = (u8)((s->ipv6 ? SCX_RX_GSO_TCPV6 : SCX_RX_GSO_TCPV4) |
				(s->fixed_id ? SCX_RX_GSO_FIXEDID : 0) |
				(s->hdr[s->l4_off + prm::kTcpFlagsOff] & prm::kTcpCwr ? SCX_RX_GSO_ECN : 0));
		g = &gso;
	}
	u32 segs = s->segs;
	s->segs = 0;
	if (scx_os_rx_deliver_hds(rq->os_channel, &s->pkt, s->hdr, s->hdr_len, s->pieces,
				  s->npieces, g)) {
		st->skb_err.inc();
		return;
	}
	/* the device keeps a session within one TCI and merges only verified segments */
	rx_count_delivered(st, s->pkt, segs, s->wire);
	if (segs > 1) {
		st->gro_packets.add(segs);
		st->gro_bytes.add(s->wire);
		st->gro_skbs.inc();
	}
}

/* A new session from this packet's headers (hd: its header entry). */
void gro_open(Rq *rq, const prm::Cqe64 *cqe, const u8 *hd, u32 hlen, u32 dlen)
{
	GroSession *s = &rq->shampo->s;

	__builtin_memcpy(s->hdr, hd, hlen);
	s->hdr_len = (u16)hlen;
	s->segs = 1;
	s->payload = 0;
	s->wire = 0;
	s->mss = dlen;
	s->flags = 0;
	s->fixed_id = false;
	s->npieces = 0;
	s->mergeable = gro_parse(s);
	s->pkt.len = hlen + dlen;	/* its first packet (the flush sets the whole length) */
	rx_pkt_meta(cqe, &s->pkt, rx_ts_mask(rq), rx_csum_mask(rq));
	s->pkt.page = nullptr;
	s->pkt.buf_off = 0;
	s->pkt.buf_size = 0;
	s->pkt.headroom = 0;
	if (hlen > SCX_RX_HDS_HEAD)
		rq->stats->gro_large_hds.inc();
}

/* A later packet of the session (hd: its headers, laid out as the first's). */
void gro_join(GroSession *s, const u8 *hd)
{
	s->segs++;
	if (s->segs == 2 && !s->ipv6)
		s->fixed_id = load_be16(hd + s->l3_off + 4) == load_be16(s->hdr + s->l3_off + 4);
	s->flags |= hd[s->l4_off + prm::kTcpFlagsOff] & (prm::kTcpFin | prm::kTcpPsh);
}

/* The payload at off in the WQE's buffer, as pieces (a piece that continues the last one grows it). */
void gro_append(GroSession *s, MpwPage *pg, u32 off, u32 len)
{
	s->payload += len;
	while (len) {
		MpwPage *p = &pg[off / kPageSize];
		u32 at = off % kPageSize;
		u32 take = len < kPageSize - at ? len : kPageSize - at;
		scx_rx_piece *last = s->npieces ? &s->pieces[s->npieces - 1] : nullptr;

		if (last && last->page == p->page && last->off + last->len == at) {
			last->len += take;
		} else {
			s->pieces[s->npieces++] = scx_rx_piece{p->page, at, take, 0};
			p->refs++;
		}
		off += take;
		len -= take;
	}
}

/* Pieces the payload at off (len > 0) in WQE pages pg adds to the session: its pages, less one it continues. */
u32 pieces_for(const GroSession *s, const MpwPage *pg, u32 off, u32 len)
{
	u32 n = (off + len - 1) / kPageSize - off / kPageSize + 1;
	const scx_rx_piece *last = s->npieces ? &s->pieces[s->npieces - 1] : nullptr;

	if (last && last->page == pg[off / kPageSize].page &&
	    last->off + last->len == off % kPageSize)
		n--;
	return n;
}

__attribute__((always_inline)) inline void shampo_cqe(Rq *rq, const prm::Cqe64 *cqe)
{
	mpw_handle_cqe<true>(rq, cqe, [](Rq *r, const prm::Cqe64 *c, MpwPage *pg, u32 len) {
		Shampo *sh = r->shampo;
		GroSession *s = &sh->s;
		u32 hlen = c->shampo.header_size;
		u32 off = c->shampo.data_offset.get();
		bool match = c->shampo.flags & prm::kCqeShampoMatch;

		u32 hd_ix = sh->hd_ci & sh->hd_mask;

		/* the next header entry, data inside the WQE's buffer: else the RQ is reset */
		if (__builtin_expect(c->shampo.header_entry_index.get() != hd_ix ||
				     hlen > len || off + (len - hlen) > r->layout.wqe_buf_bytes(), 0)) {
			gro_flush(r);
			r->stats->wqe_err.inc();
			r->recover = kRecoverConfused;
			return;
		}
		sh->hd_ci++;
		if (match)
			r->stats->gro_match_packets.inc();
		if (!hlen) {
			/* not split: the whole frame in the strides, as a non-linear striding RQ's */
			scx_rx_pkt pkt;

			gro_flush(r);
			r->stats->hds_nosplit_packets.inc();
			r->stats->hds_nosplit_bytes.add(len);
			if (!mpw_frame_len_ok(r, len))
				return;
			pkt.len = len;
			rx_pkt_meta(c, &pkt, rx_ts_mask(r), rx_csum_mask(r));
			mpw_nonlinear_frame(r, pg, off, &pkt);
			return;
		}
		u32 dlen = len - hlen;
		const u8 *hd = static_cast<const u8 *>(sh->bufs.cpu) +
			       ((usize)hd_ix << r->layout.log_hd_entry);

		if (s->segs && (!match || !s->mergeable || hlen != s->hdr_len ||
				(dlen && s->npieces + pieces_for(s, pg, off, dlen) > SCX_RX_GRO_MAX_FRAGS) ||
				s->hdr_len + s->payload + dlen > 0xffff))
			gro_flush(r);
		if (s->segs)
			gro_join(s, hd);
		else
			gro_open(r, c, hd, hlen, dlen);
		s->wire += len;
		if (dlen) {
			gro_append(s, pg, off, dlen);
		} else {
			r->stats->hds_nodata_packets.inc();
			r->stats->hds_nodata_bytes.add(hlen);
		}
		if (c->shampo.flags & prm::kCqeShampoFlush)
			gro_flush(r);
	});
}

} /* namespace */

int shampo_alloc(Rq *rq, prm::CreateRqIn *in)
{
	const RqLayout &l = rq->layout;
	u32 n = 1u << l.log_hd_entries, entry = 1u << l.log_hd_entry;
	Shampo *sh = zalloc_array<Shampo>(1);
	int err;

	if (!sh)
		return -SCX_ENOMEM;
	rq->shampo = sh;
	sh->hd_mask = n - 1;
	err = sh->ring.alloc(rq->os_dev, n * (u32)sizeof(prm::ShampoHdrWqe));
	if (!err)
		err = sh->bufs.alloc(rq->os_dev, n * entry);
	if (err)
		return err;
	auto *w = static_cast<prm::ShampoHdrWqe *>(sh->ring.cpu);
	for (u32 i = 0; i < n; i++)
		put_dseg(&w[i].data, sh->bufs.dma + (u64)i * entry, entry, rq->lkey);

	in->shampo_enable = 1;
	in->shampo_match_criteria_type = prm::kShampoMatchExtended;
	in->shampo_no_match_alignment_granularity = prm::kShampoAlignStride;
	in->log_reservation_size = (u8)(l.log_res - prm::kShampoLogReservationBase);
	in->log_max_num_of_packets_per_reservation = l.log_res_pkts;
	in->log_headers_entry_size = (u8)(l.log_hd_entry - prm::kShampoLogHdrEntryBase);
	in->log_headers_buffer_entry_num = l.log_hd_entries;
	in->headers_pas.set(sh->ring.dma);
	return 0;
}

void shampo_free(Rq *rq)
{
	Shampo *sh = rq->shampo;

	if (!sh)
		return;
	sh->bufs.free(rq->os_dev);
	sh->ring.free(rq->os_dev);
	scx_os_free(sh);
	rq->shampo = nullptr;
}

void shampo_reset(Rq *rq)
{
	if (rq->shampo)
		rq->shampo->hd_ci = 0;
}

int rq_poll_cq_shampo(Rq *rq, int budget)
{
	/* no CQE compression with SHAMPO (params_conflict) */
	int work = rq_poll_loop<RxComp::Off, true>(rq, budget,
						   [](Rq *r, const prm::Cqe64 *c) { shampo_cqe(r, c); });

	gro_flush(rq);
	return work;
}

} /* namespace softcx::en */
