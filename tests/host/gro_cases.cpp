// SPDX-License-Identifier: GPL-2.0
#include "gro_cases.h"

#include <random>

namespace gro_cases {

using frames::Bytes;
using frames::Flow;
using frames::kAck;

namespace {

std::vector<Bytes> run(Flow f, std::initializer_list<std::pair<size_t, uint8_t>> segs)
{
	std::vector<Bytes> v;
	for (auto &s : segs)
		v.push_back(f.next(s.first, s.second));
	return v;
}

/* Frames whose template changes after `before` segments. */
std::vector<Bytes> change_after(Flow f, int before, int after, const std::function<void(Flow &)> &change)
{
	std::vector<Bytes> v = n_segs(f, before, 1000);
	change(f);
	append(v, n_segs(f, after, 1000));
	return v;
}

/* rounds x (n segments of flow a, n of flow b) */
std::vector<Bytes> interleave(Flow a, Flow b, int rounds, int n, size_t len_a, size_t len_b)
{
	std::vector<Bytes> v;
	for (int i = 0; i < rounds; i++) {
		append(v, n_segs(a, n, len_a));
		append(v, n_segs(b, n, len_b));
	}
	return v;
}

} /* namespace */

Flow v4(uint16_t sport)
{
	Flow f;
	f.tmpl.sport = sport;
	f.tmpl.tcp_opts = frames::tcp_ts_option(100, 200);
	return f;
}

Flow v6(uint16_t sport)
{
	Flow f = v4(sport);
	f.tmpl.v6 = true;
	f.tmpl.src = "fd00::1";
	f.tmpl.dst = "fd00::2";
	return f;
}

std::vector<Bytes> n_segs(Flow &f, int n, size_t len, uint8_t last_flags)
{
	std::vector<Bytes> v;
	for (int i = 0; i < n; i++)
		v.push_back(f.next(len, i == n - 1 ? last_flags : kAck));
	return v;
}

void append(std::vector<Bytes> &to, const std::vector<Bytes> &v) { to.insert(to.end(), v.begin(), v.end()); }

Flow v4_long_headers(uint16_t sport)
{
	Flow f = v4(sport);
	f.tmpl.ip_opts = { 7, 39, 4 };
	f.tmpl.ip_opts.resize(39);
	f.tmpl.tcp_opts.resize(40, 1);
	return f;
}

std::vector<Bytes> random_traffic(uint32_t seed, size_t n, size_t mss)
{
	std::mt19937 rng(seed);
	Flow fl[3] = { v4(3000), v4(3001), v6(3002) };
	std::vector<Bytes> v;

	fl[1].tmpl.vlan = 7;
	while (v.size() < n) {
		Flow &f = fl[rng() % 3];
		uint8_t flags = kAck;
		size_t len = mss;
		switch (rng() % 32) {
		case 0: case 1: len = 1 + rng() % (mss - 1); break;
		case 2: len = mss + 200; break;
		case 3: case 4: flags |= frames::kPsh; break;
		case 5: f.seq += (uint32_t)mss; break;
		case 6: case 7: len = 0; break;
		case 8: f.tmpl.ttl ^= 1; break;
		case 9: f.tmpl.tcp_opts = frames::tcp_ts_option(rng(), 200); break;
		case 10: f.id = (uint16_t)rng(); break;
		case 11: flags |= frames::kCwr; break;
		case 12: f.tmpl.bad_l4_csum = true; break;
		case 13: v.push_back(udp(10 + rng() % 900)); continue;
		default: break;
		}
		v.push_back(f.next(len, flags));
		f.tmpl.bad_l4_csum = false;
	}
	return v;
}

Bytes udp(size_t n)
{
	frames::Spec s;
	s.proto = 17;
	s.payload = frames::payload(n, 9);
	return frames::build(s);
}

Bytes icmp(size_t n)
{
	frames::Spec s;
	s.proto = 1;
	s.payload = frames::payload(n, 11);
	return frames::build(s);
}

const std::vector<Case> &cases()
{
	static const std::vector<Case> kCases = {
		{ "in_order_v4", [] { Flow f = v4(); return n_segs(f, 10, 1448, kAck | frames::kPsh); }, true },
		{ "in_order_v6", [] { Flow f = v6(); return n_segs(f, 10, 1428); }, true },
		{ "single_segment", [] { Flow f = v4(); return n_segs(f, 1, 700); }, true },
		{ "short_last_then_more", [] { return run(v4(), { { 1000, kAck }, { 1000, kAck }, { 300, kAck },
								 { 1000, kAck }, { 1000, kAck } }); }, true },
		{ "larger_second", [] { return run(v4(), { { 500, kAck }, { 1000, kAck }, { 1000, kAck } }); }, true },
		{ "seq_gap", [] { return change_after(v4(), 3, 3, [](Flow &f) { f.seq += 1000; }); }, true },
		{ "seq_back", [] { return change_after(v4(), 3, 3, [](Flow &f) { f.seq -= 2000; }); }, true },
		{ "psh_ends", [] { Flow f = v4(); auto v = n_segs(f, 3, 1000, kAck | frames::kPsh);
				   append(v, n_segs(f, 3, 1000)); return v; }, true },
		{ "fin_ends", [] { Flow f = v4(); return n_segs(f, 4, 1000, kAck | frames::kFin); }, true },
		{ "syn_in_middle", [] { return run(v4(), { { 1000, kAck }, { 1000, kAck }, { 1000, kAck | frames::kSyn },
							  { 1000, kAck }, { 1000, kAck } }); }, true },
		{ "rst_in_middle", [] { return run(v4(), { { 1000, kAck }, { 1000, kAck }, { 1000, kAck | frames::kRst },
							  { 1000, kAck }, { 1000, kAck } }); }, true },
		{ "urg_in_middle", [] { return run(v4(), { { 1000, kAck }, { 1000, kAck }, { 1000, kAck | frames::kUrg },
							  { 1000, kAck }, { 1000, kAck } }); }, true },
		{ "cwr_second", [] { return run(v4(), { { 1000, kAck }, { 1000, kAck | frames::kCwr }, { 1000, kAck },
						       { 1000, kAck } }); }, true },
		{ "cwr_first", [] { return run(v4(), { { 1000, kAck | frames::kCwr }, { 1000, kAck }, { 1000, kAck } }); },
		  true },
		{ "ece_all", [] { return run(v4(), { { 1000, kAck | frames::kEce }, { 1000, kAck | frames::kEce } }); },
		  true },
		{ "tsval_change", [] { return change_after(v4(), 3, 3, [](Flow &f) {
			  f.tmpl.tcp_opts = frames::tcp_ts_option(101, 200); }); }, true },
		{ "no_options", [] { Flow f = v4(); f.tmpl.tcp_opts.clear(); return n_segs(f, 5, 1000); }, true },
		{ "window_change", [] { return change_after(v4(), 2, 2, [](Flow &f) { f.tmpl.tcp_window = 500; }); }, true },
		{ "ack_change", [] { return change_after(v4(), 2, 2, [](Flow &f) { f.tmpl.tcp_ack = 5000; }); }, true },
		{ "ip_id_fixed_df", [] { Flow f = v4(); f.id_step = 0; return n_segs(f, 5, 1000); }, true },
		{ "ip_id_fixed_no_df", [] { Flow f = v4(); f.id_step = 0; f.tmpl.df = false; return n_segs(f, 4, 1000); },
		  true },
		{ "ip_id_inc_no_df", [] { Flow f = v4(); f.tmpl.df = false; return n_segs(f, 5, 1000); }, true },
		{ "ip_id_random", [] { Flow f = v4(); f.id_step = 0x3a5b; return n_segs(f, 4, 1000); }, true },
		{ "ip_id_fixed_then_inc", [] {
			  Flow f = v4();
			  f.id_step = 0;
			  auto v = n_segs(f, 2, 1000);
			  f.id_step = 1;
			  append(v, n_segs(f, 3, 1000));
			  return v;
		  }, true },
		{ "ttl_change", [] { return change_after(v4(), 3, 3, [](Flow &f) { f.tmpl.ttl = 63; }); }, true },
		{ "ecn_ce_change", [] { return change_after(v4(), 3, 3, [](Flow &f) { f.tmpl.tos = 3; }); }, true },
		{ "v6_traffic_class_change", [] { return change_after(v6(), 3, 3, [](Flow &f) { f.tmpl.tos = 0x20; }); },
		  true },
		{ "v6_hop_limit_change", [] { return change_after(v6(), 3, 3, [](Flow &f) { f.tmpl.ttl = 1; }); }, true },
		{ "v6_flow_label_change", [] { return change_after(v6(), 3, 3, [](Flow &f) { f.tmpl.flow_label = 7; }); },
		  true },
		{ "bad_checksum", [] {
			  Flow f = v4();
			  auto v = n_segs(f, 3, 1000);
			  f.tmpl.bad_l4_csum = true;
			  v.push_back(f.next(1000));
			  f.tmpl.bad_l4_csum = false;
			  append(v, n_segs(f, 3, 1000));
			  return v;
		  }, true },
		{ "bad_checksum_first", [] {
			  Flow f = v4();
			  f.tmpl.bad_l4_csum = true;
			  std::vector<Bytes> v = { f.next(1000) };
			  f.tmpl.bad_l4_csum = false;
			  append(v, n_segs(f, 3, 1000));
			  return v;
		  }, true },
		{ "ip_options", [] { Flow f = v4(); f.tmpl.ip_opts = { 7, 7, 4 }; return n_segs(f, 3, 1000); }, true },
		{ "long_headers", [] { Flow f = v4_long_headers(); return n_segs(f, 3, 1000); }, true },
		{ "vlan", [] { Flow f = v4(); f.tmpl.vlan = 100; return n_segs(f, 5, 1000); }, true },
		{ "pure_acks", [] { return run(v4(), { { 1000, kAck }, { 1000, kAck }, { 0, kAck }, { 0, kAck },
						      { 1000, kAck }, { 1000, kAck } }); }, true },
		{ "pure_acks_only", [] { return run(v4(), { { 0, kAck }, { 0, kAck }, { 0, kAck } }); }, true },
		{ "two_flows_in_turn", [] {
			  Flow a = v4(1000), b = v4(1001);
			  auto v = n_segs(a, 4, 1000);
			  append(v, n_segs(b, 4, 1000));
			  append(v, n_segs(a, 4, 1000));
			  return v;
		  }, false },
		{ "two_flows_interleaved", [] { return interleave(v4(1000), v4(1001), 6, 1, 1000, 800); }, false },
		{ "v4_and_v6_interleaved", [] { return interleave(v4(1000), v6(1000), 4, 2, 1000, 1000); }, false },
		{ "udp_icmp_between", [] {
			  Flow f = v4();
			  auto v = n_segs(f, 3, 1000);
			  v.push_back(udp(300));
			  append(v, n_segs(f, 3, 1000));
			  v.push_back(icmp(64));
			  append(v, n_segs(f, 3, 1000));
			  return v;
		  }, false },
		/* 45 segments fill 64 KiB for software GRO and the device alike */
		{ "over_64k_in_a_row", [] { Flow f = v4(); return n_segs(f, 100, 1448); }, true },
		{ "over_64k_v6", [] { Flow f = v6(); return n_segs(f, 60, 1428); }, true },
		/*
		 * IP length 65535: software GRO takes the 46th (323 bytes), the
		 * device's 64 KiB counts the Ethernet header too (prm/cqe.h) and
		 * ends the session at 45: within the reference, not equal to it.
		 */
		{ "ip_length_65535", [] {
			  Flow f = v4();
			  auto v = n_segs(f, 45, 1448);
			  append(v, n_segs(f, 1, 65535 - 52 - 45 * 1448));
			  return v;
		  }, false },
		{ "many_small_segments", [] { Flow f = v4(); return n_segs(f, 120, 64); }, false },
	};
	return kCases;
}

void PrintTo(const Case &c, std::ostream *os) { *os << c.name; }

} /* namespace gro_cases */
