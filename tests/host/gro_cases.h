/* SPDX-License-Identifier: GPL-2.0 */
/*
 * TCP traffic for hardware GRO tests, each case a batch of frames as one
 * NAPI poll would see them: in order, gaps, flag and option changes, IP ID
 * kinds, TTL/ECN/traffic class, bad checksums, several flows, IPv4 and
 * IPv6, past 64 KiB, many small segments, pure ACKs, non-TCP in between.
 * Judged against the software GRO reference (gro_ref.h) by the device
 * (test_hw_shampo.cpp) and the driver (test_en_shampo.cpp) tests.
 */
#pragma once

#include <functional>
#include <cstdint>
#include <ostream>
#include <vector>

#include "frames.h"

namespace gro_cases {

struct Case {
	const char *name;
	std::function<std::vector<frames::Bytes>()> frames;
	bool exact;	/* no device limit in play: the device's sessions are software GRO's skbs */
};
const std::vector<Case> &cases();
/* gtest prints a case by its name */
void PrintTo(const Case &c, std::ostream *os);

/*
 * n frames of three flows (IPv4, IPv4 on a VLAN, IPv6; mss payload)
 * with events drawn from seed: short and longer segments, PSH, seq gaps,
 * pure ACKs, TTL/hop limit, TSval and IP ID changes, CWR, bad checksums,
 * UDP datagrams.
 */
std::vector<frames::Bytes> random_traffic(uint32_t seed, size_t n = 100, size_t mss = 1000);

/* Flows of the cases: 10.0.0.1 -> .2 or fd00::1 -> ::2, port sport -> 2000, timestamps. */
frames::Flow v4(uint16_t sport = 1000);
frames::Flow v6(uint16_t sport = 1000);
/* n segments of len payload, ACK only but the last (last_flags). */
std::vector<frames::Bytes> n_segs(frames::Flow &f, int n, size_t len, uint8_t last_flags = frames::kAck);
void append(std::vector<frames::Bytes> &to, const std::vector<frames::Bytes> &v);
/* A flow whose headers pass 128 bytes: 40 bytes of IPv4 options (record route), 40 of TCP options. */
frames::Flow v4_long_headers(uint16_t sport = 1000);
frames::Bytes udp(size_t n);
frames::Bytes icmp(size_t n);

} /* namespace gro_cases */
