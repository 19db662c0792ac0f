// SPDX-License-Identifier: GPL-2.0
/* tc clsact ingress, direct-action, always TC_ACT_OK: verifies the frames
 * pktgen sent (IPv4, UDP destination port 9) arrived intact:
 *  - Ethernet: destination and source as configured (chk_cfg, when its
 *    check_macs is 1), EtherType IPv4;
 *  - IPv4: version 4, IHL 5, valid header checksum, protocol UDP, total
 *    length = frame length - 14 - trailer;
 *  - UDP: length = IP total length - 20;
 *  - payload: pktgen's magic 0xbe9be955, then (NO_TIMESTAMP) zero up to the
 *    end of the IP packet;
 *  - trailer (chk_cfg.trailer = N > 0): N bytes of SCX_TRAILER_BYTE after the
 *    IP packet (what xdp_tail.c appends).
 * Counters (chk_cnt, u64): 0 intact, 1 bad L2, 2 bad IPv4/UDP header or
 * length, 3 bad payload or trailer, 4 other frames (not pktgen's), 5 bytes of
 * intact frames, 6 sum of pktgen sequence numbers of intact frames.
 * Configure with bpftool (see tests/vm/lib.sh chk_attach). */
#include "common.h"
#include <linux/pkt_cls.h>

struct chk_cfg {
	__u8 dst[ETH_ALEN];
	__u8 src[ETH_ALEN];
	__u32 check_macs;
	__u32 trailer;
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct chk_cfg);
} chk_cfg SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 7);
	__type(key, __u32);
	__type(value, __u64);
} chk_cnt SEC(".maps");

#define MAX_PAYLOAD_WORDS 190	/* checks up to 1520 bytes of payload */

static __always_inline int macs_ok(struct __sk_buff *skb, struct chk_cfg *cfg)
{
	__u8 m[2 * ETH_ALEN];
	int i;

	if (!cfg->check_macs)
		return 1;
	if (bpf_skb_load_bytes(skb, 0, m, sizeof(m)))
		return 0;
#pragma unroll
	for (i = 0; i < ETH_ALEN; i++)
		if (m[i] != cfg->dst[i] || m[ETH_ALEN + i] != cfg->src[i])
			return 0;
	return 1;
}

SEC("tc")
int tc_check(struct __sk_buff *skb)
{
	__u32 k0 = 0, len = skb->len, tot, off, end, i, sum = 0;
	struct chk_cfg *cfg = bpf_map_lookup_elem(&chk_cfg, &k0);
	__u16 ip[10];
	__be16 proto;
	struct udphdr uh;
	__u32 pg[2];
	__u64 w, *v;

	if (!cfg)
		return TC_ACT_OK;
	if (bpf_skb_load_bytes(skb, 12, &proto, 2) || proto != bpf_htons(ETH_P_IP) ||
	    len < ETH_HLEN + 20 + 8 + 8)
		goto other;
	if (bpf_skb_load_bytes(skb, ETH_HLEN, ip, sizeof(ip)))
		goto other;
	if (((struct iphdr *)ip)->protocol != IPPROTO_UDP)
		goto other;
	if (bpf_skb_load_bytes(skb, ETH_HLEN + 20, &uh, sizeof(uh)) || uh.dest != bpf_htons(9))
		goto other;

	/* From here on, it is a pktgen frame: intact or not. */
	if (!macs_ok(skb, cfg)) {
		COUNT(chk_cnt, 1);
		return TC_ACT_OK;
	}
#pragma unroll
	for (i = 0; i < 10; i++)
		sum += ip[i];
	sum = (sum & 0xffff) + (sum >> 16);
	sum = (sum & 0xffff) + (sum >> 16);
	tot = bpf_ntohs(((struct iphdr *)ip)->tot_len);
	if (((__u8 *)ip)[0] != 0x45)
		goto bad_hdr;
	if (sum != 0xffff || tot + ETH_HLEN + cfg->trailer != len ||
	    bpf_ntohs(uh.len) != tot - 20 || tot < 20 + 8 + 8)
		goto bad_hdr;

	off = ETH_HLEN + 20 + 8;
	if (bpf_skb_load_bytes(skb, off, pg, sizeof(pg)) || pg[0] != bpf_htonl(PKTGEN_MAGIC))
		goto bad_payload;
	/* After magic and sequence number: zeros to the end of the IP packet
	 * (tv_sec/tv_usec are 0 with NO_TIMESTAMP, the rest is pktgen's zero fill). */
	off += 8;
	end = ETH_HLEN + tot;
	for (i = 0; i < MAX_PAYLOAD_WORDS; i++) {
		if (off + 8 <= end) {
			if (bpf_skb_load_bytes(skb, off, &w, 8) || w)
				goto bad_payload;
			off += 8;
		} else if (off < end) {
			__u8 b;

			if (bpf_skb_load_bytes(skb, off, &b, 1) || b)
				goto bad_payload;
			off += 1;
		} else {
			break;
		}
	}
	if (off < end)
		goto bad_payload;	/* longer than this checker covers */
	if (cfg->trailer) {
		__u8 t[SCX_TRAILER_LEN];

		if (cfg->trailer != SCX_TRAILER_LEN || bpf_skb_load_bytes(skb, end, t, sizeof(t)))
			goto bad_payload;
#pragma unroll
		for (i = 0; i < SCX_TRAILER_LEN; i++)
			if (t[i] != SCX_TRAILER_BYTE)
				goto bad_payload;
	}
	COUNT(chk_cnt, 0);
	k0 = 5;
	v = bpf_map_lookup_elem(&chk_cnt, &k0);
	if (v)
		__sync_fetch_and_add(v, len);
	k0 = 6;
	v = bpf_map_lookup_elem(&chk_cnt, &k0);
	if (v)
		__sync_fetch_and_add(v, bpf_ntohl(pg[1]));
	return TC_ACT_OK;
bad_hdr:
	COUNT(chk_cnt, 2);
	return TC_ACT_OK;
bad_payload:
	COUNT(chk_cnt, 3);
	return TC_ACT_OK;
other:
	COUNT(chk_cnt, 4);
	return TC_ACT_OK;
}

char _license[] SEC("license") = "GPL";
