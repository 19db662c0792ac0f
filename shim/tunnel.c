// SPDX-License-Identifier: GPL-2.0
/*
 * VXLAN offloads: the device's table of VXLAN UDP ports, kept by the
 * kernel's UDP tunnel port table (udp_tunnel_nic, `ethtool --show-tunnels`),
 * and which encapsulated skbs keep their checksum and GSO offloads.
 *
 * As mlx5: the device parses inner headers only behind the UDP ports in
 * its table; IANA's 4789 is put there at probe and stays (the kernel's
 * table is told it is static), the others follow the VXLAN devices the
 * system creates, as long as rx-udp_tunnel-port-offload is on. Devices
 * from ConnectX-5 on see into GENEVE on IANA's 6081 as well, a fixed port
 * the kernel's table does not list (as mlx5: mlx5e_tunnel_features_check).
 * An encapsulated skb to any other port, or of another tunnel, goes out
 * with software checksums and segmentation.
 */
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/udp.h>
#include <net/geneve.h>
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

/*
 * Before register_netdev(): the IANA port in the device, the kernel's
 * table for the rest, and the offload features. Nothing without ports.
 */
int scx_tunnel_init(struct scx_priv *priv, u32 max_ports, bool geneve)
{
	struct net_device *dev = priv->netdev;
	struct udp_tunnel_nic_info *info = &priv->tunnel_info;
	int err;

	max_ports = min_t(u32, max_ports, SCX_MAX_VXLAN_PORTS);
	if (max_ports < 2)
		return 0;
	err = scx_port_vxlan_port(priv->port, IANA_VXLAN_UDP_PORT, 1);
	if (err)
		return err;
	priv->vxlan_ports[0] = htons(IANA_VXLAN_UDP_PORT);
	priv->geneve = geneve;

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
	dev->hw_features |= NETIF_F_GSO_UDP_TUNNEL | NETIF_F_GSO_UDP_TUNNEL_CSUM |
			    NETIF_F_GSO_PARTIAL | NETIF_F_RX_UDP_TUNNEL_PORT;
	dev->features |= NETIF_F_GSO_UDP_TUNNEL | NETIF_F_GSO_UDP_TUNNEL_CSUM |
			 NETIF_F_GSO_PARTIAL | NETIF_F_RX_UDP_TUNNEL_PORT;
	dev->hw_enc_features |= NETIF_F_SG | NETIF_F_IP_CSUM | NETIF_F_IPV6_CSUM |
				NETIF_F_TSO | NETIF_F_TSO6 | NETIF_F_GSO_UDP_TUNNEL |
				NETIF_F_GSO_UDP_TUNNEL_CSUM | NETIF_F_GSO_PARTIAL;
	dev->gso_partial_features = NETIF_F_GSO_UDP_TUNNEL_CSUM;
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
 * An encapsulated skb with checksum or GSO offload: kept only for what the
 * device finds inner headers in, Ethernet in UDP to one of its VXLAN
 * ports or to GENEVE's, with an inner IPv6 header that no extension
 * header follows.
 */
netdev_features_t scx_tunnel_features_check(const struct scx_priv *priv, struct sk_buff *skb,
					    netdev_features_t features)
{
	unsigned int hlen;
	u8 proto;

	switch (vlan_get_protocol(skb)) {
	case htons(ETH_P_IP):
		proto = ip_hdr(skb)->protocol;
		break;
	case htons(ETH_P_IPV6):
		proto = ipv6_hdr(skb)->nexthdr;
		break;
	default:
		goto strip;
	}
	if (proto != IPPROTO_UDP || skb->inner_protocol_type != ENCAP_TYPE_ETHER ||
	    skb->inner_protocol != htons(ETH_P_TEB))
		goto strip;
	hlen = scx_tunnel_hdr_len(priv, skb);
	if (!hlen || skb_inner_mac_header(skb) - skb_transport_header(skb) !=
			     sizeof(struct udphdr) + hlen)
		goto strip;
	if (inner_ip_hdr(skb)->version == 6 &&
	    skb_inner_transport_offset(skb) != skb_inner_network_offset(skb) + sizeof(struct ipv6hdr))
		goto strip;
	return features;
strip:
	return features & ~(NETIF_F_CSUM_MASK | NETIF_F_GSO_MASK);
}
