// SPDX-License-Identifier: GPL-2.0
/*
 * ethtool's rx-fcs and rx-all through the driver core: an RQ with
 * scatter_fcs (switched on a live port with MODIFY_RQ) delivers every frame
 * followed by its FCS, as it was on the wire; the port's FCS check
 * (MODIFY_PORT) drops frames the cable damaged, counted in
 * rx_crc_errors_phy, or lets them in when off. The FCS is checked against
 * a bit-at-a-time CRC-32 (frames::fcs_of), not the device's table.
 */
#include "en_pair.h"
#include "softcx/errno.h"
#include "softcx/hw.h"

using namespace enpair;
using frames::Bytes;
using frames::fcs_of;

namespace {

Bytes with(const Bytes &f, const Bytes &tail)
{
	Bytes r = f;
	r.insert(r.end(), tail.begin(), tail.end());
	return r;
}

Bytes inverted(Bytes b)
{
	for (uint8_t &x : b)
		x = (uint8_t)~x;
	return b;
}

Bytes tcp_frame(size_t payload, int tci = -1, uint8_t seed = 1)
{
	frames::Spec s;
	s.vlan = tci;
	s.payload = frames::payload(payload, seed);
	return frames::build(s);
}

class Fcs : public Pair {
protected:
	/* Send frames from port 0, poll both; the records port 1 delivered. */
	std::vector<host::RxRecord> cross(const std::vector<Bytes> &fs)
	{
		size_t before = rx(1).size();
		for (const Bytes &f : fs)
			EXPECT_EQ(post(0, f), 0);
		doorbell(0);
		poll(1);
		poll(0);
		return { rx(1).begin() + (long)before, rx(1).end() };
	}
	void scatter(bool on) { ASSERT_EQ(scx_port_set_rx_fcs(p[1].port, on), 0); }
	void damage(uint32_t n) { scx_hw_inject_fcs_errors(scx_hw_function(adapter, 0), n); }
	void noise(uint32_t n) { scx_hw_inject_bit_errors(scx_hw_function(adapter, 0), n); }
	/* Port 1's FEC blocks: corrected, uncorrectable. */
	std::pair<uint64_t, uint64_t> fec_blocks()
	{
		scx_mac_stats s;
		scx_stats_mac(p[1].port, &s);
		return { s.fec_corrected_blocks, s.fec_uncorrectable_blocks };
	}
};

/*
 * Off by default; on the live port (no rebuild) each frame arrives with its
 * FCS, the length and rx_bytes with it, checksum verdicts as before; off
 * again, without. Frames of every size class, on cyclic and striding RQs,
 * with and without CQE compression (mini CQEs carry the longer count).
 */
TEST_F(Fcs, ScatterOnOffLive)
{
	for (int mode = 0; mode < 4; mode++) {
		Options o;
		o.rx_striding = mode & 1;
		o.rx_cqe_compress = mode & 2;
		SCOPED_TRACE(testing::Message() << "striding " << o.rx_striding << " compress "
						<< o.rx_cqe_compress);
		build(o);
		scx_channel *c = ch(1);
		std::vector<Bytes> fs;
		for (size_t n : { 6, 100, 700, 1400, 1446 })
			fs.push_back(tcp_frame(n, -1, (uint8_t)n));

		auto plain = cross(fs);
		ASSERT_EQ(plain.size(), fs.size());
		for (size_t i = 0; i < fs.size(); i++)
			EXPECT_EQ(plain[i].data, fs[i]) << i;

		scatter(true);
		EXPECT_EQ(ch(1), c) << "no rebuild";
		uint64_t bytes0 = stat(1, "rx_bytes");
		auto got = cross(fs);
		ASSERT_EQ(got.size(), fs.size());
		uint64_t want_bytes = 0;
		for (size_t i = 0; i < fs.size(); i++) {
			EXPECT_EQ(got[i].data, with(fs[i], fcs_of(fs[i]))) << i;
			SCOPED_TRACE(i);
			expect_csum_ok(got[i]);	/* the sum runs over the FCS too */
			want_bytes += fs[i].size() + 4;
		}
		EXPECT_EQ(stat(1, "rx_bytes") - bytes0, want_bytes);

		scatter(false);
		auto again = cross(fs);
		ASSERT_EQ(again.size(), fs.size());
		EXPECT_EQ(again[0].data, fs[0]);
		EXPECT_EQ(stat(1, "rx_wqe_err"), 0u);
		EXPECT_EQ(stat(1, "rx_oversize_pkts_buffer"), 0u);
	}
}

/* The FCS is the wire's: computed over the tagged frame, after the stripped one. */
TEST_F(Fcs, FcsOfTheTaggedFrameAfterStrip)
{
	scatter(true);
	Bytes t = tcp_frame(300, 0x0123);
	auto got = cross({ t });
	ASSERT_EQ(got.size(), 1u);
	EXPECT_EQ(got[0].meta.vlan, 1);
	EXPECT_EQ(got[0].data, with(frames::vlan_strip(t), fcs_of(t)));
}

/*
 * A full-MTU frame with its tag and FCS still fits the buffers the MTU
 * sized (hardware MTU = MTU + 22), MTU 9000 too.
 */
TEST_F(Fcs, LongestFrameFits)
{
	for (uint32_t mtu : { 1500u, 9000u }) {
		for (bool striding : { false, true }) {
			Options o;
			o.mtu = mtu;
			o.rx_striding = striding;
			build(o);
			scatter(true);
			ASSERT_EQ(scx_port_set_rx_vlan_strip(p[1].port, 0), 0);
			Bytes t = tcp_frame(mtu - 40, 7);
			auto got = cross({ t });
			ASSERT_EQ(got.size(), 1u) << mtu << " striding " << striding;
			EXPECT_EQ(got[0].data, with(t, fcs_of(t)));
			EXPECT_EQ(stat(1, "rx_oversize_pkts_buffer"), 0u);
		}
	}
}

/*
 * The setting outlives the channel set and an RQ recovery. A switch made
 * while the RQ is in error fails, and the recovery restarts the RQ with
 * the setting the port kept.
 */
TEST_F(Fcs, SettingKeptAcrossRebuildAndRecovery)
{
	Bytes t = tcp_frame(200);
	scatter(true);
	scx_port_close(p[1].port);
	scx_port_params pp = params(1500, 1);
	auto chans = p[1].os_channels();
	ASSERT_EQ(scx_port_open(p[1].port, &pp, chans.data()), 0);
	EXPECT_EQ(cross({ t }).at(0).data, with(t, fcs_of(t)));

	scx_channel_inject_rx_error(ch(1));
	cross({ t });
	EXPECT_EQ(stat(1, "rx_recover"), 1u);
	EXPECT_EQ(cross({ t }).at(0).data, with(t, fcs_of(t)));

	scx_channel_inject_rx_error(ch(1));
	EXPECT_EQ(post(0, t), 0);
	doorbell(0);
	EXPECT_NE(scx_port_set_rx_fcs(p[1].port, 0), 0) << "the RQ is in ERR";
	poll(1);
	poll(0);
	EXPECT_EQ(stat(1, "rx_recover"), 2u);
	EXPECT_EQ(cross({ t }).at(0).data, with(t, fcs_of(t))) << "the failed switch left it on";
	scatter(false);
	EXPECT_EQ(cross({ t }).at(0).data, t);
}

/*
 * Frames the cable damages: with the FCS check on (default) dropped and
 * counted in rx_crc_errors_phy only (not rx_packets_phy, not delivered);
 * with it off (rx-all) delivered, still counted, the FCS placed as it came
 * (wrong). The check is the port's: kept across a channel set rebuild.
 */
TEST_F(Fcs, DamagedFramesDroppedOrLetIn)
{
	Bytes a = tcp_frame(64, -1, 1), b = tcp_frame(65, -1, 2), c = tcp_frame(66, -1, 3);
	damage(2);
	auto got = cross({ a, b, c });
	ASSERT_EQ(got.size(), 1u);
	EXPECT_EQ(got[0].data, c);
	EXPECT_EQ(stat(1, "rx_crc_errors_phy"), 2u);
	EXPECT_EQ(stat(1, "rx_packets_phy"), 1u);
	EXPECT_EQ(stat(1, "rx_packets"), 1u);

	ASSERT_EQ(scx_port_set_fcs_check(p[1].port, 0), 0);
	scx_port_close(p[1].port);
	scx_port_params pp = params(1500, 1);
	auto chans = p[1].os_channels();
	ASSERT_EQ(scx_port_open(p[1].port, &pp, chans.data()), 0);
	scatter(true);
	damage(1);
	got = cross({ a, b });
	ASSERT_EQ(got.size(), 2u);
	EXPECT_EQ(got[0].data, with(a, inverted(fcs_of(a)))) << "let in, its FCS as it came";
	EXPECT_EQ(got[1].data, with(b, fcs_of(b)));
	EXPECT_EQ(stat(1, "rx_crc_errors_phy"), 3u);
	EXPECT_EQ(stat(1, "rx_packets_phy"), 2u) << "a damaged frame is not received OK";

	ASSERT_EQ(scx_port_set_fcs_check(p[1].port, 1), 0);
	damage(1);
	EXPECT_EQ(cross({ a }).size(), 0u);
	EXPECT_EQ(stat(1, "rx_crc_errors_phy"), 4u);
}

/*
 * Bit errors on the wire: the FEC the link runs (RS(544,514) at cx7's
 * 400G) corrects them, one corrected block a frame, and the frames arrive
 * intact; an FCS error is a block it could not correct. FCS errors pending
 * go first. Without FEC (100G, FEC off at both ends) bit errors are FCS
 * errors and no block is counted.
 */
TEST_F(Fcs, BitErrorsCorrectedByTheFecElseFcsErrors)
{
	using Blocks = std::pair<uint64_t, uint64_t>;
	Bytes a = tcp_frame(64, -1, 1), b = tcp_frame(65, -1, 2), c = tcp_frame(66, -1, 3);
	noise(2);
	auto got = cross({ a, b, c });
	ASSERT_EQ(got.size(), 3u);
	EXPECT_EQ(got[0].data, a);
	EXPECT_EQ(got[1].data, b);
	EXPECT_EQ(stat(1, "rx_crc_errors_phy"), 0u);
	EXPECT_EQ(stat(1, "rx_packets_phy"), 3u);
	EXPECT_EQ(fec_blocks(), Blocks(2, 0));

	damage(1);
	noise(1);
	got = cross({ a, b });
	ASSERT_EQ(got.size(), 1u) << "the FCS error first";
	EXPECT_EQ(got[0].data, b);
	EXPECT_EQ(stat(1, "rx_crc_errors_phy"), 1u);
	EXPECT_EQ(fec_blocks(), Blocks(3, 1));

	const char *why = nullptr;
	for (int i = 0; i < 2; i++) {
		ASSERT_EQ(scx_port_link_set(p[i].port, 1u << SCX_LINK_100GBASE_R4, 0, &why), 0);
		ASSERT_EQ(scx_port_fec_set(p[i].port, SCX_FEC_NONE, &why), 0);
	}
	scx_link l;
	ASSERT_EQ(scx_port_link_get(p[1].port, &l), 0);
	ASSERT_EQ(l.fec_oper, SCX_FEC_NONE);
	noise(2);
	got = cross({ a, b, c });
	ASSERT_EQ(got.size(), 1u);
	EXPECT_EQ(got[0].data, c);
	EXPECT_EQ(stat(1, "rx_crc_errors_phy"), 3u);
	EXPECT_EQ(fec_blocks(), Blocks(3, 1)) << "no FEC, no block";
}

/* SHAMPO places no FCS: refused on a live HW-GRO set, and a HW-GRO set is not built with it. */
TEST_F(Fcs, NotWithHwGro)
{
	Options o;
	o.rx_striding = true;
	o.rx_hw_gro = true;
	build(o);
	EXPECT_EQ(scx_port_set_rx_fcs(p[1].port, 1), -SCX_EOPNOTSUPP);
	Bytes t = tcp_frame(100);
	EXPECT_EQ(cross({ t }).at(0).data, t);

	scx_port_close(p[1].port);
	o.rx_hw_gro = false;
	build(o);
	scatter(true);
	scx_port_close(p[1].port);
	scx_port_params pp = params(1500, 1);
	pp.rx_striding = 1;
	pp.rx_hw_gro = 1;
	auto chans = p[1].os_channels();
	EXPECT_EQ(scx_port_open(p[1].port, &pp, chans.data()), -SCX_EOPNOTSUPP);
}

} /* namespace */
