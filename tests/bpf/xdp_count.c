// SPDX-License-Identifier: GPL-2.0
/* Count every frame (slot 0: frames, slot 1: bytes) in xdp_cnt, then
 * XDP_PASS. Read with `bpftool map dump name xdp_cnt`. */
#include "common.h"

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 2);
	__type(key, __u32);
	__type(value, __u64);
} xdp_cnt SEC(".maps");

SEC("xdp")
int xdp_count_pass(struct xdp_md *ctx)
{
	__u32 k = 1;
	__u64 *b;

	COUNT(xdp_cnt, 0);
	b = bpf_map_lookup_elem(&xdp_cnt, &k);
	if (b)
		__sync_fetch_and_add(b, ctx->data_end - ctx->data);
	return XDP_PASS;
}

char _license[] SEC("license") = "GPL";
