// SPDX-License-Identifier: GPL-2.0
/* Swap the Ethernet source and destination addresses and send the frame
 * back out of the port it came in on (XDP_TX). */
#include "common.h"

SEC("xdp")
int xdp_reflect(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data;
	void *data_end = (void *)(long)ctx->data_end;
	struct ethhdr *eth = data;

	if ((void *)(eth + 1) > data_end)
		return XDP_DROP;
	swap_macs(eth);
	return XDP_TX;
}

char _license[] SEC("license") = "GPL";
