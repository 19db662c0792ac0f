/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Receive side scaling: the Toeplitz hash, and how a port's RX engine picks
 * an RQ through the function's RSS object.
 *
 * Steering rule: the most recently created live RSS object of a function
 * (kRssFlowOnly ones aside) steers all of its received packets that no flow
 * table entry took (hw/flow.h). A driver that builds a new channel set
 * can therefore create the new object, which takes over at once, and destroy
 * the old one afterwards (or MODIFY_RSS one object in place).
 */
#pragma once

#include "hw/adapter.h"
#include "hw/packet.h"

namespace softcx::hw {

constexpr u32 kToeplitzMaxInput = prm::kRssKeySize - 4;	/* 36: IPv6 4-tuple */
/* Rss::fields holds each traffic type's prm::kRssField* bits in 4 bits. */
constexpr u32 kRssTypeShift = 4;
static_assert(prm::kRssTypes * kRssTypeShift <= 32, "Rss::fields packs every type");

/*
 * The Toeplitz hash of a key, by table: for input byte position i and byte
 * value x, v[i][x] is the XOR of the 32-bit key windows starting at the
 * input bits set in x. The hash of an input is then one lookup and one XOR
 * per byte instead of eight conditional XORs and shifts. 36 KiB, built by
 * a command (CREATE_RSS, MODIFY_RSS with a new key), read by RX engines.
 */
struct ToeplitzTable {
	u32 v[kToeplitzMaxInput][256];
};

/* Fill t for a 40-byte key. */
void toeplitz_build(const u8 *key, ToeplitzTable *t);
/* Toeplitz hash of input[0..len) by t; len <= kToeplitzMaxInput. */
u32 toeplitz_hash(const ToeplitzTable *t, const u8 *input, u32 len);

struct RssResult {
	u32 rqn;
	u32 hash;
	u8 hash_type;		/* prm::kRssHash* bits for the CQE */
};

/*
 * Pick the RQ for a parsed frame by one RSS object: false when it is not
 * live, or (num != 0) no longer the object num names.
 */
bool rss_read(Rss *r, u32 num, const u8 *frame, const PacketInfo &pi, RssResult *out);
/* Pick the RQ for a parsed frame by the default object; false when the function has none. */
bool rss_steer(Function *fn, const u8 *frame, const PacketInfo &pi, RssResult *out);

/*
 * Writers, called under the command lock. The object's Toeplitz table is
 * rebuilt (when the key changed) between begin and end: rss_set_key().
 */
void rss_write_begin(Rss *r);
void rss_set_key(Rss *r, const u8 *key);
void rss_write_end(Rss *r);
/* Recompute which live RSS object steers (the newest not kRssFlowOnly). */
void rss_update_active(Function *fn);

} /* namespace softcx::hw */
