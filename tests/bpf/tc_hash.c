// SPDX-License-Identifier: GPL-2.0
/* tc clsact ingress, direct-action: counts the UDP skbs that arrive with a
 * flow hash (skb->hash read as it is: nothing here computes one) in
 * hash_cnt[1], those without in hash_cnt[0]. With rxhash on, the driver
 * sets the device's RSS hash on each; with it off, none has one. Every skb
 * passes. */
#include "common.h"
#include <linux/pkt_cls.h>

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 2);
	__type(key, __u32);
	__type(value, __u64);
} hash_cnt SEC(".maps");

SEC("tc")
int tc_hash_count(struct __sk_buff *skb)
{
	void *data = (void *)(long)skb->data;
	void *end = (void *)(long)skb->data_end;
	struct ethhdr *eth = data;
	struct iphdr *ip = data + sizeof(*eth);

	if ((void *)(ip + 1) > end || eth->h_proto != bpf_htons(ETH_P_IP) ||
	    ip->protocol != IPPROTO_UDP)
		return TC_ACT_OK;
	COUNT(hash_cnt, skb->hash != 0);
	return TC_ACT_OK;
}

char _license[] SEC("license") = "GPL";
