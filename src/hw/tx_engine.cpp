// SPDX-License-Identifier: GPL-2.0
/*
 * TX engine: executes an SQ's WQEs (NOP, SEND, LSO, ENHANCED_MPSW) from the
 * device's consumer counter up to the producer counter in the doorbell
 * record, puts the frames on the wire and writes the CQEs the WQEs ask for.
 *
 * Every frame is assembled completely in the SQ's scratch buffer (or, an
 * MPWQE's frame from one buffer without offloads, read where it is) and
 * validated before it leaves, so a malformed WQE produces an error CQE and
 * moves the SQ to ERR, but never a partial or corrupt frame on the wire.
 */
#include "hw/checksum.h"
#include "hw/engine.h"
#include "hw/tunnel.h"
#include "prm/cqe.h"
#include "prm/wqe.h"

namespace softcx::hw {
namespace {

using prm::CtrlSeg;
using prm::DataSeg;
using prm::EthSeg;

using prm::kTcpCwr;
using prm::kTcpFin;
using prm::kTcpPsh;

/*
 * One WQE, fetched whole from the ring into the SQ's scratch before it runs
 * (as a device reads a descriptor once): the driver rewriting the ring
 * meanwhile cannot change what is checked and then used.
 */
struct Wqe {
	const u8 *b;	/* its bytes, ds * 16 of them valid */
	u32 ds;		/* DS count from the ctrl segment */
};

static_assert((prm::kMaxDsCount + prm::kDsPerWqeBB - 1) / prm::kDsPerWqeBB <= prm::kMaxSendWqeBBs,
	      "a WQE's ds count fits the fetch buffer");

/* Copy len bytes from WQE byte offset off; callers keep off + len within ds * 16. */
[[gnu::always_inline]] inline void wqe_copy(const Wqe &w, u32 off, void *dst, u32 len)
{
	__builtin_memcpy(dst, w.b + off, len);
}

struct TxRun {
	Function *fn;
	Sq *sq;
	u32 sqn;
	IrqBatch *irqs;
	u64 ts;		/* the timer when the current WQE started on the wire */
};

/* ---- common pieces of SEND / LSO / MPSW ---- */

/*
 * Inline headers: the first two bytes sit in eth.inline_hdr_start, the rest
 * continue right after the eth segment. Returns the DS index where the
 * gather list starts, or 0 when the inline data does not fit the WQE.
 */
u32 copy_inline(const Wqe &w, const EthSeg &eth, u8 *dst, u32 max)
{
	u32 ihs = eth.inline_hdr_sz.get();
	u32 extra = ihs > 2 ? ihs - 2 : 0;
	u32 first_ds = prm::kEmptyDsCount + (extra + prm::kSendWqeDS - 1) / prm::kSendWqeDS;

	if (first_ds > w.ds || ihs > max)
		return 0;
	__builtin_memcpy(dst, eth.inline_hdr_start, ihs < 2 ? ihs : 2);
	wqe_copy(w, prm::kInlineHdrRestOff, dst + 2, extra);
	return first_ds;
}

/* A data segment's buffer as the CPU sees it; NULL if lkey or address is bad. */
const u8 *translate(TxRun &t, const DataSeg &seg, u32 len)
{
	if (seg.lkey.get() != prm::kReservedLkey)
		return nullptr;
	return static_cast<const u8 *>(dma_translate(t.fn, seg.addr.get(), len));
}

/*
 * Append the data segments [d, w.ds) (pointers or inline segments) to the
 * frame. Returns a CQE syndrome, 0 on success.
 */
u8 gather(TxRun &t, const Wqe &w, u32 d, u8 *frame, u32 *len)
{
	const u32 mtu = caps_of(t.fn).max_hw_mtu.get();

	while (d < w.ds) {
		DataSeg seg;
		wqe_copy(w, d * prm::kSendWqeDS, &seg, sizeof(seg));
		u32 bc = seg.byte_count.get();

		if (bc & prm::kInlineSegFlag) {
			u32 n = bc & ~prm::kInlineSegFlag;
			u32 nds = (4 + n + prm::kSendWqeDS - 1) / prm::kSendWqeDS;
			if (n > mtu || d + nds > w.ds || *len + n > mtu)
				return prm::kSyndLocalLengthErr;
			wqe_copy(w, d * prm::kSendWqeDS + 4, frame + *len, n);
			*len += n;
			d += nds;
			continue;
		}
		if (bc > mtu || *len + bc > mtu)
			return prm::kSyndLocalLengthErr;
		if (bc) {
			const u8 *src = translate(t, seg, bc);
			if (!src)
				return prm::kSyndLocalProtErr;
			__builtin_memcpy(frame + *len, src, bc);
			bus_add(&t.fn->bus.rd_data_bytes, bc);
			*len += bc;
		}
		d++;
	}
	return 0;
}

constexpr u8 kCsInner = prm::kCsL3Inner | prm::kCsL4Inner;
constexpr u8 kCsAny = prm::kCsL3 | prm::kCsL4 | kCsInner;

/*
 * Checksums of a tunnel's frame: the inner ones first (kCsL3Inner,
 * kCsL4Inner), then the outer ones over the result (kCsL3; kCsL4, the
 * outer UDP checksum, only when asked). A frame the device finds no
 * tunnel in (hw/tunnel.h) gets the outer ones alone: the inner headers
 * stay as they came, as hardware that cannot see them leaves them.
 */
[[gnu::noinline]] void csum_offload_tunnel(const Function *fn, u8 *frame, u32 len, u8 cs_flags)
{
	PacketInfo pi, in;
	u32 ilen = 0;
	u16 itype;

	parse_frame(frame, len, &pi);
	u32 ioff = tunnel_inner(fn, frame, pi, &ilen, &itype);
	if (ioff) {
		parse_inner(frame + ioff, ilen, itype, &in);
		csum_offload_tx(frame + ioff, ilen, in,
				(u8)((cs_flags & prm::kCsL3Inner ? prm::kCsL3 : 0) |
				     (cs_flags & prm::kCsL4Inner ? prm::kCsL4 : 0)));
	}
	csum_offload_tx(frame, len, pi, cs_flags & (prm::kCsL3 | prm::kCsL4));
}

/*
 * Offload checksums as asked and put the frame on the wire. Inlined into
 * its callers: once the MAC's counting (hw/mac.h) grew it, GCC stopped
 * inlining it, which cost about 20 instructions per packet (bench/host).
 */
[[gnu::always_inline]] inline void finish_and_send(TxRun &t, u8 *frame, u32 len, u8 cs_flags)
{
	if (__builtin_expect(cs_flags & kCsInner, 0)) {
		csum_offload_tunnel(t.fn, frame, len, cs_flags);
	} else if (cs_flags & (prm::kCsL3 | prm::kCsL4)) {
		PacketInfo pi;
		parse_frame(frame, len, &pi);
		csum_offload_tx(frame, len, pi, cs_flags);
	}
	wire_xmit(t.fn, frame, frame, len, t.ts, t.irqs);
}

/* ---- SEND: one frame = inline headers + gather list ---- */

/*
 * SEND with the eth segment's insert (prm/wqe.h): no inline headers, the
 * gather list is the frame, the tag goes in after the source MAC.
 */
u8 exec_send_insert(TxRun &t, const Wqe &w, const EthSeg &eth)
{
	const u32 mtu = caps_of(t.fn).max_hw_mtu.get();
	u8 *frame = t.sq->scratch->frame;
	u32 len = 0;

	/* an unknown insert type, or an SQ whose WQEs must carry the L2 headers inline */
	if ((eth.insert_type() & ~(prm::kEthInsertVlan | prm::kEthInsertSvlan)) ||
	    t.sq->min_inline_mode >= prm::kInlineL2)
		return prm::kSyndLocalQpOpErr;
	u8 synd = gather(t, w, prm::kEmptyDsCount, frame, &len);
	if (synd)
		return synd;
	if (len < kMinFrame || len + kVlanHdrLen > mtu)
		return prm::kSyndLocalLengthErr;
	__builtin_memmove(frame + kEthAddrsLen + kVlanHdrLen, frame + kEthAddrsLen,
			  len - kEthAddrsLen);
	prm::store_be16(frame + kEthAddrsLen, eth.insert_type() & prm::kEthInsertSvlan ?
						      kEthTypeQinQ : kEthTypeVlan);
	prm::store_be16(frame + kEthAddrsLen + 2, eth.insert_vlan_tci());
	finish_and_send(t, frame, len + kVlanHdrLen, eth.cs_flags);
	return 0;
}

u8 exec_send(TxRun &t, const Wqe &w)
{
	if (w.ds < prm::kEmptyDsCount)
		return prm::kSyndLocalLengthErr;

	EthSeg eth;
	wqe_copy(w, sizeof(CtrlSeg), &eth, sizeof(eth));
	if (eth.vlan_insert())
		return exec_send_insert(t, w, eth);
	u8 *frame = t.sq->scratch->frame;
	u32 first_ds = copy_inline(w, eth, frame, caps_of(t.fn).max_hw_mtu.get());
	if (!first_ds)
		return prm::kSyndLocalLengthErr;
	u32 len = eth.inline_hdr_sz.get();
	/* A device that parses headers from the WQE (CX4: L2 mode) refuses SENDs without them. */
	if (t.sq->min_inline_mode >= prm::kInlineL2 && len < kEthHdrLen)
		return prm::kSyndLocalQpOpErr;

	u8 synd = gather(t, w, first_ds, frame, &len);
	if (synd)
		return synd;
	if (len < kMinFrame)
		return prm::kSyndLocalLengthErr;
	finish_and_send(t, frame, len, eth.cs_flags);
	return 0;
}

/* ---- ENHANCED_MPSW: one shared eth segment, one packet per data/inline segment ---- */
u8 exec_mpsw(TxRun &t, const Wqe &w)
{
	const u32 mtu = caps_of(t.fn).max_hw_mtu.get();

	if (!caps_of(t.fn).enhanced_mpw || !t.sq->allow_mpw)
		return prm::kSyndLocalQpOpErr;
	if (w.ds <= prm::kEmptyDsCount)
		return prm::kSyndLocalLengthErr;

	EthSeg eth;
	wqe_copy(w, sizeof(CtrlSeg), &eth, sizeof(eth));
	if (eth.inline_hdr_sz.get())
		return prm::kSyndLocalQpOpErr;

	u8 *frame = t.sq->scratch->frame;
	for (u32 d = prm::kEmptyDsCount; d < w.ds;) {
		DataSeg seg;
		wqe_copy(w, d * prm::kSendWqeDS, &seg, sizeof(seg));
		u32 bc = seg.byte_count.get();
		u32 len = bc & ~prm::kInlineSegFlag;
		u32 nds = 1;

		if (len < kMinFrame || len > mtu)
			return prm::kSyndLocalLengthErr;
		if (bc & prm::kInlineSegFlag) {
			nds = (4 + len + prm::kSendWqeDS - 1) / prm::kSendWqeDS;
			if (d + nds > w.ds)
				return prm::kSyndLocalLengthErr;
			wqe_copy(w, d * prm::kSendWqeDS + 4, frame, len);
		} else {
			const u8 *src = translate(t, seg, len);
			if (!src)
				return prm::kSyndLocalProtErr;
			bus_add(&t.fn->bus.rd_data_bytes, len);
			/*
			 * Nothing to change on the way: the peer reads the frame
			 * where the driver's buffer is and copies it into the
			 * scratch only if it must change it (rx_receive), one
			 * copy of the frame fewer.
			 */
			if (!(eth.cs_flags & kCsAny)) {
				wire_xmit(t.fn, src, frame, len, t.ts, t.irqs);
				d += nds;
				continue;
			}
			__builtin_memcpy(frame, src, len);
		}
		finish_and_send(t, frame, len, eth.cs_flags);
		d += nds;
	}
	return 0;
}

/* ---- LSO: replicate the inline headers for every mss bytes of payload ---- */

/*
 * An LSO template: Ethernet + IPv4/IPv6 + TCP/UDP, or a tunnel's (outer
 * Ethernet + IPv4/IPv6 + UDP to a VXLAN port or GENEVE's, the VXLAN or
 * GENEVE header, then the inner Ethernet + IPv4/IPv6 + TCP), ending at the
 * L4 header that is segmented.
 */
struct LsoHdr {
	u32 ihs;
	u32 mss;
	u32 ioff;		/* a tunnel's inner frame in the template; 0: none */
	PacketInfo pi;		/* of the segmented headers, offsets from ioff */
	u16 ip_id;
	u32 tcp_seq;
	u8 tcp_flags;
	PacketInfo outer;	/* a tunnel's outer headers */
	u16 outer_ip_id;
};

/* Translate the whole payload first: an error must not leave half a send on the wire. */
u8 lso_gather_list(TxRun &t, const Wqe &w, u32 d, u32 *nseg, u32 *total)
{
	Gather *g = t.sq->scratch->gather;
	const u32 max_lso = caps_of(t.fn).max_lso_sz.get();
	*nseg = 0;
	*total = 0;
	for (; d < w.ds; d++) {
		DataSeg seg;
		wqe_copy(w, d * prm::kSendWqeDS, &seg, sizeof(seg));
		u32 bc = seg.byte_count.get();
		if (bc & prm::kInlineSegFlag)
			return prm::kSyndLocalQpOpErr;
		if (bc > max_lso || *total + bc > max_lso)
			return prm::kSyndLocalLengthErr;
		if (!bc)
			continue;
		const u8 *src = translate(t, seg, bc);
		if (!src)
			return prm::kSyndLocalProtErr;
		g[*nseg].cpu = src;
		g[*nseg].len = bc;
		(*nseg)++;
		*total += bc;
	}
	return 0;
}

/* IP length and IPv4 id of segment k (chunk payload bytes; the headers end at ihs from f). */
void lso_fix_ip(const PacketInfo &pi, u8 *f, u32 ihs, u16 ip_id, u32 k, u32 chunk)
{
	u8 *ip = f + pi.l3_off;

	if (pi.l3 == L3::Ipv4) {
		prm::store_be16(ip + 2, (u16)(ihs - pi.l3_off + chunk));
		prm::store_be16(ip + 4, (u16)(ip_id + k));
	} else {
		prm::store_be16(ip + 4, (u16)(ihs - pi.l3_off - kIpv6Hdr + chunk));
	}
}

/*
 * Per-segment header fields: lengths, IPv4 ids, TCP sequence and flags,
 * UDP length; a tunnel's outer IP and UDP lengths and outer IPv4 id too.
 */
void lso_fix_headers(const LsoHdr &h, u8 *frame, u32 k, u32 chunk, bool first, bool last)
{
	const PacketInfo &pi = h.pi;
	u8 *f = frame + h.ioff;
	u32 ihs = h.ihs - h.ioff;
	u8 *l4 = f + pi.l4_off;

	if (h.ioff) {
		lso_fix_ip(h.outer, frame, h.ihs, h.outer_ip_id, k, chunk);
		/* a UDP tunnel's length; GRE has none (its checksum, if any, is the stack's) */
		if (h.outer.l4_proto == kIpProtoUdp)
			prm::store_be16(frame + h.outer.l4_off + 4,
					(u16)(h.ihs - h.outer.l4_off + chunk));
	}
	lso_fix_ip(pi, f, ihs, h.ip_id, k, chunk);
	if (pi.l4_proto == kIpProtoUdp) {
		prm::store_be16(l4 + 4, (u16)(kUdpHdr + chunk));
		return;
	}
	prm::store_be32(l4 + 4, h.tcp_seq + k * h.mss);
	u8 flags = h.tcp_flags;
	if (!last)
		flags &= (u8)~(kTcpFin | kTcpPsh);
	if (!first)
		flags &= (u8)~kTcpCwr;
	l4[13] = flags;
}

/*
 * A segment's checksums, from the template's parse (the segment differs
 * from it only in its L4 length): IPv4 and TCP/UDP; a tunnel's inner
 * ones, then its outer IPv4 one, and its outer UDP one only when the WQE
 * asks for it (a GSO_PARTIAL send leaves the template's in place).
 */
void lso_csum(const LsoHdr &h, u8 *frame, u32 chunk, u8 cs_flags)
{
	PacketInfo pi = h.pi;
	pi.l4_len = h.ihs - h.ioff - pi.l4_off + chunk;
	csum_offload_tx(frame + h.ioff, h.ihs - h.ioff + chunk, pi, prm::kCsL3 | prm::kCsL4);
	if (h.ioff) {
		PacketInfo outer = h.outer;
		outer.l4_len = h.ihs - outer.l4_off + chunk;
		csum_offload_tx(frame, h.ihs + chunk, outer,
				(u8)(prm::kCsL3 | (cs_flags & prm::kCsL4)));
	}
}

/*
 * Validate the template: Ethernet + IPv4/IPv6 + TCP/UDP, ending exactly at
 * ihs; or, running past a UDP header, or past an IP header into GRE or IP,
 * into a tunnel the device parses (hw/tunnel.h), one whose inner frame is
 * such a template with TCP.
 */
bool lso_parse_template(const Function *fn, const u8 *frame, LsoHdr *h)
{
	const u8 *hdr = frame;
	u32 ihs = h->ihs;

	parse_headers(hdr, ihs, &h->pi);
	if ((h->pi.l4_proto == kIpProtoUdp && h->pi.l4_off + kUdpHdr < ihs) ||
	    (!h->pi.l4_proto && h->pi.ip_len_ok)) {
		/* the template's IP payload ends at ihs: l4_len says so */
		u32 ilen;
		u16 itype;
		u32 ioff = tunnel_inner(fn, hdr, h->pi, &ilen, &itype);
		if (!ioff)
			return false;
		h->outer = h->pi;
		if (h->outer.l3 == L3::Ipv4)
			h->outer_ip_id = prm::load_be16(hdr + h->outer.l3_off + 4);
		h->ioff = ioff;
		hdr += ioff;
		ihs -= ioff;
		parse_inner_headers(hdr, ihs, itype, &h->pi);
		if (h->pi.l4_proto != kIpProtoTcp)
			return false;
	}
	const PacketInfo &pi = h->pi;
	if (!pi.l4_proto)
		return false;
	u32 l4_hdr = pi.l4_proto == kIpProtoTcp ? (u32)(hdr[pi.l4_off + 12] >> 4) * 4 : kUdpHdr;
	if (pi.l4_off + l4_hdr != ihs)
		return false;
	if (pi.l3 == L3::Ipv4)
		h->ip_id = prm::load_be16(hdr + pi.l3_off + 4);
	if (pi.l4_proto == kIpProtoTcp) {
		h->tcp_seq = prm::load_be32(hdr + pi.l4_off + 4);
		h->tcp_flags = hdr[pi.l4_off + 13];
	}
	return true;
}

u8 exec_lso(TxRun &t, const Wqe &w)
{
	const u32 mtu = caps_of(t.fn).max_hw_mtu.get();
	SqScratch *s = t.sq->scratch;

	if (!caps_of(t.fn).lso)
		return prm::kSyndLocalQpOpErr;
	if (w.ds < prm::kEmptyDsCount)
		return prm::kSyndLocalLengthErr;

	EthSeg eth;
	wqe_copy(w, sizeof(CtrlSeg), &eth, sizeof(eth));
	/* the template is inline: a tag belongs in it, not in the insert field */
	if (eth.vlan_insert())
		return prm::kSyndLocalQpOpErr;
	LsoHdr h = {};
	h.ihs = eth.inline_hdr_sz.get();
	h.mss = eth.mss.get();
	u32 first_ds = copy_inline(w, eth, s->lso_hdr, sizeof(s->lso_hdr));
	if (!first_ds)
		return prm::kSyndLocalLengthErr;
	if (!lso_parse_template(t.fn, s->lso_hdr, &h))
		return prm::kSyndLocalQpOpErr;

	u32 nseg, total;
	u8 synd = lso_gather_list(t, w, first_ds, &nseg, &total);
	if (synd)
		return synd;
	if (!h.mss || h.ihs + (total < h.mss ? total : h.mss) > mtu)
		return prm::kSyndLocalLengthErr;
	bus_add(&t.fn->bus.rd_data_bytes, total);

	u32 segs = total ? (total + h.mss - 1) / h.mss : 1;
	u32 gi = 0, goff = 0;
	for (u32 k = 0; k < segs; k++) {
		u32 chunk = total - k * h.mss < h.mss ? total - k * h.mss : h.mss;
		u8 *f = s->frame;
		__builtin_memcpy(f, s->lso_hdr, h.ihs);
		for (u32 done = 0; done < chunk;) {
			const Gather &g = s->gather[gi];
			u32 n = g.len - goff < chunk - done ? g.len - goff : chunk - done;
			__builtin_memcpy(f + h.ihs + done, g.cpu + goff, n);
			done += n;
			goff += n;
			if (goff == g.len) {
				gi++;
				goff = 0;
			}
		}
		lso_fix_headers(h, f, k, chunk, k == 0, k == segs - 1);
		lso_csum(h, f, chunk, eth.cs_flags);
		wire_xmit(t.fn, f, f, h.ihs + chunk, t.ts, t.irqs);
	}
	return 0;
}

/* ---- completions ---- */

/*
 * False when the CQ cannot take it (an overrun): the SQ stops in ERR, its
 * completion unreported. ts: the timer when the WQE's (first) frame went
 * on the wire, before the peer received it.
 */
bool tx_cqe(TxRun &t, const CtrlSeg &ctrl, u64 ts)
{
	/* built in its slot (cq.h: cq_open_slot) unless the CQ compresses */
	if (cq_post_built(t.fn, t.sq->cq, prm::kCqeReq, t.irqs,
			  [&](prm::Cqe64 *cqe) __attribute__((always_inline)) {
				  cqe->timestamp_h.set((u32)(ts >> 32));
				  cqe->timestamp_l.set((u32)ts);
				  cqe->wqe_counter.set(ctrl.wqe_index());
				  cqe->sop_drop_qpn.set(((u32)ctrl.opcode() << 24) | t.sqn);
			  }))
		return true;
	t.sq->state = prm::kQueueErr;
	return false;
}

/* An error CQE carries the device's own counter: the driver restarts the SQ from there. */
void tx_error(TxRun &t, u8 opcode, u8 syndrome)
{
	prm::ErrCqe err = {};
	err.syndrome = syndrome;
	err.s_wqe_opcode_qpn.set(((u32)opcode << 24) | t.sqn);
	err.wqe_counter.set(t.sq->cc);
	cq_post(t.fn, t.sq->cq, reinterpret_cast<const prm::Cqe64 *>(&err), prm::kCqeReqErr,
		t.irqs);
	t.sq->state = prm::kQueueErr;
	scx_os_log(SCX_LOG_DEBUG, "softcx hw: fn%u sq 0x%x: WQE %u opcode 0x%x error 0x%x\n",
		   t.fn->ix, t.sqn, t.sq->cc, opcode, syndrome);
}

u8 exec_wqe(TxRun &t, const Wqe &w, u8 opcode)
{
	switch (opcode) {
	case prm::kOpNop:
		return 0;
	case prm::kOpSend:
		return exec_send(t, w);
	case prm::kOpLso:
		return exec_lso(t, w);
	case prm::kOpEnhancedMpsw:
		return exec_mpsw(t, w);
	default:
		return prm::kSyndLocalQpOpErr;
	}
}

/* Run WQEs up to the producer counter; caller holds the SQ lock and the SQ is RDY. */
void sq_execute(TxRun &t)
{
	Sq *sq = t.sq;
	const u32 size = 1u << sq->log_size;
	const u16 pc = (u16)dbrec_read(t.fn, sq->dbrec, prm::kSndDbr);

	while (sq->cc != pc) {
		u32 avail = (u16)(pc - sq->cc);
		u32 slot = (u32)sq->cc & (size - 1);
		CtrlSeg ctrl;
		__builtin_memcpy(&ctrl, sq->ring + (usize)slot * prm::kSendWqeBB, sizeof(ctrl));
		Wqe w = { sq->scratch->wqe, ctrl.ds_count() };
		u32 nbb = (w.ds + prm::kDsPerWqeBB - 1) / prm::kDsPerWqeBB;

		/* A producer counter beyond the ring, or a WQE beyond it, is a length error. */
		if (avail > size || w.ds == 0 || nbb > avail) {
			bus_add(&t.fn->bus.rd_desc_bytes, sizeof(ctrl));
			tx_error(t, ctrl.opcode(), prm::kSyndLocalLengthErr);
			return;
		}
		/* nbb <= 16 (a 6-bit ds): whole WQEBBs, each a fixed-size copy, across the wrap */
		for (u32 i = 0; i < nbb; i++)
			__builtin_memcpy(sq->scratch->wqe + i * prm::kSendWqeBB,
					 sq->ring + (usize)((slot + i) & (size - 1)) * prm::kSendWqeBB,
					 prm::kSendWqeBB);
		bus_add(&t.fn->bus.rd_desc_bytes, w.ds * prm::kSendWqeDS);
		/*
		 * The time the WQE starts on the wire: its CQE's timestamp, and the
		 * arrival time of each of its frames at the peer (the cable has no
		 * length and the wire no speed here: the frames of an MPWQE or LSO
		 * send arrive at the same instant). One timer read per WQE, which
		 * CQ moderation takes as the time of the CQEs written meanwhile.
		 */
		bool want_cqe = ctrl.fm_ce_se & prm::kCtrlCqUpdate;
		t.irqs->now = scx_os_timer_now();
		t.ts = timer_at(t.fn, t.irqs->now);
		u8 synd = exec_wqe(t, w, ctrl.opcode());
		if (synd) {
			tx_error(t, ctrl.opcode(), synd);
			return;
		}
		bool cqe_ok = !want_cqe || tx_cqe(t, ctrl, t.ts);
		sq->cc = (u16)(sq->cc + nbb);
		if (__builtin_expect(!cqe_ok, 0))
			return;
	}
}

} /* namespace */

void sq_schedule(Function *fn, u32 sqn)
{
	/* Synchronous engine: run now, in the doorbell writer's context. */
	sq_run(fn, sqn);
}

void sq_run(Function *fn, u32 sqn)
{
	int ix = obj_slot(sqn, ObjType::Sq, kMaxSqs);
	if (ix < 0)
		return;

	Sq *sq = &fn->sq[ix];
	IrqBatch irqs SCX_SCRATCH;
	irq_batch_init(&irqs);
	scx_os_lock(sq->lock);
	/* A stale number, or an SQ in RST/ERR, ignores the doorbell. */
	if (sq->num == sqn && sq->state == prm::kQueueRdy) {
		TxRun t = { fn, sq, sqn, &irqs, 0 };
		irqs.rss_cache = &sq->scratch->rss_cache;
		sq_execute(t);
	}
	scx_os_unlock(sq->lock);
	irq_batch_flush(&irqs);
}

} /* namespace softcx::hw */
