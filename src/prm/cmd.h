/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Firmware-style command interface: the driver writes an inbox, the device
 * answers in an outbox. Every inbox starts with CmdIn, every outbox with
 * CmdOut. All fields are big-endian. The layouts are softcx's own, shaped
 * like the PRM commands they stand for.
 */
#pragma once

#include "counters.h"
#include "types.h"

namespace softcx::prm {

enum CmdOpcode : u16 {
	kCmdQueryHcaCap = 0x100,
	kCmdCreateCq = 0x400,
	kCmdDestroyCq = 0x401,
	kCmdQueryCq = 0x402,
	kCmdModifyCq = 0x403,
	kCmdModifyNicVportContext = 0x755,	/* the function's RX address filter (below) */
	kCmdAddVxlanUdpDport = 0x827,		/* the device's VXLAN UDP ports (below) */
	kCmdDeleteVxlanUdpDport = 0x828,
	kCmdQueryQCounter = 0x773,
	kCmdCreateRss = 0x900,	/* TIR + RQT in one object */
	kCmdModifyRss = 0x901,
	kCmdDestroyRss = 0x902,
	kCmdCreateSq = 0x904,
	kCmdModifySq = 0x905,
	kCmdDestroySq = 0x906,
	kCmdCreateRq = 0x908,
	kCmdModifyRq = 0x909,
	kCmdDestroyRq = 0x90a,
	kCmdSetFlowTableEntry = 0x936,	/* the function's flow table (below) */
	kCmdDeleteFlowTableEntry = 0x938,
	kCmdQueryBusCounters = 0xa00,
	kCmdQueryPortCounters = 0xa01,	/* the MAC's counters: mlx5's PPCNT register */
	kCmdModifyPort = 0xa02,		/* the MAC's settings: mlx5's PCMR register */
	kCmdQueryPortLink = 0xa03,	/* link modes and state: mlx5's PTYS, PAOS, PDDR */
	kCmdModifyPortLink = 0xa04,	/* admin state, modes, autoneg: PAOS, PTYS */
	kCmdQueryModuleEeprom = 0xa05,	/* the cable module's memory: mlx5's MCIA register */
};

enum CmdStatus : u8 {
	kStatOk = 0x0,
	kStatBadOp = 0x2,
	kStatBadParam = 0x3,
	kStatBadSysState = 0x4,
	kStatBadResource = 0x5,
	kStatResourceBusy = 0x6,
	kStatExceedLim = 0x8,
	kStatBadResState = 0x9,
	kStatBadInputLen = 0x50,
	kStatBadOutputLen = 0x51,
};

struct CmdIn {
	be16 opcode;
	be16 op_mod;
	be32 rsvd;
};

struct CmdOut {
	u8 status;
	u8 rsvd[3];
	be32 syndrome;
};

/* Device generations (module parameter "model"). */
enum Model : u8 {
	kModelCx4 = 4,
	kModelCx5 = 5,
	kModelCx6Dx = 6,
	kModelCx7 = 7,
};

/* wqe_inline_mode cap */
enum InlineMode : u8 {
	kInlineNone = 0,
	kInlineL2 = 1,
	kInlineIp = 2,
	kInlineTcpUdp = 3,
};

struct HcaCaps {
	u8 model;
	u8 wqe_inline_mode;
	u8 enhanced_mpw;	/* ENHANCED_MPSW opcode */
	u8 lso;
	u8 log_max_sq_sz;	/* in WQEBBs */
	u8 log_max_rq_sz;
	u8 log_max_cq_sz;
	u8 log_max_rss_tbl;
	be16 max_sqs;
	be16 max_rqs;
	be16 max_cqs;
	be16 max_hw_mtu;	/* largest frame incl. L2 header the port carries */
	u8 csum;		/* L3/L4 checksum offload both ways */
	u8 striding_rq;
	u8 shampo;
	u8 cqe_compression;	/* cqe_comp_en, basic layout (cqe.h) */
	be32 max_lso_sz;
	u8 cq_moderation;		/* cq_period / cq_max_count, MODIFY_CQ */
	u8 cq_period_start_from_cqe;	/* cq_period_mode kCqPeriodFromCqe */
	u8 enhanced_cqe_compression;	/* cqe_comp_layout kCqeCompEnhanced */
	u8 mini_cqe_resp_stride_index;	/* mini_cqe_res_format kMiniCqeCsumStridx */
	u8 log_max_ft_size;	/* flow table entries (SET_FLOW_TABLE_ENTRY flow_index) */
	u8 max_rss;		/* RSS objects a function holds at once */
	u8 max_vxlan_udp_ports;	/* ADD_VXLAN_UDP_DPORT entries; 0: no VXLAN offloads */
	u8 ext_stride_num_range;	/* striding RQ: 8..256 strides per WQE too */
	/*
	 * The rate of the free-running internal timer (kInitSegTimerH/L)
	 * that stamps CQEs (cqe.h timestamp_h/l), in kHz. Nominal: the
	 * device's oscillator is off by up to a few ppm (the emulator's by
	 * kTimerErrorPpb), which a PTP clock built on it corrects.
	 */
	be32 device_frequency_khz;
	/* MODIFY_NIC_VPORT_CONTEXT: addresses the RX filter lists, log2 (unicast, multicast) */
	u8 log_max_current_uc_list;
	u8 log_max_current_mc_list;
	/*
	 * GENEVE on UDP port 6081 is parsed as a VXLAN port's frames are:
	 * inner checksums, tunnel LSO, inner RX verdicts (mlx5's
	 * tunnel_stateless_geneve_tx/rx)
	 */
	u8 geneve;
	/*
	 * IP tunnels the device parses as it does the UDP ones (mlx5's
	 * tunnel_stateless_gre, tunnel_stateless_ip_over_ip): kCapTunnelGre,
	 * kCapTunnelIpOverIp
	 */
	u8 ip_tunnels;
};
constexpr u8 kCapTunnelGre = 0x1, kCapTunnelIpOverIp = 0x2;

/*
 * VXLAN UDP destination ports (ADD_VXLAN_UDP_DPORT, DELETE_VXLAN_UDP_DPORT),
 * up to cap max_vxlan_udp_ports per function. A frame whose outer UDP
 * destination port is one of them is parsed on as VXLAN: its 8-byte VXLAN
 * header, then the inner Ethernet frame. That is where the inner checksum
 * flags of a WQE's eth segment (wqe.h kCsL3Inner, kCsL4Inner) and a
 * tunnel LSO template (an inline header running past the outer UDP
 * header) find their inner headers. Port 0, a port already in the table,
 * a delete of a port not in it and an add past the cap are refused.
 */
struct VxlanUdpDportIn {
	CmdIn hdr;
	be16 rsvd;
	be16 vxlan_udp_port;
	u8 rsvd2[4];
};

struct QueryHcaCapOut {
	CmdOut hdr;
	HcaCaps caps;
};

/*
 * CQ moderation (PRM cqc fields): after an arm, the event comes when
 * cq_max_count CQEs are pending or cq_period (us) elapsed, the period
 * timer restarting at each event or at each CQE. Period 0 (or count 1):
 * at once. Count 0: the period alone.
 */
enum CqPeriodMode : u8 {
	kCqPeriodFromEqe = 0,
	kCqPeriodFromCqe = 1,
};
constexpr u32 kCqMaxPeriod = (1u << 12) - 1;	/* cq_period is 12 bits wide */
constexpr u32 kCqMaxCount = (1u << 16) - 1;	/* cq_max_count is 16 bits wide */

struct CqModeration {
	be16 cq_period;		/* us, 0..kCqMaxPeriod */
	be16 cq_max_count;
	u8 cq_period_mode;	/* CqPeriodMode */
	u8 rsvd[3];
};

/*
 * CQE compression (cqe.h): cqe_comp_en 1 asks for it (cap cqe_compression),
 * mini_cqe_res_format is a prm::MiniCqeFormat (kMiniCqeCsumStridx: cap
 * mini_cqe_resp_stride_index), cqe_comp_layout a prm::CqeCompLayout
 * (kCqeCompEnhanced: cap enhanced_cqe_compression). The last two must be 0
 * without cqe_comp_en.
 */
struct CreateCqIn {
	CmdIn hdr;
	u8 log_cq_size;
	u8 cqe_comp_en;
	u8 mini_cqe_res_format;
	u8 cqe_comp_layout;
	be32 c_eqn;		/* interrupt vector the CQ signals */
	be64 dbr_addr;		/* 2 x be32: set_ci, arm */
	be64 pas;		/* DMA address of the CQE ring (contiguous) */
	CqModeration moder;
};

/* MODIFY_CQ modify_field_select: which moderation fields the inbox sets. */
constexpr u32 kCqModifyPeriod = 1u << 0;
constexpr u32 kCqModifyCount = 1u << 1;
constexpr u32 kCqModifyPeriodMode = 1u << 4;

struct ModifyCqIn {
	CmdIn hdr;
	be32 cqn;
	be32 modify_field_select;	/* kCqModify* */
	CqModeration moder;
};

struct CreateObjOut {
	CmdOut hdr;
	be32 obj_num;		/* cqn, sqn, rqn or rss number */
	u8 rsvd[4];
};

/* QUERY_CQ: in DestroyObjIn (obj_num = cqn). */
struct QueryCqOut {
	CmdOut hdr;
	u8 status;		/* kCqStatus* (cqe.h) */
	u8 log_cq_size;
	u8 rsvd[2];
	be32 producer_counter;	/* CQEs written, free-running */
	be32 consumer_counter;	/* the last set_ci the device read */
	u8 rsvd2[4];
};

struct DestroyObjIn {
	CmdIn hdr;
	be32 obj_num;
	u8 rsvd[4];
};

enum QueueState : u8 {
	kQueueRst = 0,
	kQueueRdy = 1,
	kQueueErr = 3,
};

struct CreateSqIn {
	CmdIn hdr;
	be32 cqn;
	u8 log_wq_sz;		/* in WQEBBs */
	u8 min_wqe_inline_mode;
	u8 allow_multi_pkt_send_wqe;
	u8 rsvd;
	be64 dbr_addr;		/* be32[2]: [kSndDbr] = producer counter */
	be64 pas;
};

enum WqType : u8 {
	kWqCyclic = 1,
	kWqLinkedListStriding = 2,
};

/*
 * SHAMPO (header-data split + hardware GRO, cap `shampo`, ConnectX-7) on a
 * striding RQ. The CREATE_RQ fields below; the CQE fields in cqe.h
 * (CqeShampo), the header WQE in wqe.h (ShampoHdrWqe).
 *
 * - The WQE buffer (stride size x strides) is cut into reservations of
 *   2^(kShampoLogReservationBase + log_reservation_size) bytes (4 .. 64 KiB,
 *   at least one stride, at most the WQE buffer). A GRO session's payload
 *   lies in one reservation, back to back from a stride boundary
 *   (shampo_no_match_alignment_granularity STRIDE: a packet that does not
 *   continue the session starts at a new stride). A reservation takes at
 *   most 2^log_max_num_of_packets_per_reservation packet CQEs.
 * - The header ring: 2^log_headers_buffer_entry_num header WQEs (16 bytes
 *   each, contiguous at headers_pas, like a cyclic RQ's ring), WQE i naming
 *   the buffer of header entry i: 2^(kShampoLogHdrEntryBase +
 *   log_headers_entry_size) bytes (64 B .. 1 KiB; mlx5: 512 B), lkey
 *   kReservedLkey. Every packet CQE takes the next entry, in ring order
 *   (CqeShampo::header_entry_index). There is no doorbell for it: an entry
 *   is the device's again once the WQE whose packet used it is posted anew,
 *   so the ring must hold every packet the posted WQEs can take:
 *   2^log_headers_buffer_entry_num >= 2^log_wq_sz x reservations per WQE x
 *   2^log_max_num_of_packets_per_reservation (CREATE_RQ refuses less).
 * - reservation_timeout (us) is accepted and not modelled: a session ends
 *   with the packet that closes it (CqeShampo flush) or with the next packet
 *   that does not continue it (match 0); the driver flushes what it holds at
 *   the end of each poll anyway.
 *
 * shampo_enable 0: every SHAMPO field must be 0. shampo_enable 1 needs the
 * cap, wq_type striding and a CQ without cqe_comp_en; anything out of range
 * is kStatBadParam.
 */
enum ShampoMatchCriteria : u8 {		/* shampo_match_criteria_type */
	kShampoNoMatch = 0,		/* split only: every packet a session of its own */
	kShampoMatchExtended = 1,	/* split and merge (mlx5e's choice; cqe.h rules) */
	kShampoMatchFiveTuple = 2,	/* not supported by softcx */
};

enum ShampoAlignment : u8 {		/* shampo_no_match_alignment_granularity */
	kShampoAlignByte = 0,		/* not supported by softcx */
	kShampoAlignStride = 1,		/* a new session starts at a stride boundary */
	kShampoAlignPage = 2,		/* not supported by softcx */
};

constexpr u32 kShampoLogReservationBase = 12;	/* log_reservation_size 0 = 4 KiB */
constexpr u32 kShampoLogReservationMax = 16;	/* 64 KiB (the GRO limit) */
constexpr u32 kShampoLogHdrEntryBase = 6;	/* log_headers_entry_size 0 = 64 B */
constexpr u32 kShampoLogHdrEntryMax = 10;	/* 1 KiB */
constexpr u32 kShampoLogMaxPktsPerReservation = 12;
constexpr u32 kShampoLogMaxHdrEntries = 16;	/* header_entry_index is 16 bits */

/*
 * The fewest header entries (log2) CREATE_RQ accepts: one per packet the
 * posted WQEs can take (log_wqe_buf: stride size x strides, log_res: the
 * reservation, both in log2 bytes; log_pkts: packets per reservation).
 */
constexpr u32 shampo_log_min_hd_entries(u32 log_wq_sz, u32 log_wqe_buf, u32 log_res, u32 log_pkts)
{
	return log_wq_sz + (log_wqe_buf - log_res) + log_pkts;
}

/*
 * scatter_fcs, in CREATE_RQ and MODIFY_RQ: 1, the device writes the
 * frame's FCS (4 bytes, as on the wire) after each frame it places, and
 * the CQE's byte count includes them (the checksum fields do not). Not
 * with SHAMPO (kStatBadParam). Any value but 0 or 1 is kStatBadParam.
 *
 * vsd (VLAN strip disable), in CREATE_RQ and MODIFY_RQ: 0, the device
 * takes an outer 802.1Q tag (TPID 0x8100) out of every frame it places
 * and reports its TCI in the CQE (cqe.h kCqeVlanStripped, vlan_info);
 * 1, frames are placed as they came. Any other value is kStatBadParam.
 */
struct CreateRqIn {
	CmdIn hdr;
	be32 cqn;
	u8 log_wq_sz;		/* in WQEs */
	u8 log_wq_stride;	/* cyclic: 4 to 6, 1 to 4 data segments (wqe.h RxWqeCyc) */
	u8 wq_type;
	u8 vsd;			/* 0 or 1, above */
	be64 dbr_addr;		/* be32[2]: [kRcvDbr] = WQE counter */
	be64 pas;
	/* Striding RQ only (wqe.h: enc_log_num_strides, enc_log_stride_size). */
	u8 log_wqe_num_of_strides;
	u8 log_wqe_stride_size;
	/* SHAMPO (above); all 0 without it. */
	u8 shampo_enable;				/* 0 or 1 */
	u8 shampo_match_criteria_type;			/* ShampoMatchCriteria */
	u8 shampo_no_match_alignment_granularity;	/* ShampoAlignment: STRIDE only */
	u8 log_reservation_size;	/* 2^(kShampoLogReservationBase + n) bytes */
	u8 log_max_num_of_packets_per_reservation;	/* 2^n packet CQEs, n <= 12 */
	u8 log_headers_entry_size;	/* 2^(kShampoLogHdrEntryBase + n) bytes */
	u8 log_headers_buffer_entry_num;	/* 2^n header entries, n <= 16 */
	u8 scatter_fcs;		/* 0 or 1 (any RQ but SHAMPO's): below */
	be16 reservation_timeout;	/* us; accepted, not modelled */
	u8 rsvd3[4];
	be64 headers_pas;	/* DMA address of the header ring (ShampoHdrWqe[]), 16-byte aligned */
};

struct ModifyQueueIn {
	CmdIn hdr;
	be32 obj_num;
	u8 cur_state;
	u8 next_state;
	u8 rsvd[2];
};

/*
 * MODIFY_RQ may carry more than the state change: with an inbox of
 * sizeof(ModifyRqIn) bytes, the context fields whose bit is set in
 * modify_bitmask take the inbox's values (RDY -> RDY changes them on a
 * running RQ, packets in flight keep the old setting). A bit not listed
 * is kStatBadParam. A ModifyQueueIn-sized inbox changes the state only.
 */
constexpr u32 kRqModifyVsd = 1u << 1;
constexpr u32 kRqModifyScatterFcs = 1u << 2;
struct ModifyRqIn {
	ModifyQueueIn q;
	be32 modify_bitmask;	/* kRqModify* */
	u8 vsd;			/* CreateRqIn vsd */
	u8 scatter_fcs;		/* CreateRqIn scatter_fcs */
	u8 rsvd[2];
};

/*
 * MODIFY_PORT: the port MAC's settings whose bit is set in modify_bitmask
 * take the inbox's values; a bit not listed is kStatBadParam.
 * fcs_chk (default 1): a frame whose FCS is wrong is dropped and counted
 * (rx_crc_errors); 0, it is counted and received as any other frame
 * (ethtool's rx-all). 0 or 1, else kStatBadParam.
 */
constexpr u32 kPortModifyFcsChk = 1u << 0;
struct ModifyPortIn {
	CmdIn hdr;
	be32 modify_bitmask;	/* kPortModify* */
	u8 fcs_chk;
	u8 rsvd[3];
};

/*
 * The port's link (QUERY_PORT_LINK, MODIFY_PORT_LINK). Protocols are bits
 * of one mask, numbered as the PRM's extended Ethernet protocols (PTYS
 * ext_eth_proto); every generation reports this encoding. Each bit is one
 * speed (link_proto_mbps). The link of a cable is up while both ports are
 * administratively up and their admin masks share a protocol: the fastest
 * shared one runs (oper). A port with autoneg off has the protocols of one
 * speed in its admin mask, so it runs that speed or none; autoneg on at
 * both ends picks the highest common speed.
 */
enum LinkProto : u8 {
	kLinkProto1000BaseX = 1,	/* 1000BASE-X, SGMII */
	kLinkProto10GBaseR = 4,		/* XFI, XAUI-1, 10GBASE-CR/KR */
	kLinkProto40GBaseR4 = 5,	/* XLAUI-4, 40GBASE-CR4/KR4 */
	kLinkProto25GBaseR = 6,		/* 25GAUI-1, 25GBASE-CR/KR */
	kLinkProto50GBaseR2 = 7,	/* 50GAUI-2, 50GBASE-CR2/KR2 */
	kLinkProto50GBaseR = 8,		/* 50GAUI-1, 50GBASE-CR/KR (PAM4) */
	kLinkProto100GBaseR4 = 9,	/* CAUI-4, 100GBASE-CR4/KR4 */
	kLinkProto100GBaseR2 = 10,	/* 100GAUI-2, 100GBASE-CR2/KR2 */
	kLinkProto100GBaseR = 11,	/* 100GAUI-1, 100GBASE-CR/KR */
	kLinkProto200GBaseR4 = 12,	/* 200GAUI-4, 200GBASE-CR4/KR4 */
	kLinkProto200GBaseR2 = 13,	/* 200GAUI-2, 200GBASE-CR2/KR2 */
	kLinkProto400GBaseR4 = 16,	/* 400GAUI-4, 400GBASE-CR4/KR4 */
	kLinkProtoBits = 17,
};

/* Mb/s of a protocol bit; 0 for a bit no protocol has. */
constexpr u32 link_proto_mbps(u32 bit)
{
	switch (bit) {
	case kLinkProto1000BaseX: return 1000;
	case kLinkProto10GBaseR: return 10000;
	case kLinkProto25GBaseR: return 25000;
	case kLinkProto40GBaseR4: return 40000;
	case kLinkProto50GBaseR2: case kLinkProto50GBaseR: return 50000;
	case kLinkProto100GBaseR4: case kLinkProto100GBaseR2: case kLinkProto100GBaseR: return 100000;
	case kLinkProto200GBaseR4: case kLinkProto200GBaseR2: return 200000;
	case kLinkProto400GBaseR4: return 400000;
	default: return 0;
	}
}

/*
 * The speed (Mb/s) every protocol of a mask runs at: 0 for no protocol,
 * ~0u when they run at more than one (a mask autoneg off may not have).
 */
constexpr u32 link_protos_one_speed(u32 mask)
{
	u32 mbps = 0;

	for (u32 b = 0; b < kLinkProtoBits; b++) {
		if (!(mask & (1u << b)))
			continue;
		if (mbps && mbps != link_proto_mbps(b))
			return ~0u;
		mbps = link_proto_mbps(b);
	}
	return mbps;
}

/*
 * Forward error correction, bits as mlx5's PPLM register numbers the
 * modes. Each protocol runs some of them (link_proto_fec_cap), one at a
 * time; a port's FEC policy (QueryPortLinkOut.fec_admin) is 0, auto: each
 * protocol's default (link_proto_fec_default), or modes of which the
 * running protocol takes the lowest it can run, else its default. The
 * two ends of a cable must run the same FEC for the link to come up.
 */
enum FecMode : u16 {
	kFecNone = 1u << 0,	/* no FEC */
	kFecFirecode = 1u << 1,	/* BASE-R FEC (Clause 74) */
	kFecRs528 = 1u << 2,	/* RS(528,514) (Clauses 91, 108): 25G NRZ lanes */
	kFecRs544 = 1u << 7,	/* RS(544,514) (Clauses 119, 134): 50G and 100G PAM4 lanes */
	kFecLlrs = 1u << 9,	/* low-latency RS(272,257+1): 50G lanes */
};
constexpr u16 kFecModes = kFecNone | kFecFirecode | kFecRs528 | kFecRs544 | kFecLlrs;

/* The FEC modes a protocol runs. */
constexpr u16 link_proto_fec_cap(u32 bit)
{
	switch (bit) {
	case kLinkProto1000BaseX: return kFecNone;
	case kLinkProto10GBaseR: case kLinkProto40GBaseR4: return kFecNone | kFecFirecode;
	case kLinkProto25GBaseR: case kLinkProto50GBaseR2: return kFecNone | kFecFirecode | kFecRs528;
	case kLinkProto100GBaseR4: return kFecNone | kFecRs528;
	case kLinkProto50GBaseR: case kLinkProto100GBaseR2: return kFecRs544 | kFecLlrs;
	case kLinkProto200GBaseR4: case kLinkProto100GBaseR: case kLinkProto200GBaseR2:
	case kLinkProto400GBaseR4: return kFecRs544;
	default: return 0;
	}
}

/* The FEC a protocol runs under the auto policy. */
constexpr u16 link_proto_fec_default(u32 bit)
{
	const u16 cap = link_proto_fec_cap(bit);

	return cap & kFecRs544 ? kFecRs544 : cap & kFecRs528 ? kFecRs528 : cap ? kFecNone : 0;
}

/* The FEC protocol bit runs under policy admin (FecMode bits, 0 for auto). */
constexpr u16 link_proto_fec(u32 bit, u16 admin)
{
	const u16 take = admin & link_proto_fec_cap(bit);

	return take ? (u16)(take & -take) : link_proto_fec_default(bit);
}

/* Why a link is down (QueryPortLinkOut.down_reason), as ethtool's extended link states. */
enum LinkDown : u8 {
	kLinkDownNone = 0,		/* up, or this port is administratively down */
	kLinkDownNoPartner = 1,		/* autoneg on; nothing answers (the peer is down) */
	kLinkDownNoPartnerForced = 2,	/* autoneg off; no partner at the forced speed */
	kLinkDownNoCommon = 3,		/* autoneg at both ends, no protocol in common */
	/* the two ends run different FEC at their common speed; this end runs: */
	kLinkDownFecNoneNoLock = 4,	/* none: its PCS finds no block lock */
	kLinkDownFcNotLocked = 5,	/* BASE-R FEC, which does not lock */
	kLinkDownRsNotLocked = 6,	/* an RS FEC, which does not lock */
};

enum LinkConnector : u8 {
	kLinkConnectorDa = 7,		/* direct-attach copper (the cable of every pair) */
};

struct QueryPortLinkOut {
	CmdOut hdr;
	be32 proto_cap;		/* the protocols the port supports */
	be32 proto_admin;	/* those it offers (autoneg) or forces */
	be32 proto_oper;	/* the one that runs; 0 while down */
	be32 proto_partner;	/* what the partner offers, when both negotiate and the link is up */
	u8 admin_up;		/* 1 after MODIFY_PORT_LINK admin_up 1 (mlx5's PAOS admin_status) */
	u8 oper_up;		/* the link is up */
	u8 an_disable;		/* autoneg off */
	u8 down_reason;		/* LinkDown */
	u8 connector;		/* LinkConnector */
	u8 rsvd[3];
	be16 fec_cap;		/* FecMode: what the port's protocols run, together */
	be16 fec_admin;		/* the policy: 0 (auto) or FecMode bits */
	be16 fec_oper;		/* the FEC the link runs, one bit; 0 while down */
	u8 rsvd2[2];
};

/*
 * MODIFY_PORT_LINK: the fields whose bit is set in modify_bitmask take the
 * inbox's values, then both ends of the cable take the new link state. An
 * unknown bit, admin_up or an_disable not 0 or 1, a proto_admin of no
 * supported protocol or, with autoneg off (as it will be), of more than
 * one speed: kStatBadParam, nothing changed. Protocols outside proto_cap
 * are dropped from proto_admin.
 */
constexpr u32 kLinkModifyAdmin = 1u << 0;
constexpr u32 kLinkModifyProto = 1u << 1;
constexpr u32 kLinkModifyAutoneg = 1u << 2;
/*
 * fec_admin: 0 (auto) or FecMode bits, at least one of which some
 * protocol of the port runs (else kStatBadParam).
 */
constexpr u32 kLinkModifyFec = 1u << 3;
struct ModifyPortLinkIn {
	CmdIn hdr;
	be32 modify_bitmask;	/* kLinkModify* */
	be32 proto_admin;
	u8 admin_up;
	u8 an_disable;
	be16 fec_admin;
	u8 rsvd[4];
};

/*
 * QUERY_MODULE_EEPROM: size bytes (1..kModuleReadMax) of the memory of the
 * port's cable module, from offset (0..255) of the 256 bytes that I2C
 * address i2c_address shows with page and bank selected: bytes 0..127 are
 * the lower page (the same whatever is selected), 128..255 the selected
 * upper page. The read may not cross byte 255 (kStatBadParam). The
 * command succeeds when the device reached the module; module_status says
 * whether the module answered (ModuleStatus), and data holds the bytes
 * when it did. Each cable of the emulation is a passive copper one (a
 * direct-attach cable, 1 m) whose modules keep only page 00h (flat
 * memory): SFF-8636 (QSFP28 100G, QSFP56 200G) or CMIS (QSFP112 400G),
 * after the fastest link the model runs.
 */
constexpr u32 kModuleReadMax = 32;
constexpr u8 kModuleI2cAddr = 0x50;	/* the module's memory (A0h in 8-bit form) */
enum ModuleStatus : u8 {
	kModuleOk = 0,
	kModuleNoAnswer = 1,	/* nothing at that I2C address */
	kModuleNoPage = 2,	/* a page or bank the module does not have */
};
/* SFF-8024 identifiers the emulated modules report (byte 0). */
constexpr u8 kModuleIdQsfp28 = 0x11;	/* QSFP28 or later, SFF-8636 */
constexpr u8 kModuleIdQsfpCmis = 0x1e;	/* QSFP+ or later with CMIS */
struct QueryModuleEepromIn {
	CmdIn hdr;
	u8 i2c_address;
	u8 page;
	u8 bank;
	u8 size;
	be16 offset;
	u8 rsvd[2];
};
struct QueryModuleEepromOut {
	CmdOut hdr;
	u8 module_status;	/* ModuleStatus */
	u8 rsvd[7];
	u8 data[kModuleReadMax];
};

/*
 * MODIFY_NIC_VPORT_CONTEXT: the destination MACs the function's RX takes,
 * matched after the flow table's entries (a frame an entry steers or drops
 * never reaches it) and before RSS. A frame passes when its destination is
 * broadcast, in the unicast or multicast list, or a promiscuous mode covers
 * it (kVportPromiscUc: every unicast, Mc: every multicast, All: every
 * frame); else it is dropped and counted (rx_steer_missed_packets). The
 * command replaces the parts field_select names. kVportSelectAddrs: promisc,
 * then n_uc unicast and n_mc multicast addresses (VportMac) after the
 * header, the unicast first; at most 2^log_max_current_uc_list and
 * 2^log_max_current_mc_list (caps). A function starts open (every frame
 * passes) until its first address context.
 *
 * kVportSelectVlans: the VLAN filter, after the address list if both are
 * selected: `vlan` (VportVlan bits), then two VLAN ID maps, C-tags then
 * S-tags, kVportVlanMapBytes each (VLAN ID v is bit v % 8 of byte v / 8).
 * With kVportVlanCtag a frame whose outer tag is 802.1Q passes only for a
 * VLAN ID its map holds; kVportVlanStag the same for an 802.1ad outer tag.
 * Untagged frames are not filtered, nor is anything under kVportPromiscAll
 * or before the first address context (promiscuous steering comes first).
 *
 * kVportSelectLocalLb: `local_lb` 1 turns on the function's unicast local
 * loopback (mlx5's NIC vport context without disable_uc_local_lb, and no
 * TIR blocking self loopback): a frame the function sends to an address of
 * its own unicast list goes back to its own RX inside the adapter, with
 * the link up or down, and never reaches the MAC (no port counter sees
 * it). 0, as a function starts: every frame it sends leaves on the wire.
 */
enum VportPromisc : u8 {
	kVportPromiscUc = 1u << 0,
	kVportPromiscMc = 1u << 1,
	kVportPromiscAll = 1u << 2,
};
enum VportSelect : u8 {
	kVportSelectAddrs = 1u << 0,
	kVportSelectVlans = 1u << 1,
	kVportSelectLocalLb = 1u << 2,
};
enum VportVlan : u8 {
	kVportVlanCtag = 1u << 0,
	kVportVlanStag = 1u << 1,
};
constexpr u32 kVlanIds = 4096;
constexpr u32 kVportVlanMapBytes = kVlanIds / 8;
struct VportMac {
	u8 rsvd[2];
	u8 addr[6];	/* network order */
};
struct ModifyNicVportIn {
	CmdIn hdr;
	u8 promisc;		/* VportPromisc bits */
	u8 field_select;	/* VportSelect bits */
	u8 n_uc;
	u8 n_mc;
	u8 vlan;		/* VportVlan bits */
	u8 local_lb;		/* kVportSelectLocalLb: 0 or 1 */
	u8 rsvd[2];
	/* VportMac list[n_uc + n_mc] (kVportSelectAddrs), then the VLAN maps (kVportSelectVlans) */
};

constexpr u32 kRssKeySize = 40;
constexpr u32 kRssMaxTableLog = 8;

/* rx_hash_fields bits */
constexpr u32 kRssFieldSrcIp = 1u << 0;
constexpr u32 kRssFieldDstIp = 1u << 1;
constexpr u32 kRssFieldL4SPort = 1u << 2;
constexpr u32 kRssFieldL4DPort = 1u << 3;

/*
 * Traffic types that may hash their own fields (type_fields[]): a byte
 * with kRssTypeOwn set gives the type's kRssField* bits in its low nibble;
 * without it the type hashes rx_hash_fields. Port fields only apply to
 * TCP and UDP.
 */
enum RssType : u8 { kRssTcp4, kRssUdp4, kRssIp4, kRssTcp6, kRssUdp6, kRssIp6, kRssTypes };
constexpr u8 kRssTypeOwn = 0x80;

/*
 * RssIn flags. kRssFlowOnly: the object steers only the packets of the
 * flow table entries that name it (an ethtool RSS context), never the
 * function's other traffic: the newest live object without this flag does.
 * Set at CREATE_RSS; MODIFY_RSS must give the same value.
 * kRssInner (cap ip_tunnels): a frame of an IP tunnel the device parses
 * (GRE, IP in IP) hashes by its inner IP and TCP/UDP headers, with the
 * inner packet's traffic type and the object's fields for it, as mlx5's
 * inner TTC tables and their TIRs spread GRE and IP-in-IP traffic; its
 * CQE's hash and hash type are the inner ones. A UDP tunnel keeps the
 * outer hash (its sender varies the source port by the inner flow).
 * Other bits: kStatBadParam.
 */
constexpr u8 kRssFlowOnly = 1u << 0;
constexpr u8 kRssInner = 1u << 1;

struct RssIn {
	CmdIn hdr;
	be32 obj_num;		/* modify only */
	be32 rx_hash_fields;
	u8 log_table_size;
	u8 type_fields[kRssTypes];
	u8 flags;		/* kRssFlowOnly, kRssInner */
	u8 toeplitz_key[kRssKeySize];
	be32 rqn[1u << kRssMaxTableLog];
};

/*
 * The function's flow table (SET_FLOW_TABLE_ENTRY 0x936 and
 * DELETE_FLOW_TABLE_ENTRY 0x938, one table, as the PRM's ethtool flow
 * table of a NIC RX namespace): 2^log_max_ft_size entries (caps), looked
 * up before the default RSS object for every received frame, lowest
 * flow_index first. The first entry whose match holds decides the frame:
 * kFlowFwdRq places it on an RQ (no hash in the CQE, as a direct TIR),
 * kFlowFwdRss spreads it by that RSS object (its key, fields and table;
 * see kRssFlowOnly), kFlowDrop drops it (counted: rx_steer_drop_packets).
 * A frame no entry matches goes to the default RSS object.
 *
 * A match is bitwise: every field the frame has is compared under its
 * mask ((frame & mask) == value); a field of mask 0 matches anything.
 * value must have no bit outside mask (kStatBadParam). Frame fields:
 * ip_version 4 or 6 (0: not IP), ip_protocol (IPv4 protocol, IPv6 next
 * header), l4_ok 1 when a complete TCP or UDP header was found (then the
 * ports; else the ports read 0), the addresses (IPv4: bytes 0..3, the
 * rest 0), all in network order. L2, as the frame came off the wire
 * (before any VLAN stripping): the MAC addresses, the ethertype after
 * the VLAN tags (up to two, as the parser reads them), and cvlan: bit 15
 * set when the outer tag is 802.1Q (0x8100), bits 0-11 its VLAN ID
 * (bits 12-14 reserved, 0 in mask and value).
 *
 * SET writes the entry at flow_index, replacing what was there (frames in
 * flight see the old or the new entry, never a mix). dest must name a live
 * RQ (kFlowFwdRq) or RSS object (kFlowFwdRss), else kStatBadResource;
 * kFlowDrop takes dest 0. DELETE frees the entry (kStatBadResource when
 * free). DESTROY_RSS of an object an entry names is kStatResourceBusy;
 * an entry whose RQ was destroyed drops its frames as rx_if_down_packets.
 */
enum FlowAction : u8 {
	kFlowFree = 0,		/* not a valid SET action */
	kFlowFwdRq = 1,
	kFlowFwdRss = 2,
	kFlowDrop = 3,
};

struct FlowFields {
	u8 ip_version;
	u8 ip_protocol;
	u8 l4_ok;
	u8 rsvd;		/* 0 in mask and value */
	be16 src_port;
	be16 dst_port;
	u8 src_ip[16];
	u8 dst_ip[16];
	u8 smac[6];
	be16 ethertype;
	u8 dmac[6];
	be16 cvlan;		/* kFlowCvlanTag | VLAN ID */
};
constexpr u16 kFlowCvlanTag = 1u << 15;
constexpr u16 kFlowCvlanRsvd = 7u << 12;

struct SetFlowEntryIn {
	CmdIn hdr;
	be32 flow_index;
	u8 action;		/* FlowAction */
	u8 rsvd[3];
	be32 dest;		/* rqn, RSS object number, or 0 */
	be32 rsvd2;
	FlowFields mask;
	FlowFields value;
};

struct DeleteFlowEntryIn {
	CmdIn hdr;
	be32 flow_index;
	u8 rsvd[4];
};

/* The counter sets (counters.h), big-endian, after the header. */
struct QueryQCounterOut {
	CmdOut hdr;
	SCX_PRM_Q_COUNTERS(SCX_PRM_CTR_BE64)
};

struct QueryBusCountersOut {
	CmdOut hdr;
	SCX_PRM_BUS_COUNTERS(SCX_PRM_CTR_BE64)
};

struct QueryPortCountersOut {
	CmdOut hdr;
	SCX_PRM_FEC_COUNTERS(SCX_PRM_CTR_BE64)
	SCX_PRM_PORT_COUNTERS(SCX_PRM_CTR_BE64)
};

/*
 * Outbox <-> host order, field by field from the lists. put() reads each
 * value through load(const u64 *), as the device's counters are updated
 * concurrently.
 */
#define SCX_PRM_CTR_PUT(field, name) out->field.set(load(&c.field));
#define SCX_PRM_CTR_GET(field, name) c->field = out.field.get();

template <typename Load>
void counters_put(QueryQCounterOut *out, const QCounters &c, Load load)
{
	SCX_PRM_Q_COUNTERS(SCX_PRM_CTR_PUT)
}

template <typename Load>
void counters_put(QueryBusCountersOut *out, const BusCounters &c, Load load)
{
	SCX_PRM_BUS_COUNTERS(SCX_PRM_CTR_PUT)
}

template <typename Load>
void counters_put(QueryPortCountersOut *out, const PortCounters &c, Load load)
{
	SCX_PRM_PORT_COUNTERS(SCX_PRM_CTR_PUT)
	SCX_PRM_FEC_COUNTERS(SCX_PRM_CTR_PUT)
}

inline void counters_get(const QueryQCounterOut &out, QCounters *c)
{
	SCX_PRM_Q_COUNTERS(SCX_PRM_CTR_GET)
}

inline void counters_get(const QueryBusCountersOut &out, BusCounters *c)
{
	SCX_PRM_BUS_COUNTERS(SCX_PRM_CTR_GET)
}

inline void counters_get(const QueryPortCountersOut &out, PortCounters *c)
{
	SCX_PRM_PORT_COUNTERS(SCX_PRM_CTR_GET)
	SCX_PRM_FEC_COUNTERS(SCX_PRM_CTR_GET)
}

#undef SCX_PRM_CTR_PUT
#undef SCX_PRM_CTR_GET

/* MMIO offsets in a function's BAR (one UAR page). */
constexpr u32 kUarCqDoorbell = 0x20;	/* u64: be32 arm word, be32 cqn */
constexpr u32 kUarSqDoorbell = 0x800;	/* u64: first 8 bytes of the ctrl seg */
/*
 * Init segment registers after the UAR page, read with 32-bit MMIO reads
 * (big-endian): the free-running 64-bit internal timer, high then low
 * word. The two reads are not atomic together: a driver reads high, low,
 * high again, and low once more when the high word moved.
 */
constexpr u32 kInitSegTimerH = 0x1000;
constexpr u32 kInitSegTimerL = 0x1004;


/* Layout as the PRM has it: sizes and field offsets are part of the format. */
static_assert(sizeof(CmdIn) == 8);
static_assert(__builtin_offsetof(CmdIn, opcode) == 0);
static_assert(__builtin_offsetof(CmdIn, op_mod) == 2);
static_assert(__builtin_offsetof(CmdIn, rsvd) == 4);
static_assert(sizeof(CmdOut) == 8);
static_assert(__builtin_offsetof(CmdOut, status) == 0);
static_assert(__builtin_offsetof(CmdOut, rsvd) == 1);
static_assert(__builtin_offsetof(CmdOut, syndrome) == 4);
static_assert(__builtin_offsetof(HcaCaps, model) == 0);
static_assert(__builtin_offsetof(HcaCaps, wqe_inline_mode) == 1);
static_assert(__builtin_offsetof(HcaCaps, enhanced_mpw) == 2);
static_assert(__builtin_offsetof(HcaCaps, lso) == 3);
static_assert(__builtin_offsetof(HcaCaps, log_max_sq_sz) == 4);
static_assert(__builtin_offsetof(HcaCaps, log_max_rq_sz) == 5);
static_assert(__builtin_offsetof(HcaCaps, log_max_cq_sz) == 6);
static_assert(__builtin_offsetof(HcaCaps, log_max_rss_tbl) == 7);
static_assert(__builtin_offsetof(HcaCaps, max_sqs) == 8);
static_assert(__builtin_offsetof(HcaCaps, max_rqs) == 10);
static_assert(__builtin_offsetof(HcaCaps, max_cqs) == 12);
static_assert(__builtin_offsetof(HcaCaps, max_hw_mtu) == 14);
static_assert(__builtin_offsetof(HcaCaps, csum) == 16);
static_assert(__builtin_offsetof(HcaCaps, striding_rq) == 17);
static_assert(__builtin_offsetof(HcaCaps, shampo) == 18);
static_assert(__builtin_offsetof(HcaCaps, cqe_compression) == 19);
static_assert(__builtin_offsetof(HcaCaps, max_lso_sz) == 20);
static_assert(__builtin_offsetof(HcaCaps, cq_moderation) == 24);
static_assert(__builtin_offsetof(HcaCaps, cq_period_start_from_cqe) == 25);
static_assert(__builtin_offsetof(HcaCaps, enhanced_cqe_compression) == 26);
static_assert(__builtin_offsetof(HcaCaps, mini_cqe_resp_stride_index) == 27);
static_assert(__builtin_offsetof(HcaCaps, log_max_ft_size) == 28);
static_assert(__builtin_offsetof(HcaCaps, max_rss) == 29);
static_assert(__builtin_offsetof(HcaCaps, max_vxlan_udp_ports) == 30);
static_assert(__builtin_offsetof(HcaCaps, ext_stride_num_range) == 31);
static_assert(__builtin_offsetof(HcaCaps, device_frequency_khz) == 32);
static_assert(__builtin_offsetof(HcaCaps, log_max_current_uc_list) == 36);
static_assert(__builtin_offsetof(HcaCaps, log_max_current_mc_list) == 37);
static_assert(__builtin_offsetof(HcaCaps, geneve) == 38);
static_assert(__builtin_offsetof(HcaCaps, ip_tunnels) == 39);
static_assert(sizeof(HcaCaps) == 40);
static_assert(sizeof(QueryHcaCapOut) == 48);
static_assert(sizeof(VportMac) == 8);
static_assert(sizeof(ModifyNicVportIn) == 16);
static_assert(__builtin_offsetof(ModifyNicVportIn, promisc) == 8);
static_assert(__builtin_offsetof(ModifyNicVportIn, n_uc) == 10);
static_assert(__builtin_offsetof(ModifyNicVportIn, n_mc) == 11);
static_assert(__builtin_offsetof(ModifyNicVportIn, field_select) == 9);
static_assert(__builtin_offsetof(ModifyNicVportIn, vlan) == 12);
static_assert(__builtin_offsetof(ModifyNicVportIn, local_lb) == 13);
static_assert(__builtin_offsetof(QueryHcaCapOut, hdr) == 0);
static_assert(__builtin_offsetof(QueryHcaCapOut, caps) == 8);
static_assert(sizeof(CqModeration) == 8);
static_assert(__builtin_offsetof(CqModeration, cq_period) == 0);
static_assert(__builtin_offsetof(CqModeration, cq_max_count) == 2);
static_assert(__builtin_offsetof(CqModeration, cq_period_mode) == 4);
static_assert(__builtin_offsetof(CqModeration, rsvd) == 5);
static_assert(sizeof(CreateCqIn) == 40);
static_assert(__builtin_offsetof(CreateCqIn, hdr) == 0);
static_assert(__builtin_offsetof(CreateCqIn, log_cq_size) == 8);
static_assert(__builtin_offsetof(CreateCqIn, cqe_comp_en) == 9);
static_assert(__builtin_offsetof(CreateCqIn, mini_cqe_res_format) == 10);
static_assert(__builtin_offsetof(CreateCqIn, cqe_comp_layout) == 11);
static_assert(__builtin_offsetof(CreateCqIn, c_eqn) == 12);
static_assert(__builtin_offsetof(CreateCqIn, dbr_addr) == 16);
static_assert(__builtin_offsetof(CreateCqIn, pas) == 24);
static_assert(__builtin_offsetof(CreateCqIn, moder) == 32);
static_assert(sizeof(ModifyCqIn) == 24);
static_assert(__builtin_offsetof(ModifyCqIn, hdr) == 0);
static_assert(__builtin_offsetof(ModifyCqIn, cqn) == 8);
static_assert(__builtin_offsetof(ModifyCqIn, modify_field_select) == 12);
static_assert(__builtin_offsetof(ModifyCqIn, moder) == 16);
static_assert(sizeof(CreateObjOut) == 16);
static_assert(__builtin_offsetof(CreateObjOut, hdr) == 0);
static_assert(__builtin_offsetof(CreateObjOut, obj_num) == 8);
static_assert(__builtin_offsetof(CreateObjOut, rsvd) == 12);
static_assert(sizeof(QueryCqOut) == 24);
static_assert(__builtin_offsetof(QueryCqOut, status) == 8);
static_assert(__builtin_offsetof(QueryCqOut, log_cq_size) == 9);
static_assert(__builtin_offsetof(QueryCqOut, producer_counter) == 12);
static_assert(__builtin_offsetof(QueryCqOut, consumer_counter) == 16);
static_assert(sizeof(DestroyObjIn) == 16);
static_assert(__builtin_offsetof(DestroyObjIn, hdr) == 0);
static_assert(__builtin_offsetof(DestroyObjIn, obj_num) == 8);
static_assert(__builtin_offsetof(DestroyObjIn, rsvd) == 12);
static_assert(sizeof(CreateSqIn) == 32);
static_assert(__builtin_offsetof(CreateSqIn, hdr) == 0);
static_assert(__builtin_offsetof(CreateSqIn, cqn) == 8);
static_assert(__builtin_offsetof(CreateSqIn, log_wq_sz) == 12);
static_assert(__builtin_offsetof(CreateSqIn, min_wqe_inline_mode) == 13);
static_assert(__builtin_offsetof(CreateSqIn, allow_multi_pkt_send_wqe) == 14);
static_assert(__builtin_offsetof(CreateSqIn, rsvd) == 15);
static_assert(__builtin_offsetof(CreateSqIn, dbr_addr) == 16);
static_assert(__builtin_offsetof(CreateSqIn, pas) == 24);
static_assert(sizeof(CreateRqIn) == 56);
static_assert(__builtin_offsetof(CreateRqIn, hdr) == 0);
static_assert(__builtin_offsetof(CreateRqIn, cqn) == 8);
static_assert(__builtin_offsetof(CreateRqIn, log_wq_sz) == 12);
static_assert(__builtin_offsetof(CreateRqIn, log_wq_stride) == 13);
static_assert(__builtin_offsetof(CreateRqIn, wq_type) == 14);
static_assert(__builtin_offsetof(CreateRqIn, vsd) == 15);
static_assert(__builtin_offsetof(CreateRqIn, dbr_addr) == 16);
static_assert(__builtin_offsetof(CreateRqIn, pas) == 24);
static_assert(__builtin_offsetof(CreateRqIn, log_wqe_num_of_strides) == 32);
static_assert(__builtin_offsetof(CreateRqIn, log_wqe_stride_size) == 33);
static_assert(__builtin_offsetof(CreateRqIn, shampo_enable) == 34);
static_assert(__builtin_offsetof(CreateRqIn, shampo_match_criteria_type) == 35);
static_assert(__builtin_offsetof(CreateRqIn, shampo_no_match_alignment_granularity) == 36);
static_assert(__builtin_offsetof(CreateRqIn, log_reservation_size) == 37);
static_assert(__builtin_offsetof(CreateRqIn, log_max_num_of_packets_per_reservation) == 38);
static_assert(__builtin_offsetof(CreateRqIn, log_headers_entry_size) == 39);
static_assert(__builtin_offsetof(CreateRqIn, log_headers_buffer_entry_num) == 40);
static_assert(__builtin_offsetof(CreateRqIn, scatter_fcs) == 41);
static_assert(__builtin_offsetof(CreateRqIn, reservation_timeout) == 42);
static_assert(__builtin_offsetof(CreateRqIn, rsvd3) == 44);
static_assert(__builtin_offsetof(CreateRqIn, headers_pas) == 48);
static_assert(sizeof(ModifyQueueIn) == 16);
static_assert(__builtin_offsetof(ModifyQueueIn, hdr) == 0);
static_assert(__builtin_offsetof(ModifyQueueIn, obj_num) == 8);
static_assert(__builtin_offsetof(ModifyQueueIn, cur_state) == 12);
static_assert(__builtin_offsetof(ModifyQueueIn, next_state) == 13);
static_assert(__builtin_offsetof(ModifyQueueIn, rsvd) == 14);
static_assert(sizeof(ModifyRqIn) == 24);
static_assert(__builtin_offsetof(ModifyRqIn, q) == 0);
static_assert(__builtin_offsetof(ModifyRqIn, modify_bitmask) == 16);
static_assert(__builtin_offsetof(ModifyRqIn, vsd) == 20);
static_assert(__builtin_offsetof(ModifyRqIn, scatter_fcs) == 21);
static_assert(__builtin_offsetof(ModifyRqIn, rsvd) == 22);
static_assert(sizeof(ModifyPortIn) == 16);
static_assert(sizeof(VxlanUdpDportIn) == 16);
static_assert(__builtin_offsetof(VxlanUdpDportIn, vxlan_udp_port) == 10);
static_assert(__builtin_offsetof(ModifyPortIn, modify_bitmask) == 8);
static_assert(__builtin_offsetof(ModifyPortIn, fcs_chk) == 12);
static_assert(sizeof(QueryPortLinkOut) == 40);
static_assert(__builtin_offsetof(QueryPortLinkOut, fec_cap) == 32);
static_assert(__builtin_offsetof(QueryPortLinkOut, fec_oper) == 36);
static_assert(__builtin_offsetof(QueryPortLinkOut, proto_cap) == 8);
static_assert(__builtin_offsetof(QueryPortLinkOut, proto_partner) == 20);
static_assert(__builtin_offsetof(QueryPortLinkOut, admin_up) == 24);
static_assert(__builtin_offsetof(QueryPortLinkOut, connector) == 28);
static_assert(sizeof(QueryModuleEepromIn) == 16);
static_assert(__builtin_offsetof(QueryModuleEepromIn, i2c_address) == 8);
static_assert(__builtin_offsetof(QueryModuleEepromIn, offset) == 12);
static_assert(sizeof(QueryModuleEepromOut) == 48);
static_assert(__builtin_offsetof(QueryModuleEepromOut, data) == 16);
static_assert(sizeof(ModifyPortLinkIn) == 24);
static_assert(__builtin_offsetof(ModifyPortLinkIn, modify_bitmask) == 8);
static_assert(__builtin_offsetof(ModifyPortLinkIn, proto_admin) == 12);
static_assert(__builtin_offsetof(ModifyPortLinkIn, admin_up) == 16);
static_assert(__builtin_offsetof(ModifyPortLinkIn, an_disable) == 17);
static_assert(__builtin_offsetof(ModifyPortLinkIn, fec_admin) == 18);
static_assert(sizeof(RssIn) == 1088);
static_assert(__builtin_offsetof(RssIn, hdr) == 0);
static_assert(__builtin_offsetof(RssIn, obj_num) == 8);
static_assert(__builtin_offsetof(RssIn, rx_hash_fields) == 12);
static_assert(__builtin_offsetof(RssIn, log_table_size) == 16);
static_assert(__builtin_offsetof(RssIn, type_fields) == 17);
static_assert(__builtin_offsetof(RssIn, flags) == 23);
static_assert(__builtin_offsetof(RssIn, toeplitz_key) == 24);
static_assert(__builtin_offsetof(RssIn, rqn) == 64);
static_assert(sizeof(FlowFields) == 56);
static_assert(__builtin_offsetof(FlowFields, smac) == 40);
static_assert(__builtin_offsetof(FlowFields, ethertype) == 46);
static_assert(__builtin_offsetof(FlowFields, dmac) == 48);
static_assert(__builtin_offsetof(FlowFields, cvlan) == 54);
static_assert(__builtin_offsetof(FlowFields, ip_version) == 0);
static_assert(__builtin_offsetof(FlowFields, ip_protocol) == 1);
static_assert(__builtin_offsetof(FlowFields, l4_ok) == 2);
static_assert(__builtin_offsetof(FlowFields, rsvd) == 3);
static_assert(__builtin_offsetof(FlowFields, src_port) == 4);
static_assert(__builtin_offsetof(FlowFields, dst_port) == 6);
static_assert(__builtin_offsetof(FlowFields, src_ip) == 8);
static_assert(__builtin_offsetof(FlowFields, dst_ip) == 24);
static_assert(sizeof(SetFlowEntryIn) == 136);
static_assert(__builtin_offsetof(SetFlowEntryIn, flow_index) == 8);
static_assert(__builtin_offsetof(SetFlowEntryIn, action) == 12);
static_assert(__builtin_offsetof(SetFlowEntryIn, rsvd) == 13);
static_assert(__builtin_offsetof(SetFlowEntryIn, dest) == 16);
static_assert(__builtin_offsetof(SetFlowEntryIn, rsvd2) == 20);
static_assert(__builtin_offsetof(SetFlowEntryIn, mask) == 24);
static_assert(__builtin_offsetof(SetFlowEntryIn, value) == 80);
static_assert(sizeof(DeleteFlowEntryIn) == 16);
static_assert(__builtin_offsetof(DeleteFlowEntryIn, flow_index) == 8);
static_assert(__builtin_offsetof(DeleteFlowEntryIn, rsvd) == 12);
static_assert(sizeof(QueryQCounterOut) == 72);
static_assert(__builtin_offsetof(QueryQCounterOut, hdr) == 0);
static_assert(sizeof(QueryBusCountersOut) == 88);
static_assert(__builtin_offsetof(QueryBusCountersOut, hdr) == 0);
/* One be64 a counter, in list order, right after the header. */
static_assert(sizeof(QueryQCounterOut) == sizeof(CmdOut) + sizeof(QCounters));
static_assert(sizeof(QueryBusCountersOut) == sizeof(CmdOut) + sizeof(BusCounters));
static_assert(sizeof(QueryPortCountersOut) == 232);
static_assert(__builtin_offsetof(QueryPortCountersOut, hdr) == 0);
static_assert(sizeof(QueryPortCountersOut) == sizeof(CmdOut) + sizeof(PortCounters));

} /* namespace softcx::prm */
