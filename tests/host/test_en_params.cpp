// SPDX-License-Identifier: GPL-2.0
/*
 * The core's limits and rules (src/en/params.cpp), as the shim asks for
 * them (scx_port_get_caps, scx_port_feature_check, scx_params_queue_sizes)
 * and as the channel set builder applies them: one table per model, the
 * XDP MTU limit and one above, the LSO header limit and one above, MPWQE
 * allowed or refused.
 */
#include <gtest/gtest.h>

#include <cstring>
#include <string>

#include "en/params.h"
#include "en/port.h"
#include "en_pair.h"

using namespace enpair;
namespace en = softcx::en;

namespace {

struct ModelRow {
	int model;
	uint32_t min_inline;
	uint32_t tx_mpwqe;
	uint32_t xdp_tx_mpwqe;
	const char *tx_mpwqe_why;	/* nullptr: allowed */
	const char *xdp_tx_mpwqe_why;
};

/* What README.md promises: cx4 inlines L2 headers and has no MPWQE; cx5 and later do. */
const ModelRow kModels[] = {
	{4, 18, 0, 0, "no enhanced multi-packet send WQE without inline headers",
	 "no enhanced multi-packet send WQE"},
	{5, 0, 1, 1, nullptr, nullptr},
	{6, 0, 1, 1, nullptr, nullptr},
	{7, 0, 1, 1, nullptr, nullptr},
};

/* Largest MTU with XDP: a 4 KiB page less the XDP headroom, skb_shared_info and L2. */
constexpr uint32_t kXdpMaxMtu = 4096 - 256 - 320 - 22;
static_assert(kXdpMaxMtu == 3498);

/* A GSO packet whose inlined header is ihs bytes (the bytes need not parse). */
scx_tx_pkt lso_pkt(uint32_t ihs, uint32_t len)
{
	scx_tx_pkt t = {};

	t.csum = SCX_TX_CSUM_L3 | SCX_TX_CSUM_L4;
	t.gso_type = SCX_TX_GSO_TCPV4;
	t.gso_size = 100;
	t.gso_segs = (len - ihs + 99) / 100;
	t.ihs = ihs;
	return t;
}

} /* namespace */

TEST(Params, QueueSizes)
{
	scx_queue_sizes qs = {};

	scx_params_queue_sizes(&qs);
	EXPECT_EQ(qs.log_sq_size, 10u);
	EXPECT_EQ(qs.log_rq_size, 10u);
	EXPECT_GE(qs.log_sq_size, en::kMinLogSqSize);
	EXPECT_GE(qs.log_rq_size, en::kMinLogRqSize);
}

/* The stop room holds the largest WQE and a full session, each after its padding. */
TEST(Params, StopRoom)
{
	EXPECT_EQ(en::wqe_room(1), 1u);
	EXPECT_EQ(en::kSqMaxWqeBBs, 9u);	/* ctrl+eth, 256 inline bytes, 18 pointers */
	EXPECT_EQ(en::skb_sq_stop_room(false), 2 * en::kSqMaxWqeBBs - 1);
	EXPECT_EQ(en::skb_sq_stop_room(true),
		  2 * en::kSqMaxWqeBBs - 1 + 2 * en::kMpwMaxWqeBBs - 1);
	EXPECT_EQ(en::xdp_sq_stop_room(false), 1u);
	EXPECT_EQ(en::xdp_sq_stop_room(true), 2 * en::kMpwMaxWqeBBs - 1);
	EXPECT_LE(en::skb_sq_stop_room(true), 1u << en::kMinLogSqSize);
}

/* The XDP MTU limit is where the RX buffer stops being one order-0 page. */
TEST(Params, XdpMtuIsOnePage)
{
	en::RqLayout l = {};

	EXPECT_EQ(en::xdp_max_mtu(host::kOsLayout), kXdpMaxMtu);
	ASSERT_TRUE(en::rx_layout(host::kOsLayout, kXdpMaxMtu, true, &l));
	EXPECT_EQ(l.nfrags, 1u);
	EXPECT_EQ(l.frag[0].stride, 4096u);
	EXPECT_EQ(l.headroom, 256u);
	EXPECT_TRUE(l.linear);
	/* past it a page per fragment: the first keeps the headroom and the fragment list's room */
	ASSERT_TRUE(en::rx_layout(host::kOsLayout, kXdpMaxMtu + 1, true, &l));
	EXPECT_FALSE(l.linear);
	EXPECT_EQ(l.nfrags, 2u);
	EXPECT_EQ(l.headroom, 256u);
	EXPECT_EQ(l.frag[0].size, 4096u - 256u - 320u);
	EXPECT_EQ(l.frag[1].size, 1u);
	EXPECT_EQ(l.page_frags[0], 1u);
	EXPECT_EQ(l.page_frags[1], 1u);
	ASSERT_TRUE(en::rx_layout(host::kOsLayout, SCX_MAX_MTU, true, &l));
	EXPECT_EQ(l.nfrags, 3u);
	for (uint32_t i = 0; i < l.nfrags; i++)
		EXPECT_EQ(l.frag[i].stride, 4096u) << i;
	EXPECT_EQ(l.frag[0].size + l.frag[1].size + l.frag[2].size, SCX_MAX_MTU + en::kHwMtuOverhead);
	/* without a program the skb headroom: still one linear fragment */
	ASSERT_TRUE(en::rx_layout(host::kOsLayout, kXdpMaxMtu + 1, false, &l));
	EXPECT_TRUE(l.linear);
	EXPECT_EQ(l.headroom, 64u);
}

/*
 * How many fragments a cyclic RQ carves from a page it opens at WQE
 * fragment i (one reference each): the 2 KiB strides of MTU 1500 two a
 * page; at 9000 three 2 KiB fragments and a 4 KiB last, so a page opened
 * by the third holds only it; an XDP buffer is the page.
 */
TEST(Params, CyclicPageFragments)
{
	en::RqLayout l = {};

	ASSERT_TRUE(en::rx_layout(host::kOsLayout, 1500, false, &l));
	ASSERT_EQ(l.nfrags, 1u);
	EXPECT_EQ(l.frag[0].stride, 2048u);
	EXPECT_EQ(l.page_frags[0], 2u);

	ASSERT_TRUE(en::rx_layout(host::kOsLayout, 9000, false, &l));
	ASSERT_EQ(l.nfrags, 4u);
	const uint32_t strides[] = { 2048, 2048, 2048, 4096 }, per_page[] = { 2, 2, 1, 1 };
	for (uint32_t i = 0; i < 4; i++) {
		EXPECT_EQ(l.frag[i].stride, strides[i]) << i;
		EXPECT_EQ(l.page_frags[i], per_page[i]) << i;
	}

	ASSERT_TRUE(en::rx_layout(host::kOsLayout, kXdpMaxMtu, true, &l));
	EXPECT_EQ(l.page_frags[0], 1u);
}

TEST(Params, OsLayout)
{
	scx_os_layout os = host::kOsLayout;

	EXPECT_TRUE(en::os_layout_ok(os));
	os.page_size = 16384;	/* the core builds 4 KiB-page buffers only */
	EXPECT_FALSE(en::os_layout_ok(os));
	os = host::kOsLayout;
	os.rx_headroom = 40000;
	EXPECT_FALSE(en::os_layout_ok(os));
}

/*
 * ethtool -G and -L values, judged by the core for the shim: ring sizes
 * 64 .. 8192 (mlx5's), powers of two (others rounded up, and said so);
 * combined channels 1 .. the port's slots, nothing else. The reason is a
 * static string the shim hands to the extack.
 */
TEST_F(Pair, ParamsRingAndChannelTable)
{
	struct RingRow {
		int rx;
		uint32_t want;
		int ret;	/* 0 exact, 1 rounded, -EINVAL */
		uint8_t log;
		const char *why;	/* part of the reason, or null */
	};
	static const RingRow rings[] = {
		{ 1, 0, -SCX_EINVAL, 0, "below the minimum" },
		{ 1, 3, -SCX_EINVAL, 0, "below the minimum" },
		{ 1, 63, -SCX_EINVAL, 0, "below the minimum" },
		{ 1, 64, 0, 6, nullptr },
		{ 1, 65, 1, 7, "rounded up" },
		{ 1, 1000, 1, 10, "rounded up" },
		{ 1, 1024, 0, 10, nullptr },
		{ 1, 8192, 0, 13, nullptr },
		{ 1, 8193, -SCX_EINVAL, 0, "above the maximum" },
		{ 1, 0xffffffffu, -SCX_EINVAL, 0, "above the maximum" },
		{ 0, 32, -SCX_EINVAL, 0, "below the minimum" },
		{ 0, 100, 1, 7, "rounded up" },
		{ 0, 4096, 0, 12, nullptr },
		{ 0, 16384, -SCX_EINVAL, 0, "above the maximum" },
	};
	for (const RingRow &r : rings) {
		SCOPED_TRACE(testing::Message() << (r.rx ? "rx " : "tx ") << r.want);
		uint8_t log = 0xee;
		const char *why = nullptr;
		EXPECT_EQ(scx_port_ring_check(p[0].port, r.rx, r.want, &log, &why), r.ret);
		if (r.ret >= 0) {
			EXPECT_EQ(log, r.log);
		}
		if (r.why) {
			EXPECT_NE(why ? strstr(why, r.why) : nullptr, nullptr) << (why ? why : "null");
		}
	}

	Options o;
	o.nch = 4;
	build(o);
	struct ChRow {
		uint32_t combined, rx, tx, other;
		bool ok;
	};
	static const ChRow chans[] = {
		{ 0, 0, 0, 0, false }, { 1, 0, 0, 0, true },	{ 4, 0, 0, 0, true },
		{ 5, 0, 0, 0, false }, { 2, 1, 0, 0, false }, { 2, 0, 1, 0, false },
		{ 2, 0, 0, 1, false }, { 0, 2, 2, 0, false },
	};
	for (const ChRow &c : chans) {
		SCOPED_TRACE(testing::Message() << "combined " << c.combined << " rx " << c.rx << " tx "
						<< c.tx << " other " << c.other);
		const char *why = nullptr;
		int err = scx_port_channels_check(p[0].port, c.combined, c.rx, c.tx, c.other, &why);
		EXPECT_EQ(err, c.ok ? 0 : -SCX_EINVAL);
		if (!c.ok) {
			EXPECT_NE(why, nullptr);
		}
	}
}

/* Every model: what the shim reads once, and the refusals it logs. */
TEST_F(Pair, ParamsPerModel)
{
	for (const ModelRow &m : kModels) {
		SCOPED_TRACE("cx" + std::to_string(m.model));
		Options o;
		o.model = m.model;
		build(o);

		scx_port_caps caps = {};
		scx_port_get_caps(p[0].port, &caps);
		EXPECT_EQ(caps.model, (uint32_t)m.model);
		EXPECT_EQ(caps.max_mtu, 9978u);	/* mlx5's maxmtu: a 10000-byte hw MTU */
		EXPECT_EQ(caps.min_inline, m.min_inline);
		EXPECT_EQ(caps.max_lso, 256u * 1024);
		EXPECT_EQ(caps.max_lso_hdr, 256u);
		EXPECT_EQ(caps.tx_mpwqe, m.tx_mpwqe);
		EXPECT_EQ(caps.xdp_tx_mpwqe, m.xdp_tx_mpwqe);
		EXPECT_EQ(caps.xdp_max_mtu, kXdpMaxMtu);
		/* ethtool -G: mlx5's 64..8192, and the core opens with the default */
		EXPECT_EQ(caps.min_log_sq_size, 6u);
		EXPECT_EQ(caps.max_log_sq_size, 13u);
		EXPECT_EQ(caps.min_log_rq_size, 6u);
		EXPECT_EQ(caps.max_log_rq_size, 13u);

		const char *why = nullptr;
		EXPECT_EQ(scx_port_feature_check(p[0].port, SCX_FEATURE_TX_MPWQE, &why),
			  m.tx_mpwqe_why ? -SCX_EOPNOTSUPP : 0);
		if (m.tx_mpwqe_why) {
			EXPECT_STREQ(why, m.tx_mpwqe_why);
		}
		why = nullptr;
		EXPECT_EQ(scx_port_feature_check(p[0].port, SCX_FEATURE_XDP_TX_MPWQE, &why),
			  m.xdp_tx_mpwqe_why ? -SCX_EOPNOTSUPP : 0);
		if (m.xdp_tx_mpwqe_why) {
			EXPECT_STREQ(why, m.xdp_tx_mpwqe_why);
		}

		/* the channel set builder applies the same rule */
		scx_port_close(p[0].port);
		auto chans = p[0].os_channels();
		scx_port_params prm = params(1500);
		prm.tx_mpwqe = 1;
		EXPECT_EQ(scx_port_open(p[0].port, &prm, chans.data()),
			  m.tx_mpwqe ? 0 : -SCX_EOPNOTSUPP);
		scx_port_close(p[0].port);
		prm = params(1500);
		prm.xdp = 1;
		prm.xdp_tx_mpwqe = 1;
		EXPECT_EQ(scx_port_open(p[0].port, &prm, chans.data()),
			  m.xdp_tx_mpwqe ? 0 : -SCX_EOPNOTSUPP);
		scx_port_close(p[0].port);
	}
	const char *why = nullptr;
	EXPECT_EQ(scx_port_feature_check(p[0].port, 99, &why), -SCX_EINVAL);
}

/* Each SQ of a set keeps, whole, the limits params built for its kind. */
static void expect_limits(const en::SqLimits &got, const en::SqLimits &want)
{
	EXPECT_EQ(got.min_inline, want.min_inline);
	EXPECT_EQ(got.max_frame, want.max_frame);
	EXPECT_EQ(got.max_lso, want.max_lso);
	EXPECT_EQ(got.stop_room, want.stop_room);
	EXPECT_EQ(got.mpwqe, want.mpwqe);
}

TEST_F(Pair, ParamsSqLimits)
{
	Options o;
	o.model = 7;
	build(o);
	scx_port_close(p[0].port);
	auto chans = p[0].os_channels();
	scx_port_params pp = params(3000);
	pp.xdp = 1;
	pp.xdp_tx_mpwqe = 1;
	ASSERT_EQ(scx_port_open(p[0].port, &pp, chans.data()), 0);

	const softcx::prm::HcaCaps &caps = p[0].port->caps;
	const en::SqLimits skb = en::skb_sq_limits(caps, false);
	const en::SqLimits xdp = en::xdp_sq_limits(caps, 3000, true);
	EXPECT_EQ(skb.max_frame, caps.max_hw_mtu.get());
	EXPECT_EQ(skb.max_lso, 256u * 1024);
	EXPECT_EQ(skb.stop_room, en::skb_sq_stop_room(false));
	EXPECT_EQ(xdp.max_frame, 3000u + en::kHwMtuOverhead);
	EXPECT_EQ(xdp.max_lso, 0u);
	EXPECT_EQ(xdp.stop_room, en::xdp_sq_stop_room(true));
	scx_channel *c = scx_port_channel(p[0].port, 0);
	ASSERT_NE(c, nullptr);
	expect_limits(c->sq.lim, skb);
	expect_limits(c->xdpsq.lim, xdp);
	expect_limits(c->xmitsq.lim, xdp);
	scx_port_close(p[0].port);
}

/* An XDP set opens at the limit and not one above; without XDP the limit is the device's. */
TEST_F(Pair, ParamsXdpMtuLimit)
{
	scx_port_close(p[0].port);
	auto chans = p[0].os_channels();
	scx_port_params prm = params(kXdpMaxMtu);
	prm.xdp = 1;
	EXPECT_EQ(scx_port_open(p[0].port, &prm, chans.data()), 0);
	scx_port_close(p[0].port);
	prm.mtu = kXdpMaxMtu + 1;
	EXPECT_EQ(scx_port_open(p[0].port, &prm, chans.data()), -SCX_EINVAL);
	prm.xdp = 0;
	EXPECT_EQ(scx_port_open(p[0].port, &prm, chans.data()), 0);
}

/*
 * LSO headers: 256 bytes are posted, 257 refused before anything is. The
 * doorbell is held back (the stall hook): no device parses a 256-byte
 * template, this is the driver's limit; closing the port flushes the WQE.
 */
TEST_F(Pair, ParamsLsoHeaderLimit)
{
	frames::Bytes f(1000, 0x45);

	EXPECT_EQ(post_pkt(0, f, lso_pkt(257, 1000)), -SCX_EINVAL);
	scx_channel_inject_tx_stall(ch(0));
	EXPECT_EQ(post_pkt(0, f, lso_pkt(256, 1000)), 0);
	doorbell(0);
	EXPECT_EQ(stat(0, "tx_tso_packets"), 1u);
	EXPECT_EQ(stat(0, "tx_cqe_err"), 0u);
}

TEST_F(Pair, ParamsBadOsLayoutIsRefused)
{
	scx_os_layout os = host::kOsLayout;
	scx_port *port = nullptr;

	os.page_size = 65536;
	EXPECT_EQ(scx_port_create(scx_hw_function(adapter, 0), &os_dev, nullptr, 1, &os, &port),
		  -SCX_EINVAL);
	EXPECT_EQ(scx_port_mem_estimate(1, 10, 10, &os), 0u);
}

/* ---- striding RQ geometry ---- */

namespace {

softcx::prm::HcaCaps caps_of(int model, bool ext = true)
{
	softcx::prm::HcaCaps c = {};

	c.striding_rq = model >= 5;
	c.ext_stride_num_range = ext && model >= 5;
	c.log_max_rq_sz = 16;
	c.log_max_cq_sz = 16;
	return c;
}

en::RqLayout layout(int model, uint32_t mtu, bool xdp, uint32_t log_rq = 10, bool ext = true)
{
	en::RqLayout l = {};

	EXPECT_TRUE(en::rx_striding_layout(caps_of(model, ext), host::kOsLayout, mtu, log_rq, xdp, &l))
		<< "mtu " << mtu << " xdp " << xdp;
	return l;
}

} /* namespace */

/* MTU 1500: 2 KiB linear strides (64 headroom + 1522 + 320), two frames a page, 32 a WQE. */
TEST(StridingParams, Mtu1500IsLinearHalfPages)
{
	en::RqLayout l = layout(7, 1500, false);

	EXPECT_TRUE(l.striding);
	EXPECT_TRUE(l.linear);
	EXPECT_EQ(l.stride_size(), 2048u);
	EXPECT_EQ(l.headroom, host::kOsLayout.rx_skb_headroom);
	EXPECT_EQ(l.frame_room, 2048u - 64 - 320);
	EXPECT_EQ(1u << l.log_num_strides, 32u);
	EXPECT_EQ(l.pages_per_wqe, 16u);
	EXPECT_EQ(l.log_wqes, 5u) << "1024 frames / 32 per WQE";
	EXPECT_EQ(l.wqe_segs(), 17u) << "16 pages and the headroom tail";
	EXPECT_EQ(1u << l.log_wqe_bytes, 512u);
	EXPECT_EQ(l.log_cqes, 10u) << "a CQE per stride";
}

/* XDP: one stride per page at the XDP headroom, whatever the MTU (up to the one-page limit). */
TEST(StridingParams, XdpIsOneLinearStridePerPage)
{
	for (uint32_t mtu : {68u, 1500u, 3498u}) {
		en::RqLayout l = layout(5, mtu, true);

		EXPECT_TRUE(l.linear);
		EXPECT_EQ(l.stride_size(), 4096u) << mtu;
		EXPECT_EQ(l.headroom, host::kOsLayout.rx_headroom) << mtu;
		EXPECT_GE(l.frame_room, mtu + 22) << mtu;
	}
	en::RqLayout l;
	EXPECT_FALSE(en::rx_striding_layout(caps_of(7), host::kOsLayout, 3499, 10, true, &l))
		<< "XDP never gets non-linear strides";
}

/* Jumbo frames: 256-byte strides, frames spanning strides and pages; the CQ is capped. */
TEST(StridingParams, JumboIsNonLinear)
{
	en::RqLayout l = layout(6, 9000, false);

	EXPECT_FALSE(l.linear);
	EXPECT_EQ(l.stride_size(), 256u);
	EXPECT_EQ(l.headroom, 0u);
	EXPECT_EQ(1u << l.log_num_strides, 256u);
	EXPECT_EQ(l.wqe_segs(), 16u);
	EXPECT_EQ(l.log_wqes, 8u) << "four 9 KiB frames a WQE";
	EXPECT_EQ(l.log_cqes, en::kMaxLogStridingCqes);
	/* the largest linear MTU: 4096 - 64 - 22 - 320 */
	EXPECT_TRUE(layout(7, 3690, false).linear);
	EXPECT_FALSE(layout(7, 3691, false).linear);
}

/* cx4 has no striding RQ; without the extended stride range only non-linear strides fit 256 KiB. */
TEST(StridingParams, DeviceCaps)
{
	en::RqLayout l;
	const char *why = nullptr;

	EXPECT_FALSE(en::striding_rq_ok(caps_of(4), &why));
	EXPECT_STREQ(why, "no striding RQ (multi-packet RX WQE) on this device");
	EXPECT_FALSE(en::rx_striding_layout(caps_of(4), host::kOsLayout, 1500, 10, false, &l));
	EXPECT_TRUE(en::striding_rq_ok(caps_of(5), nullptr));
	/* 512 strides of 2 KiB would be 1 MiB */
	EXPECT_FALSE(en::rx_striding_layout(caps_of(7, false), host::kOsLayout, 1500, 10, false, &l));
	l = layout(7, 9000, false, 10, false);
	EXPECT_EQ(1u << l.log_num_strides, 512u);
	EXPECT_EQ(l.pages_per_wqe, 32u);
	/* small rings still get their minimum of WQEs */
	EXPECT_EQ(layout(7, 1500, false, 6).log_wqes, en::kMinLogStridingWqes);
}

/*
 * RX buffer memory one 64-byte frame holds while it waits to be polled
 * (issue 13's deterministic benchmark figure, Documentation/performance.md):
 * a cyclic RQ's first fragment (it has no other), a striding RQ's strides.
 */
TEST(StridingParams, RxMemoryPer64ByteFrame)
{
	const uint32_t frame = 64;
	struct Row {
		uint32_t mtu, cyclic, striding;
	} rows[] = { { 1500, 2048, 2048 }, { 9000, 2048, 256 } };

	for (const Row &r : rows) {
		en::RqLayout c, s = layout(7, r.mtu, false);

		/* cyclic: the frame's first fragment (the others go back unused) */
		ASSERT_TRUE(en::rx_layout(host::kOsLayout, r.mtu, false, &c));
		uint32_t cyc = c.frag[0].stride;
		uint32_t str = s.linear ? s.stride_size()
					: (frame + s.stride_size() - 1) / s.stride_size() * s.stride_size();
		printf("RX memory per 64-byte frame at MTU %u: cyclic %u B, striding %u B (%ux less)\n",
		       r.mtu, cyc, str, cyc / str);
		EXPECT_EQ(cyc, r.cyclic) << r.mtu;
		EXPECT_EQ(str, r.striding) << r.mtu;
	}
}
