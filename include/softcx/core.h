/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Entry points of the C++ core that the C shim calls: the device model
 * ("hardware": adapter creation only, hw.h; the rest goes through the bus)
 * and the driver core (ports, channels, NAPI work, TX posting, counters).
 * Valid C and C++; returns 0 or a negative errno.
 */
#ifndef SOFTCX_CORE_H
#define SOFTCX_CORE_H

#ifdef __cplusplus
extern "C" {
#endif

#include "types.h"
#include "hw.h"

/* ================= driver core (src/en) ================= */

struct scx_port;
struct scx_channel;

#define SCX_MAX_CHANNELS 64
#define SCX_MIN_MTU 68
#define SCX_MAX_MTU 9978
#define SCX_STAT_NAME_LEN 32	/* ETH_GSTRING_LEN */

/*
 * What the OS fixes about RX buffers, handed to the core once per port
 * (scx_port_create) and to scx_port_mem_estimate(): buffers are
 * page_size << order bytes (the core builds them for 4096 only), the frame
 * is placed at rx_headroom, rx_tailroom bytes stay free at the end
 * (build_skb's skb_shared_info). The order is the smallest that fits
 * headroom + MTU + L2 + tailroom. rx_skb_headroom is the headroom an
 * skb needs without XDP (NET_SKB_PAD + NET_IP_ALIGN): the striding RQ's
 * linear strides use it, so that two frames of MTU 1500 share a page.
 */
struct scx_os_layout {
	uint32_t page_size;
	uint32_t rx_headroom;
	uint32_t rx_tailroom;
	uint32_t rx_skb_headroom;
};

/*
 * Every limit and rule below is the core's (src/en/params.cpp): the OS
 * asks for them and restates none.
 */
struct scx_port_caps {
	uint32_t model;
	uint32_t max_mtu;	/* software MTU */
	uint32_t max_channels;
	uint32_t min_inline;	/* bytes of headers every SEND must inline */
	uint32_t max_lso;	/* largest LSO payload+headers the device takes (0: no LSO) */
	uint32_t max_lso_hdr;	/* longest header (L2..L4) an LSO WQE may inline (0: no LSO) */
	uint32_t tx_mpwqe;	/* skbs may go out in enhanced multi-packet send WQEs */
	uint32_t xdp_tx_mpwqe;	/* XDP frames may go out in MPWQE sessions */
	uint32_t rx_striding;	/* striding RQs (multi-packet RX WQEs) */
	uint32_t rx_cqe_compress;	/* RX CQE compression */
	uint32_t rx_hw_gro;	/* SHAMPO: header-data split and hardware GRO (rx-gro-hw) */
	uint32_t xdp_max_mtu;	/* largest MTU with an XDP program unaware of multi-buffer frames (one page a frame) */
	/* ring sizes a user may set (ethtool -G), log2: SQ in WQEBBs, RQ in packets */
	uint32_t min_log_sq_size, max_log_sq_size;
	uint32_t min_log_rq_size, max_log_rq_size;
	uint32_t cq_moderation;	/* CQ interrupt moderation (scx_port_set_moder) */
	uint32_t cq_period_from_cqe;	/* scx_cq_moder.from_cqe may be set */
	uint32_t timer_khz;	/* the device timer's nominal rate (scx_port_read_clock, timestamps) */
	/* addresses scx_port_set_rx_filter() lists before it falls back to a promiscuous mode */
	uint32_t max_uc_addrs, max_mc_addrs;
	/* UDP ports scx_port_vxlan_port() can name at once (0: no VXLAN offloads) */
	uint32_t max_vxlan_ports;
	/*
	 * The device sees into GENEVE on UDP port 6081 as into VXLAN to a
	 * port of its table: inner checksums, SCX_TX_GSO_TUNNEL
	 */
	uint32_t geneve;
	/* and into GRE (Ethernet, IPv4 or IPv6 in it), and IPv4 or IPv6 in IP */
	uint32_t gre, ip_over_ip;
};

/* Ring sizes the driver runs with. */
struct scx_queue_sizes {
	uint32_t log_sq_size;	/* WQEBBs */
	uint32_t log_rq_size;	/* packets */
};
void scx_params_queue_sizes(struct scx_queue_sizes *qs);

/* scx_port_feature_check() */
#define SCX_FEATURE_TX_MPWQE 0		/* scx_port_params.tx_mpwqe */
#define SCX_FEATURE_XDP_TX_MPWQE 1	/* scx_port_params.xdp_tx_mpwqe */
#define SCX_FEATURE_RX_STRIDING 2	/* scx_port_params.rx_striding */
#define SCX_FEATURE_RX_CQE_COMPRESS 3	/* scx_port_params.rx_cqe_compress */
#define SCX_FEATURE_RX_HW_GRO 4		/* scx_port_params.rx_hw_gro */

struct scx_port_params {
	uint32_t nch;
	uint32_t mtu;
	uint32_t log_sq_size;	/* WQEBBs (scx_params_queue_sizes) */
	uint32_t log_rq_size;	/* packets */
	/* post eligible skbs in multi-packet WQE sessions (needs caps.tx_mpwqe) */
	uint32_t tx_mpwqe;
	/*
	 * An XDP program is attached: every RQ buffer is one order-0 page,
	 * each RQ runs scx_os_xdp_run() on every frame, and each channel gets
	 * an XDP_TX SQ. The MTU must let a frame fit one page
	 * (caps.xdp_max_mtu), else -EINVAL, unless xdp_frags.
	 */
	uint32_t xdp;
	/*
	 * The program takes multi-buffer frames (BPF_F_XDP_HAS_FRAGS): past
	 * caps.xdp_max_mtu a frame fills up to SCX_XDP_MAX_FRAGS + 1 pages of
	 * a cyclic RQ (striding RQs need a frame in one page with XDP).
	 */
	uint32_t xdp_frags;
	/* post XDP frames (XDP_TX and ndo_xdp_xmit) in MPWQE sessions (needs caps.xdp_tx_mpwqe) */
	uint32_t xdp_tx_mpwqe;
	/*
	 * Keep the port's RSS indirection table (the user set it) instead of
	 * spreading it evenly over the new set's channels. Every entry must
	 * name one of the nch channels, else -EINVAL.
	 */
	uint32_t rss_keep_table;
	/* striding RQs (multi-packet RX WQEs; needs caps.rx_striding), else cyclic */
	uint32_t rx_striding;
	/* the RQs' CQs compress CQEs (needs caps.rx_cqe_compress) */
	uint32_t rx_cqe_compress;
	/*
	 * SHAMPO: headers and payload split, consecutive TCP segments merged
	 * by the device and delivered as one skb per session
	 * (scx_os_rx_deliver_hds). Needs caps.rx_hw_gro, rx_striding, no XDP
	 * and no CQE compression (else -EOPNOTSUPP; scx_params_conflict()
	 * says why).
	 */
	uint32_t rx_hw_gro;
	/*
	 * RX hardware timestamps (scx_rx_pkt.ts) from the start; also switched
	 * on a live set by scx_port_set_rx_tstamp(). Not with CQE compression
	 * (-EOPNOTSUPP; scx_params_conflict() says why): a mini CQE carries no
	 * timestamp.
	 */
	uint32_t rx_tstamp;
};

/*
 * RSS: the device hashes a frame's fields (per traffic type) with the
 * Toeplitz key; table[hash % SCX_RSS_TABLE_SIZE] names the channel.
 */
#define SCX_RSS_KEY_SIZE 40
#define SCX_RSS_TABLE_SIZE 256	/* mlx5e 6.1: MLX5E_INDIR_RQT_SIZE */
enum scx_rss_type {
	SCX_RSS_TCP4, SCX_RSS_UDP4, SCX_RSS_IP4,	/* IP4: IPv4 but not TCP/UDP */
	SCX_RSS_TCP6, SCX_RSS_UDP6, SCX_RSS_IP6,
	SCX_RSS_NTYPES
};
/* hash input fields; ports only for TCP and UDP */
#define SCX_RSS_SRC_IP (1u << 0)
#define SCX_RSS_DST_IP (1u << 1)
#define SCX_RSS_SRC_PORT (1u << 2)
#define SCX_RSS_DST_PORT (1u << 3)
struct scx_rss {
	uint8_t key[SCX_RSS_KEY_SIZE];
	uint32_t table[SCX_RSS_TABLE_SIZE];	/* channel index */
	uint8_t fields[SCX_RSS_NTYPES];		/* SCX_RSS_* bits */
};
/*
 * The port's RSS: the core's defaults until set. spread_nch 0: the table
 * remembered (what a set built with rss_keep_table steers by); else the
 * table spread evenly over spread_nch channels, as a set built without
 * rss_keep_table gets it.
 */
void scx_port_get_rss(const struct scx_port *p, uint32_t spread_nch, struct scx_rss *rss);
/*
 * Check and remember @rss, and apply it to the live set's RSS object
 * (MODIFY_RSS: no rebuild, traffic runs on). 0; -EINVAL with the reason in
 * *why (an entry names a missing channel: the live set's, else nch_max;
 * a field the type cannot hash), nothing changed; or a command's error
 * (the set keeps its old RSS, nothing remembered; when only an RSS
 * context's object refused the new hash fields, the port's RSS is
 * remembered and that context hashes the old ones until the next set).
 */
int scx_port_set_rss(struct scx_port *p, const struct scx_rss *rss, const char **why);

/*
 * RSS contexts (ethtool -X context): ids 1..SCX_MAX_RSS_CONTEXTS, each its
 * own key and indirection table (channel indices); the port's hash fields.
 * They steer only the flow rules that name them. *why (a static string)
 * says why a call failed with -EINVAL, -ENOSPC or -EBUSY. nch: the
 * channels the port runs with (or will, while down); every table entry
 * must be below it. A NULL table spreads over nch, a NULL key takes the
 * port's.
 */
#define SCX_MAX_RSS_CONTEXTS 15
int scx_port_rss_ctx_create(struct scx_port *p, uint32_t nch, const uint32_t *table,
			    const uint8_t *key, uint32_t *ctx, const char **why);
int scx_port_rss_ctx_set(struct scx_port *p, uint32_t nch, uint32_t ctx, const uint32_t *table,
			 const uint8_t *key, const char **why);
/* -EBUSY while a flow rule names it. */
int scx_port_rss_ctx_delete(struct scx_port *p, uint32_t ctx, const char **why);
/* -ENOENT when there is no such context. */
int scx_port_rss_ctx_get(const struct scx_port *p, uint32_t ctx, struct scx_rss *rss);

/*
 * Flow rules (ethtool -N/-n, ntuple filters): matched before RSS, the
 * lowest location first. Addresses in network order (IPv4: the first 4
 * bytes, the rest 0), ports and the ethertype in host order; a mask bit
 * set compares that bit (a zero mask: any value). l4proto only for
 * SCX_RSS_IP4/IP6 (the protocol byte). SCX_FLOW_ETHER: no IP field, the
 * source MAC and the ethertype (after any VLAN tags) instead. Every type:
 * the destination MAC, and the VLAN ID of an outer 802.1Q tag (mask 0 or
 * 0xfff: the whole ID; the frame must carry such a tag). action:
 * SCX_FLOW_DROP, a channel, or with a context the offset added to the
 * channel its table picks (ethtool's FLOW_RSS).
 */
#define SCX_FLOW_DROP 0xffffffffu
#define SCX_FLOW_ETHER SCX_RSS_NTYPES	/* a rule type: L2 fields only */
struct scx_flow_rule {
	uint32_t type;			/* enum scx_rss_type, or SCX_FLOW_ETHER */
	uint8_t src_ip[16], src_ip_mask[16];
	uint8_t dst_ip[16], dst_ip_mask[16];
	uint16_t src_port, src_port_mask;
	uint16_t dst_port, dst_port_mask;
	uint8_t l4proto, l4proto_mask;
	uint8_t dst_mac[6], dst_mac_mask[6];
	uint16_t vlan_id, vlan_id_mask;
	uint8_t src_mac[6], src_mac_mask[6];	/* SCX_FLOW_ETHER */
	uint16_t ethertype, ethertype_mask;	/* SCX_FLOW_ETHER */
	uint32_t action;
	uint32_t context;		/* 0: none */
};
/* Locations are 0 .. size - 1. */
uint32_t scx_port_flow_table_size(const struct scx_port *p);
uint32_t scx_port_flow_count(const struct scx_port *p);
/* Up to max used locations in order into locs; returns how many there are. */
uint32_t scx_port_flow_locs(const struct scx_port *p, uint32_t *locs, uint32_t max);
/* A free location: the first (last != 0: the last); -ENOSPC when full. */
int scx_port_flow_free_loc(const struct scx_port *p, int last, uint32_t *loc);
/* -ENOENT when loc holds no rule. */
int scx_port_flow_get(const struct scx_port *p, uint32_t loc, struct scx_flow_rule *r);
/*
 * Check and insert (or replace) the rule at loc and install it on the live
 * set: -EINVAL with *why (a channel at or above nch, a missing context, a
 * bad type or field), -EOPNOTSUPP (ntuple off), nothing changed; or a
 * command's error (nothing remembered).
 */
int scx_port_flow_set(struct scx_port *p, uint32_t nch, uint32_t loc,
		      const struct scx_flow_rule *r, const char **why);
/* -ENOENT when loc holds no rule. */
int scx_port_flow_delete(struct scx_port *p, uint32_t loc);
/* ethtool -K ntuple: off removes every rule; on lets rules in (off at creation). */
void scx_port_set_ntuple(struct scx_port *p, int on);

/*
 * Interrupt moderation of a CQ, done by the device: once armed, the CQ
 * signals when `frames` CQEs are pending or `usecs` have passed since its
 * last event (from_cqe: since its last CQE). usecs 0 or frames 1: at once;
 * frames 0: the period alone.
 */
struct scx_cq_moder {
	uint32_t usecs;
	uint32_t frames;
	uint32_t from_cqe;
};
/* rx: the RQs' CQs; tx: the SQs' (the stack's and the XDP SQs). */
struct scx_port_moder {
	struct scx_cq_moder rx;
	struct scx_cq_moder tx;
};
/* The core's defaults for one direction and period mode (mlx5's numbers). */
void scx_moder_default(int rx, int from_cqe, struct scx_cq_moder *m);

/*
 * nch_max fixes the ethtool -S layout for the port's lifetime; os is
 * copied (-EINVAL when the core cannot build buffers for it). os_port is
 * the OS's handle for the port, given back to scx_os_port_log() with the
 * lines about it (a failed command).
 */
int scx_port_create(struct scx_hw_function *fn, void *os_dev, void *os_port, uint32_t nch_max,
		    const struct scx_os_layout *os, struct scx_port **out);
void scx_port_destroy(struct scx_port *p);
void scx_port_get_caps(const struct scx_port *p, struct scx_port_caps *caps);
/*
 * May the port use a feature (SCX_FEATURE_*)? 0, or -EOPNOTSUPP with the
 * reason in *why (a static string, for the OS's log).
 */
int scx_port_feature_check(const struct scx_port *p, uint32_t feature, const char **why);
/*
 * ethtool -G: one ring size (rx: RQ in packets, else SQ in WQEBBs) as a
 * log2 within the caps' limits. 0 when exact, 1 when rounded up to the
 * next power of two, -EINVAL outside the limits; *why (a static string,
 * for an extack) says which unless 0.
 */
int scx_port_ring_check(const struct scx_port *p, int rx, uint32_t want, uint8_t *log,
			const char **why);
/*
 * ethtool -L: combined 1..max_channels only, and no fewer than a flow rule's
 * channel or an RSS context's table needs. 0, or -EINVAL with *why.
 */
int scx_port_channels_check(const struct scx_port *p, uint32_t combined, uint32_t rx,
			    uint32_t tx, uint32_t other, const char **why);
/*
 * Why a port cannot run with these parameters because of a rule between
 * features (a static string in ethtool's words, for an extack or the log),
 * or NULL when none is broken.
 */
const char *scx_params_conflict(const struct scx_port *p, const struct scx_port_params *params);

/*
 * Build and start a channel set: CQs, SQs, RQs (filled), RSS over the RQs.
 * The CQs are NOT armed: the shim enables each NAPI and schedules it once;
 * that first poll ends with scx_channel_arm(). os_channels[i] is what the
 * OS hooks get for channel i (NAPI is the shim's). On failure nothing is
 * left behind.
 */
int scx_port_open(struct scx_port *p, const struct scx_port_params *params,
		  void *const *os_channels);
/* Tear the set down; the caller has stopped TX and disabled NAPI. Counters are kept. */
void scx_port_close(struct scx_port *p);
/*
 * Safe switch to new params while the live set keeps running:
 * scx_port_prepare() builds a second set (filled RQs, unarmed CQs, its own
 * RSS object, which steers RX to the new RQs from then on: packets wait
 * there until the switch). On failure nothing changes and the live set
 * runs on. Then, with TX stopped and NAPI disabled, scx_port_commit()
 * closes the old set (counters folded) and makes the prepared one live;
 * it cannot fail. scx_port_abort() drops a prepared set instead.
 * scx_port_channel() returns the live set's channels.
 */
int scx_port_prepare(struct scx_port *p, const struct scx_port_params *params,
		     void *const *os_channels);
void scx_port_commit(struct scx_port *p);
void scx_port_abort(struct scx_port *p);
struct scx_channel *scx_port_channel(struct scx_port *p, uint32_t ix);

/*
 * The moderation every CQ of the port is built with: the defaults at
 * creation (RX from CQE when the device can), then what was set.
 */
void scx_port_get_moder(const struct scx_port *p, struct scx_port_moder *m);
/*
 * Check and remember new moderation (channel sets built later take it) and
 * apply it to the live set's CQs with MODIFY_CQ: no rebuild, traffic runs
 * on. 0; -EINVAL (a value wider than the device's field) or -EOPNOTSUPP
 * (no moderation, no period from CQE on this device) with the reason in
 * *why, nothing changed; or a command's error (remembered all the same).
 * Serialised by the caller with open, prepare, commit and close.
 */
int scx_port_set_moder(struct scx_port *p, const struct scx_port_moder *m, const char **why);
/* The check scx_port_set_moder() makes, alone: 0 or its errno, with the reason in *why. */
int scx_port_moder_check(const struct scx_port *p, const struct scx_port_moder *m,
			 const char **why);
/*
 * VLAN stripping (ethtool rx-vlan-offload, on at creation): the RQs take
 * the outer 802.1Q tag out of received frames and scx_rx_pkt carries its
 * TCI. Remembered for channel sets built later and applied to the live
 * set's RQs with MODIFY_RQ: no rebuild, traffic runs on (frames already
 * placed keep their form). 0 or the first command's error (remembered
 * all the same). Serialised by the caller with open, prepare, commit and
 * close.
 */
int scx_port_set_rx_vlan_strip(struct scx_port *p, int on);
/*
 * RX timestamps on the live set's RQs, now (no rebuild; any context). The
 * caller keeps scx_port_params.rx_tstamp in step for the next set and has
 * checked scx_params_conflict() with it.
 */
void scx_port_set_rx_tstamp(struct scx_port *p, int on);
/*
 * RX checksum verdicts used (rx-checksum on, the default) or ignored: every
 * packet then reaches the OS as SCX_CSUM_NONE and is counted in
 * rx_csum_none. Remembered for channel sets built later and applied to
 * the live set now (no rebuild, no device command; any context).
 */
void scx_port_set_rx_csum(struct scx_port *p, int on);
/*
 * rx_no_csum_complete (mlx5's private flag): RQs hand up the CQE's verdict
 * (CHECKSUM_UNNECESSARY) instead of its sum (CHECKSUM_COMPLETE, the
 * default for IP frames over 64 bytes, never with XDP or SHAMPO). In
 * place; remembered for channel sets built later. RTNL.
 */
void scx_port_set_rx_no_csum_complete(struct scx_port *p, int on);
/*
 * The device's free-running 64-bit timer (caps.timer_khz, +- its
 * oscillator's error), as CQE timestamps carry it: three or four 32-bit
 * MMIO reads (high, low, high, and low again if the high word moved). Any
 * context.
 */
uint64_t scx_port_read_clock(const struct scx_port *p);
/*
 * ethtool's rx-fcs: RQs place each frame's FCS (4 bytes) after it and
 * report it in the length, as scx_port_set_rx_vlan_strip applies its
 * setting. -EOPNOTSUPP while the live set runs HW-GRO (SHAMPO places no
 * FCS).
 */
int scx_port_set_rx_fcs(struct scx_port *p, int on);
/*
 * ethtool's rx-all is this off: the port's MAC then receives frames whose
 * FCS is wrong (still counted in rx_crc_errors_phy) instead of dropping
 * them. A device setting (MODIFY_PORT): kept across channel sets, up and
 * down. 0 or a negative errno.
 */
int scx_port_set_fcs_check(struct scx_port *p, int on);
/*
 * The device's VXLAN UDP ports (ADD/DELETE_VXLAN_UDP_DPORT), port in host
 * order: the device finds inner headers behind them, for the inner
 * checksum flags and tunnel LSO (SCX_TX_CSUM_*_INNER,
 * SCX_TX_GSO_TUNNEL). Up to caps.max_vxlan_ports; a device setting,
 * kept across channel sets, up and down. 0 or a negative errno (the
 * table full, the port already there or not there).
 */
int scx_port_vxlan_port(struct scx_port *p, uint16_t udp_port, int add);
/*
 * The port's link (the device's QUERY/MODIFY_PORT_LINK). Protocols are
 * bits of a mask, SCX_LINK_* (bit numbers), each of one speed
 * (scx_link_proto_mbps). The cable runs the fastest protocol both ends
 * offer while both ports are open (scx_port_open sets the port
 * administratively up, scx_port_close down); a port with autoneg off
 * offers the protocols of one speed only.
 */
enum scx_link_proto {
	SCX_LINK_1000BASE_X = 1,
	SCX_LINK_10GBASE_R = 4,
	SCX_LINK_40GBASE_R4 = 5,
	SCX_LINK_25GBASE_R = 6,
	SCX_LINK_50GBASE_R2 = 7,
	SCX_LINK_50GBASE_R = 8,
	SCX_LINK_100GBASE_R4 = 9,
	SCX_LINK_100GBASE_R2 = 10,
	SCX_LINK_100GBASE_R = 11,
	SCX_LINK_200GBASE_R4 = 12,
	SCX_LINK_200GBASE_R2 = 13,
	SCX_LINK_400GBASE_R4 = 16,
	SCX_LINK_PROTO_BITS = 17,
};
/* Why a link is down (scx_link.down_reason). */
enum scx_link_down {
	SCX_LINK_DOWN_NONE = 0,		/* up, or this port is down */
	SCX_LINK_DOWN_NO_PARTNER = 1,	/* autoneg: nothing answers */
	SCX_LINK_DOWN_NO_PARTNER_FORCED = 2,	/* autoneg off: no partner at this speed */
	SCX_LINK_DOWN_NO_COMMON = 3,	/* autoneg at both ends, no protocol in common */
	/* the ends run different FEC at their common speed; this one runs: */
	SCX_LINK_DOWN_FEC_NONE_NO_LOCK = 4,	/* none: no block lock */
	SCX_LINK_DOWN_FC_NOT_LOCKED = 5,	/* BASE-R FEC, not locked */
	SCX_LINK_DOWN_RS_NOT_LOCKED = 6,	/* RS FEC, not locked */
};
/*
 * Forward error correction modes (scx_link.fec_*), bits as the device
 * numbers them. A port's policy is 0 (auto: each speed's default, RS for
 * 25G lanes and PAM4 lanes, none below) or modes of which each speed runs
 * the first it can, else its default. The link comes up only when both
 * ends run the same FEC.
 */
enum scx_fec {
	SCX_FEC_NONE = 1 << 0,
	SCX_FEC_FIRECODE = 1 << 1,	/* BASE-R */
	SCX_FEC_RS_528 = 1 << 2,	/* RS(528,514): 25G lanes */
	SCX_FEC_RS_544 = 1 << 7,	/* RS(544,514): 50G and 100G PAM4 lanes */
	SCX_FEC_LLRS = 1 << 9,		/* RS(272,257+1): 50G lanes */
};
struct scx_link {
	uint32_t cap;		/* supported */
	uint32_t admin;		/* offered (autoneg) or forced */
	uint32_t oper;		/* the one running, one bit; 0 while down */
	uint32_t partner;	/* the partner's offer, when both negotiated the running link */
	uint8_t admin_up;
	uint8_t up;
	uint8_t autoneg;
	uint8_t down_reason;	/* enum scx_link_down */
	uint16_t fec_cap;	/* SCX_FEC_* some supported speed runs */
	uint16_t fec_admin;	/* the policy: 0 (auto) or SCX_FEC_* */
	uint16_t fec_oper;	/* the FEC running, one SCX_FEC_*; 0 while down */
};
/* Mb/s of protocol bit @bit, 0 if no protocol has it. */
uint32_t scx_link_proto_mbps(uint32_t bit);
int scx_port_link_get(struct scx_port *p, struct scx_link *l);
/*
 * Offer @admin (autoneg on) or force it (off). Bits the port does not
 * support are ignored. -EINVAL with @why, nothing sent, when no supported
 * bit is left or, autoneg off, they are of more than one speed.
 */
int scx_port_link_set(struct scx_port *p, uint32_t admin, int autoneg, const char **why);
/*
 * The FEC policy: 0 (auto) or SCX_FEC_* modes. -EINVAL for a bit that is
 * no mode, -EOPNOTSUPP when no speed of the port runs any of them (@why
 * says which); nothing sent then. The cable's link is taken again: it
 * goes down while the ends' FEC differ.
 */
int scx_port_fec_set(struct scx_port *p, uint16_t policy, const char **why);
/*
 * The memory of the module at the port's end of its cable, as ethtool's
 * module EEPROM request names it: @len bytes from @offset (0..255) of what
 * I2C address @i2c_address shows with @page and @bank selected (bytes
 * 0..127: the lower page; 128..255: the selected upper page). Returns @len,
 * or a negative errno; -EINVAL with @why for a request the module cannot
 * answer (a read past byte 255, an address it does not answer at, a page
 * or bank it does not have: the emulated cables keep page 00h only).
 * Sleeps (commands).
 */
#define SCX_MODULE_I2C_ADDR	0x50
int scx_port_module_read(struct scx_port *p, uint8_t i2c_address, uint8_t page, uint8_t bank,
			 uint32_t offset, uint32_t len, uint8_t *data, const char **why);
/*
 * The port's RX address filter (ndo_set_rx_mode): frames to broadcast, to
 * the n_uc unicast addresses at uc (6 bytes each, the port's own first), to
 * the n_mc multicast ones at mc, or that a promiscuous mode covers
 * (SCX_RX_PROMISC_*) come in; the device drops the rest and counts them
 * (rx_steer_missed_packets). A list longer than the caps' max_uc_addrs or
 * max_mc_addrs turns on its promiscuous mode instead (its entries past
 * that are not read). Any context, no allocation: the device applies it
 * before this returns (0) or refuses it (a negative errno). Callers
 * serialize their calls (the shim: the netdev's address list lock).
 */
#define SCX_RX_PROMISC_UC	1u	/* every unicast frame */
#define SCX_RX_PROMISC_MC	2u	/* every multicast frame (IFF_ALLMULTI) */
#define SCX_RX_PROMISC_ALL	4u	/* every frame (IFF_PROMISC) */
int scx_port_set_rx_filter(struct scx_port *p, uint32_t promisc, const uint8_t *uc, uint32_t n_uc,
			   const uint8_t *mc, uint32_t n_mc);
/*
 * The port's RX VLAN filter (ndo_vlan_rx_add_vid / kill_vid, rx-vlan-filter):
 * with SCX_RX_VLAN_CTAG a frame whose outer tag is 802.1Q comes in only for
 * a VLAN ID set in ctag, with SCX_RX_VLAN_STAG one whose outer tag is
 * 802.1ad only for one set in stag (4096-bit maps: ID v is bit v % 64 of
 * word v / 64); the device drops the rest and counts them
 * (rx_steer_missed_packets). Untagged frames, and every frame while the
 * address filter is promiscuous (SCX_RX_PROMISC_ALL) or not set yet, are
 * not filtered. Any context, no allocation; callers serialize (the shim:
 * RTNL). 0 or a negative errno.
 */
#define SCX_RX_VLAN_CTAG	1u
#define SCX_RX_VLAN_STAG	2u
#define SCX_VLAN_MAP_WORDS	64u	/* 4096 VLAN IDs */
int scx_port_set_rx_vlans(struct scx_port *p, uint32_t flags, const uint64_t *ctag,
			  const uint64_t *stag);
/*
 * The port's unicast local loopback (the self-test's): on, a frame the
 * port sends to an address of its RX filter's unicast list comes back to
 * its own RX inside the device, link up or down, and no port (MAC)
 * counter sees it; off (as a port starts), it leaves on the wire. Other
 * frames always leave on the wire. Process context; 0 or a negative errno.
 */
int scx_port_set_local_lb(struct scx_port *p, int on);
/*
 * One live channel's CQs of one direction (rx: the RQ's; else the SQs'),
 * for adaptive moderation; not remembered: the next channel set starts
 * from the port's. Process context; the caller keeps the channel from
 * being closed meanwhile. 0 or a negative errno.
 */
int scx_channel_set_moder(struct scx_channel *c, int rx, const struct scx_cq_moder *m);
/* Free-running totals of a channel for adaptive moderation samples (its NAPI context). */
struct scx_chan_totals {
	uint64_t rx_packets, rx_bytes;
	uint64_t tx_packets, tx_bytes;
};
void scx_channel_totals(struct scx_channel *c, struct scx_chan_totals *t);
/* The device's number of the channel's RQ CQ (rx) or stack SQ CQ (debugfs). */
uint32_t scx_channel_cqn(const struct scx_channel *c, int rx);

/*
 * Memory one port's queues may take with nch channels of SQs of
 * 2^log_sq_size WQEBBs and RQs of 2^log_rq_size entries, in bytes: per
 * channel the stack's SQ, the XDP_TX SQ and the XDP xmit SQ (WQE ring, WQE
 * info, DMA FIFO, CQ, doorbell records) and the RQ (ring, slots, CQ,
 * doorbell records, one RX buffer per entry, sized for SCX_MAX_MTU with
 * the OS's layout), counted as the kernel rounds allocations; times two,
 * since a safe switch (scx_port_prepare) holds the live and the new set
 * at once. For checks before any port opens (module parameters). 0 when
 * the geometry is invalid.
 */
uint64_t scx_port_mem_estimate(uint32_t nch, uint32_t log_sq_size, uint32_t log_rq_size,
			       const struct scx_os_layout *os);

/* ---- NAPI ---- */
struct scx_tx_done {
	uint32_t packets;	/* for BQL */
	uint32_t bytes;
	uint32_t tx_error;	/* an error CQE moved the SQ to ERR: stop the queue, recover */
};
/*
 * TX completions first (not counted in budget): the skb SQ, the XDP_TX SQ,
 * the XDP xmit SQ; then RX up to budget (through the XDP program when one
 * is attached), then refill, then one doorbell for everything XDP_TX
 * posted. Returns the RX work done, or budget when work remains (TX
 * completions beyond one poll's bound, or a refill that could not complete).
 */
int scx_channel_poll(struct scx_channel *c, int budget, struct scx_tx_done *done);
/*
 * Re-arm the channel's CQs after napi_complete_done(). cq_events: a bit
 * cqn % 64 for each CQ event (scx_os_raise_irq(), scx_os_cq_error()) of the
 * channel's vector since the last call, taken after napi_complete_done():
 * a CQ armed before, with nothing consumed and no event bit since, still
 * holds its arm and gets no doorbell. ~0 arms every CQ.
 */
void scx_channel_arm(struct scx_channel *c, uint64_t cq_events);
/*
 * After a CQ error event on the channel's vector (scx_os_cq_error), from its
 * NAPI before scx_channel_poll(): QUERY_CQ each of the channel's CQs; a
 * queue whose CQ is in error is logged and marked for recovery. The RQ and
 * the XDP SQs recover in the poll that follows; for the stack's SQ it
 * returns 1: stop the queue and run scx_channel_tx_recover(), as after
 * tx_error. 0 otherwise.
 */
int scx_channel_cq_error(struct scx_channel *c);

/* ---- TX ---- */
#define SCX_TX_MAX_FRAGS 18	/* head + MAX_SKB_FRAGS (17) */
#define SCX_TX_CSUM_L3 0x1
#define SCX_TX_CSUM_L4 0x2
/* a VXLAN frame's inner IPv4 header and inner TCP/UDP checksums (outer L4 left as it is) */
#define SCX_TX_CSUM_L3_INNER 0x4
#define SCX_TX_CSUM_L4_INNER 0x8
/* scx_tx_pkt.gso_type */
#define SCX_TX_GSO_NONE 0
#define SCX_TX_GSO_TCPV4 1
#define SCX_TX_GSO_TCPV6 2
#define SCX_TX_GSO_UDP_L4 3
/*
 * TCP inside a tunnel the device parses (VXLAN to a port scx_port_vxlan_port()
 * named, GENEVE, GRE, IP in IP; caps): ihs ends at the inner TCP header
 */
#define SCX_TX_GSO_TUNNEL 4

struct scx_tx_frag {
	uint64_t dma;
	uint32_t len;
	uint32_t kind;		/* SCX_DMA_SINGLE / SCX_DMA_PAGE */
};

/* scx_tx_pkt.vlan: no tag, an 802.1Q C-tag (TPID 0x8100), an 802.1ad S-tag (0x88a8) */
#define SCX_TX_VLAN_NONE 0
#define SCX_TX_VLAN_8021Q 1
#define SCX_TX_VLAN_8021AD 2

struct scx_tx_pkt {
	void *skb;
	const uint8_t *head;	/* CPU address of the linear part (for inlining) */
	uint32_t headlen;
	uint32_t len;		/* whole frame */
	uint32_t csum;		/* SCX_TX_CSUM_* */
	uint32_t nr_frags;	/* entries in frags[]; frags[0] maps the linear part */
	struct scx_tx_frag frags[SCX_TX_MAX_FRAGS];
	/* GSO (gso_type != NONE): one LSO WQE, headers [0, ihs) inlined */
	uint32_t gso_type;	/* SCX_TX_GSO_* */
	uint32_t gso_size;	/* MSS: payload bytes per wire packet */
	uint32_t gso_segs;	/* wire packets */
	uint32_t ihs;		/* header length L2..L4 (within headlen) */
	/*
	 * A VLAN tag in metadata (not in the data), SCX_TX_VLAN_*: the frame
	 * goes out with it after the source MAC. A SEND without inline
	 * headers asks the device to insert it; inlined headers (LSO, an
	 * L2-inline SQ) carry it. Such a packet never joins an MPWQE session.
	 */
	uint8_t vlan;
	/*
	 * IPv6 BIG TCP: offset of an 8-byte hop-by-hop jumbo option header
	 * right after the IPv6 header (inside [0, ihs)), 0 when none. The LSO
	 * template leaves it out (the IPv6 next header becomes TCP); the
	 * device writes each segment's payload length.
	 */
	uint8_t hbh_off;
	uint16_t vlan_tci;	/* vlan: the tag's TCI */
	/*
	 * A hardware TX timestamp is wanted: the skb gets its own WQE (never an
	 * MPWQE session) and, at completion, scx_os_tx_tstamp() with the
	 * completion's timer value before scx_os_tx_free().
	 */
	uint8_t tstamp;
	uint32_t num_bytes;	/* out: BQL bytes */
};

#define SCX_TX_STOP 1		/* posted; the SQ is below its stop room: stop the queue */
/*
 * Post one packet (no doorbell): a SEND or LSO WQE, or (MPWQE on, linear,
 * no VLAN tag, no inline needed) one data segment appended to the open
 * multi-packet session, which closes by itself when full. Returns 0,
 * SCX_TX_STOP, or a negative errno (-ENOSPC: ring full, which the stop room
 * should make impossible; -EINVAL: a packet the SQ cannot express;
 * -EMSGSIZE: longer than the device sends (a frame over its hardware MTU,
 * an LSO segment over it, or an LSO send over its maximum); the caller
 * drops and counts). Then the caller decides (BQL, xmit_more) whether to
 * ring.
 */
int scx_channel_xmit(struct scx_channel *c, struct scx_tx_pkt *pkt);
/* Close the open MPWQE session, if any, and ring the doorbell for everything posted. */
void scx_channel_doorbell(struct scx_channel *c);
/* True when the SQ has its stop room free again and is not recovering (wake check). */
int scx_channel_tx_room(struct scx_channel *c);
/*
 * After scx_channel_poll() reported tx_error (or, with force, after a TX
 * watchdog timeout): with xmit and NAPI quiesced, release every outstanding
 * WQE (unmap, free; counted in tx_flushed), reset the SQ (ERR -> RST ->
 * RDY, counters from 0) and count tx_recover. Process context.
 * Returns 0, 1 when the SQ was not recovering (and !force), or a negative errno.
 */
int scx_channel_tx_recover(struct scx_channel *c, int force);
/*
 * Test hook: every WQE posted from now until the next recovery carries a
 * bad lkey, so the device answers the first one with an error CQE.
 * Call with xmit quiesced (tx lock held).
 */
void scx_channel_inject_tx_error(struct scx_channel *c);
/*
 * Test hook: the SQ's doorbells are lost (WQEs are posted, the device is
 * never told) until the next recovery, as a TX watchdog timeout needs.
 * Call with xmit quiesced (tx lock held).
 */
void scx_channel_inject_tx_stall(struct scx_channel *c);
/*
 * Test hook: every RX WQE now posted carries a bad lkey, so the next frame
 * the device places gets an error CQE and the RQ goes to ERR; NAPI then
 * recovers it (rx_wqe_err, rx_recover). Call with the channel's NAPI disabled.
 */
void scx_channel_inject_rx_error(struct scx_channel *c);
/*
 * Test hook: the RQ's CQ stops publishing its consumer index (set_ci) until
 * the RQ recovers, as a driver that forgot to would: a ring of frames later
 * the device finds the CQ full, drops the next frame (rx_cq_overrun) and
 * raises a CQ error event (cq_overrun); scx_channel_cq_error() and the next
 * poll recover the RQ. Call with the channel's NAPI disabled.
 */
void scx_channel_inject_rx_cq_overrun(struct scx_channel *c);
/* TX queue events: a stop, a wake (any context), a packet dropped before posting, a watchdog timeout. */
void scx_channel_count_stop(struct scx_channel *c);
void scx_channel_count_wake(struct scx_channel *c);
void scx_channel_count_drop(struct scx_channel *c);
void scx_channel_count_timeout(struct scx_channel *c);

/* ---- XDP redirect target (ndo_xdp_xmit) ---- */
struct scx_xdp_frame {
	void *frame;		/* the OS's frame, handed back by scx_os_xdp_frame_free() */
	const uint8_t *data;	/* CPU address of the frame (small frames are inlined) */
	uint64_t dma;		/* mapped by the caller, unmapped by the core (SCX_DMA_SINGLE) */
	uint32_t len;
};
/*
 * Post one frame on the channel's XDP xmit SQ (no doorbell). The caller
 * serialises calls per channel (softirq context). Returns 0, -ENOSPC (SQ
 * full: xdp_full) or -EINVAL (longer than the MTU allows: xdp_err); on
 * error the frame and its mapping stay the caller's.
 */
int scx_channel_xdp_xmit(struct scx_channel *c, const struct scx_xdp_frame *f);
/* End of a batch: close the open session; ring the doorbell when flush != 0. */
void scx_channel_xdp_xmit_flush(struct scx_channel *c, int flush);
/*
 * n frames refused before scx_channel_xdp_xmit() (no mapping, more than
 * one buffer) or after it refused one (the rest of the batch): counted
 * as tx_xdp_full (err == -ENOSPC) or tx_xdp_err. The caller serialises
 * with scx_channel_xdp_xmit().
 */
void scx_channel_xdp_xmit_refused(struct scx_channel *c, uint32_t n, int err);

/* ---- counters ---- */
struct scx_link_stats {
	uint64_t rx_packets, rx_bytes, tx_packets, tx_bytes;
	uint64_t rx_dropped, tx_dropped;
	uint64_t rx_missed_errors;	/* device drops: no posted buffer (rx_out_of_buffer) */
	uint64_t rx_crc_errors;		/* frames with a wrong FCS (rx_crc_errors_phy) */
	uint64_t tx_aborted_errors;	/* discarded by the MAC, the link down (tx_discards_phy) */
};
uint32_t scx_stats_count(const struct scx_port *p);
/* names: scx_stats_count() entries of SCX_STAT_NAME_LEN bytes */
void scx_stats_names(const struct scx_port *p, char *names);
/*
 * The device keeps some counters itself (rx_out_of_buffer, bus_*, ...):
 * reading them takes device commands, so process context only.
 * scx_stats_refresh() queries them into the port's cache;
 * scx_stats_values() (ethtool -S) queries them too, updating the cache.
 */
void scx_stats_refresh(struct scx_port *p);
void scx_stats_values(struct scx_port *p, uint64_t *values);
/*
 * The netdev's link counters: the rings' counters as they are and the
 * device's as of the last refresh (no command; any context where the
 * stats lock, a BH-disabling spinlock, may be taken).
 */
void scx_stats_link(struct scx_port *p, struct scx_link_stats *s);

/*
 * The port's MAC counters (device counters: QUERY_PORT_COUNTERS), for the
 * IEEE 802.3 MAC / MAC control, RMON and pause statistics groups. Octets
 * are counted on the wire: each frame padded to 60 bytes, plus its FCS.
 * scx_stats_mac() queries the device as scx_stats_values() does: process
 * context only.
 */
#define SCX_RX_HIST_BUCKETS 10
struct scx_hist_range {
	uint16_t low, high;	/* frame length on the wire, inclusive */
};
/* The histogram's buckets, then an all-zero entry (ethtool_rmon_hist_range's form). */
extern const struct scx_hist_range scx_rx_hist_ranges[SCX_RX_HIST_BUCKETS + 1];
struct scx_mac_stats {
	uint64_t tx_packets, rx_packets, tx_bytes, rx_bytes;
	uint64_t tx_multicast, tx_broadcast, rx_multicast, rx_broadcast;	/* bcast not in mcast */
	uint64_t tx_mac_control, rx_mac_control, rx_unsupported_op;	/* EtherType 0x8808 */
	uint64_t tx_pause, rx_pause;	/* MAC control opcode PAUSE (the port never acts on one) */
	uint64_t rx_crc_errors;		/* FCS wrong (not in rx_packets / rx_bytes) */
	uint64_t rx_hist[SCX_RX_HIST_BUCKETS];	/* frames received by wire length */
	/* FEC blocks, one per damaged frame received while a FEC ran */
	uint64_t fec_corrected_blocks, fec_uncorrectable_blocks;
};
void scx_stats_mac(struct scx_port *p, struct scx_mac_stats *s);

#ifdef __cplusplus
}
#endif

#endif /* SOFTCX_CORE_H */
