// SPDX-License-Identifier: GPL-2.0
/* XDP_REDIRECT every frame with bpf_redirect(ifindex): the ifindex is slot 0
 * of the array map redir_ifindex (0, the initial value: XDP_PASS). Set it with
 *   bpftool map update name redir_ifindex key 0 0 0 0 value <ifindex, 4 bytes LE>
 * Section "xdp.frags" holds the multi-buffer aware copy. */
#include "common.h"

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u32);
} redir_ifindex SEC(".maps");

static __always_inline int redir(void)
{
	__u32 k = 0, *ifi = bpf_map_lookup_elem(&redir_ifindex, &k);

	if (!ifi || !*ifi)
		return XDP_PASS;
	return bpf_redirect(*ifi, 0);
}

SEC("xdp")
int xdp_redir_ifindex(struct xdp_md *ctx)
{
	return redir();
}

/* The same for multi-buffer frames (a veth with a large MTU builds them). */
SEC("xdp.frags")
int xdp_redir_ifindex_frags(struct xdp_md *ctx)
{
	return redir();
}

char _license[] SEC("license") = "GPL";
