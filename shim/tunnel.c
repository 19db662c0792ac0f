// SPDX-License-Identifier: GPL-2.0
/*
 * Tunnel offloads: the device's table of VXLAN UDP ports, kept by the
 * kernel's UDP tunnel port table (udp_tunnel_nic, `ethtool --show-tunnels`),
 * and which encapsulated skbs keep their checksum and GSO offloads.
 *
 * As mlx5: the device parses inner headers only behind the UDP ports in
 * its table; IANA's 4789 is put there at probe and stays (the kernel's
 * table is told it is static), the others follow the VXLAN devices the
 * system creates, as long as rx-udp_tunnel-port-offload is on. Devices
 * from ConnectX-5 on see into GENEVE on IANA's 6081 as well, a fixed port
 * the kernel's table does not list (as mlx5: mlx5e_tunnel_features_check).
 * GRE and IP in IP need no table: the device knows them by the IP
 * protocol (GRE from ConnectX-4 on, IP in IP from ConnectX-5). An
 * encapsulated skb to any other port, or of another tunnel, goes out with
 * software checksums and segmentation.
 */
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/udp.h>
#include <net/geneve.h>
#include <net/gre.h>
#include <net/vxlan.h>

#include "softcx.h"

static int scx_tunnel_set_port(struct net_device *dev, unsigned int table, unsigned int entry,
			       struct udp_tunnel_info *ti)
{
	struct scx_priv *priv = netdev_priv(dev);
	int err;

	if (WARN_ON_ONCE(entry + 1 >= SCX_MAX_VXLAN_PORTS))
		return -EINVAL;
	err = scx_port_vxlan_port(priv->port, be16_to_cpu(ti->port), 1);
	if (!err)
		WRITE_ONCE(priv->vxlan_ports[entry + 1], ti->port);
	return err;
}

static int scx_tunnel_unset_port(struct net_device *dev, unsigned int table, unsigned int entry,
				 struct udp_tunnel_info *ti)
{
	struct scx_priv *priv = netdev_priv(dev);

	if (WARN_ON_ONCE(entry + 1 >= SCX_MAX_VXLAN_PORTS))
		return -EINVAL;
	WRITE_ONCE(priv->vxlan_ports[entry + 1], 0);
	return scx_port_vxlan_port(priv->port, be16_to_cpu(ti->port), 0);
}

/* What any tunnel the device parses offloads: inner checksums and TCP segmentation. */
static void scx_tunnel_features(struct net_device *dev, netdev_features_t gso,
				netdev_features_t partial)
{
	dev->hw_features |= gso | NETIF_F_GSO_PARTIAL;
	dev->features |= gso | NETIF_F_GSO_PARTIAL;
	dev->hw_enc_features |= NETIF_F_SG | NETIF_F_IP_CSUM | NETIF_F_IPV6_CSUM | NETIF_F_TSO |
				NETIF_F_TSO6 | NETIF_F_GSO_PARTIAL | gso;
	dev->gso_partial_features |= partial;
}

/*
 * GRE and IP in IP, as mlx5 (tunnel_stateless_gre, _ip_over_ip): GRE with
 * its checksum too, as GSO_PARTIAL as a UDP tunnel with outer checksums
 * is. No port table: the device finds them by the IP protocol.
 */
static void scx_ip_tunnel_init(struct scx_priv *priv, const struct scx_port_caps *caps)
{
	priv->gre = caps->gre;
	priv->ip_over_ip = caps->ip_over_ip;
	if (priv->gre)
		scx_tunnel_features(priv->netdev, NETIF_F_GSO_GRE | NETIF_F_GSO_GRE_CSUM,
				    NETIF_F_GSO_GRE_CSUM);
	if (priv->ip_over_ip)
		scx_tunnel_features(priv->netdev, NETIF_F_GSO_IPXIP4 | NETIF_F_GSO_IPXIP6, 0);
}

/*
 * Before register_netdev(): the IANA port in the device, the kernel's
 * table for the rest, and the offload features; the IP tunnels'. No UDP
 * tunnel without ports.
 */
int scx_tunnel_init(struct scx_priv *priv, const struct scx_port_caps *caps)
{
	struct net_device *dev = priv->netdev;
	struct udp_tunnel_nic_info *info = &priv->tunnel_info;
	u32 max_ports = min_t(u32, caps->max_vxlan_ports, SCX_MAX_VXLAN_PORTS);
	int err;

	scx_ip_tunnel_init(priv, caps);
	if (max_ports < 2)
		return 0;
	err = scx_port_vxlan_port(priv->port, IANA_VXLAN_UDP_PORT, 1);
	if (err)
		return err;
	priv->vxlan_ports[0] = htons(IANA_VXLAN_UDP_PORT);
	priv->geneve = caps->geneve;

	info->set_port = scx_tunnel_set_port;
	info->unset_port = scx_tunnel_unset_port;
	info->flags = UDP_TUNNEL_NIC_INFO_MAY_SLEEP | UDP_TUNNEL_NIC_INFO_STATIC_IANA_VXLAN;
	info->tables[0].n_entries = max_ports - 1;
	info->tables[0].tunnel_types = UDP_TUNNEL_TYPE_VXLAN;
	dev->udp_tunnel_nic_info = info;

	/*
	 * Inner checksums and TCP segmentation (IPv4 and IPv6 in either
	 * layer). A tunnel with outer UDP checksums (udpcsum) is segmented as
	 * mlx5 does, GSO_PARTIAL: the stack sends the segments of a full MSS
	 * together, with the outer UDP checksum one segment has (the same
	 * for each, their inner checksums being right), which the device
	 * leaves as it is; the remainder goes on its own.
	 */
	scx_tunnel_features(dev, NETIF_F_GSO_UDP_TUNNEL | NETIF_F_GSO_UDP_TUNNEL_CSUM,
			    NETIF_F_GSO_UDP_TUNNEL_CSUM);
	dev->hw_features |= NETIF_F_RX_UDP_TUNNEL_PORT;
	dev->features |= NETIF_F_RX_UDP_TUNNEL_PORT;
	return 0;
}

/* After unregister_netdev() (the kernel has unset every port of its table). */
void scx_tunnel_fini(struct scx_priv *priv)
{
	if (!priv->vxlan_ports[0])
		return;
	scx_port_vxlan_port(priv->port, IANA_VXLAN_UDP_PORT, 0);
	priv->vxlan_ports[0] = 0;
}

static bool scx_vxlan_port_known(const struct scx_priv *priv, __be16 port)
{
	u32 i;

	for (i = 0; i < SCX_MAX_VXLAN_PORTS; i++)
		if (port && READ_ONCE(priv->vxlan_ports[i]) == port)
			return true;
	return false;
}

/*
 * The length of the tunnel header the device expects behind the skb's
 * outer UDP header: VXLAN's to one of its VXLAN ports, GENEVE's (with its
 * options) to 6081 when it parses GENEVE; 0 for any other port.
 */
static unsigned int scx_tunnel_hdr_len(const struct scx_priv *priv, struct sk_buff *skb)
{
	const struct udphdr *uh = udp_hdr(skb);
	const struct genevehdr *gh = (const struct genevehdr *)(uh + 1);

	if (scx_vxlan_port_known(priv, uh->dest))
		return sizeof(struct vxlanhdr);
	if (uh->dest != htons(GENEVE_UDP_PORT) || !priv->geneve ||
	    skb_inner_mac_header(skb) - skb_transport_header(skb) <
		    sizeof(struct udphdr) + sizeof(*gh) ||
	    gh->ver || gh->proto_type != htons(ETH_P_TEB))
		return 0;
	return sizeof(*gh) + gh->opt_len * 4;
}

/*
 * The length of the GRE header the device reads at the skb's transport
 * header, and the inner header that must follow it: the MAC one for
 * Ethernet, else the network one; 0 for what the device does not parse
 * (a version or flag but checksum, key and sequence; another payload).
 */
static unsigned int scx_gre_hdr_len(const struct scx_priv *priv, struct sk_buff *skb,
				    unsigned int *inner)
{
	const struct gre_base_hdr *g = (const struct gre_base_hdr *)skb_transport_header(skb);

	if (!priv->gre || skb_inner_network_header(skb) - skb_transport_header(skb) < sizeof(*g) ||
	    (g->flags & ~(GRE_CSUM | GRE_KEY | GRE_SEQ)) ||
	    skb->inner_protocol_type != ENCAP_TYPE_ETHER || g->protocol != skb->inner_protocol)
		return 0;
	switch (skb->inner_protocol) {
	case htons(ETH_P_TEB):
		*inner = skb_inner_mac_header(skb) - skb->data;
		break;
	case htons(ETH_P_IP):
	case htons(ETH_P_IPV6):
		*inner = skb_inner_network_offset(skb);
		break;
	default:
		return 0;
	}
	return sizeof(*g) + 4 * hweight16(be16_to_cpu(g->flags));
}

/*
 * An encapsulated skb with checksum or GSO offload: kept only for what the
 * device finds inner headers in: Ethernet in UDP to one of its VXLAN
 * ports or to GENEVE's; Ethernet, IPv4 or IPv6 in GRE; IPv4 or IPv6 in
 * IP. An inner IPv6 header must have no extension header after it.
 */
netdev_features_t scx_tunnel_features_check(const struct scx_priv *priv, struct sk_buff *skb,
					    netdev_features_t features)
{
	unsigned int hlen, inner, outer_len;
	u8 proto;

	switch (vlan_get_protocol(skb)) {
	case htons(ETH_P_IP):
		proto = ip_hdr(skb)->protocol;
		outer_len = ip_hdrlen(skb);
		break;
	case htons(ETH_P_IPV6):
		proto = ipv6_hdr(skb)->nexthdr;
		outer_len = sizeof(struct ipv6hdr);
		break;
	default:
		goto strip;
	}
	switch (proto) {
	case IPPROTO_UDP:
		if (skb->inner_protocol_type != ENCAP_TYPE_ETHER ||
		    skb->inner_protocol != htons(ETH_P_TEB))
			goto strip;
		hlen = scx_tunnel_hdr_len(priv, skb);
		if (!hlen || skb_inner_mac_header(skb) - skb_transport_header(skb) !=
				     sizeof(struct udphdr) + hlen)
			goto strip;
		break;
	case IPPROTO_GRE:
		/* the GRE header right after the outer IP header, the inner one right after it */
		hlen = scx_gre_hdr_len(priv, skb, &inner);
		if (!hlen || skb_transport_offset(skb) != skb_network_offset(skb) + outer_len ||
		    inner != skb_transport_offset(skb) + hlen)
			goto strip;
		break;
	case IPPROTO_IPIP:
	case IPPROTO_IPV6:
		/* (an IP tunnel leaves the transport header where the inner packet had it) */
		if (!priv->ip_over_ip || skb->inner_protocol_type != ENCAP_TYPE_IPPROTO ||
		    skb->inner_ipproto != proto ||
		    skb_inner_network_offset(skb) != skb_network_offset(skb) + outer_len)
			goto strip;
		break;
	default:
		goto strip;
	}
	if (inner_ip_hdr(skb)->version == 6 &&
	    skb_inner_transport_offset(skb) != skb_inner_network_offset(skb) + sizeof(struct ipv6hdr))
		goto strip;
	return features;
strip:
	return features & ~(NETIF_F_CSUM_MASK | NETIF_F_GSO_MASK);
}
