// SPDX-License-Identifier: GPL-2.0
/* XDP_PASS every frame untouched. */
#include "common.h"

SEC("xdp")
int xdp_pass_all(struct xdp_md *ctx)
{
	return XDP_PASS;
}

char _license[] SEC("license") = "GPL";
