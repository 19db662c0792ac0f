// SPDX-License-Identifier: GPL-2.0
/* XDP_ABORTED every frame: the driver drops it, counts it in rx_xdp_drop
 * and fires the xdp:xdp_exception tracepoint. */
#include "common.h"

SEC("xdp")
int xdp_abort_all(struct xdp_md *ctx)
{
	return XDP_ABORTED;
}

char _license[] SEC("license") = "GPL";
