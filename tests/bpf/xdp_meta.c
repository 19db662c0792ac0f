// SPDX-License-Identifier: GPL-2.0
/* Reserve 4 bytes of metadata in front of the frame
 * (bpf_xdp_adjust_meta(-4)) holding SCX_META_MAGIC, then XDP_PASS.
 * tc_meta.c checks that every skb carries it (skb->data_meta). */
#include "common.h"

SEC("xdp")
int xdp_meta_set(struct xdp_md *ctx)
{
	void *data, *meta;

	if (bpf_xdp_adjust_meta(ctx, -4))
		return XDP_ABORTED;
	data = (void *)(long)ctx->data;
	meta = (void *)(long)ctx->data_meta;
	if (meta + 4 > data)
		return XDP_ABORTED;
	*(__u32 *)meta = SCX_META_MAGIC;
	return XDP_PASS;
}

char _license[] SEC("license") = "GPL";
