// SPDX-License-Identifier: GPL-2.0
/* tc clsact ingress, direct-action: every skb must carry the 4 bytes of
 * XDP metadata xdp_meta.c wrote (skb->data_meta .. skb->data, equal to
 * SCX_META_MAGIC). Counters in meta_cnt: 0 with the metadata (passed),
 * 1 without or wrong (dropped: so ping/iperf3 only work when the driver
 * hands the metadata to the skb). */
#include "common.h"
#include <linux/pkt_cls.h>

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 2);
	__type(key, __u32);
	__type(value, __u64);
} meta_cnt SEC(".maps");

SEC("tc")
int tc_meta_check(struct __sk_buff *skb)
{
	void *data = (void *)(long)skb->data;
	void *meta = (void *)(long)skb->data_meta;

	/* exactly 4 bytes of metadata, holding the magic */
	if (meta + 4 > data || meta + 5 <= data || *(__u32 *)meta != SCX_META_MAGIC) {
		COUNT(meta_cnt, 1);
		return TC_ACT_SHOT;
	}
	COUNT(meta_cnt, 0);
	return TC_ACT_OK;
}

char _license[] SEC("license") = "GPL";
