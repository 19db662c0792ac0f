// SPDX-License-Identifier: GPL-2.0
/* Pop an 802.1Q tag with VID SCX_TEST_VID: move the MAC addresses 4 bytes
 * towards the payload and bpf_xdp_adjust_head(+4). Other frames pass
 * untouched. Counters in pop_cnt: 0 popped, 1 passed untouched. */
#include "common.h"

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 2);
	__type(key, __u32);
	__type(value, __u64);
} pop_cnt SEC(".maps");

SEC("xdp")
int xdp_vlan_pop(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data;
	void *data_end = (void *)(long)ctx->data_end;
	struct ethhdr *eth = data;
	struct vlan_hdr_s *vh = (void *)(eth + 1);
	unsigned char macs[2 * ETH_ALEN];

	if ((void *)(vh + 1) > data_end || eth->h_proto != bpf_htons(ETH_P_8021Q) ||
	    (bpf_ntohs(vh->tci) & 0xfff) != SCX_TEST_VID) {
		COUNT(pop_cnt, 1);
		return XDP_PASS;
	}
	__builtin_memcpy(macs, eth, sizeof(macs));
	if (bpf_xdp_adjust_head(ctx, (int)sizeof(*vh)))
		return XDP_ABORTED;
	data = (void *)(long)ctx->data;
	data_end = (void *)(long)ctx->data_end;
	if (data + 2 * ETH_ALEN > data_end)
		return XDP_ABORTED;
	/* The inner EtherType (vh->proto) is already in place, right after the MACs. */
	__builtin_memcpy(data, macs, sizeof(macs));
	COUNT(pop_cnt, 0);
	return XDP_PASS;
}

char _license[] SEC("license") = "GPL";
