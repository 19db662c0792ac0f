// SPDX-License-Identifier: GPL-2.0
/*
 * XDP in the driver core, end to end through the device model, with a
 * native stand-in for the program (host::set_xdp_prog): every verdict, the
 * XDP_TX SQ (SEND and MPWQE, inline hysteresis, full, invalid, cx4), the
 * redirect target SQ (ndo_xdp_xmit), in-place recovery of both, and the
 * safe switch between channel sets under traffic.
 */
#include <algorithm>
#include <cstring>
#include <map>
#include <memory>
#include <set>

#include "en/channel.h"
#include "en_pair.h"
#include "softcx/errno.h"

using namespace enpair;
using frames::Bytes;

namespace {

constexpr uint32_t kHeadroom = host::kOsLayout.rx_headroom;	/* what en_pair's ports use */

Bytes swap_macs(Bytes f)
{
	for (int i = 0; i < 6; i++)
		std::swap(f[i], f[6 + i]);
	return f;
}

/* The reflect program: swap the MACs in place, send it back out. */
int reflect(void *, uint8_t *page, scx_xdp_buf *b)
{
	uint8_t *d = page + b->headroom;

	for (int i = 0; i < 6; i++)
		std::swap(d[i], d[6 + i]);
	return SCX_XDP_TX;
}

int verdict_prog(int v)
{
	host::set_xdp_prog([v](void *, uint8_t *, scx_xdp_buf *) { return v; });
	return v;
}

/* A frame of the redirect target SQ: the test owns the bytes, the core the mapping. */
struct XmitFrame {
	Bytes data;
	uint64_t dma = 0;
};

} /* namespace */

class Xdp : public Pair {
protected:
	void SetUp() override
	{
		host::reset();
		Options o;
		o.xdp_ports = 2;
		build(o);
	}
	void TearDown() override
	{
		Pair::TearDown();
		xmit_frames.clear();
	}

	/* Switch port to params through prepare + commit (as the shim does with NAPI off). */
	int switch_to(int port, const scx_port_params &prm)
	{
		auto chans = p[port].os_channels();
		int err = scx_port_prepare(p[port].port, &prm, chans.data());

		if (!err)
			scx_port_commit(p[port].port);
		return err;
	}

	/* Offer one frame to port's redirect target SQ; kept by the test until freed. */
	int xmit(int port, const Bytes &f, uint32_t ch_ix = 0)
	{
		auto fr = std::make_unique<XmitFrame>();
		scx_xdp_frame xf = {};

		fr->data = f;
		fr->dma = host::dma_map(fr->data.data(), (uint32_t)f.size(), SCX_DMA_SINGLE);
		xf.frame = fr.get();
		xf.data = fr->data.data();
		xf.dma = fr->dma;
		xf.len = (uint32_t)f.size();
		int err = scx_channel_xdp_xmit(ch(port, ch_ix), &xf);
		if (err) {
			host::dma_forget(fr->dma);	/* refused: still the caller's */
			return err;
		}
		xmit_frames.push_back(std::move(fr));
		return 0;
	}
	void flush(int port, int ring = 1, uint32_t ch_ix = 0)
	{
		scx_channel_xdp_xmit_flush(ch(port, ch_ix), ring);
	}

	std::vector<std::unique_ptr<XmitFrame>> xmit_frames;
};

/* ---- verdicts ---- */

TEST_F(Xdp, DropRecyclesInNapiAndCounts)
{
	verdict_prog(SCX_XDP_DROP);
	for (int i = 0; i < 10; i++)
		ASSERT_EQ(send(0, udp_frame(100, 1000, (uint8_t)i)), 0);
	EXPECT_EQ(poll(1), 10);
	EXPECT_EQ(rx(1).size(), 0u) << "nothing reaches the stack";
	EXPECT_EQ(stat(1, "rx_xdp_drop"), 10u);
	EXPECT_EQ(stat(1, "rx0_xdp_drop"), 10u);
	EXPECT_EQ(stat(1, "rx_packets"), 0u);
	EXPECT_EQ(stat(1, "rx_bytes"), 0u);
	EXPECT_EQ(host::rx_recycled(true), 10u) << "dropped pages go straight back, from NAPI";
	EXPECT_EQ(host::rx_recycled(false), 0u);
	scx_link_stats ls;
	scx_stats_refresh(p[1].port);
	scx_stats_link(p[1].port, &ls);
	EXPECT_EQ(ls.rx_packets, 0u);
	EXPECT_EQ(ls.rx_dropped, 0u) << "the program's drops are not driver drops";
	/* the ring refilled: traffic keeps flowing */
	ASSERT_EQ(send(0, udp_frame(100)), 0);
	poll(1);
	EXPECT_EQ(stat(1, "rx_xdp_drop"), 11u);
	EXPECT_EQ(stat(1, "rx_out_of_buffer"), 0u);
	poll(0);
}

TEST_F(Xdp, AbortedAndUnknownVerdictsAreDrops)
{
	for (int v : {(int)SCX_XDP_ABORTED, 7, -1}) {
		verdict_prog(v);
		ASSERT_EQ(send(0, udp_frame(80)), 0);
		poll(1);
	}
	EXPECT_EQ(stat(1, "rx_xdp_drop"), 3u);
	EXPECT_EQ(rx(1).size(), 0u);
	EXPECT_EQ(host::rx_recycled(true), 3u);
	poll(0);
}

TEST_F(Xdp, PassDeliversTheAdjustedFrame)
{
	/* push a 4-byte tag after the MACs (adjust_head -4), cut 3 bytes (adjust_tail), 8 bytes of meta */
	host::set_xdp_prog([](void *, uint8_t *page, scx_xdp_buf *b) {
		uint8_t *old = page + b->headroom;

		memmove(old - 4, old, 12);
		memcpy(old + 8, "\xde\xad\xbe\xef", 4);
		b->headroom -= 4;
		b->len += 4 - 3;
		b->meta_len = 8;
		memset(page + b->headroom - 8, 0x5a, 8);
		return SCX_XDP_PASS;
	});
	Bytes f = udp_frame(300);
	ASSERT_EQ(send(0, f), 0);
	poll(1);
	ASSERT_EQ(rx(1).size(), 1u);
	const host::RxRecord &r = rx(1)[0];
	Bytes want(f.begin(), f.begin() + 12);
	want.insert(want.end(), {0xde, 0xad, 0xbe, 0xef});
	want.insert(want.end(), f.begin() + 12, f.end() - 3);
	EXPECT_EQ(r.data, want);
	EXPECT_EQ(r.meta.headroom, kHeadroom - 4);
	EXPECT_EQ(r.meta.len, f.size() + 1);
	EXPECT_EQ(r.meta.meta_len, 8u);
	EXPECT_EQ(r.meta.csum, SCX_CSUM_UNNECESSARY);
	EXPECT_EQ(r.meta.hash_type, SCX_HASH_L4);
	EXPECT_EQ(stat(1, "rx_packets"), 1u);
	EXPECT_EQ(stat(1, "rx_bytes"), f.size() + 1);
	EXPECT_EQ(stat(1, "rx_xdp_drop"), 0u);

	/* pop the first 20 bytes (adjust_head +20) */
	host::set_xdp_prog([](void *, uint8_t *, scx_xdp_buf *b) {
		b->headroom += 20;
		b->len -= 20;
		return SCX_XDP_PASS;
	});
	ASSERT_EQ(send(0, f), 0);
	poll(1);
	ASSERT_EQ(rx(1).size(), 2u);
	EXPECT_EQ(rx(1)[1].data, Bytes(f.begin() + 20, f.end()));
	EXPECT_EQ(rx(1)[1].meta.meta_len, 0u);
	EXPECT_EQ(stat(1, "rx_bytes"), f.size() + 1 + f.size() - 20);
	poll(0);
}

TEST_F(Xdp, RedirectHandsThePageOver)
{
	verdict_prog(SCX_XDP_REDIRECT);
	Bytes f = udp_frame(120);
	for (int i = 0; i < 5; i++)
		ASSERT_EQ(send(0, f), 0);
	poll(1);
	EXPECT_EQ(stat(1, "rx_xdp_redirect"), 5u);
	EXPECT_EQ(stat(1, "rx_xdp_drop"), 0u);
	EXPECT_EQ(stat(1, "rx_packets"), 0u);
	ASSERT_EQ(host::xdp_redirected(&p[1].os_ch[0]).size(), 5u);
	EXPECT_EQ(host::xdp_redirected(&p[1].os_ch[0])[4], f);
	EXPECT_EQ(host::rx_recycled(true) + host::rx_recycled(false), 0u) << "the OS owns them";
	poll(0);
}

TEST_F(Xdp, ProgramSeesEveryFrameOnEveryChannel)
{
	Options o;
	o.nch = 4;
	o.xdp_ports = 2;
	build(o);
	std::map<void *, int> seen;
	host::set_xdp_prog([&](void *os_ch, uint8_t *, scx_xdp_buf *b) {
		seen[os_ch]++;
		EXPECT_EQ(b->frame_sz, 4096u);
		EXPECT_EQ(b->headroom, kHeadroom);
		return (b->len & 1) ? SCX_XDP_DROP : SCX_XDP_PASS;
	});
	uint64_t odd = 0;
	for (uint16_t sport = 1000; sport < 1064; sport++) {
		Bytes f = udp_frame(60 + sport % 7, sport);
		odd += f.size() & 1;
		ASSERT_EQ(send(0, f), 0);
		poll(0);
	}
	poll(1);
	EXPECT_GE(seen.size(), 3u);
	EXPECT_EQ(stat(1, "rx_xdp_drop"), odd);
	EXPECT_EQ(stat(1, "rx_packets"), 64 - odd);
	uint64_t sum = 0;
	for (int i = 0; i < 4; i++)
		sum += stat(1, "rx" + std::to_string(i) + "_xdp_drop");
	EXPECT_EQ(sum, odd);
}

/* ---- multi-buffer frames (MTU 9000, a program that takes them) ---- */

namespace {

/* The first buffer's room at MTU 9000: a page less the headroom and the fragment list's room. */
constexpr uint32_t kFirstRoom = 4096 - kHeadroom - host::kOsLayout.rx_tailroom;

/* The frame as the program sees it: the first buffer's bytes, then each fragment's. */
Bytes xdp_bytes(const uint8_t *page, const scx_xdp_buf *b)
{
	Bytes f(page + b->headroom, page + b->headroom + b->len);

	for (uint32_t i = 0; i < b->nr_frags; i++) {
		const uint8_t *q = static_cast<const uint8_t *>(b->frags[i].page) + b->frags[i].off;
		f.insert(f.end(), q, q + b->frags[i].len);
	}
	return f;
}

} /* namespace */

class XdpMb : public Xdp {
protected:
	void SetUp() override
	{
		host::reset();
		build(opts());
	}
	static Options opts(bool mpwqe = false, int model = 7)
	{
		Options o;
		o.model = model;
		o.mtu = 9000;
		o.xdp_ports = 2;
		o.xdp_frags = true;
		o.xdp_mpwqe = mpwqe;
		return o;
	}
	/* UDP frames of these total lengths (Ethernet header to the end) */
	static std::vector<Bytes> frames_of(std::initializer_list<size_t> lens)
	{
		std::vector<Bytes> v;
		uint8_t seed = 1;

		for (size_t len : lens)
			v.push_back(udp_frame(len - udp_frame(0).size(), 1000, seed++));
		return v;
	}
};

TEST_F(XdpMb, OnlyAProgramThatTakesThemGetsAnMtuPastAPage)
{
	scx_port_params prm = params(9000, 1);
	prm.xdp_frags = 0;
	EXPECT_EQ(switch_to(1, prm), -SCX_EINVAL) << "a single-buffer program needs a frame in one page";
	prm.xdp_frags = 1;
	EXPECT_EQ(switch_to(1, prm), 0);
	prm.rx_striding = 1;
	EXPECT_EQ(switch_to(1, prm), 0) << "striding asked for: the cyclic RQ takes the frame in pages";
	Bytes f = udp_frame(8000);
	ASSERT_EQ(send(0, f), 0);
	poll(1);
	ASSERT_EQ(rx(1).size(), 1u);
	EXPECT_EQ(rx(1)[0].data, f);
	poll(0);
}

TEST_F(XdpMb, PassDeliversEveryBufferByteExact)
{
	std::vector<std::pair<uint32_t, uint32_t>> seen;	/* nr_frags, whole length */
	host::set_xdp_prog([&seen](void *, uint8_t *page, scx_xdp_buf *b) {
		seen.emplace_back(b->nr_frags, (uint32_t)xdp_bytes(page, b).size());
		return SCX_XDP_PASS;
	});
	auto fs = frames_of({100, kFirstRoom, kFirstRoom + 1, kFirstRoom + 4096, kFirstRoom + 4097,
			     9014});
	uint64_t bytes = 0;
	for (const Bytes &f : fs) {
		ASSERT_EQ(send(0, f), 0);
		bytes += f.size();
	}
	poll(1);
	ASSERT_EQ(seen.size(), fs.size());
	const uint32_t want_frags[] = {0, 0, 1, 1, 2, 2};
	for (size_t i = 0; i < fs.size(); i++) {
		EXPECT_EQ(seen[i].first, want_frags[i]) << i;
		EXPECT_EQ(seen[i].second, fs[i].size()) << i;
	}
	ASSERT_EQ(rx(1).size(), fs.size());
	for (size_t i = 0; i < fs.size(); i++) {
		EXPECT_EQ(rx(1)[i].data, fs[i]) << i;
		EXPECT_EQ(rx(1)[i].xdp_frags, want_frags[i]) << i;
		EXPECT_EQ(rx(1)[i].truesize, 4096u * (1 + want_frags[i])) << i;
	}
	EXPECT_EQ(stat(1, "rx_packets"), fs.size());
	EXPECT_EQ(stat(1, "rx_bytes"), bytes) << "every buffer's bytes";
	EXPECT_EQ(stat(1, "rx_xdp_drop"), 0u);
	/* a WQE's pages the frame did not fill went back at once */
	EXPECT_EQ(host::rx_recycled(true), 2u + 2u + 1u + 1u);
	poll(0);
}

TEST_F(XdpMb, DropRecyclesEveryPage)
{
	verdict_prog(SCX_XDP_DROP);
	for (const Bytes &f : frames_of({100, 5000, 9014}))
		ASSERT_EQ(send(0, f), 0);
	verdict_prog(SCX_XDP_ABORTED);
	ASSERT_EQ(send(0, udp_frame(8000)), 0);
	EXPECT_EQ(poll(1), 4);
	EXPECT_EQ(rx(1).size(), 0u);
	EXPECT_EQ(stat(1, "rx_xdp_drop"), 4u);
	EXPECT_EQ(host::rx_recycled(true), 4u * 3u) << "the three pages of each WQE";
	EXPECT_EQ(host::rx_recycled(false), 0u);
	poll(0);
}

/*
 * bpf_xdp_adjust_tail on a multi-buffer frame: cutting into the last
 * fragment shrinks it, cutting past it frees whole fragments (the kernel
 * gives their pages back); what is left is delivered, or sent.
 */
TEST_F(XdpMb, ShrunkTailLeavesTheRestToTheKernel)
{
	int verdict = SCX_XDP_PASS;
	host::set_xdp_prog([&verdict](void *, uint8_t *page, scx_xdp_buf *b) {
		if (verdict == SCX_XDP_TX)
			for (int i = 0; i < 6; i++)
				std::swap(page[b->headroom + i], page[b->headroom + 6 + i]);
		/* keep the first buffer and 100 bytes of the first fragment */
		b->nr_frags = 1;
		b->frags[0].len = 100;
		return verdict;
	});
	Bytes f = udp_frame(8500);	/* three buffers */
	Bytes want(f.begin(), f.begin() + kFirstRoom + 100);
	ASSERT_EQ(send(0, f), 0);
	poll(1);
	ASSERT_EQ(rx(1).size(), 1u);
	EXPECT_EQ(rx(1)[0].data, want);
	EXPECT_EQ(rx(1)[0].xdp_frags, 1u);
	EXPECT_EQ(stat(1, "rx_bytes"), want.size());
	EXPECT_EQ(host::rx_recycled(true), 0u) << "the cut page went back through the kernel";

	verdict = SCX_XDP_TX;
	ASSERT_EQ(send(0, f), 0);
	poll(1);
	poll(0);
	ASSERT_EQ(rx(0).size(), 1u);
	EXPECT_EQ(rx(0)[0].data, swap_macs(want));
	uint64_t before = host::rx_recycled(true);	/* port 0's unfilled fragments */
	poll(1);
	EXPECT_EQ(host::rx_recycled(true), before + 2) << "the two pages sent, on completion";
	verdict = SCX_XDP_DROP;
	ASSERT_EQ(send(0, f), 0);
	poll(1);
	EXPECT_EQ(host::rx_recycled(true), before + 4);
	EXPECT_EQ(stat(1, "rx_xdp_drop"), 1u);
	poll(0);
}

TEST_F(XdpMb, RedirectTakesEveryPage)
{
	verdict_prog(SCX_XDP_REDIRECT);
	Bytes f = udp_frame(8000);
	ASSERT_EQ(send(0, f), 0);
	poll(1);
	EXPECT_EQ(stat(1, "rx_xdp_redirect"), 1u);
	ASSERT_EQ(host::xdp_redirected(&p[1].os_ch[0]).size(), 1u);
	EXPECT_EQ(host::xdp_redirected(&p[1].os_ch[0])[0], f);
	EXPECT_EQ(host::rx_recycled(true), 0u) << "all three pages filled: the OS owns them";
	poll(0);
}

class XdpMbTx : public XdpMb, public ::testing::WithParamInterface<std::tuple<bool, int>> {};

/* Single- and multi-buffer frames reflected in order; SEND WQEs for the latter, MPWQE or not. */
TEST_P(XdpMbTx, ReflectedFramesArriveByteExactInOrder)
{
	auto [mpwqe, model] = GetParam();
	build(opts(mpwqe, model));
	host::set_xdp_prog(reflect);
	auto fs = frames_of({100, 9014, 120, 140, kFirstRoom + 1, 5000, 160});
	for (const Bytes &f : fs)
		ASSERT_EQ(post(0, f), 0);
	doorbell(0);
	poll(1);
	const uint64_t unfilled = 2 + 0 + 2 + 2 + 1 + 1 + 2;	/* pages of the WQEs the frames left */
	EXPECT_EQ(host::rx_recycled(true), unfilled);
	poll(0);
	ASSERT_EQ(rx(0).size(), fs.size());
	for (size_t i = 0; i < fs.size(); i++)
		EXPECT_EQ(rx(0)[i].data, swap_macs(fs[i])) << i;
	EXPECT_EQ(stat(1, "rx_xdp_tx_xmit"), fs.size());
	EXPECT_EQ(stat(1, "rx_xdp_tx_err"), 0u);
	EXPECT_EQ(stat(1, "rx_xdp_tx_full"), 0u);
	/* sessions: 100 | 120 140 | 160, each closed by the multi-buffer frame after it */
	EXPECT_EQ(stat(1, "rx_xdp_tx_mpwqe"), mpwqe ? 3u : 0u);
	uint64_t before = host::rx_recycled(true);	/* with port 0's unfilled fragments */
	poll(1);
	EXPECT_EQ(host::rx_recycled(true), before + 3 * fs.size() - unfilled)
		<< "every page sent back to the pool on completion";
	EXPECT_EQ(stat(1, "rx_xdp_tx_cqe"), 1u);
	poll(0);
}

INSTANTIATE_TEST_SUITE_P(MpwqeModel, XdpMbTx,
			 ::testing::Values(std::make_tuple(false, 7), std::make_tuple(true, 7),
					   std::make_tuple(false, 4)));

/* A full XDP_TX SQ refuses a multi-buffer frame whole: counted, traced, every page back. */
TEST_F(XdpMb, FullSqRefusesTheWholeFrame)
{
	Options o = opts();
	o.log_sq = 6;
	o.log_rq = 8;
	build(o);
	host::set_xdp_prog(reflect);
	Bytes f = udp_frame(8000);
	const int n = 40;	/* two WQEBBs each: more than 64 */
	for (int i = 0; i < n; i++)
		ASSERT_EQ(post(0, f), 0);
	doorbell(0);
	poll(1);
	uint64_t sent = stat(1, "rx_xdp_tx_xmit"), full = stat(1, "rx_xdp_tx_full");
	EXPECT_GT(full, 0u);
	EXPECT_EQ(sent + full, (uint64_t)n);
	EXPECT_EQ(stat(1, "rx_xdp_drop"), full);
	EXPECT_EQ(host::xdp_exceptions(&p[1].os_ch[0], SCX_XDP_TX), full);
	EXPECT_EQ(host::rx_recycled(true), 3 * full) << "a refused frame's pages back at once";
	poll(0);
	EXPECT_EQ(rx(0).size(), sent);
	poll(1);
	poll(0);
}

/* ---- XDP_TX ---- */

class XdpTx : public Xdp, public ::testing::WithParamInterface<bool> {};

TEST_P(XdpTx, ReflectedFramesArriveByteExact)
{
	Options o;
	o.xdp_ports = 2;
	o.xdp_mpwqe = GetParam();
	build(o);
	uint64_t recycled_before = host::rx_recycled(false);	/* the rebuild's */
	host::set_xdp_prog(reflect);
	std::vector<Bytes> sent;
	for (int i = 0; i < 10; i++) {
		sent.push_back(udp_frame(40 + 37 * i, 1000, (uint8_t)i));
		ASSERT_EQ(post(0, sent.back()), 0);
	}
	doorbell(0);
	scx_tx_done done = {};
	EXPECT_EQ(scx_channel_poll(ch(1), 64, &done), 10);	/* one poll: one XDP doorbell */
	poll(0);
	ASSERT_EQ(rx(0).size(), 10u);
	for (int i = 0; i < 10; i++)
		EXPECT_EQ(rx(0)[i].data, swap_macs(sent[i])) << i;
	EXPECT_EQ(stat(1, "rx_xdp_tx_xmit"), 10u);
	EXPECT_EQ(stat(1, "rx0_xdp_tx_xmit"), 10u);
	EXPECT_EQ(stat(1, "rx_xdp_tx_mpwqe"), GetParam() ? 1u : 0u);
	EXPECT_EQ(stat(1, "rx_xdp_tx_inlnw"), 0u);
	EXPECT_EQ(stat(1, "rx_xdp_tx_full"), 0u);
	EXPECT_EQ(stat(1, "rx_xdp_tx_err"), 0u);
	EXPECT_EQ(stat(1, "rx_xdp_tx_cqe"), 0u) << "not polled yet";
	EXPECT_EQ(stat(1, "rx_packets"), 0u);
	EXPECT_EQ(stat(1, "rx_xdp_drop"), 0u);
	EXPECT_EQ(stat(1, "tx_packets"), 0u) << "XDP_TX is not stack TX";
	EXPECT_EQ(stat(0, "rx_packets"), 10u);
	EXPECT_EQ(host::rx_recycled(true), 0u) << "the SQ holds the pages";

	/* the next poll completes them: pages back to the pool, from NAPI */
	poll(1);
	EXPECT_EQ(stat(1, "rx_xdp_tx_cqe"), 1u);
	EXPECT_EQ(host::rx_recycled(true), 10u);
	EXPECT_EQ(host::rx_recycled(false), recycled_before);
	poll(0);
}

TEST_P(XdpTx, FullSqRefusesCountsAndTraces)
{
	Options o;
	o.xdp_ports = 2;
	o.xdp_mpwqe = GetParam();
	o.log_sq = 6;
	o.log_rq = 8;
	build(o);
	host::set_xdp_prog(reflect);
	const int n = 200;
	for (int i = 0; i < n; i++) {
		ASSERT_EQ(post(0, udp_frame(60, 1000, (uint8_t)i)), 0) << i;
		if (i % 40 == 39) {	/* the sender's SQ is small too */
			doorbell(0);
			poll(0);
		}
	}
	scx_tx_done done = {};
	EXPECT_EQ(scx_channel_poll(ch(1), 256, &done), n);
	uint64_t xmit = stat(1, "rx_xdp_tx_xmit"), full = stat(1, "rx_xdp_tx_full");
	if (!GetParam()) {
		EXPECT_EQ(xmit, 64u) << "one WQEBB per frame, 64 WQEBBs";
	} else {
		/* 15-WQEBB sessions of 58 frames, each opened with 29 WQEBBs free */
		EXPECT_EQ(xmit, 3u * 58);
		EXPECT_EQ(stat(1, "rx_xdp_tx_mpwqe"), 3u);
	}
	EXPECT_EQ(full, n - xmit);
	EXPECT_EQ(stat(1, "rx_xdp_drop"), full);
	EXPECT_EQ(host::xdp_exceptions(&p[1].os_ch[0], SCX_XDP_TX), full);
	EXPECT_EQ(host::rx_recycled(true), full);
	poll(0);
	EXPECT_EQ(rx(0).size(), xmit);
	/* completions free the ring: XDP_TX works again */
	poll(1);
	ASSERT_EQ(send(0, udp_frame(60)), 0);
	poll(1);
	EXPECT_EQ(stat(1, "rx_xdp_tx_xmit"), xmit + 1);
	poll(0);
	EXPECT_EQ(rx(0).size(), xmit + 1);
}

TEST_P(XdpTx, InvalidFramesAreErrors)
{
	Options o;
	o.xdp_ports = 2;
	o.xdp_mpwqe = GetParam();
	build(o);
	/* grow the tail beyond MTU + 22, or cut the frame below an Ethernet header */
	uint32_t want_len = 0;
	host::set_xdp_prog([&](void *, uint8_t *, scx_xdp_buf *b) {
		b->len = want_len;
		return SCX_XDP_TX;
	});
	for (uint32_t len : {1500u + 22 + 1, 13u, 3000u}) {
		want_len = len;
		ASSERT_EQ(send(0, udp_frame(100)), 0);
		poll(1);
	}
	EXPECT_EQ(stat(1, "rx_xdp_tx_err"), 3u);
	EXPECT_EQ(stat(1, "rx_xdp_drop"), 3u);
	EXPECT_EQ(stat(1, "rx_xdp_tx_xmit"), 0u);
	EXPECT_EQ(host::xdp_exceptions(&p[1].os_ch[0], SCX_XDP_TX), 3u);
	/* exactly the largest frame is fine */
	want_len = 1500 + 22;
	ASSERT_EQ(send(0, udp_frame(1400)), 0);
	poll(1);
	EXPECT_EQ(stat(1, "rx_xdp_tx_xmit"), 1u);
	poll(0);
	ASSERT_EQ(rx(0).size(), 1u);
	EXPECT_EQ(rx(0)[0].data.size(), 1522u);
}

INSTANTIATE_TEST_SUITE_P(MpwqeOffOn, XdpTx, ::testing::Bool());

/*
 * Inline hysteresis: sessions opened while >= 128 frames are outstanding
 * inline small frames; once completions bring it to <= 10, pointers again.
 */
TEST_F(Xdp, MpwqeInlineHysteresis)
{
	Options o;
	o.xdp_ports = 2;
	o.xdp_mpwqe = true;
	o.log_sq = 10;
	o.log_rq = 9;
	build(o);
	host::set_xdp_prog(reflect);
	std::vector<Bytes> sent;
	const int n = 300;
	for (int i = 0; i < n; i++) {
		sent.push_back(udp_frame(30 + i % 40, (uint16_t)(1000 + i), (uint8_t)i));
		ASSERT_EQ(post(0, sent.back()), 0);
	}
	doorbell(0);
	scx_tx_done done = {};
	EXPECT_EQ(scx_channel_poll(ch(1), 512, &done), n);
	/* sessions open with 0, 58, 116 outstanding (pointers), then 174 (inline) */
	EXPECT_EQ(stat(1, "rx_xdp_tx_xmit"), (uint64_t)n);
	EXPECT_EQ(stat(1, "rx_xdp_tx_inlnw"), (uint64_t)(n - 3 * 58));
	uint64_t sessions = stat(1, "rx_xdp_tx_mpwqe");
	EXPECT_GT(sessions, 4u);
	poll(0);
	ASSERT_EQ(rx(0).size(), (size_t)n);
	for (int i = 0; i < n; i++)
		ASSERT_EQ(rx(0)[i].data, swap_macs(sent[i])) << i;

	/* everything completed: the next session carries pointers again */
	poll(1);
	EXPECT_EQ(host::rx_recycled(true), (uint64_t)n);
	for (int i = 0; i < 20; i++)
		ASSERT_EQ(post(0, udp_frame(50, 1000, (uint8_t)i)), 0);
	doorbell(0);
	poll(1);
	EXPECT_EQ(stat(1, "rx_xdp_tx_inlnw"), (uint64_t)(n - 3 * 58));
	EXPECT_EQ(stat(1, "rx_xdp_tx_mpwqe"), sessions + 1);
	poll(0);
	EXPECT_EQ(rx(0).size(), (size_t)n + 20);
}

TEST_F(Xdp, Cx4InlinesHeadersAndHasNoMpwqe)
{
	Options o;
	o.model = 4;
	o.xdp_ports = 2;
	build(o);
	scx_port_caps caps;
	scx_port_get_caps(p[1].port, &caps);
	EXPECT_EQ(caps.xdp_tx_mpwqe, 0u);
	EXPECT_EQ(caps.min_inline, 18u);
	scx_port_params prm = params(1500, 1);
	prm.xdp_tx_mpwqe = 1;
	auto chans = p[1].os_channels();
	EXPECT_EQ(scx_port_prepare(p[1].port, &prm, chans.data()), -SCX_EOPNOTSUPP);

	host::set_xdp_prog(reflect);
	std::vector<Bytes> sent;
	for (size_t pl : {0u, 4u, 200u, 1400u}) {
		sent.push_back(udp_frame(pl, 1000, (uint8_t)pl));
		ASSERT_EQ(send(0, sent.back()), 0);
	}
	poll(1);
	poll(0);
	ASSERT_EQ(rx(0).size(), sent.size());
	for (size_t i = 0; i < sent.size(); i++)
		EXPECT_EQ(rx(0)[i].data, swap_macs(sent[i]));
	EXPECT_EQ(stat(1, "rx_xdp_tx_xmit"), sent.size());
	EXPECT_EQ(stat(1, "rx_xdp_tx_mpwqe"), 0u);
	/* shorter than the inline headers: refused, not sent as a bad WQE */
	host::set_xdp_prog([](void *, uint8_t *, scx_xdp_buf *b) {
		b->len = 17;
		return SCX_XDP_TX;
	});
	ASSERT_EQ(send(0, udp_frame(100)), 0);
	poll(1);
	EXPECT_EQ(stat(1, "rx_xdp_tx_err"), 1u);
	poll(1);
	EXPECT_EQ(stat(1, "rx_xdp_tx_err"), 1u) << "no error CQE followed";
	poll(0);
}

/* ---- redirect target SQ (ndo_xdp_xmit) ---- */

class XdpXmit : public Xdp, public ::testing::WithParamInterface<bool> {};

TEST_P(XdpXmit, FramesArriveAndAreFreedOnce)
{
	Options o;
	o.xdp_mpwqe = GetParam();
	o.log_rq = 6;
	build(o);	/* no program anywhere: the redirect SQ always exists */
	std::vector<Bytes> sent;
	for (int i = 0; i < 40; i++) {
		sent.push_back(udp_frame(10 + 31 * i, 1000, (uint8_t)i));
		ASSERT_EQ(xmit(0, sent.back()), 0);
	}
	flush(0, 0);
	poll(1);
	EXPECT_EQ(rx(1).size(), 0u) << "no doorbell without XDP_XMIT_FLUSH";
	flush(0, 1);
	poll(1);
	ASSERT_EQ(rx(1).size(), 40u);
	for (int i = 0; i < 40; i++)
		EXPECT_EQ(rx(1)[i].data, sent[i]) << i;
	EXPECT_EQ(stat(0, "tx_xdp_xmit"), 40u);
	EXPECT_EQ(stat(0, "tx0_xdp_xmit"), 40u);
	EXPECT_EQ(stat(0, "tx_xdp_mpwqe"), GetParam() ? 1u : 0u);
	EXPECT_EQ(stat(0, "tx_packets"), 0u);
	EXPECT_EQ(host::dma_tx_mappings(), 40u);
	poll(0);
	EXPECT_EQ(stat(0, "tx_xdp_cqes"), 1u);
	const auto &freed = host::xdp_frames_freed(&p[0].os_ch[0]);
	ASSERT_EQ(freed.size(), 40u);
	std::set<void *> uniq(freed.begin(), freed.end());
	EXPECT_EQ(uniq.size(), 40u) << "every frame exactly once";
	for (auto &f : xmit_frames)
		EXPECT_TRUE(uniq.count(f.get()));
	/* other pools' frames: back in bulks of 16 from NAPI, never one by one "direct" */
	EXPECT_EQ(host::xdp_frame_bulks(&p[0].os_ch[0]), 3u);
	EXPECT_EQ(host::dma_tx_mappings(), 0u);
}

TEST_P(XdpXmit, RefusalsLeaveTheFrameToTheCaller)
{
	Options o;
	o.xdp_mpwqe = GetParam();
	o.log_sq = 6;
	o.log_rq = 8;
	build(o);
	EXPECT_EQ(xmit(0, udp_frame(1500)), -SCX_EINVAL) << "longer than MTU + 22";
	EXPECT_EQ(xmit(0, Bytes(13, 0xaa)), -SCX_EINVAL) << "shorter than an Ethernet header";
	EXPECT_EQ(stat(0, "tx_xdp_err"), 2u);
	int ok = 0, err = 0;
	for (int i = 0; i < 200 && !err; i++) {
		err = xmit(0, udp_frame(60, 1000, (uint8_t)i));
		ok += !err;
	}
	EXPECT_EQ(err, -SCX_ENOSPC);
	EXPECT_EQ(ok, GetParam() ? 3 * 58 : 64);
	EXPECT_EQ(stat(0, "tx_xdp_full"), 1u);
	EXPECT_EQ(stat(0, "tx_xdp_xmit"), (uint64_t)ok);
	/* full rang what was posted: it is on the wire, completions make room */
	flush(0);
	poll(1);
	EXPECT_EQ(rx(1).size(), (size_t)ok);
	poll(0);
	EXPECT_EQ(host::xdp_frames_freed(&p[0].os_ch[0]).size(), (size_t)ok);
	EXPECT_EQ(xmit(0, udp_frame(60)), 0);
	flush(0);
	poll(1);
	EXPECT_EQ(rx(1).size(), (size_t)ok + 1);
	poll(0);
}

INSTANTIATE_TEST_SUITE_P(MpwqeOffOn, XdpXmit, ::testing::Bool());

TEST_F(Xdp, XmitInlineHysteresis)
{
	Options o;
	o.xdp_mpwqe = true;
	o.log_sq = 10;
	o.log_rq = 9;
	build(o);
	std::vector<Bytes> sent;
	for (int i = 0; i < 200; i++) {
		sent.push_back(udp_frame(20 + i % 100, (uint16_t)(2000 + i), (uint8_t)i));
		ASSERT_EQ(xmit(0, sent.back()), 0);
	}
	flush(0);
	/* sessions opened at 0, 58, 116 outstanding: pointers; at 174: inline */
	EXPECT_EQ(stat(0, "tx_xdp_inlnw"), 200u - 3 * 58);
	poll(1);
	ASSERT_EQ(rx(1).size(), 200u);
	for (int i = 0; i < 200; i++)
		ASSERT_EQ(rx(1)[i].data, sent[i]) << i;
	poll(0);
	EXPECT_EQ(host::xdp_frames_freed(&p[0].os_ch[0]).size(), 200u);
	ASSERT_EQ(xmit(0, udp_frame(60)), 0);
	flush(0);
	EXPECT_EQ(stat(0, "tx_xdp_inlnw"), 200u - 3 * 58) << "caught up: pointers again";
	poll(1);
	poll(0);
}

/* The marks exactly: on at 128 outstanding (not 127), off at 10 (not 11). */
TEST_F(Xdp, InlineHysteresisMarks)
{
	for (int k : {9, 10}) {
		Options o;
		o.xdp_mpwqe = true;
		o.log_sq = 10;
		o.log_rq = 8;
		build(o);
		host::reset();
		auto inlnw = [&] { return stat(0, "tx_xdp_inlnw"); };
		/* 127 - k frames rung, k more posted: 127 outstanding, a session opens: pointers */
		for (int i = 0; i < 127 - k; i++)
			ASSERT_EQ(xmit(0, udp_frame(40, 1000, (uint8_t)i)), 0);
		flush(0, 1);
		for (int i = 0; i < k; i++)
			ASSERT_EQ(xmit(0, udp_frame(40, 2000, (uint8_t)i)), 0);
		flush(0, 0);
		ASSERT_EQ(xmit(0, udp_frame(40)), 0);
		flush(0, 0);
		EXPECT_EQ(inlnw(), 0u) << "127 outstanding";
		/* 128 outstanding: inline on */
		ASSERT_EQ(xmit(0, udp_frame(40)), 0);
		flush(0, 0);
		EXPECT_EQ(inlnw(), 1u) << "128 outstanding";
		/* the rung batch completes: k + 2 outstanding remain; on stays on above 10 */
		poll(0);
		ASSERT_EQ(xmit(0, udp_frame(40)), 0);
		flush(0, 0);
		EXPECT_EQ(inlnw(), k + 2 > 10 ? 2u : 1u) << (k + 2) << " outstanding";
		flush(0, 1);
		poll(1);
		poll(0);
		EXPECT_EQ(rx(1).size(), 127u + 2 + 1);
		EXPECT_EQ(host::xdp_frames_freed(&p[0].os_ch[0]).size(), 127u + 2 + 1);
		xmit_frames.clear();
	}
}

/* ---- error CQEs on XDP SQs: recovered in place, in NAPI ---- */

TEST_F(Xdp, XdpTxSqRecoversInPlace)
{
	host::set_xdp_prog(reflect);
	ch(1)->xdpsq.lkey.set(0xbad);	/* the next WQE carries a bad key */
	for (int i = 0; i < 3; i++)
		ASSERT_EQ(send(0, udp_frame(100, 1000, (uint8_t)i)), 0);
	poll(1);	/* posts (rung), the device answers with an error CQE */
	EXPECT_EQ(rx(0).size(), 0u);
	poll(1);	/* sees the error CQE and recovers */
	EXPECT_EQ(stat(1, "rx_xdp_tx_err"), 1u);
	EXPECT_EQ(stat(1, "rx_xdp_tx_recover"), 1u);
	EXPECT_EQ(stat(1, "rx0_xdp_tx_recover"), 1u);
	EXPECT_EQ(stat(1, "rx_xdp_tx_cqe"), stat(1, "rx0_xdp_tx_cqes")) << "mlx5's per-channel name";
	EXPECT_FALSE(ch(1)->xdpsq.recovering);
	EXPECT_EQ(host::recovered(&p[1].os_ch[0], SCX_OS_QUEUE_XDPSQ), std::vector<int>{ 0 })
		<< "the OS hears of it (devlink health \"tx\")";
	EXPECT_EQ(host::rx_recycled(false), 3u) << "the flushed pages went back";
	Bytes f = udp_frame(100);
	ASSERT_EQ(send(0, f), 0);
	poll(1);
	poll(0);
	ASSERT_EQ(rx(0).size(), 1u);
	EXPECT_EQ(rx(0)[0].data, swap_macs(f));
	poll(1);
}

TEST_F(Xdp, XmitSqRecoversInPlace)
{
	ch(0)->xmitsq.lkey.set(0xbad);
	for (int i = 0; i < 4; i++)
		ASSERT_EQ(xmit(0, udp_frame(100, 1000, (uint8_t)i)), 0);
	flush(0);
	EXPECT_EQ(rx_total(1), 0u);
	poll(0);	/* error CQE, flush, RST, RDY: every frame returned once */
	EXPECT_EQ(stat(0, "tx_xdp_err"), 1u);
	EXPECT_EQ(stat(0, "tx_xdp_recover"), 1u);
	EXPECT_EQ(host::xdp_frames_freed(&p[0].os_ch[0]).size(), 4u);
	EXPECT_EQ(host::dma_tx_mappings(), 0u);
	ASSERT_EQ(xmit(0, udp_frame(100)), 0);
	flush(0);
	poll(1);
	EXPECT_EQ(rx(1).size(), 1u);
	poll(0);
	EXPECT_EQ(host::xdp_frames_freed(&p[0].os_ch[0]).size(), 5u);
}

TEST_F(Xdp, XmitWaitsForRecoveryInProgress)
{
	/* while the recovery owns the SQ, a producer is refused as full, and vice versa */
	scx_channel *c = ch(0);
	c->xmitsq.recovering = true;
	EXPECT_EQ(xmit(0, udp_frame(100)), -SCX_ENOSPC);
	EXPECT_EQ(stat(0, "tx_xdp_full"), 1u);
	c->xmitsq.recovering = false;
	c->xmitsq.lkey.set(0xbad);
	ASSERT_EQ(xmit(0, udp_frame(100)), 0);
	flush(0);	/* error CQE */
	c->xmitsq.xmit_busy = 1;	/* a producer inside: the recovery must wait */
	scx_tx_done done = {};
	EXPECT_EQ(scx_channel_poll(c, 64, &done), 64) << "recovery pending: poll again";
	EXPECT_TRUE(c->xmitsq.recovering);
	c->xmitsq.xmit_busy = 0;
	EXPECT_EQ(stat(0, "tx_xdp_recover"), 0u);
	poll(0);
	EXPECT_FALSE(c->xmitsq.recovering);
	EXPECT_EQ(stat(0, "tx_xdp_recover"), 1u);
	EXPECT_EQ(host::xdp_frames_freed(&p[0].os_ch[0]).size(), 1u);
}

/* ---- parameters and the safe switch ---- */

TEST_F(Xdp, MtuMustFitOnePage)
{
	scx_port_params prm = params(3498, 1);	/* 256 + 3498 + 22 + 320 = 4096 */
	EXPECT_EQ(switch_to(1, prm), 0);
	prm = params(3499, 1);
	EXPECT_EQ(switch_to(1, prm), -SCX_EINVAL);
	prm.xdp = 0;
	EXPECT_EQ(switch_to(1, prm), 0) << "without a program an order-1 buffer will do";
}

TEST_F(Xdp, FailedPrepareLeavesTheLiveSetRunning)
{
	verdict_prog(SCX_XDP_DROP);
	scx_port_params bad = params(9000, 1);
	auto chans = p[1].os_channels();
	scx_channel *live = ch(1);
	EXPECT_EQ(scx_port_prepare(p[1].port, &bad, chans.data()), -SCX_EINVAL);
	EXPECT_EQ(ch(1), live);
	ASSERT_EQ(send(0, udp_frame(100)), 0);
	poll(1);
	EXPECT_EQ(stat(1, "rx_xdp_drop"), 1u);
	scx_port_params ok = params(1500, 1);
	ASSERT_EQ(scx_port_prepare(p[1].port, &ok, chans.data()), 0);
	EXPECT_EQ(scx_port_prepare(p[1].port, &ok, chans.data()), -SCX_EBUSY) << "one at a time";
	EXPECT_EQ(ch(1), live) << "prepared is not live";
	scx_port_abort(p[1].port);
	poll(0);
}

/*
 * Attach and detach under traffic: frames sent at every step end up
 * delivered, dropped by the program, or in a counter; no page, mapping or
 * frame leaks (the fixture checks at teardown), and counters carry across.
 */
TEST_F(Xdp, SafeSwitchUnderTrafficLosesNothingUncounted)
{
	Options o;
	o.nch = 2;
	o.log_rq = 5;
	build(o);	/* no program yet */
	host::set_xdp_prog([](void *, uint8_t *, scx_xdp_buf *b) {
		return (b->len & 1) ? SCX_XDP_DROP : SCX_XDP_PASS;
	});
	uint64_t sent = 0;
	uint16_t sport = 1000;
	auto burst = [&](int n) {
		for (int i = 0; i < n; i++) {
			ASSERT_EQ(send(0, udp_frame(60 + sport % 5, sport)), 0);
			sport++;
			sent++;
		}
		poll(0);
	};
	auto accounted = [&]() {
		return stat(1, "rx_packets") + stat(1, "rx_xdp_drop") + stat(1, "rx_flushed") +
		       stat(1, "rx_out_of_buffer") + stat(1, "rx_if_down_packets");
	};
	auto chans = p[1].os_channels();

	burst(20);
	poll(1);
	burst(10);	/* left unpolled in the old set */
	scx_port_params attach = params(1500, 1);
	attach.xdp = 1;
	ASSERT_EQ(scx_port_prepare(p[1].port, &attach, chans.data()), 0);
	burst(12);	/* steered to the prepared set, waiting there */
	poll(1);	/* the live (old) set still runs: its 10 pending frames go up */
	EXPECT_EQ(stat(1, "rx_packets"), 30u);
	burst(3);
	scx_port_commit(p[1].port);
	poll(1);	/* the new set handles what waited */
	EXPECT_EQ(accounted(), sent);
	EXPECT_GT(stat(1, "rx_xdp_drop"), 0u);
	uint64_t delivered = stat(1, "rx_packets");

	/* a prepared set dropped: what it held is counted, the old set steers again */
	scx_port_params detach = params(1500, 1);
	ASSERT_EQ(scx_port_prepare(p[1].port, &detach, chans.data()), 0);
	burst(5);
	scx_port_abort(p[1].port);
	EXPECT_EQ(stat(1, "rx_flushed"), 5u);
	burst(4);
	poll(1);
	EXPECT_EQ(accounted(), sent);

	/* detach with frames left unpolled in the XDP set, and XDP_TX pages in flight */
	host::set_xdp_prog(reflect);
	burst(6);
	poll(1);	/* reflected: pages held by the XDP_TX SQ until completion */
	burst(7);	/* unpolled */
	ASSERT_EQ(scx_port_prepare(p[1].port, &detach, chans.data()), 0);
	scx_port_commit(p[1].port);
	EXPECT_EQ(stat(1, "rx_flushed"), 12u);
	uint64_t before = stat(1, "rx_packets");
	burst(8);
	poll(1);
	EXPECT_EQ(accounted() + stat(1, "rx_xdp_tx_xmit"), sent);
	EXPECT_EQ(stat(1, "rx_xdp_tx_xmit"), 6u);
	EXPECT_EQ(stat(1, "rx_packets"), before + 8);
	EXPECT_GT(before, delivered);
	poll(0);
	scx_link_stats ls;
	scx_stats_refresh(p[1].port);
	scx_stats_link(p[1].port, &ls);
	EXPECT_EQ(ls.rx_packets, stat(1, "rx_packets"));
	EXPECT_EQ(ls.rx_dropped, stat(1, "rx_flushed"));
}
