// SPDX-License-Identifier: GPL-2.0
/*
 * The port's link as ethtool shows and sets it: link modes, speed,
 * autoneg, the partner's modes and why the link is down. The device keeps
 * the link (the core's scx_port_link_*); the carrier of both ends of the
 * cable follows it after every change, as veth's follows the pair.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/ethtool.h>
#include <linux/netdevice.h>
#include <linux/sfp.h>

#include "softcx.h"

#define SCX_LINK_MODES_MAX 5

/* Each device protocol: the ethtool link modes it stands for (copper, backplane, optics). */
static const struct {
	u8 bit;
	u8 n;
	u8 modes[SCX_LINK_MODES_MAX];
} scx_link_modes[] = {
	{ SCX_LINK_1000BASE_X, 2,
	  { ETHTOOL_LINK_MODE_1000baseKX_Full_BIT, ETHTOOL_LINK_MODE_1000baseX_Full_BIT } },
	{ SCX_LINK_10GBASE_R, 3,
	  { ETHTOOL_LINK_MODE_10000baseKR_Full_BIT, ETHTOOL_LINK_MODE_10000baseCR_Full_BIT,
	    ETHTOOL_LINK_MODE_10000baseSR_Full_BIT } },
	{ SCX_LINK_40GBASE_R4, 4,
	  { ETHTOOL_LINK_MODE_40000baseKR4_Full_BIT, ETHTOOL_LINK_MODE_40000baseCR4_Full_BIT,
	    ETHTOOL_LINK_MODE_40000baseSR4_Full_BIT, ETHTOOL_LINK_MODE_40000baseLR4_Full_BIT } },
	{ SCX_LINK_25GBASE_R, 3,
	  { ETHTOOL_LINK_MODE_25000baseCR_Full_BIT, ETHTOOL_LINK_MODE_25000baseKR_Full_BIT,
	    ETHTOOL_LINK_MODE_25000baseSR_Full_BIT } },
	{ SCX_LINK_50GBASE_R2, 3,
	  { ETHTOOL_LINK_MODE_50000baseCR2_Full_BIT, ETHTOOL_LINK_MODE_50000baseKR2_Full_BIT,
	    ETHTOOL_LINK_MODE_50000baseSR2_Full_BIT } },
	{ SCX_LINK_50GBASE_R, 5,
	  { ETHTOOL_LINK_MODE_50000baseKR_Full_BIT, ETHTOOL_LINK_MODE_50000baseSR_Full_BIT,
	    ETHTOOL_LINK_MODE_50000baseCR_Full_BIT, ETHTOOL_LINK_MODE_50000baseLR_ER_FR_Full_BIT,
	    ETHTOOL_LINK_MODE_50000baseDR_Full_BIT } },
	{ SCX_LINK_100GBASE_R4, 4,
	  { ETHTOOL_LINK_MODE_100000baseKR4_Full_BIT, ETHTOOL_LINK_MODE_100000baseSR4_Full_BIT,
	    ETHTOOL_LINK_MODE_100000baseCR4_Full_BIT,
	    ETHTOOL_LINK_MODE_100000baseLR4_ER4_Full_BIT } },
	{ SCX_LINK_100GBASE_R2, 5,
	  { ETHTOOL_LINK_MODE_100000baseKR2_Full_BIT, ETHTOOL_LINK_MODE_100000baseSR2_Full_BIT,
	    ETHTOOL_LINK_MODE_100000baseCR2_Full_BIT,
	    ETHTOOL_LINK_MODE_100000baseLR2_ER2_FR2_Full_BIT,
	    ETHTOOL_LINK_MODE_100000baseDR2_Full_BIT } },
	{ SCX_LINK_100GBASE_R, 5,
	  { ETHTOOL_LINK_MODE_100000baseKR_Full_BIT, ETHTOOL_LINK_MODE_100000baseSR_Full_BIT,
	    ETHTOOL_LINK_MODE_100000baseLR_ER_FR_Full_BIT, ETHTOOL_LINK_MODE_100000baseDR_Full_BIT,
	    ETHTOOL_LINK_MODE_100000baseCR_Full_BIT } },
	{ SCX_LINK_200GBASE_R4, 5,
	  { ETHTOOL_LINK_MODE_200000baseKR4_Full_BIT, ETHTOOL_LINK_MODE_200000baseSR4_Full_BIT,
	    ETHTOOL_LINK_MODE_200000baseLR4_ER4_FR4_Full_BIT,
	    ETHTOOL_LINK_MODE_200000baseDR4_Full_BIT, ETHTOOL_LINK_MODE_200000baseCR4_Full_BIT } },
	{ SCX_LINK_200GBASE_R2, 5,
	  { ETHTOOL_LINK_MODE_200000baseKR2_Full_BIT, ETHTOOL_LINK_MODE_200000baseSR2_Full_BIT,
	    ETHTOOL_LINK_MODE_200000baseLR2_ER2_FR2_Full_BIT,
	    ETHTOOL_LINK_MODE_200000baseDR2_Full_BIT, ETHTOOL_LINK_MODE_200000baseCR2_Full_BIT } },
	{ SCX_LINK_400GBASE_R4, 5,
	  { ETHTOOL_LINK_MODE_400000baseKR4_Full_BIT, ETHTOOL_LINK_MODE_400000baseSR4_Full_BIT,
	    ETHTOOL_LINK_MODE_400000baseLR4_ER4_FR4_Full_BIT,
	    ETHTOOL_LINK_MODE_400000baseDR4_Full_BIT, ETHTOOL_LINK_MODE_400000baseCR4_Full_BIT } },
};

/* The ethtool link modes of a protocol mask, added to @modes. */
static void scx_link_to_modes(u32 protos, unsigned long *modes)
{
	unsigned int i, m;

	for (i = 0; i < ARRAY_SIZE(scx_link_modes); i++) {
		if (!(protos & BIT(scx_link_modes[i].bit)))
			continue;
		for (m = 0; m < scx_link_modes[i].n; m++)
			__set_bit(scx_link_modes[i].modes[m], modes);
	}
}

/* The protocols with at least one of their link modes in @modes. */
static u32 scx_link_from_modes(const unsigned long *modes)
{
	unsigned int i, m;
	u32 protos = 0;

	for (i = 0; i < ARRAY_SIZE(scx_link_modes); i++)
		for (m = 0; m < scx_link_modes[i].n; m++)
			if (test_bit(scx_link_modes[i].modes[m], modes))
				protos |= BIT(scx_link_modes[i].bit);
	return protos;
}

/* The protocols of one speed (Mb/s). */
static u32 scx_link_of_speed(u32 speed)
{
	u32 b, protos = 0;

	for (b = 0; b < SCX_LINK_PROTO_BITS; b++)
		if (speed && scx_link_proto_mbps(b) == speed)
			protos |= BIT(b);
	return protos;
}

/*
 * FEC: each device mode as ethtool names it (both RS codes are ethtool's
 * RS) and the link mode bit that lists it in ethtool's supported and
 * advertised FEC modes.
 */
static const struct {
	u16 dev;
	u32 fec;
	u8 mode;
} scx_fec_modes[] = {
	{ SCX_FEC_NONE, ETHTOOL_FEC_OFF, ETHTOOL_LINK_MODE_FEC_NONE_BIT },
	{ SCX_FEC_FIRECODE, ETHTOOL_FEC_BASER, ETHTOOL_LINK_MODE_FEC_BASER_BIT },
	{ SCX_FEC_RS_528, ETHTOOL_FEC_RS, ETHTOOL_LINK_MODE_FEC_RS_BIT },
	{ SCX_FEC_RS_544, ETHTOOL_FEC_RS, ETHTOOL_LINK_MODE_FEC_RS_BIT },
	{ SCX_FEC_LLRS, ETHTOOL_FEC_LLRS, ETHTOOL_LINK_MODE_FEC_LLRS_BIT },
};

static void scx_fec_to_modes(u16 fec, unsigned long *modes)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(scx_fec_modes); i++)
		if (fec & scx_fec_modes[i].dev)
			__set_bit(scx_fec_modes[i].mode, modes);
}

/* ethtool's FEC bits for device modes; 0, auto, as ethtool's AUTO. */
static u32 scx_fec_to_ethtool(u16 fec)
{
	unsigned int i;
	u32 out = 0;

	for (i = 0; i < ARRAY_SIZE(scx_fec_modes); i++)
		if (fec & scx_fec_modes[i].dev)
			out |= scx_fec_modes[i].fec;
	return out ? out : ETHTOOL_FEC_AUTO;
}

static void scx_link_carrier(struct net_device *dev)
{
	struct scx_priv *priv = netdev_priv(dev);
	struct scx_link l;

	if (!scx_port_link_get(priv->port, &l) && l.up)
		netif_carrier_on(dev);
	else
		netif_carrier_off(dev);
}

void scx_link_sync(struct scx_priv *priv)
{
	scx_link_carrier(priv->netdev);
	scx_link_carrier(priv->peer);
}

int scx_get_link_ksettings(struct net_device *dev, struct ethtool_link_ksettings *ks)
{
	struct scx_priv *priv = netdev_priv(dev);
	struct scx_link l;
	int err;

	err = scx_port_link_get(priv->port, &l);
	if (err)
		return err;
	ethtool_link_ksettings_zero_link_mode(ks, supported);
	ethtool_link_ksettings_zero_link_mode(ks, advertising);
	ethtool_link_ksettings_zero_link_mode(ks, lp_advertising);
	scx_link_to_modes(l.cap, ks->link_modes.supported);
	scx_link_to_modes(l.admin, ks->link_modes.advertising);
	scx_link_to_modes(l.partner, ks->link_modes.lp_advertising);
	ethtool_link_ksettings_add_link_mode(ks, supported, Autoneg);
	ethtool_link_ksettings_add_link_mode(ks, supported, FIBRE);
	if (l.autoneg)
		ethtool_link_ksettings_add_link_mode(ks, advertising, Autoneg);
	if (l.partner)
		ethtool_link_ksettings_add_link_mode(ks, lp_advertising, Autoneg);
	scx_fec_to_modes(l.fec_cap, ks->link_modes.supported);
	scx_fec_to_modes(l.fec_oper, ks->link_modes.advertising);
	ks->base.autoneg = l.autoneg ? AUTONEG_ENABLE : AUTONEG_DISABLE;
	ks->base.port = PORT_DA;
	if (l.up) {
		ks->base.speed = scx_link_proto_mbps(__ffs(l.oper));
		ks->base.duplex = DUPLEX_FULL;
	} else {
		ks->base.speed = SPEED_UNKNOWN;
		ks->base.duplex = DUPLEX_UNKNOWN;
	}
	return 0;
}

/*
 * Autoneg on: offer the protocols of the advertised modes. Off: force
 * every protocol of the speed. The link of the cable is then taken again
 * (the carrier of both ends follows it).
 */
int scx_set_link_ksettings(struct net_device *dev, const struct ethtool_link_ksettings *ks)
{
	struct scx_priv *priv = netdev_priv(dev);
	bool autoneg = ks->base.autoneg == AUTONEG_ENABLE;
	const char *why = NULL;
	u32 protos;
	int err;

	if (ks->base.duplex == DUPLEX_HALF) {
		netdev_err(dev, "link: half duplex is not supported\n");
		return -EINVAL;
	}
	protos = autoneg ? scx_link_from_modes(ks->link_modes.advertising) :
			   scx_link_of_speed(ks->base.speed);
	err = scx_port_link_set(priv->port, protos, autoneg, &why);
	if (err == -EINVAL && why) {
		if (autoneg)
			netdev_err(dev, "link: %s in the advertised modes\n", why);
		else
			netdev_err(dev, "link: speed %u is not supported\n", ks->base.speed);
	}
	if (!err)
		scx_link_sync(priv);
	return err;
}

int scx_get_link_ext_state(struct net_device *dev, struct ethtool_link_ext_state_info *info)
{
	struct scx_priv *priv = netdev_priv(dev);
	struct scx_link l;

	if (scx_port_link_get(priv->port, &l) || l.down_reason == SCX_LINK_DOWN_NONE)
		return -ENODATA;
	info->link_ext_state = ETHTOOL_LINK_EXT_STATE_LINK_LOGICAL_MISMATCH;
	switch (l.down_reason) {
	case SCX_LINK_DOWN_FEC_NONE_NO_LOCK:
		info->link_logical_mismatch = ETHTOOL_LINK_EXT_SUBSTATE_LLM_PCS_DID_NOT_ACQUIRE_BLOCK_LOCK;
		return 0;
	case SCX_LINK_DOWN_FC_NOT_LOCKED:
		info->link_logical_mismatch = ETHTOOL_LINK_EXT_SUBSTATE_LLM_FC_FEC_IS_NOT_LOCKED;
		return 0;
	case SCX_LINK_DOWN_RS_NOT_LOCKED:
		info->link_logical_mismatch = ETHTOOL_LINK_EXT_SUBSTATE_LLM_RS_FEC_IS_NOT_LOCKED;
		return 0;
	}
	info->link_ext_state = ETHTOOL_LINK_EXT_STATE_AUTONEG;
	switch (l.down_reason) {
	case SCX_LINK_DOWN_NO_PARTNER:
		info->autoneg = ETHTOOL_LINK_EXT_SUBSTATE_AN_NO_PARTNER_DETECTED;
		break;
	case SCX_LINK_DOWN_NO_PARTNER_FORCED:
		info->autoneg = ETHTOOL_LINK_EXT_SUBSTATE_AN_NO_PARTNER_DETECTED_FORCE_MODE;
		break;
	default:
		info->autoneg = ETHTOOL_LINK_EXT_SUBSTATE_AN_NO_HCD;
		break;
	}
	return 0;
}

/*
 * ethtool --show-fec: the policy and the FEC running, as mlx5 reports
 * them: auto for the auto policy, and for the active FEC while the link
 * is down.
 */
int scx_get_fecparam(struct net_device *dev, struct ethtool_fecparam *fp)
{
	struct scx_priv *priv = netdev_priv(dev);
	struct scx_link l;
	int err = scx_port_link_get(priv->port, &l);

	if (err)
		return err;
	fp->fec = scx_fec_to_ethtool(l.fec_admin);
	fp->active_fec = scx_fec_to_ethtool(l.fec_oper);
	return 0;
}

/*
 * ethtool --show-fec -I: the blocks the running FEC corrected and those it
 * could not, as mlx5 reports its active FEC's counters; nothing without a
 * FEC (or a link).
 */
void scx_get_fec_stats(struct net_device *dev, struct ethtool_fec_stats *fs)
{
	struct scx_priv *priv = netdev_priv(dev);
	struct scx_mac_stats s;
	struct scx_link l;

	if (scx_port_link_get(priv->port, &l) || !l.fec_oper || l.fec_oper == SCX_FEC_NONE)
		return;
	scx_stats_mac(priv->port, &s);
	fs->corrected_blocks.total = s.fec_corrected_blocks;
	fs->uncorrectable_blocks.total = s.fec_uncorrectable_blocks;
}

/*
 * ethtool --set-fec: one mode (mlx5 takes no more). RS asks for the RS
 * code of each speed, RS(528,514) on 25G lanes and RS(544,514) on PAM4
 * ones; a speed that cannot run the mode runs its default. The carriers
 * follow the link: it is down while the two ends' FEC differ.
 */
int scx_set_fecparam(struct net_device *dev, struct ethtool_fecparam *fp)
{
	struct scx_priv *priv = netdev_priv(dev);
	const char *why = NULL;
	u16 policy = 0;
	unsigned int i;
	int err;

	if (hweight32(fp->fec) != 1) {
		netdev_err(dev, "fec: give one encoding\n");
		return -EOPNOTSUPP;
	}
	/* the device modes ethtool's mode stands for; auto is policy 0 */
	for (i = 0; i < ARRAY_SIZE(scx_fec_modes); i++)
		if (scx_fec_modes[i].fec == fp->fec)
			policy |= scx_fec_modes[i].dev;
	if (!policy && fp->fec != ETHTOOL_FEC_AUTO)
		return -EOPNOTSUPP;
	err = scx_port_fec_set(priv->port, policy, &why);
	if (err && why)
		netdev_err(dev, "fec: %s\n", why);
	if (!err)
		scx_link_sync(priv);
	return err;
}

/*
 * ethtool -m: the module at this end of the cable, read by the device
 * (scx_port_module_read). ethtool's netlink request names the page;
 * a request the module cannot answer fails with the core's reason.
 */
int scx_get_module_eeprom_by_page(struct net_device *dev,
				  const struct ethtool_module_eeprom *req,
				  struct netlink_ext_ack *extack)
{
	struct scx_priv *priv = netdev_priv(dev);
	const char *why = NULL;
	int n = scx_port_module_read(priv->port, req->i2c_address, req->page, req->bank,
				     req->offset, req->length, req->data, &why);

	/* the core's reason, a static string (NL_SET_ERR_MSG takes literals only) */
	if (n < 0 && why && extack)
		extack->_msg = why;
	return n;
}

/*
 * The ioctl interface (ethtool 6.1 takes it for a hex or raw dump that names
 * no page, bank or i2c address) knows a module's type and one flat length.
 * An SFF-8636 module gives its page 00h there, 256 bytes: the core reads no
 * further, and our modules keep no upper pages. A CMIS module has no type
 * there (mlx5e's ioctl path takes none either); ethtool's netlink request
 * reads it.
 */
int scx_get_module_info(struct net_device *dev, struct ethtool_modinfo *info)
{
	struct scx_priv *priv = netdev_priv(dev);
	const char *why;
	u8 id;
	int n = scx_port_module_read(priv->port, SCX_MODULE_I2C_ADDR, 0, 0, 0, 1, &id, &why);

	if (n < 0)
		return n;
	if (id != SFF8024_ID_QSFP28_8636)
		return -EOPNOTSUPP;
	info->type = ETH_MODULE_SFF_8636;
	info->eeprom_len = ETH_MODULE_SFF_8636_LEN;
	return 0;
}

int scx_get_module_eeprom(struct net_device *dev, struct ethtool_eeprom *ee, u8 *data)
{
	struct scx_priv *priv = netdev_priv(dev);
	const char *why;
	int n;

	/* the kernel keeps the request within get_module_info's length */
	n = scx_port_module_read(priv->port, SCX_MODULE_I2C_ADDR, 0, 0, ee->offset, ee->len, data,
				 &why);
	return n < 0 ? n : 0;
}
