// SPDX-License-Identifier: GPL-2.0
/* A multi-buffer aware program (SEC("xdp.frags")) for t-xdp-mb.sh. Frames
 * other than IPv4 (ARP, IPv6 neighbour discovery) pass untouched. Each IPv4
 * frame is counted in mb_cnt (0 frames, 1 of them in more than one buffer,
 * 2 bytes in all as bpf_xdp_get_buff_len() gives them, 3 adjust_tail
 * refused), then handled as mb_cfg[0] says:
 *   0 XDP_PASS
 *   1 XDP_DROP
 *   2 XDP_TX with the MAC addresses swapped
 *   3 cut mb_cfg[1] bytes off the tail (bpf_xdp_adjust_tail), XDP_PASS
 *   4 grow the tail by mb_cfg[1] zero bytes, XDP_PASS
 *   5 XDP_REDIRECT to mb_cpus[0] (a cpumap)
 *   6 XDP_REDIRECT to mb_devs[0] (a devmap: 6.1 refuses multi-buffer frames there)
 */
#include "common.h"

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 2);
	__type(key, __u32);
	__type(value, __u32);
} mb_cfg SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 4);
	__type(key, __u32);
	__type(value, __u64);
} mb_cnt SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_CPUMAP);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u32);	/* the queue size */
} mb_cpus SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_DEVMAP);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u32);
} mb_devs SEC(".maps");

SEC("xdp.frags")
int xdp_mb(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data;
	void *data_end = (void *)(long)ctx->data_end;
	struct ethhdr *eth = data;
	__u32 k0 = 0, k1 = 1, k2 = 2;
	__u32 *mode = bpf_map_lookup_elem(&mb_cfg, &k0);
	__u32 *arg = bpf_map_lookup_elem(&mb_cfg, &k1);
	__u64 linear = data_end - data, total = bpf_xdp_get_buff_len(ctx), *bytes;

	if (!mode || !arg)
		return XDP_ABORTED;
	if ((void *)(eth + 1) > data_end)
		return XDP_DROP;
	if (eth->h_proto != bpf_htons(ETH_P_IP))
		return XDP_PASS;
	COUNT(mb_cnt, 0);
	if (total > linear)
		COUNT(mb_cnt, 1);
	bytes = bpf_map_lookup_elem(&mb_cnt, &k2);
	if (bytes)
		__sync_fetch_and_add(bytes, total);
	switch (*mode) {
	case 1:
		return XDP_DROP;
	case 2:
		swap_macs(eth);
		return XDP_TX;
	case 3:
		if (bpf_xdp_adjust_tail(ctx, -(int)*arg))
			COUNT(mb_cnt, 3);
		return XDP_PASS;
	case 4:
		if (bpf_xdp_adjust_tail(ctx, (int)*arg))
			COUNT(mb_cnt, 3);
		return XDP_PASS;
	case 5:
		return bpf_redirect_map(&mb_cpus, 0, 0);
	case 6:
		return bpf_redirect_map(&mb_devs, 0, 0);
	}
	return XDP_PASS;
}

char _license[] SEC("license") = "GPL";
