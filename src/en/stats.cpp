// SPDX-License-Identifier: GPL-2.0
/*
 * The counter table. Ring counters appear twice in ethtool -S: as a port
 * total ("rx_packets") and per channel ("rx0_packets"); device counters
 * once. Names follow mlx5 where mlx5 has the counter.
 */
#include "en/stats.h"

#include "en/cmd.h"
#include "en/port.h"

namespace softcx::en {

#define SCX_RQ(f) { #f, StatGroup::Rx, __builtin_offsetof(ChannelStats, rq.f), nullptr }
#define SCX_SQ(f) { #f, StatGroup::Tx, __builtin_offsetof(ChannelStats, sq.f), nullptr }
/* ch_name: mlx5 names the port total rx_xdp_tx_cqe but the per-channel one rxN_xdp_tx_cqes. */
#define SCX_XDPTX2(name, ch_name, f) { name, StatGroup::Rx, __builtin_offsetof(ChannelStats, xdpsq.f), ch_name }
#define SCX_XDPTX(name, f) SCX_XDPTX2(name, nullptr, f)
#define SCX_XMIT(name, f) { name, StatGroup::Tx, __builtin_offsetof(ChannelStats, xmitsq.f), nullptr }
#define SCX_CH(f) { #f, StatGroup::Ch, __builtin_offsetof(ChannelStats, ch.f), nullptr }
/* Device counters: one entry for each of prm/counters.h's lists, in their order. */
#define SCX_DEV_Q(f, name) { name, StatGroup::Device, __builtin_offsetof(DeviceStats, q.f), nullptr },
#define SCX_DEV_BUS(f, name) { name, StatGroup::Device, __builtin_offsetof(DeviceStats, bus.f), nullptr },
#define SCX_DEV_PORT(f, name) { name, StatGroup::Device, __builtin_offsetof(DeviceStats, port.f), nullptr },

const StatDesc kStatDescs[] = {
	SCX_RQ(packets),
	SCX_RQ(bytes),
	SCX_RQ(csum_unnecessary),
	SCX_RQ(csum_unnecessary_inner),
	SCX_RQ(csum_none),
	SCX_RQ(csum_complete),
	SCX_RQ(removed_vlan_packets),
	SCX_RQ(buff_alloc_err),
	SCX_RQ(wqe_err),
	SCX_RQ(xdp_drop),
	SCX_RQ(xdp_redirect),
	SCX_RQ(flushed),
	SCX_RQ(skb_err),
	SCX_RQ(recover),
	SCX_RQ(mpwqe_filler_cqes),
	SCX_RQ(mpwqe_filler_strides),
	SCX_RQ(oversize_pkts_sw_drop),
	SCX_RQ(cqe_compress_blks),
	SCX_RQ(cqe_compress_pkts),
	SCX_RQ(gro_packets),
	SCX_RQ(gro_bytes),
	SCX_RQ(gro_skbs),
	SCX_RQ(gro_match_packets),
	SCX_RQ(gro_large_hds),
	SCX_RQ(hds_nosplit_packets),
	SCX_RQ(hds_nosplit_bytes),
	SCX_RQ(hds_nodata_packets),
	SCX_RQ(hds_nodata_bytes),
	SCX_XDPTX("xdp_tx_xmit", xmit),
	SCX_XDPTX("xdp_tx_mpwqe", mpwqe),
	SCX_XDPTX("xdp_tx_inlnw", inlnw),
	SCX_XDPTX("xdp_tx_nops", nops),
	SCX_XDPTX("xdp_tx_full", full),
	SCX_XDPTX("xdp_tx_err", err),
	SCX_XDPTX2("xdp_tx_cqe", "xdp_tx_cqes", cqes),
	SCX_XDPTX("xdp_tx_recover", recover),
	SCX_XDPTX("xdp_tx_flushed", flushed),
	SCX_SQ(packets),
	SCX_SQ(bytes),
	SCX_SQ(tso_packets),
	SCX_SQ(tso_bytes),
	SCX_SQ(tso_inner_packets),
	SCX_SQ(tso_inner_bytes),
	SCX_SQ(csum_partial),
	SCX_SQ(csum_partial_inner),
	SCX_SQ(csum_none),
	SCX_SQ(added_vlan_packets),
	SCX_SQ(mpwqe_blks),
	SCX_SQ(mpwqe_pkts),
	SCX_SQ(nop),
	SCX_SQ(xmit_more),
	SCX_SQ(stopped),
	SCX_SQ(wake),
	SCX_SQ(dropped),
	SCX_SQ(flushed),
	SCX_SQ(timeout),
	SCX_SQ(cqes),
	SCX_SQ(cqe_err),
	SCX_SQ(recover),
	SCX_SQ(doorbells),
	SCX_SQ(timestamps),
	SCX_SQ(timestamps_delivered),
	SCX_SQ(timestamps_lost),
	SCX_XMIT("xdp_xmit", xmit),
	SCX_XMIT("xdp_mpwqe", mpwqe),
	SCX_XMIT("xdp_inlnw", inlnw),
	SCX_XMIT("xdp_nops", nops),
	SCX_XMIT("xdp_full", full),
	SCX_XMIT("xdp_err", err),
	SCX_XMIT("xdp_cqes", cqes),
	SCX_XMIT("xdp_recover", recover),
	SCX_XMIT("xdp_flushed", flushed),
	SCX_CH(poll),
	SCX_CH(arm),
	SCX_PRM_Q_COUNTERS(SCX_DEV_Q)
	SCX_PRM_BUS_COUNTERS(SCX_DEV_BUS)
	SCX_PRM_PORT_COUNTERS(SCX_DEV_PORT)
};
const u32 kNumStatDescs = sizeof(kStatDescs) / sizeof(kStatDescs[0]);

#undef SCX_RQ
#undef SCX_SQ
#undef SCX_XDPTX
#undef SCX_XDPTX2
#undef SCX_XMIT
#undef SCX_CH
#undef SCX_DEV_Q
#undef SCX_DEV_BUS
#undef SCX_DEV_PORT

void stats_fold(ChannelStats *into, const ChannelStats *from)
{
	constexpr u32 n = sizeof(ChannelStats) / sizeof(Counter);
	auto *dst = reinterpret_cast<Counter *>(into);
	auto *src = reinterpret_cast<const Counter *>(from);

	static_assert(sizeof(ChannelStats) % sizeof(Counter) == 0);
	for (u32 i = 0; i < n; i++)
		dst[i].add(src[i].read());
}

namespace {

const char *group_prefix(StatGroup g)
{
	switch (g) {
	case StatGroup::Rx:
		return "rx";
	case StatGroup::Tx:
		return "tx";
	case StatGroup::Ch:
		return "ch";
	default:
		return "";
	}
}

u32 num_ring_descs()
{
	u32 n = 0;

	for (u32 i = 0; i < kNumStatDescs; i++)
		n += kStatDescs[i].group != StatGroup::Device;
	return n;
}

/* "<prefix>[<ch>]_<suffix>" into a SCX_STAT_NAME_LEN buffer; ch < 0: no number. */
void format_name(char *buf, const StatDesc &d, int ch)
{
	char *p = buf;
	char *end = buf + SCX_STAT_NAME_LEN - 1;
	auto put = [&](const char *s) {
		while (*s && p < end)
			*p++ = *s++;
	};

	__builtin_memset(buf, 0, SCX_STAT_NAME_LEN);
	if (d.group == StatGroup::Device) {
		put(d.name);
		return;
	}
	put(group_prefix(d.group));
	if (ch >= 0) {
		char digits[4];
		int n = 0;

		do {
			digits[n++] = (char)('0' + ch % 10);
			ch /= 10;
		} while (ch && n < 3);
		while (n && p < end)
			*p++ = digits[--n];
	}
	put("_");
	put(ch >= 0 && d.ch_name ? d.ch_name : d.name);
}

u64 ring_value(const ChannelStats *s, const StatDesc &d)
{
	auto *c = reinterpret_cast<const Counter *>(reinterpret_cast<const u8 *>(s) + d.offset);

	return c->read();
}

/* One counter set of the device by its query command; left as it is when that fails. */
template <typename Out, typename Counters>
void query_counters(Port *p, prm::CmdOpcode op, Counters *c)
{
	prm::CmdIn in = {};
	Out out = {};

	in.opcode.set(op);
	if (!cmd_exec(p->fn, p->os_port, &in, sizeof(in), &out, sizeof(out)))
		prm::counters_get(out, c);
}

void query_device(Port *p, DeviceStats *ds)
{
	query_counters<prm::QueryQCounterOut>(p, prm::kCmdQueryQCounter, &ds->q);
	query_counters<prm::QueryBusCountersOut>(p, prm::kCmdQueryBusCounters, &ds->bus);
	query_counters<prm::QueryPortCountersOut>(p, prm::kCmdQueryPortCounters, &ds->port);
}

/*
 * Query the device (commands: process context) into the port's cache and
 * copy the cache to *out. The device's counters only grow, so the cache
 * keeps the larger value of each: a refresh that raced with a later one,
 * or a query that failed (zeros), never moves a counter back.
 */
void keep_larger(u64 *cached, u64 fresh)
{
	if (fresh > *cached)
		*cached = fresh;
}

void refresh_device(Port *p, DeviceStats *out)
{
	DeviceStats ds = {};

	query_device(p, &ds);
	LockGuard g(p->stats_lock);
	DeviceStats *c = &p->dev_cache;
	/* every counter of the lists, by name */
#define SCX_KEEP_Q(field, name) keep_larger(&c->q.field, ds.q.field);
#define SCX_KEEP_BUS(field, name) keep_larger(&c->bus.field, ds.bus.field);
#define SCX_KEEP_PORT(field, name) keep_larger(&c->port.field, ds.port.field);
	SCX_PRM_Q_COUNTERS(SCX_KEEP_Q)
	SCX_PRM_BUS_COUNTERS(SCX_KEEP_BUS)
	SCX_PRM_PORT_COUNTERS(SCX_KEEP_PORT)
	SCX_PRM_FEC_COUNTERS(SCX_KEEP_PORT)
#undef SCX_KEEP_Q
#undef SCX_KEEP_BUS
#undef SCX_KEEP_PORT
	*out = *c;
}

/* Per channel index: folded base plus the live channel, under the stats lock. */
void snapshot(Port *p, ChannelStats *out)
{
	LockGuard g(p->stats_lock);

	for (u32 i = 0; i < p->nch_max; i++) {
		out[i] = ChannelStats{};
		stats_fold(&out[i], &p->base[i]);
	}
	for_each_live_stats(p, [&](u32 i, const ChannelStats &s) { stats_fold(&out[i], &s); });
}

} /* namespace */

} /* namespace softcx::en */

using namespace softcx;
using namespace softcx::en;

extern "C" uint32_t scx_stats_count(const scx_port *p)
{
	u32 ring = num_ring_descs();

	return kNumStatDescs + ring * p->nch_max;
}

extern "C" void scx_stats_names(const scx_port *p, char *names)
{
	for (u32 i = 0; i < kNumStatDescs; i++, names += SCX_STAT_NAME_LEN)
		format_name(names, kStatDescs[i], -1);
	for (u32 ch = 0; ch < p->nch_max; ch++)
		for (u32 i = 0; i < kNumStatDescs; i++) {
			if (kStatDescs[i].group == StatGroup::Device)
				continue;
			format_name(names, kStatDescs[i], (int)ch);
			names += SCX_STAT_NAME_LEN;
		}
}

extern "C" void scx_stats_values(scx_port *p, uint64_t *values)
{
	ChannelStats *per = zalloc_array<ChannelStats>(p->nch_max);
	DeviceStats ds = {};
	u64 *v = values;

	if (!per) {
		__builtin_memset(values, 0, sizeof(u64) * scx_stats_count(p));
		return;
	}
	refresh_device(p, &ds);
	snapshot(p, per);
	for (u32 i = 0; i < kNumStatDescs; i++) {
		const StatDesc &d = kStatDescs[i];
		u64 sum = 0;

		if (d.group == StatGroup::Device) {
			__builtin_memcpy(&sum, reinterpret_cast<const u8 *>(&ds) + d.offset,
					 sizeof(sum));
		} else {
			for (u32 ch = 0; ch < p->nch_max; ch++)
				sum += ring_value(&per[ch], d);
		}
		*v++ = sum;
	}
	for (u32 ch = 0; ch < p->nch_max; ch++)
		for (u32 i = 0; i < kNumStatDescs; i++)
			if (kStatDescs[i].group != StatGroup::Device)
				*v++ = ring_value(&per[ch], kStatDescs[i]);
	scx_os_free(per);
}

extern "C" void scx_stats_refresh(scx_port *p)
{
	DeviceStats ds;

	refresh_device(p, &ds);
}

extern "C" void scx_stats_link(scx_port *p, scx_link_stats *s)
{
	ChannelStats total = {};
	DeviceStats ds;

	{
		LockGuard g(p->stats_lock);

		for (u32 i = 0; i < p->nch_max; i++)
			stats_fold(&total, &p->base[i]);
		for_each_live_stats(p, [&](u32, const ChannelStats &s) { stats_fold(&total, &s); });
		ds = p->dev_cache;	/* no command: the last refresh */
	}
	s->rx_packets = total.rq.packets.read();
	s->rx_bytes = total.rq.bytes.read();
	s->tx_packets = total.sq.packets.read();
	s->tx_bytes = total.sq.bytes.read();
	/*
	 * rx_dropped: frames that arrived and were lost, by the device (port
	 * down, too long for the buffer, malformed, the RQ's CQ overrun) or the driver (error CQE,
	 * never polled before a close, no skb, longer than a stride holds). Not refill allocation failures
	 * (no frame is lost: rx_buff_alloc_err), not XDP drops (the program's
	 * choice, as mlx5). rx_missed_errors: no buffer posted (out of buffer);
	 * iproute2 folds it into the "dropped" it prints.
	 */
	const prm::QCounters &qc = ds.q;

	s->rx_dropped = qc.rx_if_down_packets + qc.rx_oversize_pkts_buffer + qc.rx_malformed +
			qc.rx_cq_overrun +
			total.rq.wqe_err.read() + total.rq.flushed.read() + total.rq.skb_err.read() +
			total.rq.oversize_pkts_sw_drop.read();
	s->rx_missed_errors = qc.rx_out_of_buffer;
	/* the MAC's: dropped there unless rx-all, as mlx5 reports them */
	s->rx_crc_errors = ds.port.rx_crc_errors;
	/* tx_dropped: refused before posting; tx_flushed (posted, never sent) as well */
	s->tx_dropped = total.sq.dropped.read() + total.sq.flushed.read();
	/* sent while the link was down, discarded by the MAC (mlx5: if_out_discards) */
	s->tx_aborted_errors = ds.port.tx_discards;
}

#define SCX_HIST_RANGE(X, field, name, low, high) { low, high },
extern "C" const scx_hist_range scx_rx_hist_ranges[SCX_RX_HIST_BUCKETS + 1] = {
	SCX_PRM_RX_HIST(_, SCX_HIST_RANGE) { 0, 0 }
};
#undef SCX_HIST_RANGE
static_assert(SCX_RX_HIST_BUCKETS == prm::kRxHistBuckets);

extern "C" void scx_stats_mac(scx_port *p, scx_mac_stats *s)
{
	DeviceStats ds;
	const prm::PortCounters &c = ds.port;
	u32 b = 0;

	refresh_device(p, &ds);
	s->tx_packets = c.tx_packets;
	s->rx_packets = c.rx_packets;
	s->tx_bytes = c.tx_bytes;
	s->rx_bytes = c.rx_bytes;
	s->tx_multicast = c.tx_multicast;
	s->tx_broadcast = c.tx_broadcast;
	s->rx_multicast = c.rx_multicast;
	s->rx_broadcast = c.rx_broadcast;
	s->tx_mac_control = c.tx_mac_control;
	s->rx_mac_control = c.rx_mac_control;
	s->rx_unsupported_op = c.rx_unsupported_op;
	s->tx_pause = c.tx_pause;
	s->rx_pause = c.rx_pause;
	s->rx_crc_errors = c.rx_crc_errors;
	s->fec_corrected_blocks = c.fec_corrected_blocks;
	s->fec_uncorrectable_blocks = c.fec_uncorrectable_blocks;
#define SCX_HIST_VALUE(X, field, name, low, high) s->rx_hist[b++] = c.field;
	SCX_PRM_RX_HIST(_, SCX_HIST_VALUE)
#undef SCX_HIST_VALUE
}
