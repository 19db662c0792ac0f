// SPDX-License-Identifier: GPL-2.0
#include "en_pair.h"

#include <cstring>

namespace enpair {

frames::Bytes udp_frame(size_t payload, uint16_t sport, uint8_t seed)
{
	frames::Spec s;

	s.proto = 17;
	s.sport = sport;
	s.payload = frames::payload(payload, seed);
	return frames::build(s);
}

void Pair::SetUp()
{
	host::reset();
	build(Options{});
}

void Pair::TearDown()
{
	destroy();
	for (auto *b : tx_bufs)
		delete b;
	tx_bufs.clear();
	EXPECT_EQ(host::dma_tx_mappings(), 0u) << "TX mappings leaked";
	EXPECT_EQ(host::rx_buffers_outstanding(), 0u) << "RX buffers leaked";
	EXPECT_EQ(host::rxqs_live(), 0u);
	EXPECT_EQ(host::dma_coherent_regions(), 0u) << "rings leaked";
	EXPECT_EQ(host::zalloc_outstanding(), 0);
	EXPECT_EQ(host::locks_live(), 0);
	EXPECT_EQ(host::errors(), 0);
}

scx_port_params Pair::params(uint32_t mtu, int port) const
{
	scx_port_params prm = {};

	prm.nch = opt.nch;
	prm.mtu = mtu;
	prm.log_sq_size = opt.log_sq;
	prm.log_rq_size = opt.log_rq;
	prm.tx_mpwqe = opt.tx_mpwqe;
	prm.xdp = (opt.xdp_ports >> port) & 1;
	prm.xdp_frags = prm.xdp && opt.xdp_frags;
	prm.xdp_tx_mpwqe = opt.xdp_mpwqe;
	prm.rx_striding = opt.rx_striding;
	prm.rx_cqe_compress = opt.rx_cqe_compress;
	prm.rx_hw_gro = opt.rx_hw_gro;
	prm.rx_tstamp = opt.rx_tstamp;
	return prm;
}

void Pair::build(const Options &o)
{
	destroy();
	opt = o;
	ASSERT_EQ(scx_hw_adapter_create(o.model, 2, &os_dev, &adapter), 0);
	for (int i = 0; i < 2; i++) {
		struct scx_hw_function *fn = scx_hw_function(adapter, i);

		ASSERT_NE(fn, nullptr);
		scx_hw_set_irq_ctx(fn, &p[i].irq_ctx);
		ASSERT_EQ(scx_port_create(fn, &os_dev, &p[i], o.nch, &host::kOsLayout, &p[i].port), 0);
		p[i].os_ch.assign(o.nch, 0);
		auto chans = p[i].os_channels();
		scx_port_params prm = params(o.mtu, i);
		ASSERT_EQ(scx_port_open(p[i].port, &prm, chans.data()), 0);
	}
}

void Pair::destroy()
{
	for (auto &pc : p) {
		if (pc.port)
			scx_port_destroy(pc.port);
		pc.port = nullptr;
	}
	if (adapter)
		scx_hw_adapter_destroy(adapter);
	adapter = nullptr;
}

int Pair::post(int port, const frames::Bytes &f, uint32_t ch_ix, uint32_t csum,
	       std::vector<size_t> cuts)
{
	scx_tx_pkt tmpl = {};

	tmpl.csum = csum;
	return post_pkt(port, f, tmpl, cuts, ch_ix);
}

int Pair::post_pkt(int port, const frames::Bytes &f, const scx_tx_pkt &tmpl,
		   std::vector<size_t> cuts, uint32_t ch_ix)
{
	auto *b = new TxBuf{f, {}};
	scx_tx_pkt pkt = tmpl;
	size_t start = 0;

	cuts.push_back(f.size());
	pkt.nr_frags = 0;
	pkt.skb = b;
	pkt.head = b->data.data();
	pkt.headlen = (uint32_t)cuts[0];
	pkt.len = (uint32_t)f.size();
	for (size_t c : cuts) {
		uint32_t len = (uint32_t)(c - start);
		uint64_t dma = host::dma_map(b->data.data() + start, len,
					     start ? SCX_DMA_PAGE : SCX_DMA_SINGLE);

		pkt.frags[pkt.nr_frags++] = scx_tx_frag{dma, len, start ? 1u : 0u};
		b->dmas.push_back(dma);
		start = c;
	}
	int ret = scx_channel_xmit(ch(port, ch_ix), &pkt);
	if (ret < 0) {
		for (auto d : b->dmas)
			host::dma_forget(d);
		delete b;
		return ret;
	}
	tx_bufs.push_back(b);
	return ret;
}

int Pair::send(int port, const frames::Bytes &f, uint32_t ch_ix, uint32_t csum)
{
	int ret = post(port, f, ch_ix, csum);

	if (ret >= 0)
		doorbell(port, ch_ix);
	return ret;
}

int Pair::poll(int port, int budget)
{
	int total = 0;

	for (uint32_t i = 0; i < opt.nch; i++) {
		for (;;) {
			scx_tx_done done = {};
			int work = scx_channel_poll(ch(port, i), budget, &done);

			tx_done_packets[port] += done.packets;
			last_done = done;
			total += work < budget ? work : 0;
			if (work < budget)
				break;
			total += budget;
		}
	}
	return total;
}

void Pair::arm(int port)
{
	for (uint32_t i = 0; i < opt.nch; i++)
		scx_channel_arm(ch(port, i), host::take_cq_events(&p[port].irq_ctx, i));
}

size_t Pair::rx_total(int port)
{
	size_t n = 0;

	for (uint32_t i = 0; i < opt.nch; i++)
		n += rx(port, i).size();
	return n;
}

std::map<std::string, uint64_t> Pair::stats(int port)
{
	uint32_t n = scx_stats_count(p[port].port);
	std::vector<char> names(n * SCX_STAT_NAME_LEN);
	std::vector<uint64_t> vals(n);
	std::map<std::string, uint64_t> m;

	scx_stats_names(p[port].port, names.data());
	scx_stats_values(p[port].port, vals.data());
	for (uint32_t i = 0; i < n; i++)
		m[std::string(&names[i * SCX_STAT_NAME_LEN])] = vals[i];
	return m;
}

uint64_t Pair::stat(int port, const std::string &name)
{
	auto m = stats(port);
	auto it = m.find(name);

	EXPECT_NE(it, m.end()) << "no counter " << name;
	return it == m.end() ? ~0ull : it->second;
}

} /* namespace enpair */
