// SPDX-License-Identifier: GPL-2.0
/* Send pktgen's frames (IPv4 UDP to port 9, no IP options) back out of the
 * port they came in on with the Ethernet addresses swapped (XDP_TX); pass
 * everything else to the stack. So one port carries XDP_TX and stack
 * traffic (e.g. iperf3 TCP) at once. */
#include "common.h"

SEC("xdp")
int xdp_tx_pktgen(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data;
	void *data_end = (void *)(long)ctx->data_end;
	struct ethhdr *eth = data;
	struct iphdr *ip = (void *)(eth + 1);
	struct udphdr *udp = (void *)(ip + 1);

	if ((void *)(udp + 1) > data_end || eth->h_proto != bpf_htons(ETH_P_IP) ||
	    ip->ihl != 5 || ip->protocol != IPPROTO_UDP || udp->dest != bpf_htons(9))
		return XDP_PASS;
	swap_macs(eth);
	return XDP_TX;
}

char _license[] SEC("license") = "GPL";
