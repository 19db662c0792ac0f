// SPDX-License-Identifier: GPL-2.0
/*
 * The link of a cable (QUERY_PORT_LINK, MODIFY_PORT_LINK): each
 * generation's protocols, the fastest common one, forced speeds, why a
 * link is down, what is refused, and that no frame crosses a link that
 * is down (tx_discards_phy at the sender).
 */
#include "frames.h"
#include "hw_harness.h"

using namespace hwt;

namespace {

constexpr uint32_t bit(uint32_t b) { return 1u << b; }

class HwLink : public HwTest {
protected:
	uint8_t modify(Fn *fn, uint32_t mask, uint32_t admin, uint8_t an_disable, uint8_t up = 1)
	{
		return modify_link(fn, mask, admin, an_disable, up);
	}
	uint8_t offer(Fn *fn, uint32_t admin)
	{
		return modify(fn, prm::kLinkModifyProto | prm::kLinkModifyAutoneg, admin, 0);
	}
	uint8_t force(Fn *fn, uint32_t admin)
	{
		return modify(fn, prm::kLinkModifyProto | prm::kLinkModifyAutoneg, admin, 1);
	}
	uint64_t tx_discards(Fn *fn) { return query_port(fn).tx_discards.get(); }
	/* MODIFY_PORT_LINK fec_admin alone */
	static uint8_t fec(Fn *fn, uint16_t policy)
	{
		prm::ModifyPortLinkIn in;
		prm::CmdOut out;

		set_op(&in, prm::kCmdModifyPortLink);
		in.modify_bitmask.set(prm::kLinkModifyFec);
		in.fec_admin.set(policy);
		return exec(fn, in, &out);
	}
	/* Both ends up and running FEC `mode`. */
	static void expect_fec(Fn *a, Fn *b, uint16_t mode)
	{
		for (Fn *fn : { a, b }) {
			prm::QueryPortLinkOut l = query_link(fn);
			EXPECT_EQ(l.oper_up, 1) << "fn" << (fn == b);
			EXPECT_EQ(l.fec_oper.get(), mode) << "fn" << (fn == b);
			EXPECT_EQ(l.down_reason, prm::kLinkDownNone);
		}
	}
	/* Both ends report the same running protocol (0: down). */
	void expect_oper(uint32_t oper)
	{
		for (Fn *fn : { fn0, fn1 }) {
			prm::QueryPortLinkOut l = query_link(fn);
			EXPECT_EQ(l.proto_oper.get(), oper) << "fn" << (fn == fn1);
			EXPECT_EQ(l.oper_up, oper ? 1 : 0);
		}
	}
};

frames::Bytes frame()
{
	frames::Spec s;
	s.payload = frames::payload(60, 3);
	return frames::build(s);
}

TEST_F(HwLink, EachGenerationsProtocolsAndDefaults)
{
	const struct {
		int model;
		uint32_t fastest, mbps, n;
	} cases[] = {
		{ prm::kModelCx4, prm::kLinkProto100GBaseR4, 100000, 6 },
		{ prm::kModelCx5, prm::kLinkProto100GBaseR4, 100000, 6 },
		{ prm::kModelCx6Dx, prm::kLinkProto200GBaseR4, 200000, 9 },
		{ prm::kModelCx7, prm::kLinkProto400GBaseR4, 400000, 12 },
	};
	for (const auto &c : cases) {
		scx_hw_adapter *a;
		ASSERT_EQ(scx_hw_adapter_create(c.model, 2, &g_os_dev, &a), 0);
		Fn *f0 = scx_hw_function(a, 0), *f1 = scx_hw_function(a, 1);
		prm::QueryPortLinkOut l = query_link(f0);
		EXPECT_EQ((uint32_t)__builtin_popcount(l.proto_cap.get()), c.n) << c.model;
		EXPECT_EQ(l.proto_admin.get(), l.proto_cap.get()) << "every protocol offered";
		EXPECT_EQ(l.an_disable, 0);
		EXPECT_EQ(l.admin_up, 0);
		EXPECT_EQ(l.oper_up, 0);
		EXPECT_EQ(l.down_reason, prm::kLinkDownNone) << "a port down says nothing";
		EXPECT_EQ(l.connector, prm::kLinkConnectorDa);
		for (uint32_t b = 0; b < 32; b++) {
			if (l.proto_cap.get() & bit(b)) {
				EXPECT_NE(prm::link_proto_mbps(b), 0u) << b;
			}
		}
		ASSERT_EQ(link_admin(f0, true), prm::kStatOk);
		l = query_link(f0);
		EXPECT_EQ(l.oper_up, 0) << "the peer is down";
		EXPECT_EQ(l.down_reason, prm::kLinkDownNoPartner);
		ASSERT_EQ(link_admin(f1, true), prm::kStatOk);
		l = query_link(f1);
		EXPECT_EQ(l.oper_up, 1);
		EXPECT_EQ(l.proto_oper.get(), bit(c.fastest));
		EXPECT_EQ(prm::link_proto_mbps(c.fastest), c.mbps);
		EXPECT_EQ(l.proto_partner.get(), l.proto_cap.get());
		scx_hw_adapter_destroy(a);
	}
}

TEST_F(HwLink, AutonegRunsTheFastestCommonProtocol)
{
	ASSERT_EQ(offer(fn0, bit(prm::kLinkProto10GBaseR) | bit(prm::kLinkProto25GBaseR) |
				     bit(prm::kLinkProto40GBaseR4)),
		  prm::kStatOk);
	ASSERT_EQ(offer(fn1, bit(prm::kLinkProto25GBaseR) | bit(prm::kLinkProto10GBaseR) |
				     bit(prm::kLinkProto100GBaseR4)),
		  prm::kStatOk);
	expect_oper(bit(prm::kLinkProto25GBaseR));
	EXPECT_EQ(query_link(fn0).proto_partner.get(),
		  bit(prm::kLinkProto10GBaseR) | bit(prm::kLinkProto25GBaseR) |
			  bit(prm::kLinkProto100GBaseR4));
	/* nothing in common: down at both ends, no common denominator */
	ASSERT_EQ(offer(fn1, bit(prm::kLinkProto100GBaseR4)), prm::kStatOk);
	expect_oper(0);
	EXPECT_EQ(query_link(fn0).down_reason, prm::kLinkDownNoCommon);
	EXPECT_EQ(query_link(fn1).down_reason, prm::kLinkDownNoCommon);
	EXPECT_EQ(query_link(fn0).proto_partner.get(), 0u);
}

/* Of protocols of one speed, the one of fewer lanes runs (cx7 has each speed on several). */
TEST_F(HwLink, EqualSpeedsRunTheFewestLanes)
{
	const struct {
		uint32_t offer, runs;
	} cases[] = {
		{ bit(prm::kLinkProto50GBaseR2) | bit(prm::kLinkProto50GBaseR), prm::kLinkProto50GBaseR },
		{ bit(prm::kLinkProto100GBaseR4) | bit(prm::kLinkProto100GBaseR2) |
			  bit(prm::kLinkProto100GBaseR),
		  prm::kLinkProto100GBaseR },
		{ bit(prm::kLinkProto200GBaseR4) | bit(prm::kLinkProto200GBaseR2),
		  prm::kLinkProto200GBaseR2 },
		{ bit(prm::kLinkProto100GBaseR4) | bit(prm::kLinkProto50GBaseR), prm::kLinkProto100GBaseR4 },
	};
	scx_hw_adapter *a;
	ASSERT_EQ(scx_hw_adapter_create(prm::kModelCx7, 2, &g_os_dev, &a), 0);
	Fn *f0 = scx_hw_function(a, 0), *f1 = scx_hw_function(a, 1);
	ASSERT_EQ(link_admin(f0, true), prm::kStatOk);
	ASSERT_EQ(link_admin(f1, true), prm::kStatOk);
	for (const auto &c : cases) {
		ASSERT_EQ(offer(f0, c.offer), prm::kStatOk);
		ASSERT_EQ(offer(f1, c.offer), prm::kStatOk);
		EXPECT_EQ(query_link(f0).proto_oper.get(), bit(c.runs)) << c.offer;
		EXPECT_EQ(query_link(f1).proto_oper.get(), bit(c.runs)) << c.offer;
	}
	scx_hw_adapter_destroy(a);
}

TEST_F(HwLink, ForcedSpeeds)
{
	/* both lane counts of 50G forced against a negotiating end: cx5 keeps the two-lane one */
	ASSERT_EQ(force(fn0, bit(prm::kLinkProto50GBaseR2) | bit(prm::kLinkProto50GBaseR)),
		  prm::kStatOk);
	expect_oper(bit(prm::kLinkProto50GBaseR2));	/* cx5 has no 50G single lane */
	EXPECT_EQ(query_link(fn0).an_disable, 1);
	EXPECT_EQ(query_link(fn0).proto_admin.get(), bit(prm::kLinkProto50GBaseR2))
		<< "what the port lacks is dropped";
	EXPECT_EQ(query_link(fn1).proto_partner.get(), 0u) << "nothing was negotiated";
	/* both forced, the same speed */
	ASSERT_EQ(force(fn1, bit(prm::kLinkProto50GBaseR2)), prm::kStatOk);
	expect_oper(bit(prm::kLinkProto50GBaseR2));
	/* both forced, different speeds */
	ASSERT_EQ(force(fn1, bit(prm::kLinkProto25GBaseR)), prm::kStatOk);
	expect_oper(0);
	EXPECT_EQ(query_link(fn0).down_reason, prm::kLinkDownNoPartnerForced);
	EXPECT_EQ(query_link(fn1).down_reason, prm::kLinkDownNoPartnerForced);
	/* forced at one end, negotiating at the other without that speed */
	ASSERT_EQ(offer(fn1, bit(prm::kLinkProto25GBaseR)), prm::kStatOk);
	expect_oper(0);
	EXPECT_EQ(query_link(fn0).down_reason, prm::kLinkDownNoPartnerForced);
	EXPECT_EQ(query_link(fn1).down_reason, prm::kLinkDownNoPartner);
	/* autoneg back on at fn0 with its 50G offer: nothing in common with 25G */
	ASSERT_EQ(modify(fn0, prm::kLinkModifyAutoneg, 0, 0), prm::kStatOk);
	EXPECT_EQ(query_link(fn0).down_reason, prm::kLinkDownNoCommon);
}

/*
 * link_down_events_phy: each end counts every time its link goes from up
 * to down, whatever took it down; a new speed while up, or a change while
 * down, is no event.
 */
TEST_F(HwLink, DownEventsCountEachDrop)
{
	auto events = [](Fn *fn) { return query_port(fn).link_down_events.get(); };
	auto expect_events = [&](uint64_t n, const char *after) {
		EXPECT_EQ(events(fn0), n) << "fn0 after " << after;
		EXPECT_EQ(events(fn1), n) << "fn1 after " << after;
	};

	expect_events(0, "coming up");
	ASSERT_EQ(link_admin(fn1, false), prm::kStatOk);
	expect_events(1, "fn1 down");
	ASSERT_EQ(link_admin(fn0, false), prm::kStatOk);
	expect_events(1, "fn0 down too (already down)");
	ASSERT_EQ(link_admin(fn0, true), prm::kStatOk);
	ASSERT_EQ(link_admin(fn1, true), prm::kStatOk);
	expect_events(1, "both up again");
	ASSERT_EQ(offer(fn0, bit(prm::kLinkProto25GBaseR)), prm::kStatOk);
	expect_oper(bit(prm::kLinkProto25GBaseR));
	expect_events(1, "a new speed while up");
	ASSERT_EQ(force(fn1, bit(prm::kLinkProto10GBaseR)), prm::kStatOk);
	expect_oper(0);
	expect_events(2, "no common speed");
	ASSERT_EQ(force(fn1, bit(prm::kLinkProto40GBaseR4)), prm::kStatOk);
	expect_events(2, "another speed while down");
}

TEST_F(HwLink, BadSettingsAreRefusedAndChangeNothing)
{
	const prm::QueryPortLinkOut before = query_link(fn0);

	EXPECT_EQ(modify(fn0, bit(4), 0, 0), prm::kStatBadParam) << "unknown bit";
	EXPECT_EQ(modify(fn0, prm::kLinkModifyAdmin, 0, 0, 2), prm::kStatBadParam);
	EXPECT_EQ(modify(fn0, prm::kLinkModifyAutoneg, 0, 2), prm::kStatBadParam);
	EXPECT_EQ(offer(fn0, 0), prm::kStatBadParam);
	EXPECT_EQ(offer(fn0, bit(prm::kLinkProto400GBaseR4) | bit(0)), prm::kStatBadParam)
		<< "cx5 has no 400G, and bit 0 is no protocol";
	EXPECT_EQ(force(fn0, bit(prm::kLinkProto25GBaseR) | bit(prm::kLinkProto100GBaseR4)),
		  prm::kStatBadParam)
		<< "forced at two speeds";
	/* autoneg off alone, with every protocol still offered */
	EXPECT_EQ(modify(fn0, prm::kLinkModifyAutoneg, 0, 1), prm::kStatBadParam);
	const prm::QueryPortLinkOut after = query_link(fn0);
	EXPECT_EQ(0, memcmp(&before, &after, sizeof(before)));
	expect_oper(bit(prm::kLinkProto100GBaseR4));
}

/* No frame crosses a link that is down; the WQE still completes. */
TEST_F(HwLink, FramesStopAtTheSenderWhileDown)
{
	Link l;
	l.setup(fn0, fn1);
	l.send(frame());
	EXPECT_EQ(l.rxcq.poll_all().size(), 1u);
	EXPECT_EQ(l.txcq.poll_all().size(), 1u);

	ASSERT_EQ(force(fn0, bit(prm::kLinkProto25GBaseR)), prm::kStatOk);
	ASSERT_EQ(force(fn1, bit(prm::kLinkProto10GBaseR)), prm::kStatOk);
	l.send(frame());
	l.send(frame());
	EXPECT_EQ(l.rxcq.poll_all().size(), 0u);
	EXPECT_EQ(l.txcq.poll_all().size(), 2u);
	EXPECT_EQ(tx_discards(fn0), 2u);
	EXPECT_EQ(query_q(fn1).rx_if_down_packets.get(), 0u);

	ASSERT_EQ(force(fn1, bit(prm::kLinkProto25GBaseR)), prm::kStatOk);
	l.send(frame());
	EXPECT_EQ(l.rxcq.poll_all().size(), 1u);
	EXPECT_EQ(tx_discards(fn0), 2u);
	ASSERT_EQ(link_admin(fn1, false), prm::kStatOk);
	l.send(frame());
	EXPECT_EQ(l.rxcq.poll_all().size(), 0u);
	EXPECT_EQ(tx_discards(fn0), 3u);
	EXPECT_EQ(query_link(fn0).down_reason, prm::kLinkDownNoPartnerForced);
}

/*
 * FEC: what each generation's protocols run, each speed's default under
 * the auto policy, and a policy each speed follows where it can.
 */
TEST_F(HwLink, FecEachSpeedsDefaultAndWhatAPolicyRuns)
{
	const struct {
		int model;
		uint16_t cap, fastest_fec;
	} models[] = {
		{ prm::kModelCx4, prm::kFecNone | prm::kFecFirecode | prm::kFecRs528, prm::kFecRs528 },
		{ prm::kModelCx5, prm::kFecNone | prm::kFecFirecode | prm::kFecRs528, prm::kFecRs528 },
		{ prm::kModelCx6Dx, prm::kFecModes, prm::kFecRs544 },
		{ prm::kModelCx7, prm::kFecModes, prm::kFecRs544 },
	};
	for (const auto &m : models) {
		scx_hw_adapter *a;
		ASSERT_EQ(scx_hw_adapter_create(m.model, 2, &g_os_dev, &a), 0);
		Fn *f0 = scx_hw_function(a, 0), *f1 = scx_hw_function(a, 1);
		prm::QueryPortLinkOut l = query_link(f0);
		EXPECT_EQ(l.fec_cap.get(), m.cap) << m.model;
		EXPECT_EQ(l.fec_admin.get(), 0) << "auto";
		EXPECT_EQ(l.fec_oper.get(), 0) << "down";
		ASSERT_EQ(link_admin(f0, true), prm::kStatOk);
		ASSERT_EQ(link_admin(f1, true), prm::kStatOk);
		expect_fec(f0, f1, m.fastest_fec);
		scx_hw_adapter_destroy(a);
	}

	/* cx7: each speed forced at both ends, under auto and under each policy */
	const struct {
		uint32_t proto;
		uint16_t dflt, none, fc, rs, llrs;
	} speeds[] = {
		{ prm::kLinkProto1000BaseX, prm::kFecNone, prm::kFecNone, prm::kFecNone, prm::kFecNone,
		  prm::kFecNone },
		{ prm::kLinkProto10GBaseR, prm::kFecNone, prm::kFecNone, prm::kFecFirecode, prm::kFecNone,
		  prm::kFecNone },
		{ prm::kLinkProto25GBaseR, prm::kFecRs528, prm::kFecNone, prm::kFecFirecode,
		  prm::kFecRs528, prm::kFecRs528 },
		{ prm::kLinkProto100GBaseR4, prm::kFecRs528, prm::kFecNone, prm::kFecRs528,
		  prm::kFecRs528, prm::kFecRs528 },
		{ prm::kLinkProto50GBaseR, prm::kFecRs544, prm::kFecRs544, prm::kFecRs544,
		  prm::kFecRs544, prm::kFecLlrs },
		{ prm::kLinkProto400GBaseR4, prm::kFecRs544, prm::kFecRs544, prm::kFecRs544,
		  prm::kFecRs544, prm::kFecRs544 },
	};
	scx_hw_adapter *a;
	ASSERT_EQ(scx_hw_adapter_create(prm::kModelCx7, 2, &g_os_dev, &a), 0);
	Fn *f0 = scx_hw_function(a, 0), *f1 = scx_hw_function(a, 1);
	ASSERT_EQ(link_admin(f0, true), prm::kStatOk);
	ASSERT_EQ(link_admin(f1, true), prm::kStatOk);
	for (const auto &sp : speeds) {
		ASSERT_EQ(force(f0, bit(sp.proto)), prm::kStatOk);
		ASSERT_EQ(force(f1, bit(sp.proto)), prm::kStatOk);
		const struct {
			uint16_t policy, runs;
		} pol[] = {
			{ 0, sp.dflt },
			{ prm::kFecNone, sp.none },
			{ prm::kFecFirecode, sp.fc },
			{ prm::kFecRs528 | prm::kFecRs544, sp.rs },
			{ prm::kFecLlrs, sp.llrs },
		};
		for (const auto &p : pol) {
			ASSERT_EQ(fec(f0, p.policy), prm::kStatOk);
			ASSERT_EQ(fec(f1, p.policy), prm::kStatOk);
			SCOPED_TRACE(testing::Message() << "protocol " << sp.proto << " policy " << p.policy);
			expect_fec(f0, f1, p.runs);
			EXPECT_EQ(query_link(f0).fec_admin.get(), p.policy);
		}
	}
	scx_hw_adapter_destroy(a);
}

/*
 * The two ends run different FEC: the link stays down, each end says which
 * FEC did not lock (its own), frames stop at the sender, and each end
 * counts the drop; the same FEC at both ends brings it back.
 */
TEST_F(HwLink, FecMismatchKeepsTheLinkDown)
{
	Link l;
	l.setup(fn0, fn1);
	auto events = [](Fn *fn) { return query_port(fn).link_down_events.get(); };

	expect_fec(fn0, fn1, prm::kFecRs528);	/* cx5, 100GBASE-CR4 */
	ASSERT_EQ(fec(fn0, prm::kFecNone), prm::kStatOk);
	expect_oper(0);
	EXPECT_EQ(query_link(fn0).down_reason, prm::kLinkDownFecNoneNoLock);
	EXPECT_EQ(query_link(fn1).down_reason, prm::kLinkDownRsNotLocked);
	EXPECT_EQ(query_link(fn0).fec_oper.get(), 0);
	EXPECT_EQ(query_link(fn0).proto_partner.get(), 0u);
	EXPECT_EQ(events(fn0), 1u);
	EXPECT_EQ(events(fn1), 1u);
	l.send(frame());
	EXPECT_EQ(l.rxcq.poll_all().size(), 0u);
	EXPECT_EQ(l.txcq.poll_all().size(), 1u);
	EXPECT_EQ(tx_discards(fn0), 1u);

	ASSERT_EQ(fec(fn1, prm::kFecNone), prm::kStatOk);
	expect_fec(fn0, fn1, prm::kFecNone);
	l.send(frame());
	EXPECT_EQ(l.rxcq.poll_all().size(), 1u);

	/* at 25G BASE-R FEC against none; 100G runs neither BASE-R: RS there */
	ASSERT_EQ(force(fn0, bit(prm::kLinkProto25GBaseR)), prm::kStatOk);
	ASSERT_EQ(force(fn1, bit(prm::kLinkProto25GBaseR)), prm::kStatOk);
	ASSERT_EQ(fec(fn0, prm::kFecFirecode), prm::kStatOk);
	EXPECT_EQ(query_link(fn0).down_reason, prm::kLinkDownFcNotLocked);
	EXPECT_EQ(query_link(fn1).down_reason, prm::kLinkDownFecNoneNoLock);
	EXPECT_EQ(events(fn0), 2u);
	ASSERT_EQ(offer(fn0, bit(prm::kLinkProto100GBaseR4) | bit(prm::kLinkProto25GBaseR)),
		  prm::kStatOk);
	ASSERT_EQ(offer(fn1, bit(prm::kLinkProto100GBaseR4)), prm::kStatOk);
	EXPECT_EQ(query_link(fn0).down_reason, prm::kLinkDownRsNotLocked);
	EXPECT_EQ(query_link(fn1).down_reason, prm::kLinkDownFecNoneNoLock);
	ASSERT_EQ(fec(fn1, 0), prm::kStatOk);
	expect_fec(fn0, fn1, prm::kFecRs528);
	EXPECT_EQ(query_link(fn0).proto_oper.get(), bit(prm::kLinkProto100GBaseR4));

	/* a port that is down names no FEC */
	ASSERT_EQ(fec(fn1, prm::kFecNone), prm::kStatOk);
	ASSERT_EQ(link_admin(fn0, false), prm::kStatOk);
	EXPECT_EQ(query_link(fn0).down_reason, prm::kLinkDownNone);
	EXPECT_EQ(query_link(fn1).down_reason, prm::kLinkDownNoPartner);
}

TEST_F(HwLink, FecPoliciesNoSpeedRunsAreRefused)
{
	const prm::QueryPortLinkOut before = query_link(fn0);

	EXPECT_EQ(fec(fn0, 1u << 3), prm::kStatBadParam) << "no mode has bit 3";
	EXPECT_EQ(fec(fn0, prm::kFecNone | 1u << 15), prm::kStatBadParam);
	EXPECT_EQ(fec(fn0, prm::kFecLlrs), prm::kStatBadParam) << "cx5 has no 50G lanes";
	EXPECT_EQ(fec(fn0, prm::kFecRs544), prm::kStatBadParam);
	const prm::QueryPortLinkOut after = query_link(fn0);
	EXPECT_EQ(0, memcmp(&before, &after, sizeof(before)));
	/* one mode a speed runs is enough */
	EXPECT_EQ(fec(fn0, prm::kFecLlrs | prm::kFecRs528), prm::kStatOk);
	expect_fec(fn0, fn1, prm::kFecRs528);
}

} /* namespace */
