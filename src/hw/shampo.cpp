// SPDX-License-Identifier: GPL-2.0
/*
 * SHAMPO (header-data split + hardware GRO) on a striding RQ: TCP headers
 * go to the next header ring entry, payloads to the strides, and the
 * payloads of consecutive segments of one flow lie back to back in a
 * reservation of the WQE buffer, so that the driver can build one skb per
 * session. The formats and the rules the device follows are in prm/cmd.h
 * (RQ context) and prm/cqe.h (CqeShampo); this file is their device side.
 */
#include "hw/rx.h"
#include "hw/shampo.h"

namespace softcx::hw {
namespace {

using prm::load_be16;
using prm::load_be32;

constexpr u8 kIdUnknown = 0;	/* a session of one packet: the next one chooses */
constexpr u8 kIdIncrement = 1;
constexpr u8 kIdFixed = 2;
constexpr u8 kIpv4Df = 0x40;	/* in the high byte of frag_off */
/* Flags that end the session with their packet (tcp_gro_receive's list). */
constexpr u8 kTcpCloses = prm::kTcpFin | prm::kTcpPsh | prm::kTcpUrg | prm::kTcpRst | prm::kTcpSyn;
/* Flags a continuing packet may differ in from the session's first. */
constexpr u8 kTcpMayDiffer = prm::kTcpCwr | prm::kTcpFin | prm::kTcpPsh;
/* First packet's headers + all payload: what the merged IP packet may reach. */
constexpr u32 kMaxSessionBytes = 0xffff;

/* What SHAMPO makes of a frame. */
struct Pkt {
	bool split;		/* headers to a header entry */
	bool mergeable;		/* may be in a session with others */
	u32 hdr_len;		/* split: L2..L4 headers */
	u32 len;		/* bytes for the strides: the payload (split) or the frame */
	const u8 *data;		/* where those bytes start in the frame */
	u8 flags;		/* split: TCP flags */
};

void classify(const ShampoRq &s, const RxFrame &f, u8 hds_ip_ext, Pkt *p)
{
	const PacketInfo &pi = f.pi;

	p->split = false;
	p->mergeable = false;
	p->hdr_len = 0;
	p->len = f.len;
	p->data = f.data;
	p->flags = 0;
	/* The parser names TCP only with a consistent IP length, no fragment, no IPv6 extension. */
	if (pi.l4_proto != kIpProtoTcp)
		return;
	const u8 *tcp = f.data + pi.l4_off;
	u32 doff = (u32)(tcp[12] >> 4) * 4;
	u32 hdr = pi.l4_off + doff;
	if (hdr > kShampoMaxHdr || hdr > (1u << s.log_hd_entry))
		return;
	p->split = true;
	p->hdr_len = hdr;
	p->len = pi.l4_len - doff;
	p->data = f.data + hdr;
	p->flags = tcp[13];
	constexpr u8 kCsumOk = prm::kCqeL3Ok | prm::kCqeL4Ok;
	p->mergeable = s.match == prm::kShampoMatchExtended && p->len &&
		       (hds_ip_ext & kCsumOk) == kCsumOk &&
		       (pi.l3 == L3::Ipv6 || pi.l3_hdr_len == kIpv4MinHdr);
}

u32 res_end(const ShampoRq &s) { return (s.res_ix + 1) << s.log_res; }
u32 max_pkts(const ShampoRq &s) { return 1u << s.log_max_pkts; }

/* IPv4 ID: the previous + 1, or the same with DF; the session's second packet chooses. */
bool id_follows(const ShampoRq &s, u16 id, bool df, u8 *mode)
{
	*mode = s.id_mode;
	if (s.id_mode != kIdFixed && id == (u16)(s.last_id + 1)) {
		*mode = kIdIncrement;
		return true;
	}
	if (s.id_mode != kIdIncrement && id == s.last_id && df) {
		*mode = kIdFixed;
		return true;
	}
	return false;
}

/* The IP header continues the session's (prm/cqe.h); *id_mode: the ID rule it follows. */
bool ip_joins(const ShampoRq &s, const RxFrame &f, u8 *id_mode)
{
	const u8 *ip = f.data + s.l3_off, *first = s.head + s.l3_off;

	*id_mode = s.id_mode;
	if (f.pi.l3 == L3::Ipv6)
		return !__builtin_memcmp(ip, first, 4) && ip[6] == first[6] && ip[7] == first[7] &&
		       !__builtin_memcmp(ip + 8, first + 8, 32);
	/* version/IHL, TOS (ECN), TTL, protocol, addresses, DF */
	if (ip[0] != first[0] || ip[1] != first[1] || ip[8] != first[8] || ip[9] != first[9] ||
	    __builtin_memcmp(ip + 12, first + 12, 8) || ((ip[6] ^ first[6]) & kIpv4Df))
		return false;
	return id_follows(s, load_be16(ip + 4), ip[6] & kIpv4Df, id_mode);
}

/* The TCP header continues the session's: ports, seq, ack, offset, flags, window, options. */
bool tcp_joins(const ShampoRq &s, const RxFrame &f, const Pkt &p)
{
	const u8 *t = f.data + s.l4_off, *first = s.head + s.l4_off;
	u32 doff = p.hdr_len - s.l4_off;

	return !__builtin_memcmp(t, first, 4) && load_be32(t + 4) == s.next_seq &&
	       !__builtin_memcmp(t + 8, first + 8, 5) &&	/* ack_seq, data offset */
	       !((t[13] ^ first[13]) & (u8)~kTcpMayDiffer) && !(t[13] & prm::kTcpCwr) &&
	       !__builtin_memcmp(t + 14, first + 14, 2) &&	/* window */
	       !__builtin_memcmp(t + 20, first + 20, doff - prm::kTcpMinHdr);
}

/* Whether the frame continues the open session (prm/cqe.h); *id_mode as ip_joins(). */
bool joins(const ShampoRq &s, const RxFrame &f, const Pkt &p, u8 *id_mode)
{
	if (!s.open || !p.mergeable || p.hdr_len != s.hdr_len || f.pi.l3_off != s.l3_off ||
	    f.pi.l4_off != s.l4_off || p.len > s.mss || f.vlan != s.vlan || f.vlan_tci != s.vlan_tci)
		return false;
	if (s.pos + p.len > res_end(s) || s.res_pkts >= max_pkts(s) ||
	    s.hdr_len + s.bytes + p.len > kMaxSessionBytes)
		return false;
	return !__builtin_memcmp(f.data, s.head, s.l3_off) && ip_joins(s, f, id_mode) &&
	       tcp_joins(s, f, p);
}

/* A filler CQE for strides [rq->stride, end) of the current WQE. */
void shampo_filler(Function *fn, Rq *rq, u32 end, IrqBatch *irqs)
{
	prm::Cqe64 cqe = {};
	striding_cqe(rq, prm::kMpwrqCqeFiller | (end - rq->stride) << prm::kMpwrqCqeStridesShift,
		     &cqe);
	rx_cqe(fn, rq, &cqe, prm::kCqeRespSend, 0, irqs);
	rq->stride = end;
}

/*
 * A packet that does not continue the session starts at the next free
 * stride: of its reservation if `len` bytes fit there and it takes one
 * more packet, else of the next reservation (a filler CQE for the
 * strides skipped), which at the WQE's end is the next WQE's first. False
 * when the packet is dropped (no WQE, or an error CQE).
 */
bool start_session(Function *fn, Rq *rq, u32 len, IrqBatch *irqs)
{
	ShampoRq &s = rq->shampo;
	u32 ls = rq->log_stride;

	if (s.wqe_open) {
		u32 res = (rq->stride << ls) >> s.log_res;
		if (res != s.res_ix) {
			s.res_ix = res;
			s.res_pkts = 0;
		}
		if ((rq->stride << ls) + len > res_end(s) || s.res_pkts >= max_pkts(s)) {
			if (res_end(s) >> ls == 1u << rq->log_num_strides) {
				striding_fill(fn, rq, irqs);	/* and retires the WQE */
				s.wqe_open = 0;
			} else {
				shampo_filler(fn, rq, res_end(s) >> ls, irqs);
				s.res_ix++;
				s.res_pkts = 0;
			}
		}
	}
	if (!s.wqe_open) {
		u8 syndrome;
		if (!rq_has_wqe(fn, rq)) {
			bus_add(&fn->qc.rx_out_of_buffer, 1);
			return false;
		}
		if (!striding_wqe_ok(fn, rq, &syndrome)) {
			rx_error(fn, rq, syndrome, irqs);
			return false;
		}
		s.wqe_open = 1;
		s.res_ix = 0;
		s.res_pkts = 0;
	}
	s.pos = rq->stride << ls;
	return true;
}

/* The headers into header entry `ix`; false (an error CQE written) when its WQE or buffer is bad. */
bool write_header(Function *fn, Rq *rq, u32 ix, const u8 *hdr, u32 len, IrqBatch *irqs)
{
	const ShampoRq &s = rq->shampo;
	prm::ShampoHdrWqe w;

	__builtin_memcpy(&w, s.hd_ring + (usize)ix * sizeof(w), sizeof(w));
	bus_add(&fn->bus.rd_desc_bytes, sizeof(w));
	if (w.data.lkey.get() != prm::kReservedLkey) {
		rx_error(fn, rq, prm::kSyndLocalProtErr, irqs);
		return false;
	}
	if (w.data.byte_count.get() != 1u << s.log_hd_entry) {
		rx_error(fn, rq, prm::kSyndLocalLengthErr, irqs);
		return false;
	}
	void *dst = dma_translate(fn, w.data.addr.get(), len);
	if (!dst) {
		rx_error(fn, rq, prm::kSyndLocalProtErr, irqs);
		return false;
	}
	__builtin_memcpy(dst, hdr, len);
	bus_add(&fn->bus.wr_data_bytes, len);
	return true;
}

/* The session after packet p: continued, started, or none. */
void track_session(ShampoRq &s, const RxFrame &f, const Pkt &p, bool match, u8 id_mode)
{
	const u8 *tcp = f.data + f.pi.l4_off;

	if (!match) {
		s.open = p.mergeable;
		if (!s.open)
			return;
		__builtin_memcpy(s.head, f.data, p.hdr_len);
		s.hdr_len = (u8)p.hdr_len;
		s.l3_off = (u8)f.pi.l3_off;
		s.l4_off = (u8)f.pi.l4_off;
		s.vlan = f.vlan;	/* a stripped tag is part of the L2 header the session shares */
		s.vlan_tci = f.vlan_tci;
		s.mss = p.len;
		s.bytes = 0;
		id_mode = kIdUnknown;
	}
	s.id_mode = id_mode;
	if (f.pi.l3 == L3::Ipv4)
		s.last_id = load_be16(f.data + f.pi.l3_off + 4);
	s.bytes += p.len;
	s.next_seq = load_be32(tcp + 4) + p.len;
}

/* Whether the session ends with packet p, placed up to s.pos (prm/cqe.h). */
bool ends_session(const ShampoRq &s, const Pkt &p, bool match)
{
	if (!s.open || (p.flags & kTcpCloses) || (match && p.len < s.mss))
		return true;
	return s.pos + s.mss > res_end(s) || s.res_pkts + 1 >= max_pkts(s) ||
	       s.hdr_len + s.bytes + s.mss > kMaxSessionBytes;
}

} /* namespace */

/*
 * Per packet: the CQE's usual fields (their checksum verdicts decide
 * whether it may merge), then where it goes: after the open session's
 * last payload (match) or at a new stride; its headers to the next header
 * entry, its data to the strides; then one CQE.
 */
void rq_place_shampo(Function *fn, Rq *rq, const RxFrame &f, IrqBatch *irqs)
{
	ShampoRq &s = rq->shampo;
	u32 ls = rq->log_stride;
	prm::Cqe64 cqe;
	Pkt p;

	fill_rx_cqe(f, &cqe);
	classify(s, f, cqe.hds_ip_ext, &p);
	/* Longer than a reservation: dropped, nothing consumed. */
	if (p.len > 1u << s.log_res) {
		bus_add(&fn->qc.rx_oversize_pkts_buffer, 1);
		return;
	}
	/* As rq_place_striding(): no WQE to start, then no room for the CQE. */
	if (!s.wqe_open && !rq_has_wqe(fn, rq)) {
		bus_add(&fn->qc.rx_out_of_buffer, 1);
		return;
	}
	if (__builtin_expect(!cq_has_room(fn, rq->cq, irqs), 0)) {
		bus_add(&fn->qc.rx_cq_overrun, 1);
		return;
	}
	u8 id_mode = kIdUnknown;
	bool match = joins(s, f, p, &id_mode);
	if (!match) {
		s.open = 0;
		if (!start_session(fn, rq, p.len, irqs))
			return;
	}
	u32 hd_ix = s.hd_pi & ((1u << s.log_hd_num) - 1);
	if (p.split && !write_header(fn, rq, hd_ix, f.data, p.hdr_len, irqs))
		return;
	u32 off = s.pos;
	if (p.len && !striding_write(fn, rq, off, p.data, p.len)) {
		rx_error(fn, rq, prm::kSyndLocalProtErr, irqs);
		return;
	}
	u32 end = (off + p.len + (1u << ls) - 1) >> ls;
	u32 consumed = end > rq->stride ? end - rq->stride : 0;

	track_session(s, f, p, match, id_mode);
	s.pos = off + p.len;
	/* taking the WQE's last stride retires it (below): the session ends too */
	bool flush = ends_session(s, p, match) || rq->stride + consumed == 1u << rq->log_num_strides;
	if (flush)
		s.open = 0;

	cqe.shampo.flags = (u8)((match ? prm::kCqeShampoMatch : 0) | (flush ? prm::kCqeShampoFlush : 0));
	cqe.shampo.header_size = (u8)p.hdr_len;
	cqe.shampo.header_entry_index.set((u16)hd_ix);
	cqe.shampo.data_offset.set(off);
	striding_cqe(rq, consumed << prm::kMpwrqCqeStridesShift | (p.hdr_len + p.len), &cqe);
	/* a filler CQE took the last slot: the packet's CQE overruns the CQ */
	if (__builtin_expect(!rx_cqe(fn, rq, &cqe, prm::kCqeRespSend, 0, irqs), 0))
		bus_add(&fn->qc.rx_cq_overrun, 1);
	s.hd_pi++;
	s.res_pkts++;
	rq->stride += consumed;
	if (rq->stride == 1u << rq->log_num_strides) {
		striding_retire(fn, rq);
		s.wqe_open = 0;
		s.open = 0;
	}
}

const char *shampo_check(const prm::HcaCaps &caps, const prm::CreateRqIn &in, u32 log_stride,
			 u32 log_buf, const Cq *cq)
{
	if (!in.shampo_enable) {
		bool any = in.shampo_match_criteria_type || in.shampo_no_match_alignment_granularity ||
			   in.log_reservation_size || in.log_max_num_of_packets_per_reservation ||
			   in.log_headers_entry_size || in.log_headers_buffer_entry_num ||
			   in.reservation_timeout.get() || in.headers_pas.get();
		return any ? "SHAMPO field without shampo_enable" : nullptr;
	}
	if (in.shampo_enable != 1)
		return "shampo_enable is 0 or 1";
	if (!caps.shampo)
		return "no SHAMPO on this model";
	if (in.wq_type != prm::kWqLinkedListStriding)
		return "SHAMPO needs a striding RQ";
	if (cq && cq->comp.en)
		return "SHAMPO with a compressing CQ";
	if (in.shampo_match_criteria_type != prm::kShampoNoMatch &&
	    in.shampo_match_criteria_type != prm::kShampoMatchExtended)
		return "SHAMPO match criteria not supported";
	if (in.shampo_no_match_alignment_granularity != prm::kShampoAlignStride)
		return "SHAMPO alignment not supported";
	u32 log_res = prm::kShampoLogReservationBase + in.log_reservation_size;
	if (log_res > prm::kShampoLogReservationMax || log_res < log_stride || log_res > log_buf)
		return "SHAMPO reservation size out of range";
	if (in.log_max_num_of_packets_per_reservation > prm::kShampoLogMaxPktsPerReservation)
		return "SHAMPO packets per reservation out of range";
	if (prm::kShampoLogHdrEntryBase + in.log_headers_entry_size > prm::kShampoLogHdrEntryMax)
		return "SHAMPO header entry size out of range";
	u32 log_num = in.log_headers_buffer_entry_num;
	if (log_num > prm::kShampoLogMaxHdrEntries)
		return "SHAMPO header ring too large";
	/* Every packet the posted WQEs can take has an entry: none is overwritten unread. */
	if (log_num < prm::shampo_log_min_hd_entries(in.log_wq_sz, log_buf, log_res,
						     in.log_max_num_of_packets_per_reservation))
		return "SHAMPO header ring smaller than the packets the WQEs take";
	return nullptr;
}

void shampo_init(Rq *rq, const prm::CreateRqIn &in, const u8 *hd_ring)
{
	ShampoRq &s = rq->shampo;

	s.en = in.shampo_enable && hd_ring;
	s.match = in.shampo_match_criteria_type;
	s.log_res = (u8)(prm::kShampoLogReservationBase + in.log_reservation_size);
	s.log_max_pkts = in.log_max_num_of_packets_per_reservation;
	s.log_hd_entry = (u8)(prm::kShampoLogHdrEntryBase + in.log_headers_entry_size);
	s.log_hd_num = in.log_headers_buffer_entry_num;
	s.hd_ring = s.en ? hd_ring : nullptr;
}

void shampo_reset(Rq *rq)
{
	ShampoRq &s = rq->shampo;

	s.wqe_open = 0;
	s.pos = 0;
	s.res_ix = 0;
	s.res_pkts = 0;
	s.hd_pi = 0;
	s.open = 0;
}

} /* namespace softcx::hw */
