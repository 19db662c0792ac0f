// SPDX-License-Identifier: GPL-2.0
/*
 * Port lifecycle: caps, channel set build/teardown and the RSS object that
 * spreads received packets over the channels' RQs.
 */
#include "en/port.h"

#include "en/cmd.h"

namespace softcx::en {

namespace {

constexpr u32 kHwMtuOverhead = 14 + 4 + 4;	/* ETH_HLEN + VLAN_HLEN + FCS, as mlx5 */
constexpr u32 kRssLogTable = 7;
constexpr u8 kMaxRxOrder = 3;

/* A fixed, well-known Toeplitz key keeps hashes reproducible across runs. */
constexpr u8 kRssKey[prm::kRssKeySize] = {
	0x6d, 0x5a, 0x56, 0xda, 0x25, 0x5b, 0x0e, 0xc2, 0x41, 0x67, 0x25, 0x3d, 0x43, 0xa3,
	0x8f, 0xb0, 0xd0, 0xca, 0x2b, 0xcb, 0xae, 0x7b, 0x30, 0xb4, 0x77, 0xcb, 0x2d, 0xa3,
	0x80, 0x30, 0xf2, 0x0c, 0x6a, 0x42, 0xb7, 0x3b, 0xbe, 0xac, 0x01, 0xfa,
};

int rss_create(Port *p)
{
	prm::RssIn *in = zalloc_one<prm::RssIn>();
	prm::CreateObjOut out = {};
	int err;

	if (!in)
		return -SCX_ENOMEM;
	in->rx_hash_fields.set(prm::kRssFieldSrcIp | prm::kRssFieldDstIp |
			       prm::kRssFieldL4SPort | prm::kRssFieldL4DPort);
	in->log_table_size = kRssLogTable;
	__builtin_memcpy(in->toeplitz_key, kRssKey, sizeof(kRssKey));
	for (u32 i = 0; i < (1u << kRssLogTable); i++)
		in->rqn[i].set(p->channels[i % p->nch].rq.rqn);
	err = cmd_run(p->fn, prm::kCmdCreateRss, in, &out);
	scx_os_free(in);
	if (err)
		return err;
	p->rss_num = out.obj_num.get();
	p->has_rss = true;
	return 0;
}

void channels_close(Channel *chs, u32 n)
{
	for (u32 i = 0; i < n; i++)
		channel_close(&chs[i]);
}

} /* namespace */

bool rx_layout(u32 mtu, u32 headroom, u32 tailroom, RqLayout *out)
{
	u32 need = headroom + mtu + kHwMtuOverhead + tailroom;

	for (u32 order = 0; order <= kMaxRxOrder; order++) {
		if ((kPageSize << order) >= need) {
			out->order = order;
			out->headroom = headroom;
			out->frame_room = (kPageSize << order) - headroom - tailroom;
			return true;
		}
	}
	return false;
}

} /* namespace softcx::en */

using namespace softcx;
using namespace softcx::en;

extern "C" int scx_port_create(struct scx_hw_function *fn, void *os_dev, uint32_t nch_max,
			       scx_port **out)
{
	Port *p;
	int err;

	if (!nch_max || nch_max > SCX_MAX_CHANNELS)
		return -SCX_EINVAL;
	p = zalloc_one<Port>();
	if (!p)
		return -SCX_ENOMEM;
	p->fn = fn;
	p->os_dev = os_dev;
	p->nch_max = nch_max;
	err = cmd_query_caps(fn, &p->caps);
	if (err)
		goto err;
	if (nch_max > p->caps.max_sqs.get() || nch_max > p->caps.max_rqs.get()) {
		scx_os_log(SCX_LOG_ERR, "%u channels exceed the device's %u SQs / %u RQs\n",
			   nch_max, p->caps.max_sqs.get(), p->caps.max_rqs.get());
		err = -SCX_EINVAL;
		goto err;
	}
	err = -SCX_ENOMEM;
	p->base = zalloc_array<ChannelStats>(nch_max);
	p->stats_lock = scx_os_lock_create(SCX_LOCK_PORT_STATS);
	if (!p->base || !p->stats_lock)
		goto err;
	*out = p;
	return 0;

err:
	if (p->stats_lock)
		scx_os_lock_destroy(p->stats_lock);
	scx_os_free(p->base);
	scx_os_free(p);
	return err;
}

extern "C" void scx_port_destroy(scx_port *p)
{
	if (!p)
		return;
	scx_port_close(p);
	scx_os_lock_destroy(p->stats_lock);
	scx_os_free(p->base);
	scx_os_free(p);
}

extern "C" void scx_port_get_caps(const scx_port *p, scx_port_caps *caps)
{
	u32 hw_mtu = p->caps.max_hw_mtu.get();

	caps->model = p->caps.model;
	caps->max_mtu = hw_mtu > kHwMtuOverhead ? hw_mtu - kHwMtuOverhead : 0;
	if (caps->max_mtu > SCX_MAX_MTU)
		caps->max_mtu = SCX_MAX_MTU;
	caps->max_channels = p->nch_max;
	caps->min_inline = p->caps.wqe_inline_mode == prm::kInlineNone ? 0 : kMaxInline;
	caps->max_lso = p->caps.lso ? p->caps.max_lso_sz.get() : 0;
	caps->max_lso_hdr = p->caps.lso ? kMaxLsoInline : 0;
	/* sessions carry no inline headers: only for devices that need none */
	caps->tx_mpwqe = p->caps.enhanced_mpw && !caps->min_inline;
}

extern "C" int scx_port_open(scx_port *p, const scx_port_params *params,
			     void *const *os_channels)
{
	scx_port_caps caps;
	ChannelParams cp = {};
	Channel *chs;
	u32 i;
	int err;

	if (p->channels)
		return -SCX_EBUSY;
	scx_port_get_caps(p, &caps);
	if (!params->nch || params->nch > p->nch_max || params->mtu < SCX_MIN_MTU ||
	    params->mtu > caps.max_mtu || params->log_sq_size < 6 ||
	    params->log_sq_size > p->caps.log_max_sq_sz || params->log_rq_size < 1 ||
	    params->log_rq_size > p->caps.log_max_rq_sz)
		return -SCX_EINVAL;

	cp.fn = p->fn;
	cp.os_dev = p->os_dev;
	cp.log_sq_size = (u8)params->log_sq_size;
	cp.log_rq_size = (u8)params->log_rq_size;
	cp.min_inline = caps.min_inline;
	if (params->tx_mpwqe && !caps.tx_mpwqe)
		return -SCX_EOPNOTSUPP;
	cp.tx_mpwqe = params->tx_mpwqe != 0;
	if (!rx_layout(params->mtu, params->rx_headroom, params->rx_tailroom, &cp.rx))
		return -SCX_EINVAL;

	chs = zalloc_array<Channel>(params->nch);
	if (!chs)
		return -SCX_ENOMEM;
	for (i = 0; i < params->nch; i++) {
		cp.ix = i;
		cp.os_channel = os_channels[i];
		err = channel_open(&chs[i], cp);
		if (err)
			goto err_close;
	}
	{
		LockGuard g(p->stats_lock);	/* stats readers see the set from here */

		p->nch = params->nch;
		p->channels = chs;
	}
	err = rss_create(p);
	if (err) {
		LockGuard g(p->stats_lock);

		p->channels = nullptr;
		p->nch = 0;
		goto err_close;
	}
	return 0;

err_close:
	channels_close(chs, i);
	scx_os_free(chs);
	return err;
}

extern "C" void scx_port_close(scx_port *p)
{
	Channel *chs = p->channels;
	u32 n = p->nch;

	if (!chs)
		return;
	if (p->has_rss)
		cmd_destroy(p->fn, prm::kCmdDestroyRss, p->rss_num);
	p->has_rss = false;
	channels_close(chs, n);
	{
		LockGuard g(p->stats_lock);

		for (u32 i = 0; i < n; i++)
			stats_fold(&p->base[i], &chs[i].stats);
		p->channels = nullptr;
		p->nch = 0;
	}
	scx_os_free(chs);
}

extern "C" scx_channel *scx_port_channel(scx_port *p, uint32_t ix)
{
	return p->channels && ix < p->nch ? &p->channels[ix] : nullptr;
}
