// SPDX-License-Identifier: GPL-2.0
/*
 * Host microbenchmark of the TX -> device -> RX path: one emulated adapter,
 * ports 0 <-> 1, one channel each, opened with the shim's ring sizes. Per
 * batch: `batch` 64-byte UDP frames (60 bytes in memory + the 4-byte FCS
 * the wire would add) posted on port 0 with scx_channel_xmit, one doorbell
 * (the device runs synchronously: TX engine, wire, port 1's RX engine,
 * CQEs), then port 1's NAPI (scx_channel_poll until idle, then
 * scx_channel_arm, as the shim does after napi_complete_done), then port
 * 0's NAPI (TX completions; arm). Each frame is mapped with the OS layer's
 * DMA map, as the shim maps skb data.
 *
 * Prints ns/packet for each timed run and their median. Under
 * `valgrind --tool=callgrind` run it with --runs 1 --warmup 0 and two
 * packet counts; bench/host/run.sh does that.
 */
#include <time.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "bench_os.h"
#include "softcx/core.h"

namespace {

struct Opts {
	uint64_t packets = 2000000;	/* per timed run */
	uint64_t warmup = 200000;
	int runs = 5;
	uint32_t batch = 32;
	uint32_t size = 60;		/* bytes handed to the driver (FCS not included) */
	int model = -1;			/* default: cx7, the module's default */
	uint32_t log_sq = 10, log_rq = 10;	/* the driver's (scx_params_queue_sizes) */
	int budget = 64;		/* NAPI weight */
	uint64_t collect_every = 8192;	/* packets between os-layer record collections */
	int mpwqe = -1;			/* skb_tx_mpwqe; -1: the shim's default (on where caps allow) */
};

[[noreturn]] void die(const char *what, int err = 0)
{
	fprintf(stderr, "pair_bench: %s%s%d\n", what, err ? ": " : "", err);
	exit(1);
}

uint16_t ip_csum(const uint8_t *p, size_t n)
{
	uint32_t s = 0;
	for (size_t i = 0; i + 1 < n; i += 2)
		s += (uint32_t)(p[i] << 8 | p[i + 1]);
	while (s >> 16)
		s = (s & 0xffff) + (s >> 16);
	return (uint16_t)~s;
}

/* Ethernet + IPv4 + UDP (checksum 0, as pktgen sends without UDPCSUM), zero-filled payload. */
void build_frame(uint8_t *f, uint32_t size)
{
	static const uint8_t dst[6] = {0x02, 0x00, 0x00, 0x00, 0x00, 0x02};
	static const uint8_t src[6] = {0x02, 0x00, 0x00, 0x00, 0x00, 0x01};
	uint8_t *ip = f + 14, *udp = ip + 20;
	uint16_t ip_len = (uint16_t)(size - 14), udp_len = (uint16_t)(size - 34);

	memset(f, 0, size);
	memcpy(f, dst, 6);
	memcpy(f + 6, src, 6);
	f[12] = 0x08;
	ip[0] = 0x45;
	ip[2] = (uint8_t)(ip_len >> 8);
	ip[3] = (uint8_t)ip_len;
	ip[8] = 64;
	ip[9] = 17;
	const uint8_t saddr[4] = {10, 11, 0, 1}, daddr[4] = {10, 11, 0, 2};
	memcpy(ip + 12, saddr, 4);
	memcpy(ip + 16, daddr, 4);
	uint16_t c = ip_csum(ip, 20);
	ip[10] = (uint8_t)(c >> 8);
	ip[11] = (uint8_t)c;
	udp[0] = 0x04;	/* 1234 -> 5678 */
	udp[1] = 0xd2;
	udp[2] = 0x16;
	udp[3] = 0x2e;
	udp[4] = (uint8_t)(udp_len >> 8);
	udp[5] = (uint8_t)udp_len;
}

double now_ns(clockid_t clk = CLOCK_MONOTONIC)
{
	timespec ts;
	clock_gettime(clk, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

double median(std::vector<double> v)
{
	std::sort(v.begin(), v.end());
	return v.size() % 2 ? v[v.size() / 2] : (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2;
}

struct Bench {
	Opts o;
	int os_dev = 0;
	scx_hw_adapter *ad = nullptr;
	scx_port *port[2] = {};
	int os_ch[2] = {};	/* addresses serve as os_channel handles */
	uint64_t irq_ctx[2] = {};	/* each port's CQ event word (bench_os.h) */
	scx_channel *tx = nullptr, *rx = nullptr;
	std::vector<uint8_t> bufs;	/* `batch` frames, one per slot of a batch */
	uint64_t rx_delivered = 0, tx_freed = 0, tx_done = 0, rx_work = 0, since_collect = 0;

	void setup()
	{
		int err;

		err = scx_hw_adapter_create(o.model, 2, &os_dev, &ad);
		if (err)
			die("scx_hw_adapter_create", err);
		for (int i = 0; i < 2; i++) {
			struct scx_hw_function *fn = scx_hw_function(ad, i);
			scx_port_params prm = {};
			void *chans[1] = {&os_ch[i]};

			scx_hw_set_irq_ctx(fn, &irq_ctx[i]);
			/* PAGE_SIZE, XDP_PACKET_HEADROOM, SKB_DATA_ALIGN(sizeof(skb_shared_info)) on x86_64 */
			const scx_os_layout os = {4096, 256, 320};

			err = scx_port_create(fn, &os_dev, nullptr, 1, &os, &port[i]);
			if (err)
				die("scx_port_create", err);
			prm.nch = 1;
			prm.mtu = 1500;
			prm.log_sq_size = o.log_sq;
			prm.log_rq_size = o.log_rq;
			if (o.mpwqe < 0) {
				scx_port_caps caps = {};

				scx_port_get_caps(port[i], &caps);
				o.mpwqe = caps.tx_mpwqe ? 1 : 0;
			}
			prm.tx_mpwqe = (uint32_t)o.mpwqe;
			err = scx_port_open(port[i], &prm, chans);
			if (err)
				die("scx_port_open", err);
		}
		tx = scx_port_channel(port[0], 0);
		rx = scx_port_channel(port[1], 0);
		/* The shim's first NAPI poll ends with an arm. */
		napi(rx);
		napi(tx);
		bufs.resize((size_t)o.batch * 2048);
		for (uint32_t i = 0; i < o.batch; i++)
			build_frame(&bufs[(size_t)i * 2048], o.size);
	}

	void teardown()
	{
		for (auto *&p : port) {
			if (p)
				scx_port_destroy(p);
			p = nullptr;
		}
		if (ad)
			scx_hw_adapter_destroy(ad);
		ad = nullptr;
	}

	/* One NAPI run as the shim's scx_napi_poll: poll until idle, then arm. */
	void napi(scx_channel *c)
	{
		for (;;) {
			scx_tx_done done = {};
			int work = scx_channel_poll(c, o.budget, &done);

			tx_done += done.packets;
			if (work < o.budget) {
				rx_work += (uint64_t)work;
				break;
			}
			rx_work += (uint64_t)o.budget;
		}
		scx_channel_arm(c, bench_os_take_cq_events(&irq_ctx[c == tx ? 0 : 1]));
	}

	void run(uint64_t packets)
	{
		for (uint64_t sent = 0; sent < packets; sent += o.batch) {
			for (uint32_t i = 0; i < o.batch; i++) {
				uint8_t *f = &bufs[(size_t)i * 2048];
				scx_tx_pkt pkt;

				pkt.skb = f;
				pkt.head = f;
				pkt.headlen = o.size;
				pkt.len = o.size;
				pkt.csum = 0;
				pkt.gso_type = SCX_TX_GSO_NONE;
				pkt.vlan = 0;
				pkt.tstamp = 0;
				pkt.nr_frags = 1;
				pkt.frags[0].dma = bench_dma_map(f, o.size);
				pkt.frags[0].len = o.size;
				pkt.frags[0].kind = SCX_DMA_SINGLE;
				pkt.num_bytes = 0;
				int ret = scx_channel_xmit(tx, &pkt);
				if (ret < 0)
					die("scx_channel_xmit", ret);
			}
			scx_channel_doorbell(tx);
			napi(rx);
			napi(tx);
			since_collect += o.batch;
			if (since_collect >= o.collect_every) {
				bench_os_collect(&os_ch[1], &os_ch[0], &rx_delivered, &tx_freed);
				since_collect = 0;
			}
		}
	}

	/* Every packet must have arrived and completed; nothing may be left in flight. */
	void check(uint64_t expect)
	{
		scx_link_stats s0 = {}, s1 = {};

		bench_os_collect(&os_ch[1], &os_ch[0], &rx_delivered, &tx_freed);
		scx_stats_refresh(port[1]);	/* rx_missed_errors is a device counter */
		scx_stats_link(port[0], &s0);
		scx_stats_link(port[1], &s1);
		if (rx_delivered != expect || tx_freed != expect || tx_done != expect ||
		    s1.rx_packets != expect || s0.tx_packets != expect || s1.rx_missed_errors ||
		    bench_os_errors()) {
			fprintf(stderr,
				"pair_bench: CHECK FAILED: expected %llu; delivered %llu, tx freed %llu, "
				"tx done %llu, port1 rx_packets %llu, port0 tx_packets %llu, "
				"rx_missed %llu, os errors %d\n",
				(unsigned long long)expect, (unsigned long long)rx_delivered,
				(unsigned long long)tx_freed, (unsigned long long)tx_done,
				(unsigned long long)s1.rx_packets, (unsigned long long)s0.tx_packets,
				(unsigned long long)s1.rx_missed_errors, bench_os_errors());
			exit(1);
		}
	}
};

uint64_t parse_u64(const char *s)
{
	char *end;
	unsigned long long v = strtoull(s, &end, 0);
	if (*end == 'k')
		v *= 1000, end++;
	else if (*end == 'M')
		v *= 1000000, end++;
	if (*end)
		die("bad number");
	return v;
}

void usage()
{
	fprintf(stderr,
		"usage: softcx-bench-{host,lean} [--packets N] [--runs R] [--warmup N] [--batch B]\n"
		"                                [--size BYTES] [--model cx4|cx5|cx6dx|cx7] [--mpwqe 0|1]\n"
		"  --mpwqe: skb_tx_mpwqe off/on (default: the module's, on where the model can)\n"
		"  N is rounded up to a multiple of B; k and M suffixes accepted.\n");
	exit(2);
}

} /* namespace */

int main(int argc, char **argv)
{
	Bench b;
	Opts &o = b.o;

	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		const char *v = i + 1 < argc ? argv[i + 1] : nullptr;

		if (!v)
			usage();
		if (!strcmp(a, "--packets"))
			o.packets = parse_u64(v);
		else if (!strcmp(a, "--runs"))
			o.runs = (int)parse_u64(v);
		else if (!strcmp(a, "--warmup"))
			o.warmup = parse_u64(v);
		else if (!strcmp(a, "--batch"))
			o.batch = (uint32_t)parse_u64(v);
		else if (!strcmp(a, "--size"))
			o.size = (uint32_t)parse_u64(v);
		else if (!strcmp(a, "--model"))
			o.model = scx_hw_model_parse(v);
		else if (!strcmp(a, "--mpwqe"))
			o.mpwqe = parse_u64(v) ? 1 : 0;
		else
			usage();
		i++;
	}
	if (o.model < 0)
		o.model = scx_hw_model_parse("cx7");
	if (o.batch < 1 || o.batch > 256 || o.size < 60 || o.size > 1514 || o.runs < 1 || o.model < 0)
		usage();
	o.packets = (o.packets + o.batch - 1) / o.batch * o.batch;
	o.warmup = (o.warmup + o.batch - 1) / o.batch * o.batch;

	b.setup();
	printf("pair_bench: os layer %s, model %s, 1 channel, sq/rq 2^%u/2^%u, batch %u, "
	       "frame %u B (+4 FCS), skb_tx_mpwqe %s, %llu packets x %d runs after %llu warm-up\n",
	       bench_os_name(), scx_hw_model_name(o.model), o.log_sq, o.log_rq, o.batch, o.size,
	       o.mpwqe ? "on" : "off",
	       (unsigned long long)o.packets, o.runs, (unsigned long long)o.warmup);
	b.run(o.warmup);

	/*
	 * Wall clock is the figure; the thread's CPU time is printed next to it
	 * because on a shared machine time spent descheduled inflates the wall
	 * clock but not the CPU time.
	 */
	std::vector<double> ns, cpu;
	for (int r = 0; r < o.runs; r++) {
		double t0 = now_ns(), c0 = now_ns(CLOCK_THREAD_CPUTIME_ID);
		b.run(o.packets);
		double t = (now_ns() - t0) / (double)o.packets;
		double c = (now_ns(CLOCK_THREAD_CPUTIME_ID) - c0) / (double)o.packets;
		ns.push_back(t);
		cpu.push_back(c);
		printf("run %d: %.1f ns/packet wall (%.2f Mpps), %.1f ns/packet CPU\n", r + 1, t,
		       1e3 / t, c);
	}
	b.check(o.warmup + o.packets * (uint64_t)o.runs);
	printf("RESULT os=%s ns_per_packet_median=%.1f min=%.1f max=%.1f cpu_ns_per_packet_median=%.1f "
	       "runs=%d packets=%llu\n",
	       bench_os_name(), median(ns), *std::min_element(ns.begin(), ns.end()),
	       *std::max_element(ns.begin(), ns.end()), median(cpu), o.runs,
	       (unsigned long long)o.packets);
	b.teardown();
	return 0;
}
