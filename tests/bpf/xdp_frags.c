// SPDX-License-Identifier: GPL-2.0
/* A multi-buffer aware program (SEC("xdp.frags"): BPF_F_XDP_HAS_FRAGS) that
 * passes every frame: softcx has no multi-buffer XDP, so its MTU limit is
 * the same as for single-buffer programs, with its own extack message. */
#include "common.h"

SEC("xdp.frags")
int xdp_frags_pass(struct xdp_md *ctx)
{
	return XDP_PASS;
}

char _license[] SEC("license") = "GPL";
