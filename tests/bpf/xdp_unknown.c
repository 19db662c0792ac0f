// SPDX-License-Identifier: GPL-2.0
/* Return a verdict the kernel does not know (7): the driver treats it as
 * XDP_ABORTED (bpf_warn_invalid_xdp_action, trace_xdp_exception, rx_xdp_drop). */
#include "common.h"

SEC("xdp")
int xdp_unknown_verdict(struct xdp_md *ctx)
{
	return 7;
}

char _license[] SEC("license") = "GPL";
