// SPDX-License-Identifier: GPL-2.0
/* XDP_REDIRECT every frame through a devmap: bpf_redirect_map(&tx_port, 0).
 * Set the target with
 *   bpftool map update name tx_port key 0 0 0 0 value <ifindex, 4 bytes LE>
 * (in the netns of the target device). An empty slot drops the frame
 * (the redirect fails: the driver counts it in rx_xdp_drop). */
#include "common.h"

struct {
	__uint(type, BPF_MAP_TYPE_DEVMAP);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u32);
} tx_port SEC(".maps");

SEC("xdp")
int xdp_redir_map(struct xdp_md *ctx)
{
	return bpf_redirect_map(&tx_port, 0, 0);
}

char _license[] SEC("license") = "GPL";
