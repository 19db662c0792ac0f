/* SPDX-License-Identifier: GPL-2.0 */
/* Shared bits of the softcx test BPF programs (tests/bpf/). */
#ifndef SCX_BPF_COMMON_H
#define SCX_BPF_COMMON_H

#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/ip.h>
#include <linux/udp.h>
#include <linux/in.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>

#ifndef ETH_P_8021Q
#define ETH_P_8021Q 0x8100
#endif

/* The VLAN id the pass tests tag with (xdp_vlan_push / xdp_vlan_pop). */
#define SCX_TEST_VID 100
/* What xdp_meta.c writes into the metadata area and tc_meta.c expects. */
#define SCX_META_MAGIC 0x5c0ffee5u
/* Trailer xdp_tail.c appends (bpf_xdp_adjust_tail) and tc_check.c verifies. */
#define SCX_TRAILER_LEN 16
#define SCX_TRAILER_BYTE 0xa5
/* pktgen's header magic (first 4 bytes of the UDP payload, network order). */
#define PKTGEN_MAGIC 0xbe9be955u

struct vlan_hdr_s {
	__be16 tci;
	__be16 proto;
};

/* Exchange the Ethernet destination and source addresses (to send a frame back). */
static __always_inline void swap_macs(struct ethhdr *eth)
{
	unsigned char tmp[ETH_ALEN];

	__builtin_memcpy(tmp, eth->h_dest, ETH_ALEN);
	__builtin_memcpy(eth->h_dest, eth->h_source, ETH_ALEN);
	__builtin_memcpy(eth->h_source, tmp, ETH_ALEN);
}

/* Increment slot @idx of a u64 array map. */
#define COUNT(map, idx)                                                  \
	do {                                                             \
		__u32 __k = (idx);                                       \
		__u64 *__v = bpf_map_lookup_elem(&(map), &__k);          \
		if (__v)                                                 \
			__sync_fetch_and_add(__v, 1);                    \
	} while (0)

#endif
