// SPDX-License-Identifier: GPL-2.0
/*
 * The flow table (SET/DELETE_FLOW_TABLE_ENTRY): matches per field and mask
 * for IPv4 and IPv6, priority by index, drop entries counted, forwarding to
 * an RQ and to a flow-only RSS object (the queue the reference Toeplitz
 * hash with that object's key and table predicts), the default RSS path
 * without entries, and the command's refusals. The RX address filter
 * (MODIFY_NIC_VPORT_CONTEXT) behind it: open until the first command; then
 * frames to broadcast and the listed addresses come in, the promiscuous
 * modes take the rest of their kind, every other frame is counted in
 * rx_steer_missed_packets; an entry is matched before the filter.
 */
#include <array>

#include "frames.h"
#include "hw/adapter.h"
#include "hw_harness.h"

using namespace hwt;

namespace {

constexpr int kRqs = 4;

using Mac = std::array<uint8_t, 6>;

const Mac kOwn = { 0x02, 0, 0, 0, 0, 0x02 };	/* frames::build's destination */
const Mac kOther = { 0x02, 0, 0, 0, 0, 0x99 };
const Mac kSecond = { 0x02, 0xaa, 0, 0, 0, 0x01 };
const Mac kGroup = { 0x01, 0x00, 0x5e, 0, 0, 0x01 };
const Mac kGroup2 = { 0x33, 0x33, 0, 0, 0, 0x01 };
const Mac kBcast = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };

/* A MODIFY_NIC_VPORT_CONTEXT inbox: the parts `select` names (VLAN IDs listed per map). */
std::vector<uint8_t> vport_in(uint8_t select, uint8_t promisc, const std::vector<Mac> &uc,
			      const std::vector<Mac> &mc, uint8_t vlan = 0,
			      const std::vector<uint16_t> &cvids = {},
			      const std::vector<uint16_t> &svids = {})
{
	size_t macs = (select & prm::kVportSelectAddrs) ? uc.size() + mc.size() : 0;
	size_t maps = (select & prm::kVportSelectVlans) ? 2 * prm::kVportVlanMapBytes : 0;
	std::vector<uint8_t> in(sizeof(prm::ModifyNicVportIn) + macs * sizeof(prm::VportMac) + maps);
	auto *h = reinterpret_cast<prm::ModifyNicVportIn *>(in.data());
	set_op(h, prm::kCmdModifyNicVportContext);
	h->field_select = select;
	h->promisc = promisc;
	h->vlan = vlan;
	size_t off = sizeof(*h);
	if (macs) {
		h->n_uc = (uint8_t)uc.size();
		h->n_mc = (uint8_t)mc.size();
		for (const auto *l : { &uc, &mc })
			for (const Mac &m : *l) {
				memcpy(&in[off + 2], m.data(), 6);
				off += sizeof(prm::VportMac);
			}
	}
	if (maps) {
		for (uint16_t v : cvids)
			in[off + v / 8] |= (uint8_t)(1u << (v % 8));
		for (uint16_t v : svids)
			in[off + prm::kVportVlanMapBytes + v / 8] |= (uint8_t)(1u << (v % 8));
	}
	return in;
}

/* Run it on fn; in_len shortened by `short_by` bytes. */
uint8_t run_vport(Fn *fn, const std::vector<uint8_t> &in, uint32_t short_by = 0)
{
	prm::CmdOut out;
	EXPECT_TRUE(bus::cmd_exec(fn, in.data(), (uint32_t)(in.size() - short_by), &out,
				  sizeof(out)));
	return out.status;
}

/* MODIFY_NIC_VPORT_CONTEXT on fn1 with these lists; in_len shortened by `short_by` bytes. */
uint8_t set_vport(Fn *fn, uint8_t promisc, const std::vector<Mac> &uc, const std::vector<Mac> &mc,
		  uint32_t short_by = 0)
{
	return run_vport(fn, vport_in(prm::kVportSelectAddrs, promisc, uc, mc), short_by);
}

/* The VLAN filter alone. */
uint8_t set_vlans(Fn *fn, uint8_t vlan, const std::vector<uint16_t> &cvids,
		  const std::vector<uint16_t> &svids)
{
	return run_vport(fn, vport_in(prm::kVportSelectVlans, 0, {}, {}, vlan, cvids, svids));
}

prm::FlowFields v4_fields(const char *src, const char *dst, uint16_t sport, uint16_t dport,
			  uint8_t proto, uint8_t version = 4)
{
	prm::FlowFields f = {};
	f.ip_version = version;
	f.ip_protocol = proto;
	f.src_port.set(sport);
	f.dst_port.set(dport);
	frames::Bytes s = frames::ip_bytes(src), d = frames::ip_bytes(dst);
	memcpy(f.src_ip, s.data(), s.size());
	memcpy(f.dst_ip, d.data(), d.size());
	return f;
}

/* A mask over the version, protocol, l4_ok and the given fields. */
prm::FlowFields mask_of(const char *src, const char *dst, uint16_t sport, uint16_t dport,
			uint8_t proto = 0xff)
{
	prm::FlowFields m = v4_fields(src, dst, sport, dport, proto, 0xff);
	return m;
}

/* TX on fn0; on fn1 four RQs, a default RSS object steering everything to RQ 0. */
class HwFlow : public HwTest {
protected:
	void SetUp() override
	{
		HwTest::SetUp();
		ASSERT_EQ(txcq.create(fn0, 10, 0), prm::kStatOk);
		ASSERT_EQ(sq.create(fn0, txcq.cqn, 10), prm::kStatOk);
		ASSERT_EQ(sq.modify(prm::kQueueRst, prm::kQueueRdy), prm::kStatOk);
		for (int i = 0; i < kRqs; i++) {
			ASSERT_EQ(cq[i].create(fn1, 10, (uint32_t)i), prm::kStatOk);
			ASSERT_EQ(rq[i].create(fn1, cq[i].cqn, 9, 2048), prm::kStatOk);
			ASSERT_EQ(rq[i].modify(prm::kQueueRst, prm::kQueueRdy), prm::kStatOk);
			rq[i].post(512);
		}
		ASSERT_EQ(rss_cmd(fn1, prm::kCmdCreateRss, 0, { rq[0].rqn }, kFields4, kMsKey, &rss),
			  prm::kStatOk);
	}

	uint8_t set(uint32_t ix, uint8_t action, uint32_t dest, const prm::FlowFields &mask,
		    const prm::FlowFields &value)
	{
		prm::SetFlowEntryIn in = {};
		prm::CmdOut out;
		set_op(&in, prm::kCmdSetFlowTableEntry);
		in.flow_index.set(ix);
		in.action = action;
		in.dest.set(dest);
		in.mask = mask;
		in.value = value;
		EXPECT_TRUE(bus::cmd_exec(fn1, &in, sizeof(in), &out, sizeof(out)));
		return out.status;
	}

	uint8_t del(uint32_t ix)
	{
		prm::DeleteFlowEntryIn in = {};
		prm::CmdOut out;
		set_op(&in, prm::kCmdDeleteFlowTableEntry);
		in.flow_index.set(ix);
		EXPECT_TRUE(bus::cmd_exec(fn1, &in, sizeof(in), &out, sizeof(out)));
		return out.status;
	}

	/* Send one frame; the RQ its CQE came on (-1: none), its CQE in *c. */
	int land(const frames::Bytes &f, prm::Cqe64 *c = nullptr)
	{
		sq.send_inline(f);
		txcq.poll_all();
		int got = -1;
		for (int i = 0; i < kRqs; i++) {
			auto rx = cq[i].poll_all();
			EXPECT_LE(rx.size(), 1u);
			if (rx.empty())
				continue;
			EXPECT_EQ(got, -1) << "one frame, two CQEs";
			got = i;
			if (c)
				*c = rx[0];
		}
		return got;
	}

	static frames::Bytes frame(const char *src, const char *dst, uint16_t sport, uint16_t dport,
				   uint8_t proto = 17, bool v6 = false)
	{
		frames::Spec s;
		s.v6 = v6;
		s.proto = proto;
		s.src = src;
		s.dst = dst;
		s.sport = sport;
		s.dport = dport;
		s.payload = frames::payload(24);
		return frames::build(s);
	}

	/* A UDP frame to dst: did it reach an RQ? */
	bool land_to(const Mac &dst) { return land(to(dst)) >= 0; }
	/* To kOwn with an outer tag: TPID 0x8100 (C) or 0x88a8 (S), VLAN ID vid. */
	bool land_tagged(uint16_t tpid, uint16_t vid)
	{
		frames::Bytes f = frames::vlan_insert(to(kOwn), vid);
		f[12] = (uint8_t)(tpid >> 8);
		f[13] = (uint8_t)tpid;
		return land(f) >= 0;
	}
	static frames::Bytes to(const Mac &dst)
	{
		frames::Bytes f = frame("10.1.0.1", "10.1.0.2", 100, 53);
		memcpy(f.data(), dst.data(), 6);
		return f;
	}
	uint64_t missed_vport() { return query_q(fn1).rx_steer_missed.get(); }

	Cq txcq;
	Sq sq;
	Cq cq[kRqs];
	Rq rq[kRqs];
	uint32_t rss = 0;
};

/* Without entries every frame goes by the default object; nothing is counted as a steering drop. */
TEST_F(HwFlow, NoEntriesDefaultRss)
{
	EXPECT_EQ(fn1->flows.n, 0u);
	for (int i = 0; i < 16; i++)
		EXPECT_EQ(land(frame("10.1.0.1", "10.1.0.2", (uint16_t)(100 + i), 53)), 0);
	EXPECT_EQ(query_q(fn1).rx_steer_drop.get(), 0u);
}

/* Each field alone, under a partial mask: masked-out bits do not matter, the others do. */
TEST_F(HwFlow, MatchEachFieldUnderItsMask)
{
	struct Case {
		const char *what;
		prm::FlowFields mask, value;
		frames::Bytes hit, near_hit, miss;
	} cases[] = {
		{ "src /24", mask_of("255.255.255.0", "0.0.0.0", 0, 0, 0),
		  v4_fields("192.168.7.0", "0.0.0.0", 0, 0, 0),
		  frame("192.168.7.1", "10.0.0.2", 1, 2), frame("192.168.7.200", "10.9.9.9", 3, 4),
		  frame("192.168.8.1", "10.0.0.2", 1, 2) },
		{ "dst exact", mask_of("0.0.0.0", "255.255.255.255", 0, 0, 0),
		  v4_fields("0.0.0.0", "10.0.0.9", 0, 0, 0),
		  frame("1.1.1.1", "10.0.0.9", 1, 2), frame("2.2.2.2", "10.0.0.9", 5, 6),
		  frame("1.1.1.1", "10.0.0.8", 1, 2) },
		{ "sport high byte", mask_of("0.0.0.0", "0.0.0.0", 0xff00, 0, 0),
		  v4_fields("0.0.0.0", "0.0.0.0", 0x1200, 0, 0),
		  frame("1.1.1.1", "2.2.2.2", 0x1234, 9), frame("3.3.3.3", "2.2.2.2", 0x12ff, 10),
		  frame("1.1.1.1", "2.2.2.2", 0x1334, 9) },
		{ "dport exact", mask_of("0.0.0.0", "0.0.0.0", 0, 0xffff, 0),
		  v4_fields("0.0.0.0", "0.0.0.0", 0, 4791, 0),
		  frame("1.1.1.1", "2.2.2.2", 7, 4791), frame("5.5.5.5", "6.6.6.6", 8, 4791),
		  frame("1.1.1.1", "2.2.2.2", 7, 4790) },
		{ "protocol tcp", mask_of("0.0.0.0", "0.0.0.0", 0, 0, 0xff),
		  v4_fields("0.0.0.0", "0.0.0.0", 0, 0, 6),
		  frame("1.1.1.1", "2.2.2.2", 7, 8, 6), frame("9.9.9.9", "2.2.2.2", 70, 80, 6),
		  frame("1.1.1.1", "2.2.2.2", 7, 8, 17) },
	};
	for (Case &c : cases) {
		c.mask.ip_version = 0xff;
		c.value.ip_version = 4;
		ASSERT_EQ(set(3, prm::kFlowFwdRq, rq[2].rqn, c.mask, c.value), prm::kStatOk) << c.what;
		EXPECT_EQ(land(c.hit), 2) << c.what;
		EXPECT_EQ(land(c.near_hit), 2) << c.what << ": only masked-out bits differ";
		EXPECT_EQ(land(c.miss), 0) << c.what << ": a masked bit differs";
		ASSERT_EQ(del(3), prm::kStatOk);
		EXPECT_EQ(land(c.hit), 0) << c.what << ": deleted";
	}
	EXPECT_EQ(fn1->flows.n, 0u);
}

/*
 * L2 fields, as the frame came off the wire: destination and source MAC
 * under their masks, the ethertype after the VLAN tags, and an outer
 * 802.1Q tag's VLAN ID (an 802.1ad outer tag or no tag never matches it).
 */
TEST_F(HwFlow, MatchL2Fields)
{
	const Mac other_src = { 0x02, 0x11, 0x22, 0x33, 0x44, 0x55 };
	auto with_src = [](frames::Bytes f, const Mac &m) {
		memcpy(f.data() + 6, m.data(), 6);
		return f;
	};
	auto tagged = [this](uint16_t tpid, uint16_t vid) {
		frames::Bytes f = frames::vlan_insert(to(kOwn), vid);
		f[12] = (uint8_t)(tpid >> 8);
		f[13] = (uint8_t)tpid;
		return f;
	};
	frames::Bytes arp(60, 0);
	memcpy(arp.data(), kOwn.data(), 6);
	arp[12] = 0x08;
	arp[13] = 0x06;

	prm::FlowFields m = {}, v = {};
	memset(m.dmac, 0xff, 6);
	memcpy(v.dmac, kOwn.data(), 6);
	ASSERT_EQ(set(0, prm::kFlowFwdRq, rq[1].rqn, m, v), prm::kStatOk);
	EXPECT_EQ(land(to(kOwn)), 1) << "dmac exact";
	EXPECT_EQ(land(arp), 1) << "dmac exact, not IP";
	EXPECT_EQ(land(to(kBcast)), 0) << "another dmac";

	m = {}, v = {};
	m.smac[0] = 0xff;
	m.smac[1] = 0xff;
	v.smac[0] = 0x02;
	v.smac[1] = 0x11;
	ASSERT_EQ(set(0, prm::kFlowFwdRq, rq[2].rqn, m, v), prm::kStatOk);
	EXPECT_EQ(land(with_src(to(kOwn), other_src)), 2) << "smac prefix";
	EXPECT_EQ(land(to(kOwn)), 0) << "another smac";

	m = {}, v = {};
	m.ethertype.set(0xffff);
	v.ethertype.set(0x0806);
	ASSERT_EQ(set(0, prm::kFlowFwdRq, rq[3].rqn, m, v), prm::kStatOk);
	EXPECT_EQ(land(arp), 3) << "ARP";
	EXPECT_EQ(land(to(kOwn)), 0) << "IPv4";
	v.ethertype.set(0x0800);
	ASSERT_EQ(set(0, prm::kFlowFwdRq, rq[3].rqn, m, v), prm::kStatOk);
	EXPECT_EQ(land(to(kOwn)), 3) << "IPv4";
	EXPECT_EQ(land(tagged(0x8100, 100)), 3) << "the ethertype after the tag";
	EXPECT_EQ(land(arp), 0);

	m = {}, v = {};
	m.cvlan.set(prm::kFlowCvlanTag | 0xfff);
	v.cvlan.set(prm::kFlowCvlanTag | 100);
	ASSERT_EQ(set(0, prm::kFlowFwdRq, rq[1].rqn, m, v), prm::kStatOk);
	EXPECT_EQ(land(tagged(0x8100, 100)), 1) << "C-tag 100";
	EXPECT_EQ(land(tagged(0x8100, 101)), 0) << "C-tag 101";
	EXPECT_EQ(land(tagged(0x88a8, 100)), 0) << "S-tag 100";
	EXPECT_EQ(land(to(kOwn)), 0) << "untagged";
	/* a tag's priority bits are not part of the VLAN ID */
	frames::Bytes prio = tagged(0x8100, 100);
	prio[14] |= 0xa0;
	EXPECT_EQ(land(prio), 1) << "C-tag 100, priority 5";

	m.cvlan.set(prm::kFlowCvlanTag | 0x1fff);
	EXPECT_EQ(set(0, prm::kFlowFwdRq, rq[1].rqn, m, v), prm::kStatBadParam)
		<< "reserved cvlan bits";
	EXPECT_EQ(land(tagged(0x8100, 100)), 1) << "the refused SET changed nothing";
	ASSERT_EQ(del(0), prm::kStatOk);
	EXPECT_EQ(land(tagged(0x8100, 100)), 0);
}

/* An FwdRq entry places without a hash (a direct TIR): no RSS fields in the CQE. */
TEST_F(HwFlow, ForwardToRqCarriesNoHash)
{
	prm::FlowFields m = mask_of("0.0.0.0", "0.0.0.0", 0, 0xffff, 0);
	prm::FlowFields v = v4_fields("0.0.0.0", "0.0.0.0", 0, 9000, 0);
	ASSERT_EQ(set(0, prm::kFlowFwdRq, rq[1].rqn, m, v), prm::kStatOk);
	prm::Cqe64 c;
	EXPECT_EQ(land(frame("10.0.0.1", "10.0.0.2", 1234, 9000), &c), 1);
	EXPECT_EQ(c.rss_hash_type, 0);
	EXPECT_EQ(c.rss_hash_result.get(), 0u);
	EXPECT_EQ(land(frame("10.0.0.1", "10.0.0.2", 1234, 9001), &c), 0);
	EXPECT_NE(c.rss_hash_type, 0) << "the default object still hashes";
}

/* IPv6 addresses are all 16 bytes; an IPv6 entry takes no IPv4 frame with the same ports. */
TEST_F(HwFlow, Ipv6PrefixAndPorts)
{
	prm::FlowFields m = {}, v = {};
	m.ip_version = 0xff;
	v.ip_version = 6;
	m.l4_ok = 1;
	v.l4_ok = 1;
	frames::Bytes pre = frames::ip_bytes("2001:db8:1:2::");
	frames::Bytes pm = frames::ip_bytes("ffff:ffff:ffff:ffff::");
	memcpy(v.src_ip, pre.data(), 16);
	memcpy(m.src_ip, pm.data(), 16);
	m.dst_port.set(0xffff);
	v.dst_port.set(443);
	ASSERT_EQ(set(10, prm::kFlowFwdRq, rq[3].rqn, m, v), prm::kStatOk);
	EXPECT_EQ(land(frame("2001:db8:1:2::77", "2001:db8::1", 5555, 443, 6, true)), 3);
	EXPECT_EQ(land(frame("2001:db8:1:2:ffff::1", "fe80::1", 1, 443, 17, true)), 3);
	EXPECT_EQ(land(frame("2001:db8:1:3::77", "2001:db8::1", 5555, 443, 6, true)), 0);
	EXPECT_EQ(land(frame("2001:db8:1:2::77", "2001:db8::1", 5555, 444, 6, true)), 0);
	EXPECT_EQ(land(frame("32.1.13.184", "2.2.2.2", 5555, 443)), 0) << "IPv4";
	/* no complete L4 header (not TCP/UDP): l4_ok 0, the entry does not apply */
	EXPECT_EQ(land(frame("2001:db8:1:2::77", "2001:db8::1", 5555, 443, 50, true)), 0);
}

/* The lowest index that matches decides; deleting it hands the frame to the next. */
TEST_F(HwFlow, LowerIndexWins)
{
	prm::FlowFields mp = mask_of("0.0.0.0", "0.0.0.0", 0, 0xffff, 0);
	prm::FlowFields vp = v4_fields("0.0.0.0", "0.0.0.0", 0, 80, 0);
	prm::FlowFields ms = mask_of("255.255.255.255", "0.0.0.0", 0, 0, 0);
	prm::FlowFields vs = v4_fields("10.0.0.5", "0.0.0.0", 0, 0, 0);
	mp.ip_version = ms.ip_version = 0xff;
	vp.ip_version = vs.ip_version = 4;
	ASSERT_EQ(set(200, prm::kFlowFwdRq, rq[1].rqn, mp, vp), prm::kStatOk);
	ASSERT_EQ(set(7, prm::kFlowFwdRq, rq[2].rqn, ms, vs), prm::kStatOk);
	EXPECT_EQ(fn1->flows.n, 201u);
	frames::Bytes both = frame("10.0.0.5", "10.0.0.2", 1000, 80);
	EXPECT_EQ(land(both), 2);
	EXPECT_EQ(land(frame("10.0.0.6", "10.0.0.2", 1000, 80)), 1);
	/* SET on a used index replaces it */
	ASSERT_EQ(set(7, prm::kFlowFwdRq, rq[3].rqn, ms, vs), prm::kStatOk);
	EXPECT_EQ(land(both), 3);
	ASSERT_EQ(del(7), prm::kStatOk);
	EXPECT_EQ(land(both), 1);
	ASSERT_EQ(del(200), prm::kStatOk);
	EXPECT_EQ(fn1->flows.n, 0u);
	EXPECT_EQ(land(both), 0);
}

/* A drop entry: its frames reach no RQ and each is counted; other frames are untouched. */
TEST_F(HwFlow, DropEntryCounts)
{
	prm::FlowFields m = mask_of("0.0.0.0", "255.255.255.255", 0, 0, 0xff);
	prm::FlowFields v = v4_fields("0.0.0.0", "10.0.0.66", 0, 0, 17);
	ASSERT_EQ(set(1, prm::kFlowDrop, 0, m, v), prm::kStatOk);
	for (int i = 0; i < 5; i++)
		EXPECT_EQ(land(frame("10.0.0.1", "10.0.0.66", (uint16_t)(i + 1), 9)), -1);
	EXPECT_EQ(land(frame("10.0.0.1", "10.0.0.66", 1, 9, 6)), 0) << "TCP: not the entry's";
	EXPECT_EQ(land(frame("10.0.0.1", "10.0.0.67", 1, 9)), 0);
	prm::QueryQCounterOut q = query_q(fn1);
	EXPECT_EQ(q.rx_steer_drop.get(), 5u);
	EXPECT_EQ(q.rx_if_down_packets.get(), 0u);
	EXPECT_EQ(q.rx_out_of_buffer.get(), 0u);
}

/*
 * A flow-only RSS object (an ethtool context) steers only the entries that
 * name it: creating it leaves the default alone; its frames land on
 * table[toeplitz(its key) & 3] with that hash in the CQE.
 */
TEST_F(HwFlow, ForwardToFlowOnlyRssObject)
{
	uint8_t key[prm::kRssKeySize];
	for (uint32_t i = 0; i < sizeof(key); i++)
		key[i] = (uint8_t)(i * 29 + 3);
	const int table_ix[4] = { 1, 3, 2, 3 };
	std::vector<uint32_t> table;
	for (int t : table_ix)
		table.push_back(rq[t].rqn);
	uint32_t ctx;
	ASSERT_EQ(rss_cmd(fn1, prm::kCmdCreateRss, 0, table, kFields4, key, &ctx, -1, nullptr,
			  prm::kRssFlowOnly),
		  prm::kStatOk);
	EXPECT_EQ(land(frame("10.0.0.1", "10.0.0.2", 1, 2)), 0) << "the default still steers";

	prm::FlowFields m = mask_of("0.0.0.0", "255.255.255.255", 0, 0, 0xff);
	prm::FlowFields v = v4_fields("0.0.0.0", "10.0.0.2", 0, 0, 17);
	ASSERT_EQ(set(4, prm::kFlowFwdRss, ctx, m, v), prm::kStatOk);
	int seen[kRqs] = {};
	for (int i = 0; i < 64; i++) {
		std::string src = "172.16.0." + std::to_string(i + 1);
		uint16_t sport = (uint16_t)(20000 + i * 13);
		frames::Bytes in = frames::ip_bytes(src), d = frames::ip_bytes("10.0.0.2");
		in.insert(in.end(), d.begin(), d.end());
		in.insert(in.end(), { (uint8_t)(sport >> 8), (uint8_t)sport, 0x1f, 0x90 });
		uint32_t h = ref_toeplitz(key, in);
		prm::Cqe64 c;
		int got = land(frame(src.c_str(), "10.0.0.2", sport, 8080), &c);
		ASSERT_EQ(got, table_ix[h & 3]) << src;
		EXPECT_EQ(c.rss_hash_result.get(), h);
		EXPECT_EQ(c.rss_hash_type, prm::kRssHashIpv4 | prm::kRssHashUdp);
		seen[got]++;
	}
	EXPECT_EQ(seen[0], 0);
	for (int i = 1; i < kRqs; i++)
		EXPECT_GT(seen[i], 5) << "the context's table spreads over RQ " << i;
	EXPECT_EQ(land(frame("10.0.0.1", "10.0.0.3", 1, 2)), 0) << "not the entry's: default";

	/* the object cannot go while an entry names it; MODIFY keeps the flag */
	EXPECT_EQ(destroy(fn1, prm::kCmdDestroyRss, ctx), prm::kStatResourceBusy);
	EXPECT_EQ(rss_cmd(fn1, prm::kCmdModifyRss, ctx, table, kFields4, key, nullptr),
		  prm::kStatBadParam);
	ASSERT_EQ(rss_cmd(fn1, prm::kCmdModifyRss, ctx, { rq[2].rqn }, kFields4, key, nullptr, -1,
			  nullptr, prm::kRssFlowOnly),
		  prm::kStatOk);
	EXPECT_EQ(land(frame("172.16.0.1", "10.0.0.2", 1, 2)), 2);
	ASSERT_EQ(del(4), prm::kStatOk);
	EXPECT_EQ(destroy(fn1, prm::kCmdDestroyRss, ctx), prm::kStatOk);
	EXPECT_EQ(land(frame("172.16.0.1", "10.0.0.2", 1, 2)), 0);
}

/* Destroying the default object does not promote a flow-only one. */
TEST_F(HwFlow, FlowOnlyObjectNeverTheDefault)
{
	uint32_t ctx;
	ASSERT_EQ(rss_cmd(fn1, prm::kCmdCreateRss, 0, { rq[3].rqn }, kFields4, kMsKey, &ctx, -1,
			  nullptr, prm::kRssFlowOnly),
		  prm::kStatOk);
	ASSERT_EQ(destroy(fn1, prm::kCmdDestroyRss, rss), prm::kStatOk);
	rss = 0;
	EXPECT_EQ(land(frame("10.0.0.1", "10.0.0.2", 1, 2)), -1);
	EXPECT_EQ(query_q(fn1).rx_if_down_packets.get(), 1u);
	ASSERT_EQ(destroy(fn1, prm::kCmdDestroyRss, ctx), prm::kStatOk);
}

/* Non-IP frames match only entries that compare nothing; an entry whose RQ died drops as if_down. */
TEST_F(HwFlow, NonIpAndDeadRq)
{
	prm::FlowFields m = mask_of("0.0.0.0", "0.0.0.0", 0, 0, 0);
	prm::FlowFields v = {};
	v.ip_version = 4;
	ASSERT_EQ(set(2, prm::kFlowFwdRq, rq[1].rqn, m, v), prm::kStatOk);
	frames::Bytes arp(60, 0);
	arp[12] = 0x08;
	arp[13] = 0x06;
	EXPECT_EQ(land(arp), 0) << "not IPv4";
	EXPECT_EQ(land(frame("1.2.3.4", "5.6.7.8", 1, 2, 1)), 1) << "any IPv4";
	prm::FlowFields any = {};
	ASSERT_EQ(set(1, prm::kFlowFwdRq, rq[2].rqn, any, any), prm::kStatOk);
	EXPECT_EQ(land(arp), 2) << "a mask of 0 matches every frame";
	ASSERT_EQ(rq[2].destroy(), prm::kStatOk);
	EXPECT_EQ(land(arp), -1);
	EXPECT_EQ(query_q(fn1).rx_if_down_packets.get(), 1u);
	ASSERT_EQ(del(1), prm::kStatOk);
	ASSERT_EQ(del(2), prm::kStatOk);
}

/* What SET and DELETE refuse, and that a refused SET changes nothing. */
TEST_F(HwFlow, RefusedCommands)
{
	prm::FlowFields m = mask_of("0.0.0.0", "0.0.0.0", 0, 0xffff, 0);
	prm::FlowFields v = v4_fields("0.0.0.0", "0.0.0.0", 0, 53, 0);
	m.ip_version = 0xff;
	v.ip_version = 4;
	frames::Bytes f = frame("1.1.1.1", "2.2.2.2", 9, 53);
	ASSERT_EQ(set(5, prm::kFlowFwdRq, rq[1].rqn, m, v), prm::kStatOk);

	prm::FlowFields outside = v;
	outside.src_port.set(1);	/* a bit the mask does not have */
	prm::FlowFields rsvd = m;
	rsvd.rsvd = 1;
	struct {
		const char *what;
		uint32_t ix;
		uint8_t action;
		uint32_t dest;
		prm::FlowFields mask, value;
		uint8_t status;
	} bad[] = {
		{ "index beyond the table", 1u << softcx::hw::kLogMaxFlowTable, prm::kFlowFwdRq,
		  rq[2].rqn, m, v, prm::kStatBadParam },
		{ "action free", 5, prm::kFlowFree, 0, m, v, prm::kStatBadParam },
		{ "unknown action", 5, 9, rq[2].rqn, m, v, prm::kStatBadParam },
		{ "dest no RQ", 5, prm::kFlowFwdRq, rss, m, v, prm::kStatBadResource },
		{ "dest no RSS", 5, prm::kFlowFwdRss, rq[2].rqn, m, v, prm::kStatBadResource },
		{ "drop with a dest", 5, prm::kFlowDrop, rq[2].rqn, m, v, prm::kStatBadParam },
		{ "value outside mask", 5, prm::kFlowFwdRq, rq[2].rqn, m, outside,
		  prm::kStatBadParam },
		{ "reserved byte", 5, prm::kFlowFwdRq, rq[2].rqn, rsvd, v, prm::kStatBadParam },
	};
	for (auto &b : bad) {
		EXPECT_EQ(set(b.ix, b.action, b.dest, b.mask, b.value), b.status) << b.what;
		EXPECT_EQ(land(f), 1) << b.what << ": the old entry stays";
	}
	EXPECT_EQ(del(6), prm::kStatBadResource) << "free entry";
	EXPECT_EQ(del(1u << softcx::hw::kLogMaxFlowTable), prm::kStatBadResource);
	EXPECT_EQ(rss_cmd(fn1, prm::kCmdCreateRss, 0, { rq[0].rqn }, kFields4, kMsKey, nullptr, -1,
			  nullptr, 0x80),
		  prm::kStatBadParam)
		<< "unknown RSS flag";
	prm::HcaCaps caps = query_caps(fn1);
	EXPECT_EQ(caps.log_max_ft_size, softcx::hw::kLogMaxFlowTable);
	EXPECT_EQ(caps.max_rss, softcx::hw::kMaxRss);
	/* a short inbox */
	prm::SetFlowEntryIn in = {};
	prm::CmdOut out;
	set_op(&in, prm::kCmdSetFlowTableEntry);
	ASSERT_TRUE(bus::cmd_exec(fn1, &in, sizeof(in) - 1, &out, sizeof(out)));
	EXPECT_EQ(out.status, prm::kStatBadInputLen);
	ASSERT_EQ(del(5), prm::kStatOk);
}

/* ---- the RX address filter (MODIFY_NIC_VPORT_CONTEXT, hw/vport.h) ---- */

/* Before any command every frame passes: the filter is the driver's to set. */
TEST_F(HwFlow, VportOpenUntilSet)
{
	for (const Mac &m : { kOwn, kOther, kGroup, kBcast })
		EXPECT_TRUE(land_to(m));
	EXPECT_EQ(missed_vport(), 0u);
}

/* The lists: own and second unicast, one group; broadcast always; the rest missed. */
TEST_F(HwFlow, VportListedAddressesAndBroadcastOnly)
{
	ASSERT_EQ(set_vport(fn1, 0, { kOwn, kSecond }, { kGroup }), prm::kStatOk);
	EXPECT_TRUE(land_to(kOwn));
	EXPECT_TRUE(land_to(kSecond));
	EXPECT_TRUE(land_to(kGroup));
	EXPECT_TRUE(land_to(kBcast));
	EXPECT_FALSE(land_to(kOther));
	EXPECT_FALSE(land_to(kGroup2));
	EXPECT_FALSE(land_to(kOther));
	EXPECT_EQ(missed_vport(), 3u);
	/* the port's MAC received them all; no other drop counter moved */
	prm::QueryQCounterOut q = query_q(fn1);
	EXPECT_EQ(q.rx_if_down_packets.get(), 0u);
	EXPECT_EQ(q.rx_steer_drop.get(), 0u);
	EXPECT_EQ(fn1->port.rx_packets, 7u);
}

/* Each promiscuous mode takes its kind only; all takes everything. */
TEST_F(HwFlow, VportPromiscuousModes)
{
	ASSERT_EQ(set_vport(fn1, prm::kVportPromiscMc, { kOwn }, {}), prm::kStatOk);
	EXPECT_TRUE(land_to(kGroup2));
	EXPECT_FALSE(land_to(kOther));
	ASSERT_EQ(set_vport(fn1, prm::kVportPromiscUc, { kOwn }, {}), prm::kStatOk);
	EXPECT_TRUE(land_to(kOther));
	EXPECT_FALSE(land_to(kGroup2));
	ASSERT_EQ(set_vport(fn1, prm::kVportPromiscAll, { kOwn }, {}), prm::kStatOk);
	EXPECT_TRUE(land_to(kOther));
	EXPECT_TRUE(land_to(kGroup2));
	/* back to the list alone */
	ASSERT_EQ(set_vport(fn1, 0, { kOwn }, {}), prm::kStatOk);
	EXPECT_FALSE(land_to(kOther));
	EXPECT_TRUE(land_to(kOwn));
	EXPECT_EQ(missed_vport(), 3u);
}

/* An empty unicast list: only broadcast and the listed groups. */
TEST_F(HwFlow, VportNoUnicastAddress)
{
	ASSERT_EQ(set_vport(fn1, 0, {}, { kGroup }), prm::kStatOk);
	EXPECT_FALSE(land_to(kOwn));
	EXPECT_TRUE(land_to(kGroup));
	EXPECT_TRUE(land_to(kBcast));
	EXPECT_EQ(missed_vport(), 1u);
}

/* A flow table entry takes its frames before the filter looks. */
TEST_F(HwFlow, VportFlowEntryBeforeFilter)
{
	ASSERT_EQ(set_vport(fn1, 0, { kOwn }, {}), prm::kStatOk);
	prm::FlowFields m = {}, v = {};
	m.ip_version = 0xff;
	v.ip_version = 4;
	ASSERT_EQ(set(0, prm::kFlowFwdRq, rq[2].rqn, m, v), prm::kStatOk);
	EXPECT_EQ(land(to(kOther)), 2) << "steered by the entry";
	EXPECT_EQ(query_q(fn1).rx_steer_missed.get(), 0u);
}

/* Refusals change nothing: the filter set before still holds. */
TEST_F(HwFlow, VportRefusedCommandsKeepTheFilter)
{
	ASSERT_EQ(set_vport(fn1, 0, { kOwn }, { kGroup }), prm::kStatOk);
	EXPECT_EQ(set_vport(fn1, 0x08, { kOwn }, {}), prm::kStatBadParam) << "unknown promisc bit";
	EXPECT_EQ(set_vport(fn1, 0, { kGroup }, {}), prm::kStatBadParam) << "group address as unicast";
	EXPECT_EQ(set_vport(fn1, 0, { kOwn }, { kOther }), prm::kStatBadParam) << "unicast as group";
	EXPECT_EQ(set_vport(fn1, 0, { kOwn, kSecond }, {}, 4), prm::kStatBadInputLen) << "list past the inbox";
	std::vector<Mac> many(33, kOwn);
	EXPECT_EQ(set_vport(fn1, 0, many, {}), prm::kStatBadParam) << "longer than 2^log_max_current_uc_list";
	std::vector<Mac> groups(64, kGroup);
	EXPECT_EQ(set_vport(fn1, 0, { kOwn }, groups), prm::kStatOk) << "2^log_max_current_mc_list is allowed";
	ASSERT_EQ(set_vport(fn1, 0, { kOwn }, { kGroup }), prm::kStatOk);
	EXPECT_TRUE(land_to(kOwn));
	EXPECT_TRUE(land_to(kGroup));
	EXPECT_FALSE(land_to(kSecond));
	EXPECT_FALSE(land_to(kGroup2));
}

/* ---- the VLAN filter (kVportSelectVlans) ---- */

constexpr uint16_t kC = 0x8100, kS = 0x88a8;

/*
 * C-tags and S-tags each by their map; the outer tag decides (an S-tag
 * over a C-tag the maps lack passes by the S map); untagged and priority
 * tagged (VLAN ID 0, when listed) frames as before.
 */
TEST_F(HwFlow, VportVlanMaps)
{
	ASSERT_EQ(set_vport(fn1, 0, { kOwn }, {}), prm::kStatOk);
	ASSERT_EQ(set_vlans(fn1, prm::kVportVlanCtag | prm::kVportVlanStag, { 0, 100, 4095 }, { 300 }),
		  prm::kStatOk);
	EXPECT_TRUE(land_to(kOwn));
	EXPECT_TRUE(land_tagged(kC, 100));
	EXPECT_TRUE(land_tagged(kC, 4095));
	EXPECT_TRUE(land_tagged(kC, 0)) << "priority tag, VLAN ID 0 listed";
	EXPECT_FALSE(land_tagged(kC, 200));
	EXPECT_FALSE(land_tagged(kC, 300)) << "in the S map only";
	EXPECT_TRUE(land_tagged(kS, 300));
	EXPECT_FALSE(land_tagged(kS, 100)) << "in the C map only";
	/* QinQ: S 300 outside, C 200 (not listed) inside */
	frames::Bytes q = frames::vlan_insert(frames::vlan_insert(to(kOwn), 200), 300);
	q[12] = kS >> 8;
	q[13] = kS & 0xff;
	EXPECT_GE(land(q), 0);
	EXPECT_EQ(missed_vport(), 3u);
	/* the address filter still applies to tagged frames */
	frames::Bytes other = frames::vlan_insert(to(kOther), 100);
	EXPECT_EQ(land(other), -1);
	EXPECT_EQ(missed_vport(), 4u);
	prm::QueryQCounterOut qc = query_q(fn1);
	EXPECT_EQ(qc.rx_if_down_packets.get(), 0u);
	EXPECT_EQ(qc.rx_steer_drop.get(), 0u);
}

/*
 * A kind not filtered passes any VLAN ID; nothing is filtered before the
 * first address context nor while promiscuous; a later address context
 * keeps the VLAN filter, a later VLAN one the addresses.
 */
TEST_F(HwFlow, VportVlanUnfilteredKindsPromiscAndOrder)
{
	ASSERT_EQ(set_vlans(fn1, prm::kVportVlanCtag | prm::kVportVlanStag, {}, {}), prm::kStatOk);
	EXPECT_TRUE(land_tagged(kC, 7)) << "open until the first address context";
	ASSERT_EQ(set_vport(fn1, 0, { kOwn }, {}), prm::kStatOk);
	EXPECT_FALSE(land_tagged(kC, 7));
	EXPECT_FALSE(land_tagged(kS, 7));
	ASSERT_EQ(set_vlans(fn1, prm::kVportVlanStag, {}, {}), prm::kStatOk);
	EXPECT_TRUE(land_tagged(kC, 7)) << "C-tags not filtered";
	EXPECT_FALSE(land_tagged(kS, 7));
	EXPECT_FALSE(land_to(kOther)) << "the addresses kept";
	ASSERT_EQ(set_vport(fn1, prm::kVportPromiscAll, { kOwn }, {}), prm::kStatOk);
	EXPECT_TRUE(land_tagged(kS, 7)) << "promiscuous: every frame";
	ASSERT_EQ(set_vport(fn1, 0, { kOwn }, {}), prm::kStatOk);
	EXPECT_FALSE(land_tagged(kS, 7)) << "the VLAN filter kept";
	/* both parts in one command */
	ASSERT_EQ(run_vport(fn1, vport_in(prm::kVportSelectAddrs | prm::kVportSelectVlans, 0,
					  { kOwn, kSecond }, {}, prm::kVportVlanCtag, { 9 }, {})),
		  prm::kStatOk);
	EXPECT_TRUE(land_tagged(kC, 9));
	EXPECT_FALSE(land_tagged(kC, 7));
	EXPECT_TRUE(land_tagged(kS, 7));
	EXPECT_TRUE(land_to(kSecond));
	EXPECT_EQ(missed_vport(), 6u);
}

/* Refusals change nothing. */
TEST_F(HwFlow, VportVlanRefusedCommandsKeepTheFilter)
{
	ASSERT_EQ(set_vport(fn1, 0, { kOwn }, {}), prm::kStatOk);
	ASSERT_EQ(set_vlans(fn1, prm::kVportVlanCtag, { 5 }, {}), prm::kStatOk);
	EXPECT_EQ(set_vlans(fn1, 0x04, { 6 }, {}), prm::kStatBadParam) << "unknown VLAN bit";
	EXPECT_EQ(run_vport(fn1, vport_in(0, 0, {}, {})), prm::kStatBadParam) << "nothing selected";
	EXPECT_EQ(run_vport(fn1, vport_in(0x08, 0, {}, {})), prm::kStatBadParam) << "unknown part";
	EXPECT_EQ(run_vport(fn1, vport_in(prm::kVportSelectVlans, 0, {}, {}, 0, { 6 }, {}), 1),
		  prm::kStatBadInputLen)
		<< "maps past the inbox";
	EXPECT_EQ(run_vport(fn1, vport_in(prm::kVportSelectAddrs | prm::kVportSelectVlans, 0, { kGroup }, {},
					  0, { 6 }, {})),
		  prm::kStatBadParam)
		<< "a bad address list refuses the VLAN part too";
	EXPECT_TRUE(land_tagged(kC, 5));
	EXPECT_FALSE(land_tagged(kC, 6));
	EXPECT_TRUE(land_to(kOwn));
}

/* MODIFY_NIC_VPORT_CONTEXT of the local loopback alone, local_lb = v. */
std::vector<uint8_t> local_lb_in(uint8_t v)
{
	std::vector<uint8_t> in = vport_in(prm::kVportSelectLocalLb, 0, {}, {});
	reinterpret_cast<prm::ModifyNicVportIn *>(in.data())->local_lb = v;
	return in;
}

/*
 * Local loopback: with it on, a frame fn0 sends to an address of its own
 * unicast list comes back to fn0's RX intact, link up or down, and no MAC
 * counts it; every other frame leaves on the wire as before.
 */
TEST_F(HwFlow, LocalLoopbackTurnsOwnUnicastBack)
{
	Cq lcq;
	Rq lrq;
	uint32_t lrss = 0;
	ASSERT_EQ(lcq.create(fn0, 10, 0), prm::kStatOk);
	ASSERT_EQ(lrq.create(fn0, lcq.cqn, 9, 2048), prm::kStatOk);
	ASSERT_EQ(lrq.modify(prm::kQueueRst, prm::kQueueRdy), prm::kStatOk);
	lrq.post(512);
	ASSERT_EQ(rss_cmd(fn0, prm::kCmdCreateRss, 0, { lrq.rqn }, kFields4, kMsKey, &lrss),
		  prm::kStatOk);
	ASSERT_EQ(set_vport(fn0, 0, { kSecond }, {}), prm::kStatOk);

	/* Where a frame fn0 sends to dst ends: 'L' back at fn0, 'W' across the wire at fn1, '-' nowhere. */
	auto where = [&](const Mac &dst) {
		frames::Bytes f = to(dst);
		int wire = land(f);
		std::vector<prm::Cqe64> back = lcq.poll_all();
		EXPECT_LE(back.size() + (wire >= 0), 1u);
		if (back.empty())
			return wire >= 0 ? 'W' : '-';
		EXPECT_EQ(back[0].byte_cnt.get(), f.size());
		EXPECT_EQ(0, memcmp(lrq.buffer(back[0].wqe_counter.get()), f.data(), f.size()))
			<< "looped back intact";
		return 'L';
	};

	EXPECT_EQ(where(kSecond), 'W') << "off, as a function starts";
	ASSERT_EQ(run_vport(fn0, local_lb_in(1)), prm::kStatOk);
	prm::QueryPortCountersOut p0 = query_port(fn0), p1 = query_port(fn1);
	EXPECT_EQ(where(kSecond), 'L');
	EXPECT_EQ(query_port(fn0).tx_packets.get(), p0.tx_packets.get()) << "no MAC sees it";
	EXPECT_EQ(query_port(fn0).rx_packets.get(), p0.rx_packets.get());
	EXPECT_EQ(query_port(fn1).rx_packets.get(), p1.rx_packets.get());
	EXPECT_EQ(where(kOther), 'W') << "not an address of fn0's";
	EXPECT_EQ(where(kBcast), 'W') << "group addresses are not looped";
	EXPECT_EQ(where(kGroup), 'W');
	EXPECT_EQ(query_port(fn0).tx_packets.get(), p0.tx_packets.get() + 3);

	/* the loopback needs no link; the wire does */
	ASSERT_EQ(link_admin(fn1, false), prm::kStatOk);
	uint64_t discards = query_port(fn0).tx_discards.get();
	EXPECT_EQ(where(kSecond), 'L') << "link down";
	EXPECT_EQ(where(kOther), '-');
	EXPECT_EQ(query_port(fn0).tx_discards.get(), discards + 1);
	ASSERT_EQ(link_admin(fn1, true), prm::kStatOk);

	EXPECT_EQ(run_vport(fn0, local_lb_in(2)), prm::kStatBadParam);
	EXPECT_EQ(where(kSecond), 'L') << "a refused command changes nothing";
	ASSERT_EQ(set_vport(fn0, 0, { kOwn }, {}), prm::kStatOk);
	EXPECT_EQ(where(kSecond), 'W') << "the loopback follows the list";
	EXPECT_EQ(where(kOwn), 'L');
	ASSERT_EQ(run_vport(fn0, local_lb_in(0)), prm::kStatOk);
	EXPECT_EQ(where(kOwn), 'W');
	EXPECT_EQ(query_q(fn0).rx_steer_missed.get(), 0u);
}

/* The caps report the list sizes the command takes. */
TEST_F(HwFlow, VportCapsListSizes)
{
	prm::HcaCaps c = query_caps(fn1);
	EXPECT_EQ(c.log_max_current_uc_list, 5u);
	EXPECT_EQ(c.log_max_current_mc_list, 6u);
}

} /* namespace */
