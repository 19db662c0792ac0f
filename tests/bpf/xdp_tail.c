// SPDX-License-Identifier: GPL-2.0
/* Grow every IPv4 frame by SCX_TRAILER_LEN bytes (bpf_xdp_adjust_tail) and
 * fill the new tail with SCX_TRAILER_BYTE, then XDP_PASS. The IP layer trims
 * the trailer (it is beyond the IP total length), so ping and iperf3 still
 * work; tc_check.c (trailer mode) verifies it reached the skb. Counters in
 * tail_cnt: 0 grown, 1 not IPv4 (untouched), 2 adjust_tail refused. */
#include "common.h"

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 3);
	__type(key, __u32);
	__type(value, __u64);
} tail_cnt SEC(".maps");

SEC("xdp")
int xdp_tail_grow(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data;
	void *data_end = (void *)(long)ctx->data_end;
	struct ethhdr *eth = data;
	__u8 t[SCX_TRAILER_LEN];
	__u32 len;

	if ((void *)(eth + 1) > data_end || eth->h_proto != bpf_htons(ETH_P_IP)) {
		COUNT(tail_cnt, 1);
		return XDP_PASS;
	}
	len = (__u32)(ctx->data_end - ctx->data);
	if (len > 4096) {
		COUNT(tail_cnt, 2);
		return XDP_PASS;
	}
	if (bpf_xdp_adjust_tail(ctx, SCX_TRAILER_LEN)) {
		COUNT(tail_cnt, 2);
		return XDP_PASS;
	}
	/* bpf_xdp_store_bytes (5.18+): the verifier cannot follow a
	 * variable offset from data to the new tail. */
	__builtin_memset(t, SCX_TRAILER_BYTE, SCX_TRAILER_LEN);
	if (bpf_xdp_store_bytes(ctx, len, t, SCX_TRAILER_LEN))
		return XDP_ABORTED;
	COUNT(tail_cnt, 0);
	return XDP_PASS;
}

char _license[] SEC("license") = "GPL";
