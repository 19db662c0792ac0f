// SPDX-License-Identifier: GPL-2.0
/*
 * Target "cqe": the driver core fed corrupt CQEs by a lying device. Two
 * ports of one adapter run the real driver core (src/en) through the C ABI
 * as the shim drives it: port 0 transmits (scx_channel_xmit / doorbell),
 * port 1 receives, both are polled (scx_channel_poll). Between those calls
 * the input makes the device lie in the CQ rings it writes (through the
 * device model's own view of its CQs): a completed CQE gets another WQE
 * counter, opcode, byte count or header flags; CQEs for work never done
 * (good or error ones) and replays of the last one are inserted; an owner
 * bit is flipped.
 *
 * What the driver must do, as the ABI defines it: when scx_channel_poll()
 * reports tx_error, the shim stops the queue (no xmit) and calls
 * scx_channel_tx_recover(), which must return 0, hand back every packet
 * still outstanding and leave the queue with room (scx_channel_tx_room).
 * At the end the device stops lying and a few packets must still go out
 * and complete (TX alive). Throughout: the host OS layer sees no misuse
 * (no unmap of something not mapped, no RX buffer released twice or
 * delivered beyond its size), every skb comes back exactly once, nothing
 * leaks, ASan/UBSan silent.
 */
#include "fuzz.h"
#include "headers.h"
#include "hw/adapter.h"

#include <set>

using namespace fz;

namespace {

enum {
	kLieWqeCounter, kLieOpcode, kLieByteCnt, kLieFlags, kLieFabricate, kLieReplay, kLieOwner,
	kLieErrCqe, kTxCompleted, kRxDelivered, kTxError, kTxRecovered, kTxStopped, kTxAlive,
	kXmitRefused, kRxAliveAfterLies, kLieOnTx, kLieOnRx, kTxDeadHidden, kTxWatchdog, kCqError, kNrCov
};
Cov g_cov[kNrCov] = {
	{ "lie: WQE counter", true, 0 },
	{ "lie: opcode", true, 0 },
	{ "lie: byte count", true, 0 },
	{ "lie: header/csum/hash flags", true, 0 },
	{ "lie: CQE for no work", true, 0 },
	{ "lie: CQE replayed", true, 0 },
	{ "lie: owner bit flipped", true, 0 },
	{ "lie: error CQE for no error", true, 0 },
	{ "TX packets completed", true, 0 },
	{ "RX packets delivered", true, 0 },
	{ "tx_error reported", true, 0 },
	{ "SQ recovered (tx_recover 0)", true, 0 },
	{ "queue stopped (no room)", true, 0 },
	{ "TX alive after lies", true, 0 },
	{ "xmit refused (-errno)", false, 0 },
	{ "RX alive after lies", false, 0 },
	{ "lies on a TX CQ", true, 0 },
	{ "lies on an RX CQ", true, 0 },
	{ "TX dead after a hidden error", false, 0 },
	{ "TX alive after a watchdog recovery", false, 0 },
	{ "CQ error event (overrun) recovered", false, 0 },
};

/*
 * SCX_FUZZ_LIES=<mask>: only the lies whose bit is set: bit n (0..7) kind n
 * of the table above on TX CQs, bit 8 + n the same on RX CQs; default all
 * (0xffff). To keep fuzzing past a known driver bug.
 */
uint32_t g_lies = 0xffff;
/* SCX_FUZZ_TRACE=1: print every operation (to explain a crash input). */
bool g_trace;
#define TRACE(...)                                         \
	do {                                               \
		if (g_trace)                               \
			fprintf(stderr, "cqe: " __VA_ARGS__); \
	} while (0)

/* One skb as the shim would hold it: data, mappings. */
struct Skb {
	Bytes data;
	std::vector<scx_tx_frag> frags;
};

struct Port {
	scx_port *port = nullptr;
	int os_ch = 0;		/* its address is the channel's os_channel */
	scx_channel *ch = nullptr;
};

struct Run {
	Fn *fn[2];
	Port p[2];
	std::set<Skb *> out;	/* posted, not yet handed back */
	size_t freed_seen = 0;	/* entries of host::tx_freed(port 0) already checked */
	bool stopped = false;	/* the shim stopped the queue (TX_STOP or tx_error) */
	bool recovering = false;
	uint64_t completed = 0;
	int model;
	/*
	 * A lie that hides a completion or an error from the driver (an owner
	 * bit flipped, an error CQE turned into a success) on a TX CQ: only a
	 * TX watchdog could notice, and the ABI has none, so TX may stay dead.
	 */
	bool hidden = false;
	size_t cq_errors_seen = 0;	/* entries of host::cq_errors() handled */
};

/* The skbs the driver handed back since last time: each one outstanding, once. */
void collect_freed(Run &r)
{
	const std::vector<void *> &v = host::tx_freed(&r.p[0].os_ch);
	for (; r.freed_seen < v.size(); r.freed_seen++) {
		auto *skb = static_cast<Skb *>(v[r.freed_seen]);
		FZ_CHECK(r.out.count(skb), "skb %p handed back twice or never posted", (void *)skb);
		r.out.erase(skb);
		delete skb;
	}
}

/* Unmap what the driver did not take (a refused xmit), as the shim's drop path does. */
void drop_skb(Skb *skb)
{
	for (auto &f : skb->frags)
		scx_os_dma_unmap(&hwt::g_os_dev, f.dma, f.len, f.kind);
	delete skb;
}

void xmit(Run &r, Input &in)
{
	uint16_t len = in.u16();
	uint8_t fl = in.u8();
	if (r.stopped) {
		/* the shim does not call xmit on a stopped queue; see whether it may wake */
		if (!r.recovering && scx_channel_tx_room(r.p[0].ch))
			r.stopped = false;
		return;
	}
	auto *skb = new Skb;
	uint32_t n = 14 + len % 1500;
	bool gso = fl & 0x40;
	if (gso)
		n = 14 + len % 9000 + 200;
	skb->data.resize(n);
	for (uint32_t i = 0; i < n; i++)
		skb->data[i] = (uint8_t)(i * 3);
	uint8_t hdr[96];
	uint32_t ihs = build_headers(fl & 7, n > 100 ? n - 100 : 0, hdr);
	ihs = build_headers(fl & 7, n > ihs ? n - ihs : 0, hdr);
	memcpy(skb->data.data(), hdr, ihs < n ? ihs : n);

	scx_tx_pkt pkt = {};
	pkt.skb = skb;
	pkt.head = skb->data.data();
	pkt.len = n;
	pkt.csum = (fl >> 3) & 3;
	uint32_t nfrags = 1 + (fl >> 5 & 1) * (1 + in.u8() % 4);
	uint32_t headlen = nfrags > 1 ? (n / nfrags > ihs ? n / nfrags : (ihs < n ? ihs : n)) : n;
	pkt.headlen = headlen;
	uint32_t off = 0;
	for (uint32_t i = 0; i < nfrags && off < n; i++) {
		uint32_t l = i == 0 ? headlen : (i + 1 == nfrags ? n - off : (n - headlen) / (nfrags - 1));
		if (!l)
			continue;
		uint32_t kind = i ? SCX_DMA_PAGE : SCX_DMA_SINGLE;
		scx_tx_frag f = { host::dma_map(skb->data.data() + off, l, kind), l, kind };
		skb->frags.push_back(f);
		pkt.frags[pkt.nr_frags++] = f;
		off += l;
	}
	if (gso) {
		bool udp = (fl & 7) == kV4Udp || (fl & 7) == kV6Udp || (fl & 7) == kQinQV6Udp;
		bool v6 = (fl & 7) == kV6Tcp || (fl & 7) == kV6Udp || (fl & 7) == kQinQV6Udp;
		pkt.gso_type = udp ? SCX_TX_GSO_UDP_L4 : v6 ? SCX_TX_GSO_TCPV6 : SCX_TX_GSO_TCPV4;
		pkt.gso_size = 100 + in.u16() % 1400;
		pkt.ihs = ihs;
		uint32_t payload = n > ihs ? n - ihs : 0;
		pkt.gso_segs = payload ? (payload + pkt.gso_size - 1) / pkt.gso_size : 1;
		pkt.csum = SCX_TX_CSUM_L3 | SCX_TX_CSUM_L4;
	}
	pkt.vlan = fl >> 7;
	int ret = scx_channel_xmit(r.p[0].ch, &pkt);
	TRACE("xmit %u bytes, %u frags, gso %u: %d\n", n, pkt.nr_frags, pkt.gso_type, ret);
	if (ret < 0) {
		hit(g_cov[kXmitRefused]);
		drop_skb(skb);
		return;
	}
	r.out.insert(skb);
	if (ret == SCX_TX_STOP) {
		r.stopped = true;
		hit(g_cov[kTxStopped]);
	}
}

/* The CQs the device writes for the two functions' queues. */
struct Target {
	hw::Cq *cq;
	bool rx;
};

std::vector<Target> device_cqs(Run &r)
{
	std::vector<Target> v;
	for (Fn *fn : r.fn) {
		for (auto &sq : fn->sq)
			if (sq.num && sq.cq)
				v.push_back({ sq.cq, false });
		for (auto &rq : fn->rq)
			if (rq.num && rq.cq)
				v.push_back({ rq.cq, true });
	}
	return v;
}

/* The device lies in one of its CQs. */
void lie(Run &r, Input &in)
{
	uint8_t sel = in.u8();
	uint8_t kind = in.u8() % 8;
	std::vector<Target> cqs = device_cqs(r);
	if (cqs.empty())
		return;
	Target t = cqs[sel % cqs.size()];
	if (!(g_lies & (1u << (kind + (t.rx ? 8 : 0)))))
		return;
	hw::Cq *cq = t.cq;
	uint32_t size = 1u << cq->log_size;
	uint32_t pi = cq->pi;
	auto slot = [&](uint32_t ix) {
		return reinterpret_cast<prm::Cqe64 *>(cq->ring + (ix & (size - 1)) * prm::kCqeSize);
	};
	auto owner = [&](uint32_t ix) { return (uint8_t)((ix >> cq->log_size) & 1); };
	prm::Cqe64 *last = pi ? slot(pi - 1) : nullptr;

	switch (kind) {
	case kLieWqeCounter:
		if (!last)
			return;
		last->wqe_counter.set(in.u16());
		break;
	case kLieOpcode:
		if (!last)
			return;
		if (!t.rx && last->opcode() == prm::kCqeReqErr)
			r.hidden = true;
		last->op_own = (uint8_t)((in.u8() << 4) | owner(pi - 1));
		break;
	case kLieByteCnt:
		if (!last)
			return;
		last->byte_cnt.set(in.u32());
		break;
	case kLieFlags:
		if (!last)
			return;
		last->hds_ip_ext = in.u8();
		last->l4_l3_hdr_type = in.u8();
		last->rss_hash_type = in.u8();
		last->check_sum.set(in.u16());
		break;
	case kLieFabricate: {
		uint8_t b[prm::kCqeSize];
		in.bytes(b, sizeof(b));
		memcpy(slot(pi), b, prm::kCqeSize - 1);
		slot(pi)->op_own = (uint8_t)((b[63] & 0xf0) | owner(pi));
		cq->pi = pi + 1;
		break;
	}
	case kLieReplay:
		if (!last)
			return;
		memcpy(slot(pi), last, prm::kCqeSize - 1);
		slot(pi)->op_own = (uint8_t)((last->op_own & 0xf0) | owner(pi));
		cq->pi = pi + 1;
		break;
	case kLieOwner:
		if (!last)
			return;
		last->op_own ^= 1;
		r.hidden |= !t.rx;
		break;
	case kLieErrCqe: {
		prm::ErrCqe e = {};
		e.syndrome = in.u8();
		e.wqe_counter.set(in.u16());
		memcpy(slot(pi), &e, prm::kCqeSize - 1);
		slot(pi)->op_own = (uint8_t)(((t.rx ? prm::kCqeRespErr : prm::kCqeReqErr) << 4) |
					     owner(pi));
		cq->pi = pi + 1;
		break;
	}
	}
	TRACE("lie %s on %s CQ (pi %u, size %u)\n", g_cov[kind].name, t.rx ? "an RX" : "a TX", pi,
	      size);
	hit(g_cov[kind]);
	hit(g_cov[t.rx ? kLieOnRx : kLieOnTx]);
}

/*
 * What the shim's NAPI does first after a CQ error event (a lie that moved
 * the device's producer index made it find a CQ full): find the CQ and mark
 * its queue for recovery; true when the stack's SQ must recover (port 0).
 */
bool cq_error_events(Run &r)
{
	std::vector<host::CqError> ev = host::cq_errors();
	if (ev.size() == r.cq_errors_seen)
		return false;
	r.cq_errors_seen = ev.size();
	TRACE("CQ error event(s): %zu\n", ev.size());
	hit(g_cov[kCqError]);
	bool tx = false;
	for (int i = 0; i < 2; i++)
		if (scx_channel_cq_error(r.p[i].ch) && i == 0)
			tx = true;
	return tx;
}

/* NAPI on port 0 (TX completions) and what the shim does with tx_error. */
void poll_tx(Run &r, int budget)
{
	scx_tx_done done = {};
	if (cq_error_events(r))
		done.tx_error = 1;
	scx_channel_poll(r.p[0].ch, budget, &done);
	TRACE("poll port 0 (budget %d): %u packets, tx_error %u\n", budget, done.packets,
	      done.tx_error);
	collect_freed(r);
	if (done.packets) {
		hit(g_cov[kTxCompleted]);
		r.completed += done.packets;
	}
	if (done.tx_error) {
		hit(g_cov[kTxError]);
		r.stopped = r.recovering = true;
	}
	if (r.recovering) {
		/* process context, xmit and NAPI quiesced: recover */
		int err = scx_channel_tx_recover(r.p[0].ch, 0);
		FZ_CHECK(err == 0, "scx_channel_tx_recover after tx_error: %d", err);
		collect_freed(r);
		FZ_CHECK(r.out.empty(), "%zu skbs still outstanding after recovery", r.out.size());
		FZ_CHECK(scx_channel_tx_room(r.p[0].ch), "no room after recovery");
		hit(g_cov[kTxRecovered]);
		r.recovering = r.stopped = false;
	}
}

size_t poll_rx(Run &r, int budget)
{
	size_t before = host::rx_delivered(&r.p[1].os_ch).size();
	scx_tx_done done = {};
	if (cq_error_events(r)) {
		/* port 0's SQ: the next poll_tx() recovers it */
		r.stopped = r.recovering = true;
	}
	scx_channel_poll(r.p[1].ch, budget, &done);
	size_t got = host::rx_delivered(&r.p[1].os_ch).size() - before;
	TRACE("poll port 1 (budget %d): %zu delivered\n", budget, got);
	if (got)
		hit(g_cov[kRxDelivered]);
	return got;
}

/*
 * Four good packets (1500 bytes, v4 TCP), a doorbell and two polls: how
 * many of them the driver took.
 */
int send_good(Run &r)
{
	static const uint8_t good[] = { 0x00, 0xdc, 0x05, 0x00 };
	int sent = 0;
	for (int i = 0; i < 4; i++) {
		Input g(good, sizeof(good));
		size_t before = r.out.size();
		xmit(r, g);
		sent += r.out.size() > before;
	}
	scx_channel_doorbell(r.p[0].ch);
	poll_tx(r, 64);
	poll_tx(r, 64);
	return sent;
}

} /* namespace */

extern "C" int LLVMFuzzerInitialize(int *, char ***)
{
	cov_init("cqe", g_cov, kNrCov);
	g_trace = getenv("SCX_FUZZ_TRACE") != nullptr;
	if (const char *m = getenv("SCX_FUZZ_LIES"))
		g_lies = (uint32_t)strtoul(m, nullptr, 0);
	for (uint32_t k = 0; k <= kLieErrCqe; k++)
		g_cov[k].required = g_lies & (0x101u << k);
	g_cov[kLieOnTx].required = g_lies & 0xff;
	g_cov[kLieOnRx].required = g_lies & 0xff00;
	return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	Input in(data, size);
	begin_input();
	uint8_t cfg = in.u8();
	scx_hw_adapter *a = adapter_get(model_of(cfg));
	Run r;
	r.model = model_of(cfg);
	for (int i = 0; i < 2; i++) {
		r.fn[i] = scx_hw_function(a, i);
		const scx_os_layout os = {4096, 256, 320};	/* the shim's, x86_64 */

		FZ_CHECK(scx_port_create(r.fn[i], &hwt::g_os_dev, nullptr, 1, &os, &r.p[i].port) == 0, "port");
		scx_port_caps caps;
		scx_port_get_caps(r.p[i].port, &caps);
		scx_port_params prm = {};
		prm.nch = 1;
		prm.mtu = cfg & 0x40 ? 9000 : 1500;
		prm.log_sq_size = 6;
		prm.log_rq_size = 1 + (cfg >> 2) % 4;
		prm.tx_mpwqe = (cfg & 0x80) && caps.tx_mpwqe;
		void *os_ch = &r.p[i].os_ch;
		FZ_CHECK(scx_port_open(r.p[i].port, &prm, &os_ch) == 0, "port open");
		r.p[i].ch = scx_port_channel(r.p[i].port, 0);
	}

	for (int i = 0; i < 128 && !in.empty(); i++) {
		uint8_t op = in.u8();
		switch (op % 8) {
		case 0:
		case 1:
			xmit(r, in);
			break;
		case 2:
			TRACE("doorbell\n");
			scx_channel_doorbell(r.p[0].ch);
			break;
		case 3:
		case 4:
			lie(r, in);
			break;
		case 5:
			poll_tx(r, 1 + (op >> 3));
			break;
		case 6:
			poll_rx(r, 1 + (op >> 3));
			break;
		default:
			TRACE("arm port %d\n", op & 8 ? 1 : 0);
			/* no irq_ctx here, so no CQ events to go by: arm every CQ */
			scx_channel_arm(r.p[op & 8 ? 1 : 0].ch, ~0ull);
			break;
		}
	}

	/* the device is honest again: the queue must work */
	scx_channel_doorbell(r.p[0].ch);
	for (int i = 0; i < 4; i++)
		poll_tx(r, 64);
	r.stopped = false;
	uint64_t base = r.completed;
	int sent = send_good(r);
	if (sent && r.completed == base) {
		FZ_CHECK(r.hidden, "TX dead after the lies: %d sent, none completed", sent);
		hit(g_cov[kTxDeadHidden]);
		/* what the shim's TX watchdog (ndo_tx_timeout) does: a forced recovery */
		int err = scx_channel_tx_recover(r.p[0].ch, 1);
		FZ_CHECK(err == 0, "forced scx_channel_tx_recover: %d", err);
		collect_freed(r);
		FZ_CHECK(r.out.empty(), "%zu skbs outstanding after a forced recovery", r.out.size());
		FZ_CHECK(scx_channel_tx_room(r.p[0].ch), "no room after a forced recovery");
		base = r.completed;
		sent = send_good(r);
		/*
		 * The SQ is reset and its CQ meets the device's producer counter
		 * again (QUERY_CQ), whatever the lie did to its owner bits or
		 * indexes: TX completes again.
		 */
		FZ_CHECK(!sent || r.completed > base,
			 "TX dead after a forced recovery: %d sent, none completed", sent);
		hit(g_cov[kTxWatchdog]);
	} else if (sent) {
		hit(g_cov[kTxAlive]);
	}
	size_t rx = 0;
	for (int i = 0; i < 4; i++)
		rx += poll_rx(r, 64);
	if (rx)
		hit(g_cov[kRxAliveAfterLies]);

	for (int i = 0; i < 2; i++)
		scx_port_destroy(r.p[i].port);
	collect_freed(r);
	FZ_CHECK(r.out.empty(), "%zu skbs never handed back", r.out.size());
	adapter_put(a);
	check_clean("cqe");
	return 0;
}
