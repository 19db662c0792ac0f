// SPDX-License-Identifier: GPL-2.0
/* Push an 802.1Q tag with VID SCX_TEST_VID onto untagged frames:
 * bpf_xdp_adjust_head(-4), move the MAC addresses to the new start and
 * write the tag. Tagged frames pass untouched. Counters in push_cnt:
 * 0 pushed, 1 passed untouched. */
#include "common.h"

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 2);
	__type(key, __u32);
	__type(value, __u64);
} push_cnt SEC(".maps");

SEC("xdp")
int xdp_vlan_push(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data;
	void *data_end = (void *)(long)ctx->data_end;
	struct ethhdr *eth = data;
	struct vlan_hdr_s *vh;
	unsigned char macs[2 * ETH_ALEN];
	__be16 proto;

	if ((void *)(eth + 1) > data_end || eth->h_proto == bpf_htons(ETH_P_8021Q)) {
		COUNT(push_cnt, 1);
		return XDP_PASS;
	}
	__builtin_memcpy(macs, eth, sizeof(macs));
	proto = eth->h_proto;
	if (bpf_xdp_adjust_head(ctx, -(int)sizeof(*vh)))
		return XDP_ABORTED;
	data = (void *)(long)ctx->data;
	data_end = (void *)(long)ctx->data_end;
	eth = data;
	vh = (void *)(eth + 1);
	if ((void *)(vh + 1) > data_end)
		return XDP_ABORTED;
	__builtin_memcpy(eth, macs, sizeof(macs));
	eth->h_proto = bpf_htons(ETH_P_8021Q);
	vh->tci = bpf_htons(SCX_TEST_VID);
	vh->proto = proto;
	COUNT(push_cnt, 0);
	return XDP_PASS;
}

char _license[] SEC("license") = "GPL";
