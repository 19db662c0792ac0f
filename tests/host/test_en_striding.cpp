// SPDX-License-Identifier: GPL-2.0
/*
 * The striding RQ on the driver side (src/en/rq_striding.cpp; its rules are
 * tested in test_en_params.cpp): frames built on a stride or in pieces,
 * filler CQEs at WQE ends, oversize drops, the stack refusing a frame, an
 * error CQE, every XDP verdict, WQEs that wrap many times, and no page
 * left behind (the fixture's TearDown checks every RX buffer came back).
 */
#include <gtest/gtest.h>

#include "en/params.h"
#include "hw/adapter.h"
#include "softcx/errno.h"
#include "en_pair.h"

using namespace enpair;
using frames::Bytes;
namespace en = softcx::en;

class Striding : public Pair {
protected:
	void SetUp() override
	{
		host::reset();
		build(opts());
	}
	static Options opts(uint32_t mtu = 1500, uint32_t xdp_ports = 0)
	{
		Options o;

		o.rx_striding = true;
		o.mtu = mtu;
		o.xdp_ports = xdp_ports;
		o.log_rq = 6;
		return o;
	}
	/* The device's striding RQ of port 1 (one channel). */
	const softcx::hw::Rq *device_rq()
	{
		const softcx::hw::Rq *found = nullptr;
		for (const softcx::hw::Rq &r : scx_hw_function(adapter, 1)->rq)
			if (r.num && r.striding && r.state == softcx::prm::kQueueRdy)
				found = &r;
		return found;
	}
	/* Send n frames and poll the receiver until they are all in. */
	void pump(const std::vector<Bytes> &fs)
	{
		for (const Bytes &f : fs) {
			ASSERT_EQ(send(0, f), 0);
			poll(1, 256);
			poll(0, 256);
		}
	}
};

TEST_F(Striding, Cx4RefusesIt)
{
	Options o = opts();

	o.model = 4;
	o.rx_striding = false;
	build(o);
	scx_port_caps caps;
	scx_port_get_caps(p[0].port, &caps);
	EXPECT_EQ(caps.rx_striding, 0u);
	const char *why = nullptr;
	EXPECT_EQ(scx_port_feature_check(p[0].port, SCX_FEATURE_RX_STRIDING, &why), -SCX_EOPNOTSUPP);
	EXPECT_STREQ(why, "no striding RQ (multi-packet RX WQE) on this device");
	auto chans = p[0].os_channels();
	scx_port_params prm = params(1500);
	prm.rx_striding = 1;
	EXPECT_EQ(scx_port_prepare(p[0].port, &prm, chans.data()), -SCX_EOPNOTSUPP);
	/* the cyclic set runs on */
	pump({udp_frame(100)});
	EXPECT_EQ(rx(1).size(), 1u);
}

/* Linear strides: every size up to the MTU crosses intact, the pages come back as WQEs wrap. */
TEST_F(Striding, LinearFramesCrossIntactOverManyWqes)
{
	std::vector<Bytes> fs;

	for (int i = 0; i < 300; i++)
		fs.push_back(udp_frame(20 + (i * 37) % 1450, 1000, (uint8_t)i));
	pump(fs);
	ASSERT_EQ(rx(1).size(), fs.size());
	for (size_t i = 0; i < fs.size(); i++) {
		EXPECT_EQ(rx(1)[i].data, fs[i]) << i;
		expect_csum_ok(rx(1)[i]);
		EXPECT_EQ(rx(1)[i].meta.buf_size, 2048u);
		EXPECT_EQ(rx(1)[i].meta.headroom - rx(1)[i].meta.buf_off, 64u);
	}
	EXPECT_EQ(stat(1, "rx_packets"), fs.size());
	EXPECT_EQ(stat(1, "rx_mpwqe_filler_cqes"), 0u) << "one frame a stride never leaves a gap";
	EXPECT_EQ(stat(1, "rx_out_of_buffer"), 0u);
	EXPECT_EQ(stat(1, "rx_wqe_err"), 0u);
}

/* A frame longer than a linear stride: the device takes two strides, the driver drops it. */
TEST_F(Striding, OversizeLinearFrameIsDroppedAndCounted)
{
	build(opts(1500));
	/* the sender at 9000 */
	scx_port_close(p[0].port);
	auto chans = p[0].os_channels();
	scx_port_params prm = params(9000, 0);
	ASSERT_EQ(scx_port_open(p[0].port, &prm, chans.data()), 0);
	pump({udp_frame(3000), udp_frame(100)});
	ASSERT_EQ(rx(1).size(), 1u);
	EXPECT_EQ(rx(1)[0].data.size(), udp_frame(100).size());
	EXPECT_EQ(stat(1, "rx_oversize_pkts_sw_drop"), 1u);
	scx_link_stats ls;
	scx_stats_refresh(p[1].port);
	scx_stats_link(p[1].port, &ls);
	EXPECT_EQ(ls.rx_dropped, 1u);
}

/* Non-linear strides: jumbo frames over strides and pages, filler CQEs at WQE ends. */
TEST_F(Striding, JumboFramesInPiecesAndFillers)
{
	build(opts(9000));
	std::vector<Bytes> fs;
	uint64_t strides = 0;

	for (int i = 0; i < 40; i++) {
		fs.push_back(udp_frame(i % 3 ? 8900 : 60 + i * 11, 1000, (uint8_t)i));
		strides += (fs.back().size() + 255) / 256;
	}
	pump(fs);
	ASSERT_EQ(rx(1).size(), fs.size());
	for (size_t i = 0; i < fs.size(); i++)
		EXPECT_EQ(rx(1)[i].data, fs[i]) << i;
	EXPECT_EQ(stat(1, "rx_packets"), fs.size());
	/* 36-stride frames do not pack 256 strides: fillers cover the ends */
	EXPECT_GT(stat(1, "rx_mpwqe_filler_cqes"), 0u);
	EXPECT_EQ(stat(1, "rx_oversize_pkts_sw_drop"), 0u);
	EXPECT_EQ(stat(1, "rx_wqe_err"), 0u);
}

/*
 * The WQEs the driver posts (the first page shortened by the headroom, a
 * tail the headroom's size; XDP's headroom; none when non-linear) are ones
 * the device places a frame in by their shape, without walking them.
 */
TEST_F(Striding, DeviceLocatesFramesInDriverWqesWithoutAWalk)
{
	const struct {
		uint32_t mtu, xdp_ports, headroom;
	} cases[] = { { 1500, 0, 64 }, { 1500, 2, 256 }, { 9000, 0, 0 } };
	for (const auto &c : cases) {
		SCOPED_TRACE(testing::Message() << "mtu " << c.mtu << " xdp " << c.xdp_ports);
		build(opts(c.mtu, c.xdp_ports));
		host::set_xdp_prog([](void *, uint8_t *, scx_xdp_buf *) { return SCX_XDP_PASS; });
		Bytes f = udp_frame(1200);
		size_t before = rx(1).size();
		pump({ f, f });
		ASSERT_EQ(rx(1).size(), before + 2);
		EXPECT_EQ(rx(1).back().data, f);
		const softcx::hw::Rq *r = device_rq();
		ASSERT_NE(r, nullptr);
		EXPECT_EQ(r->wqe_shape.first, 4096 - c.headroom);
		EXPECT_EQ(r->wqe_shape.log_seg, 12) << "the driver's WQE is walked";
	}
}

/* A failed skb build gives its stride's reference back; the page still returns. */
TEST_F(Striding, StackRefusalGivesTheReferenceBack)
{
	host::rx_fail_next_deliveries(3);
	std::vector<Bytes> fs;
	for (int i = 0; i < 100; i++)
		fs.push_back(udp_frame(500, 1000, (uint8_t)i));
	pump(fs);
	EXPECT_EQ(rx(1).size(), 97u);
	EXPECT_EQ(stat(1, "rx_skb_err"), 3u);
}

/* An error CQE recovers the RQ; the posted pages go back and traffic resumes. */
TEST_F(Striding, ErrorCqeRecovers)
{
	pump({udp_frame(100)});
	scx_channel_inject_rx_error(ch(1));
	std::vector<Bytes> fs;
	for (int i = 0; i < 80; i++)
		fs.push_back(udp_frame(1400, 1000, (uint8_t)i));
	pump(fs);
	EXPECT_GE(stat(1, "rx_wqe_err"), 1u);
	EXPECT_EQ(stat(1, "rx_recover"), 1u);
	size_t before = rx(1).size();
	pump({udp_frame(100), udp_frame(200)});
	EXPECT_EQ(rx(1).size(), before + 2);
}

/* Every XDP verdict on one-page strides. */
TEST_F(Striding, XdpVerdicts)
{
	build(opts(1500, 2));
	Bytes f = udp_frame(300);

	host::set_xdp_prog([](void *, uint8_t *, scx_xdp_buf *b) {
		EXPECT_EQ(b->frame_sz, 4096u);
		EXPECT_EQ(b->headroom, 256u);
		return SCX_XDP_PASS;
	});
	pump({f});
	ASSERT_EQ(rx(1).size(), 1u);
	EXPECT_EQ(rx(1)[0].data, f);

	host::set_xdp_prog([](void *, uint8_t *, scx_xdp_buf *) { return SCX_XDP_DROP; });
	pump(std::vector<Bytes>(40, f));
	EXPECT_EQ(stat(1, "rx_xdp_drop"), 40u);

	host::set_xdp_prog([](void *, uint8_t *, scx_xdp_buf *) { return SCX_XDP_REDIRECT; });
	pump(std::vector<Bytes>(20, f));
	EXPECT_EQ(stat(1, "rx_xdp_redirect"), 20u);
	EXPECT_EQ(host::xdp_redirected(&p[1].os_ch[0]).size(), 20u);

	/* XDP_TX: back to port 0, which receives it on its own striding RQ */
	host::set_xdp_prog([](void *, uint8_t *page, scx_xdp_buf *b) {
		uint8_t *d = page + b->headroom;
		for (int i = 0; i < 6; i++)
			std::swap(d[i], d[6 + i]);
		return SCX_XDP_TX;
	});
	pump(std::vector<Bytes>(30, f));
	EXPECT_EQ(stat(1, "rx_xdp_tx_xmit"), 30u);
	poll(1, 256);
	EXPECT_EQ(rx(0).size(), 30u);
	EXPECT_EQ(stat(1, "rx_packets"), 1u);
}
