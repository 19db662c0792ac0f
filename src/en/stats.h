/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Counters of the driver core. Each ring owns a struct of Counters; the
 * table in stats.cpp names every counter once (mlx5 names) and is the only
 * source of the ethtool -S strings, values, the get_stats64 folding and
 * Documentation/counters.rst (checked by a test).
 */
#pragma once

#include "en/os.h"
#include "prm/counters.h"

namespace softcx::en {

struct RqStats {
	Counter packets;
	Counter bytes;
	Counter csum_unnecessary;
	Counter csum_unnecessary_inner;	/* the same for a VXLAN frame: its inner checksums too */
	Counter csum_none;
	Counter csum_complete;	/* handed up with the CQE's sum: CHECKSUM_COMPLETE */
	Counter removed_vlan_packets;	/* delivered with the tag the device stripped */
	Counter buff_alloc_err;
	Counter wqe_err;
	Counter xdp_drop;	/* DROP, ABORTED, unknown, and XDP_TX that could not be posted */
	Counter xdp_redirect;
	Counter flushed;	/* placed by the device, never polled: the RQ was closed first */
	Counter skb_err;	/* polled, but no skb could be built (or the CQE made no sense for one) */
	Counter recover;	/* RQ recoveries after an error CQE (ERR -> RST -> RDY, refilled) */
	/* striding RQ */
	Counter mpwqe_filler_cqes;	/* filler CQEs: strides left unused at a WQE's end */
	Counter mpwqe_filler_strides;	/* the strides they covered */
	Counter oversize_pkts_sw_drop;	/* frames longer than a linear stride holds: dropped */
	/* CQE compression */
	Counter cqe_compress_blks;	/* runs: titles with mini CQEs */
	Counter cqe_compress_pkts;	/* packets that came as mini CQEs */
	/* SHAMPO (rx-gro-hw) */
	Counter gro_packets;	/* segments delivered in skbs of several (HW-GRO sessions) */
	Counter gro_bytes;	/* their bytes on the wire (headers of every segment included) */
	Counter gro_skbs;	/* skbs of several segments */
	Counter gro_match_packets;	/* CQEs that continued the previous packet's session */
	Counter gro_large_hds;	/* split headers longer than the skb's small head (larger one taken) */
	Counter hds_nosplit_packets;	/* not split by the device (not TCP, long headers) */
	Counter hds_nosplit_bytes;
	Counter hds_nodata_packets;	/* split with no payload (pure ACKs) */
	Counter hds_nodata_bytes;
};

struct SqStats {
	Counter packets;
	Counter bytes;
	Counter tso_packets;
	Counter tso_bytes;
	Counter tso_inner_packets;
	Counter tso_inner_bytes;
	Counter csum_partial;
	Counter csum_partial_inner;	/* encapsulated skbs with inner checksum offload */
	Counter csum_none;
	Counter added_vlan_packets;	/* skbs sent with a tag from metadata */
	Counter mpwqe_blks;
	Counter mpwqe_pkts;
	Counter nop;
	Counter xmit_more;
	Counter stopped;
	Counter wake;
	Counter dropped;	/* refused before posting (too long for the device, no mapping) */
	Counter flushed;	/* posted, never sent: released by SQ recovery or close */
	Counter timeout;	/* TX watchdog timeouts (each recovers the SQ) */
	Counter cqes;
	Counter cqe_err;
	Counter recover;
	Counter doorbells;
	Counter timestamps;		/* skbs posted with a hardware TX timestamp requested */
	Counter timestamps_delivered;	/* ... whose completion handed the stamp to the OS */
	Counter timestamps_lost;	/* ... released without one (flushed, or before an error CQE) */
};

/* An XDP send queue: the XDP_TX SQ ("rx_xdp_tx_*") or the redirect target SQ ("tx_xdp_*"). */
struct XdpSqStats {
	Counter xmit;		/* frames posted */
	Counter mpwqe;		/* MPWQE sessions opened */
	Counter inlnw;		/* frames copied inline into a session */
	Counter nops;		/* NOP WQEBBs of edge padding */
	Counter full;		/* frames refused: no room (or the SQ is recovering) */
	Counter err;		/* frames refused as invalid; error CQEs (inc_shared: two writers) */
	Counter cqes;
	Counter recover;	/* recoveries after an error CQE (ERR -> RST -> RDY) */
	Counter flushed;	/* frames posted, never sent: released by recovery or close */
};

struct ChStats {
	Counter poll;
	Counter arm;
};

/* All counters of one channel index; also the folded base of a port. */
struct ChannelStats {
	RqStats rq;
	XdpSqStats xdpsq;	/* XDP_TX */
	SqStats sq;
	XdpSqStats xmitsq;	/* ndo_xdp_xmit */
	ChStats ch;
};

/* Counters the device keeps for the port (prm/counters.h), queried by command. */
struct DeviceStats {
	prm::QCounters q;
	prm::BusCounters bus;
	prm::PortCounters port;
};

enum class StatGroup : u8 { Rx, Tx, Ch, Device };

struct StatDesc {
	const char *name;	/* suffix for ring groups; full name for Device */
	StatGroup group;
	u16 offset;		/* in ChannelStats, or in DeviceStats */
	const char *ch_name;	/* per-channel suffix where mlx5's differs, else null */
};

/* The table (stats.cpp). */
extern const StatDesc kStatDescs[];
extern const u32 kNumStatDescs;

/* Fold `from` into `into` (channel teardown). */
void stats_fold(ChannelStats *into, const ChannelStats *from);

} /* namespace softcx::en */
