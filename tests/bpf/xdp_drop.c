// SPDX-License-Identifier: GPL-2.0
/* XDP_DROP every frame. */
#include "common.h"

SEC("xdp")
int xdp_drop_all(struct xdp_md *ctx)
{
	return XDP_DROP;
}

char _license[] SEC("license") = "GPL";
