// SPDX-License-Identifier: GPL-2.0
/*
 * Reliability of the driver core against the device: what it refuses
 * before the device would fail, TX timeouts, RX error recovery, and that
 * every packet ends in exactly one counter.
 */
#include "en_pair.h"
#include "softcx/errno.h"

using namespace enpair;
using frames::Bytes;

namespace {

constexpr uint32_t kDevMaxFrame = 9978 + 22;	/* the device's frame limit (caps) */

/* Every TX packet posted ends sent or flushed, and the peer saw each sent one. */
void expect_tx_conserved(Pair &, uint64_t posted, uint64_t tx_packets, uint64_t tx_flushed)
{
	EXPECT_EQ(tx_packets + tx_flushed, posted) << "tx_packets " << tx_packets
						    << " tx_flushed " << tx_flushed;
}

} /* namespace */

/*
 * A frame longer than the device sends, or an LSO whose segment or payload
 * exceed its limits, is refused before posting (-EMSGSIZE: the shim drops
 * and counts it); before this check the device answered with an error CQE
 * and every packet queued behind it was flushed.
 */
TEST_F(Pair, OversizeSkbIsRefusedAndTheSqStaysUp)
{
	scx_tx_pkt gso = {};

	EXPECT_EQ(post(0, udp_frame(kDevMaxFrame)), -SCX_EMSGSIZE) << "linear, over 10000 bytes";
	EXPECT_EQ(post(0, udp_frame(kDevMaxFrame - 42 + 1)), -SCX_EMSGSIZE) << "one byte over";
	EXPECT_EQ(post(0, Bytes(13, 0xee)), -SCX_EINVAL) << "shorter than an Ethernet header";

	Bytes big = udp_frame(20000);
	gso.gso_type = SCX_TX_GSO_UDP_L4;
	gso.ihs = 42;
	gso.gso_size = kDevMaxFrame - 42 + 1;
	gso.gso_segs = 3;
	EXPECT_EQ(post_pkt(0, big, gso, { 42 }), -SCX_EMSGSIZE) << "an LSO segment over the limit";

	Bytes huge = udp_frame(256 * 1024 + 1);
	gso.gso_size = 1400;
	gso.gso_segs = (uint32_t)((huge.size() - 42 + 1399) / 1400);
	EXPECT_EQ(post_pkt(0, huge, gso, { 42, 65000, 130000, 195000 }), -SCX_EMSGSIZE)
		<< "an LSO payload over 256 KiB";

	/* the largest frame the device takes still goes, and the queue works on */
	Bytes edge = udp_frame(kDevMaxFrame - 42);
	ASSERT_EQ(edge.size(), kDevMaxFrame);
	ASSERT_EQ(post(0, edge), 0);
	ASSERT_EQ(send(0, udp_frame(100)), 0);
	poll(1);
	scx_tx_done done = {};
	scx_channel_poll(ch(0), 64, &done);
	EXPECT_EQ(done.tx_error, 0u);
	EXPECT_EQ(stat(0, "tx_cqe_err"), 0u);
	EXPECT_EQ(stat(0, "tx_packets"), 2u);
	/* 10000 bytes do not fit the peer's 1500-MTU buffer: its device drops and counts */
	EXPECT_EQ(stat(1, "rx_oversize_pkts_buffer"), 1u);
	EXPECT_EQ(rx(1).size(), 1u);
	EXPECT_EQ(host::dma_tx_mappings(), 0u);
}

/* TX timeout: doorbells lost; the watchdog's forced recovery flushes and resumes. */
TEST_F(Pair, StalledSqRecoversByForce)
{
	Options o;
	o.log_sq = 7;
	build(o);

	/* three sent and completed by the device, their CQE not yet polled */
	for (int i = 0; i < 3; i++)
		ASSERT_EQ(post(0, udp_frame(60, (uint16_t)i)), 0);
	doorbell(0);
	poll(1);
	ASSERT_EQ(rx(1).size(), 3u);

	scx_channel_inject_tx_stall(ch(0));
	for (int i = 0; i < 5; i++)
		ASSERT_EQ(post(0, udp_frame(60, (uint16_t)(10 + i))), 0);
	doorbell(0);
	poll(1);
	EXPECT_EQ(rx(1).size(), 3u) << "a lost doorbell: nothing leaves";

	EXPECT_EQ(scx_channel_tx_recover(ch(0), 0), 1) << "no error CQE: nothing to recover";
	EXPECT_EQ(scx_channel_tx_recover(ch(0), 1), 0) << "the watchdog forces it";
	expect_tx_conserved(*this, 8, stat(0, "tx_packets"), stat(0, "tx_flushed"));
	EXPECT_EQ(stat(0, "tx_packets"), 3u) << "the completed WQEs count as sent";
	EXPECT_EQ(stat(0, "tx_flushed"), 5u);
	EXPECT_EQ(stat(0, "tx_recover"), 1u);
	EXPECT_EQ(host::dma_tx_mappings(), 0u);
	EXPECT_EQ(host::tx_freed(&p[0].os_ch[0]).size(), 8u);

	for (int round = 0; round < 10; round++) {
		for (int i = 0; i < 8; i++)
			ASSERT_EQ(post(0, udp_frame(60 + i, (uint16_t)i, (uint8_t)round)), 0);
		doorbell(0);
		poll(1);
		poll(0);
	}
	EXPECT_EQ(rx(1).size(), 83u);
	EXPECT_EQ(stat(0, "tx_packets"), 83u);
	EXPECT_EQ(stat(0, "tx_cqe_err"), 0u);
}

/* Packets posted but never rung are flushed by a close: tx_flushed, not tx_packets. */
TEST_F(Pair, CloseCountsWhatWasNeverSent)
{
	for (int i = 0; i < 4; i++)
		ASSERT_EQ(post(0, udp_frame(60, (uint16_t)i)), 0);
	ASSERT_EQ(send(0, udp_frame(70)), 0);	/* the doorbell sends all five */
	for (int i = 0; i < 3; i++)
		ASSERT_EQ(post(0, udp_frame(80, (uint16_t)i)), 0);
	scx_port_close(p[0].port);
	EXPECT_EQ(stat(0, "tx_packets"), 5u) << "completed by the device before the close";
	EXPECT_EQ(stat(0, "tx_flushed"), 3u);
	scx_link_stats ls;
	scx_stats_link(p[0].port, &ls);
	EXPECT_EQ(ls.tx_packets, 5u);
	EXPECT_EQ(ls.tx_dropped, 3u);
	EXPECT_EQ(host::dma_tx_mappings(), 0u);
}

/* An RX error CQE recovers the RQ in NAPI: ERR -> RST -> RDY, refilled; traffic resumes. */
TEST_F(Pair, RxErrorCqeRecoversTheRq)
{
	Options o;
	o.log_rq = 5;
	build(o);

	ASSERT_EQ(send(0, udp_frame(100, 1)), 0);
	poll(1);
	ASSERT_EQ(rx(1).size(), 1u);

	scx_channel_inject_rx_error(ch(1));
	ASSERT_EQ(send(0, udp_frame(100, 2)), 0);	/* error CQE, the RQ in ERR */
	ASSERT_EQ(send(0, udp_frame(100, 3)), 0);	/* dropped by the device: not ready */
	EXPECT_EQ(stat(1, "rx_if_down_packets"), 1u);
	poll(1);
	EXPECT_EQ(stat(1, "rx_wqe_err"), 1u);
	EXPECT_EQ(stat(1, "rx_recover"), 1u);
	/* the OS hears of it (devlink health "rx"): one recovery, which worked */
	EXPECT_EQ(host::recovered(&p[1].os_ch[0], SCX_OS_QUEUE_RQ), std::vector<int>{ 0 });

	for (int i = 0; i < 100; i++) {
		ASSERT_GE(send(0, udp_frame(100 + i % 7, (uint16_t)(100 + i))), 0);
		poll(1);
		poll(0);
	}
	EXPECT_EQ(rx(1).size(), 101u) << "the RQ works again, across more than a ring";
	EXPECT_EQ(stat(1, "rx_recover"), 1u);
	/* conservation: every frame sent is received or in a named drop counter */
	EXPECT_EQ(stat(0, "tx_packets"), 103u);
	EXPECT_EQ(stat(1, "rx_packets") + stat(1, "rx_wqe_err") + stat(1, "rx_if_down_packets"),
		  103u);
	scx_link_stats ls;
	scx_stats_refresh(p[1].port);	/* rx_if_down_packets: a device counter */
	scx_stats_link(p[1].port, &ls);
	EXPECT_EQ(ls.rx_dropped, 2u);
}
