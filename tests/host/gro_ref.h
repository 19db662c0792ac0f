/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A software GRO reference for the host tests: what Linux's GRO (6.1:
 * dev_gro_receive, inet/ipv6_gro_receive, tcp_gro_receive and their
 * gro_complete) hands up for the frames of one NAPI poll, written from
 * those rules and independently of src/hw and src/en, to judge the
 * device's SHAMPO sessions and the driver's skbs against.
 *
 * Modelled: Ethernet (VLAN tags in the frame are part of the L2 header
 * that must match), IPv4 without options and not fragmented, IPv6 with TCP
 * as next header; everything else is handed up as it came. The device's
 * RSS hash is taken to separate exactly the flows that differ in
 * L2/L3/L4 addresses; all held skbs share one list of at most 8
 * (MAX_GRO_SKBS; the kernel has 8 such lists, by hash); gro_max_size is
 * the legacy 64 KiB. A checksum is checked in software (as for
 * CHECKSUM_NONE): a frame whose IPv4 header or TCP checksum is wrong is
 * handed up alone and leaves a held skb of its flow held, as in Linux.
 *
 * Order: as Linux hands them up: a frame that cannot be held at once, a
 * held skb when a frame flushes it, the rest at the end of the poll,
 * oldest first.
 */
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "frames.h"
#include "softcx/os.h"

namespace gro {

using frames::Bytes;

struct Skb {
	Bytes data;		/* headers of the first segment as GRO leaves them + all payload */
	uint16_t gso_size = 0;	/* 0: a single packet, byte for byte as received */
	uint16_t gso_segs = 0;
	uint8_t gso_type = 0;	/* SCX_RX_GSO_* */

	bool operator==(const Skb &o) const
	{
		return data == o.data && gso_size == o.gso_size && gso_segs == o.gso_segs &&
		       gso_type == o.gso_type;
	}
};

/* The skbs software GRO hands up for the frames of one poll. */
std::vector<Skb> receive(const std::vector<Bytes> &poll);

/*
 * A merged skb cut back into its wire frames by gso_size (as TCP
 * segmentation offload would): IPv4 ID + i unless FIXEDID, lengths and
 * every checksum recomputed, FIN/PSH on the last segment only, CWR on the
 * first only. A single packet comes back as it is.
 */
std::vector<Bytes> resegment(const Skb &s);

/*
 * Whether software GRO, given just the frames resegment(s) gives back,
 * hands up s itself: s is an skb software GRO could have built (its
 * segments merge by every rule, its headers and gso fields are those GRO
 * sets). A device that sees the same traffic with other session starts
 * (one open session, limits) may merge differently from receive() of the
 * whole poll, but never into anything else.
 */
bool gro_could_build(const Skb &s);

/*
 * For each frame, the index of the skb in `skbs` whose resegment() gives
 * it (each frame of an skb taken once, first come first served), or
 * kNoSkb.
 */
constexpr size_t kNoSkb = ~(size_t)0;
std::vector<size_t> skb_of_frames(const std::vector<Bytes> &frames, const std::vector<Skb> &skbs);

/* ---- frame parsing shared with the tests ---- */
struct Parsed {
	bool tcp = false;	/* IPv4 or IPv6 TCP, headers complete */
	bool v6 = false;
	size_t l3 = 0, l4 = 0, payload = 0;	/* offsets */
	size_t payload_len = 0;	/* by the IP length */
	uint32_t seq = 0;
	uint8_t flags = 0;
	std::string flow;	/* L2 header, L3 addresses and protocol, ports; "" if not TCP */
};
Parsed parse(const Bytes &f);

/* Summary for failure messages: "v4 10.0.0.1:1000 seq 1 len 1448 segs 3 size 1448 type 5". */
std::string describe(const Skb &s);

} /* namespace gro */
