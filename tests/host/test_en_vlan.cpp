// SPDX-License-Identifier: GPL-2.0
/*
 * VLAN offloads through the driver core: RX stripping (RQ vsd, switched on
 * a live port with MODIFY_RQ) delivers the TCI as metadata; a TX tag in
 * metadata reaches the wire after the source MAC, inserted by the device
 * or written into the inline headers; compression runs split at a TCI
 * change.
 */
#include <cstring>

#include "en_pair.h"
#include "softcx/errno.h"

using namespace enpair;
using frames::Bytes;

namespace {

Bytes tcp_frame(size_t payload, int tci, uint16_t sport = 1000, uint8_t seed = 1)
{
	frames::Spec s;
	s.vlan = tci;
	s.sport = sport;
	s.payload = frames::payload(payload, seed);
	return frames::build(s);
}

class Vlan : public Pair {
protected:
	/* Post f with its tag in metadata (the skb's hwaccel tag), doorbell. */
	int send_tagged(const Bytes &f, uint16_t tci, std::vector<size_t> cuts = {},
			uint8_t kind = SCX_TX_VLAN_8021Q)
	{
		scx_tx_pkt t = {};
		t.vlan = kind;
		t.vlan_tci = tci;
		int err = post_pkt(0, f, t, cuts);
		doorbell(0);
		return err;
	}
	void strip(int port, bool on) { ASSERT_EQ(scx_port_set_rx_vlan_strip(p[port].port, on), 0); }
};

/*
 * Stripping is on by default: a tagged frame arrives without its tag, the
 * TCI in the packet's metadata; an untagged one carries none. Switched off
 * on the live port (no rebuild: the same channel), frames keep their tag;
 * on again, stripped again. Cyclic and striding RQs.
 */
TEST_F(Vlan, StripOnOffLive)
{
	for (bool striding : { false, true }) {
		SCOPED_TRACE(striding ? "striding" : "cyclic");
		Options o;
		o.rx_striding = striding;
		build(o);
		scx_channel *c = ch(1);
		Bytes t = tcp_frame(700, 0x6064), u = tcp_frame(700, -1);

		const host::RxRecord &a = cross(t);
		EXPECT_EQ(a.data, u);
		EXPECT_EQ(a.meta.vlan, 1);
		EXPECT_EQ(a.meta.vlan_tci, 0x6064);
		expect_complete(a);
		const host::RxRecord &b = cross(u);
		EXPECT_EQ(b.data, u);
		EXPECT_EQ(b.meta.vlan, 0);
		EXPECT_EQ(stat(1, "rx_removed_vlan_packets"), 1u);
		EXPECT_EQ(stat(1, "rx_bytes"), 2 * u.size()) << "counted as delivered: untagged";

		strip(1, false);
		EXPECT_EQ(ch(1), c) << "no rebuild";
		const host::RxRecord &d = cross(t);
		EXPECT_EQ(d.data, t);
		EXPECT_EQ(d.meta.vlan, 0);
		/* the tag stays in the frame: the sum starts after it, at the IP header */
		expect_complete(d, 18);

		strip(1, true);
		const host::RxRecord &e = cross(t);
		EXPECT_EQ(e.data, u);
		EXPECT_EQ(e.meta.vlan_tci, 0x6064);
		EXPECT_EQ(stat(1, "rx_removed_vlan_packets"), 2u);
		EXPECT_EQ(stat(1, "rx_wqe_err"), 0u);
	}
}

/*
 * The setting outlives the channel set (a set built while it is off does
 * not strip) and an RQ recovery (the RQ restarts with the port's setting,
 * also one made while it was in error).
 */
TEST_F(Vlan, StripSettingKeptAcrossRebuildAndRecovery)
{
	Bytes t = tcp_frame(100, 9);
	strip(1, false);
	scx_port_close(p[1].port);
	scx_port_params pp = params(1500, 1);
	auto chans = p[1].os_channels();
	ASSERT_EQ(scx_port_open(p[1].port, &pp, chans.data()), 0);
	EXPECT_EQ(cross(t).data, t);

	/* an RQ recovery restarts the RQ with the port's setting */
	strip(1, true);
	scx_channel_inject_rx_error(ch(1));
	send(0, t);
	poll(1);
	poll(0);
	EXPECT_EQ(stat(1, "rx_recover"), 1u);
	const host::RxRecord &r = cross(t);
	EXPECT_EQ(r.meta.vlan, 1);
	EXPECT_EQ(r.data, frames::vlan_strip(t));

	/*
	 * Switched while the RQ is in ERR (an error CQE not polled yet): the
	 * MODIFY fails there and the switch fails (the kernel keeps the
	 * feature as it was), so the recovery that follows starts the RQ with
	 * the old setting, as does the next channel set. Switched again once
	 * ready, it applies.
	 */
	scx_channel_inject_rx_error(ch(1));
	send(0, t);
	EXPECT_NE(scx_port_set_rx_vlan_strip(p[1].port, 0), 0) << "the RQ is in ERR";
	poll(1);
	poll(0);
	EXPECT_EQ(stat(1, "rx_recover"), 2u);
	const host::RxRecord &q = cross(t);
	EXPECT_EQ(q.meta.vlan, 1) << "the failed switch left stripping on";
	EXPECT_EQ(q.data, frames::vlan_strip(t));
	scx_port_close(p[1].port);
	ASSERT_EQ(scx_port_open(p[1].port, &pp, chans.data()), 0);
	EXPECT_EQ(cross(t).meta.vlan, 1) << "a new channel set strips: the port's setting";
	strip(1, false);
	EXPECT_EQ(cross(t).data, t);
}

/*
 * Two channels, the second RQ in ERR: switching stripping off succeeds on
 * the first RQ and fails on the second, and the first goes back, so that
 * no RQ is left doing what the kernel's (unchanged) features say it does
 * not. Tagged frames of several flows reach both channels, all stripped.
 */
TEST_F(Vlan, FailedSwitchLeavesNoRqMixed)
{
	Options o;
	o.nch = 2;
	build(o);
	auto flows = [&](const char *what) {
		size_t before[2] = { rx(1, 0).size(), rx(1, 1).size() };
		for (uint16_t sport = 1000; sport < 1016; sport++)
			ASSERT_EQ(send(0, tcp_frame(100, 0x0123, sport)), 0);
		poll(1);
		poll(0);
		for (uint32_t c = 0; c < 2; c++) {
			SCOPED_TRACE(std::string(what) + ", channel " + std::to_string(c));
			ASSERT_GT(rx(1, c).size(), before[c]) << "no flow reached the channel";
			for (size_t i = before[c]; i < rx(1, c).size(); i++) {
				EXPECT_EQ(rx(1, c)[i].meta.vlan, 1);
				EXPECT_EQ(rx(1, c)[i].meta.vlan_tci, 0x0123);
			}
		}
	};
	flows("before");
	scx_channel_inject_rx_error(ch(1, 1));
	for (uint16_t sport = 1000; sport < 1016; sport++)
		ASSERT_EQ(send(0, tcp_frame(100, 0x0123, sport)), 0);	/* channel 1's RQ: ERR */
	EXPECT_NE(scx_port_set_rx_vlan_strip(p[1].port, 0), 0);
	poll(1);
	poll(0);
	EXPECT_EQ(stat(1, "rx_recover"), 1u);
	flows("after the failed switch");
}

/*
 * A tag in metadata: a SEND without inline headers asks the device to
 * insert it (cx7), an L2-inline device (cx4) gets it inside the inline
 * headers; either way the wire frame is the tagged one, byte for byte,
 * whatever the skb's layout, and the frame never joins an MPWQE session.
 */
TEST_F(Vlan, TxInsertByteExact)
{
	for (int model : { 7, 4 }) {
		for (bool mpwqe : { false, true }) {
			if (model == 4 && mpwqe)
				continue;
			SCOPED_TRACE("cx" + std::to_string(model) + (mpwqe ? " mpwqe" : ""));
			Options o;
			o.model = model;
			o.tx_mpwqe = mpwqe;
			build(o);
			strip(1, false);
			Bytes u = tcp_frame(900, -1, 1000, 3), t = frames::vlan_insert(u, 0xe00d);
			uint64_t n = 0;

			for (std::vector<size_t> cuts :
			     { std::vector<size_t>{}, { 14 }, { 30, 400 } }) {
				size_t before = rx(1).size();
				ASSERT_EQ(send_tagged(u, 0xe00d, cuts), 0);
				poll(1);
				poll(0);
				ASSERT_EQ(rx(1).size(), before + 1);
				EXPECT_EQ(rx(1).back().data, t) << cuts.size() << " cuts";
				n++;
			}
			EXPECT_EQ(stat(0, "tx_added_vlan_packets"), n);
			EXPECT_EQ(stat(0, "tx_mpwqe_pkts"), 0u);
			EXPECT_EQ(stat(0, "tx_bytes"), n * t.size()) << "wire bytes, tag included";
			EXPECT_EQ(stat(0, "tx_cqe_err"), 0u);
			/* the receiver strips it again: the stack sees the same packet */
			strip(1, true);
			ASSERT_EQ(send_tagged(u, 0xe00d), 0);
			poll(1);
			poll(0);
			EXPECT_EQ(rx(1).back().data, u);
			EXPECT_EQ(rx(1).back().meta.vlan_tci, 0xe00d);
		}
	}
}

/*
 * An 802.1ad S-tag in metadata (tx-vlan-stag-hw-insert): TPID 0x88a8 on
 * the wire, inserted by the device (the eth segment's S-VLAN bit) or
 * written into the inline headers (cx4, and an LSO template: every
 * segment carries it); the receiver's C-tag stripping leaves it in place.
 */
TEST_F(Vlan, TxInsertStagByteExact)
{
	for (int model : { 7, 4 }) {
		SCOPED_TRACE("cx" + std::to_string(model));
		Options o;
		o.model = model;
		build(o);
		Bytes u = tcp_frame(900, -1, 1000, 3), t = frames::vlan_insert(u, 0x00c8);
		frames::put16(t, 12, 0x88a8);
		for (std::vector<size_t> cuts : { std::vector<size_t>{}, { 30, 400 } }) {
			size_t before = rx(1).size();
			ASSERT_EQ(send_tagged(u, 0x00c8, cuts, SCX_TX_VLAN_8021AD), 0);
			poll(1);
			poll(0);
			ASSERT_EQ(rx(1).size(), before + 1);
			EXPECT_EQ(rx(1).back().data, t) << cuts.size() << " cuts";
			EXPECT_EQ(rx(1).back().meta.vlan, 0) << "an S-tag is not stripped";
		}
		EXPECT_EQ(stat(0, "tx_added_vlan_packets"), 2u);
		EXPECT_EQ(stat(1, "rx_removed_vlan_packets"), 0u);

		/* LSO: 3 segments, each with the S-tag from the template */
		Bytes big = tcp_frame(3 * 1000, -1, 1000, 4);
		scx_tx_pkt g = {};
		g.vlan = SCX_TX_VLAN_8021AD;
		g.vlan_tci = 0x00c8;
		g.gso_type = SCX_TX_GSO_TCPV4;
		g.gso_size = 1000;
		g.gso_segs = 3;
		g.ihs = 54;
		g.csum = SCX_TX_CSUM_L3 | SCX_TX_CSUM_L4;
		size_t before = rx(1).size();
		ASSERT_EQ(post_pkt(0, big, g), 0);
		doorbell(0);
		poll(1);
		poll(0);
		ASSERT_EQ(rx(1).size(), before + 3);
		for (size_t i = before; i < before + 3; i++) {
			EXPECT_EQ(frames::get16(rx(1)[i].data, 12), 0x88a8) << i;
			EXPECT_EQ(frames::get16(rx(1)[i].data, 14), 0x00c8) << i;
		}
		EXPECT_EQ(stat(0, "tx_cqe_err"), 0u);
	}
}

/* A frame at the largest size the device sends leaves no room for a tag: refused before posting. */
TEST_F(Vlan, TxInsertBeyondTheFrameLimitRefused)
{
	scx_port_caps caps;
	scx_port_get_caps(p[0].port, &caps);
	uint32_t max_frame = caps.max_mtu + 14 + 4 + 4;	/* max_hw_mtu: MTU + kHwMtuOverhead */
	Bytes big = tcp_frame(max_frame - 4 - 54, -1);
	ASSERT_EQ(big.size(), max_frame - 4u);
	EXPECT_EQ(send_tagged(big, 1), 0) << "fits with its tag";
	Bytes over = tcp_frame(max_frame - 4 - 54 + 1, -1);
	EXPECT_EQ(send_tagged(over, 1), -SCX_EMSGSIZE);
	poll(1);
	poll(0);
	EXPECT_EQ(stat(0, "tx_cqe_err"), 0u);
	EXPECT_EQ(stat(0, "tx_packets"), 1u);
	EXPECT_EQ(stat(0, "tx_bytes"), max_frame);
}

/*
 * CQE compression with stripping: one flow whose TCI changes makes two
 * runs (the TCI is a title field), and each packet keeps its TCI.
 */
TEST_F(Vlan, CompressionRunsSplitAtTciChange)
{
	for (bool striding : { false, true }) {
		SCOPED_TRACE(striding ? "striding" : "cyclic");
		Options o;
		o.rx_cqe_compress = true;
		o.rx_striding = striding;
		o.log_rq = 6;
		build(o);
		std::vector<Bytes> sent;
		size_t b = rx(1).size();
		for (int i = 0; i < 16; i++) {
			sent.push_back(tcp_frame(40, i < 8 ? 100 : 200, 1000, 5));
			ASSERT_EQ(post(0, sent.back()), 0);
		}
		doorbell(0);
		poll(1);
		poll(0);
		ASSERT_EQ(rx(1).size(), b + 16);
		for (int i = 0; i < 16; i++) {
			EXPECT_EQ(rx(1)[b + i].meta.vlan, 1) << i;
			EXPECT_EQ(rx(1)[b + i].meta.vlan_tci, i < 8 ? 100 : 200) << i;
			EXPECT_EQ(rx(1)[b + i].data, frames::vlan_strip(sent[i])) << i;
		}
		EXPECT_EQ(stat(1, "rx_cqe_compress_blks"), 2u);
		EXPECT_EQ(stat(1, "rx_removed_vlan_packets"), 16u);
	}
}

} /* namespace */
