// SPDX-License-Identifier: GPL-2.0
/* A multi-buffer aware program (SEC("xdp.frags"): BPF_F_XDP_HAS_FRAGS) that
 * passes every frame: it may attach at an MTU past one page (t-xdp-mtu). */
#include "common.h"

SEC("xdp.frags")
int xdp_frags_pass(struct xdp_md *ctx)
{
	return XDP_PASS;
}

char _license[] SEC("license") = "GPL";
