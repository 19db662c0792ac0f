// SPDX-License-Identifier: GPL-2.0
/*
 * The driver core's limits and rules (see params.h): what a port reports
 * to the OS, what a channel set is built with, and the queries the shim
 * makes instead of restating numbers.
 */
#include "en/params.h"

#include "en/flow.h"

#include "en/port.h"

namespace softcx::en {

static_assert(SCX_MAX_MTU == prm::kMaxSwMtu);

u32 min_inline(const prm::HcaCaps &caps)
{
	return caps.wqe_inline_mode == prm::kInlineNone ? 0 : kMaxInline;
}

u32 max_mtu(const prm::HcaCaps &caps)
{
	u32 hw_mtu = caps.max_hw_mtu.get();
	u32 mtu = hw_mtu > kHwMtuOverhead ? hw_mtu - kHwMtuOverhead : 0;

	return mtu > SCX_MAX_MTU ? SCX_MAX_MTU : mtu;
}

u32 max_lso(const prm::HcaCaps &caps)
{
	return caps.lso ? caps.max_lso_sz.get() : 0;
}

u32 max_lso_hdr(const prm::HcaCaps &caps)
{
	return caps.lso ? kMaxLsoInline : 0;
}

SqLimits skb_sq_limits(const prm::HcaCaps &caps, bool mpwqe)
{
	return SqLimits{min_inline(caps), skb_sq_max_frame(caps), max_lso(caps),
			(u16)skb_sq_stop_room(mpwqe), mpwqe};
}

SqLimits xdp_sq_limits(const prm::HcaCaps &caps, u32 mtu, bool mpwqe)
{
	return SqLimits{min_inline(caps), xdp_sq_max_frame(mtu), 0, (u16)xdp_sq_stop_room(mpwqe),
			mpwqe};
}

namespace {

/* false, with the reason for the OS's log */
bool refuse(const char **why, const char *reason)
{
	refuse_err(why, reason, 0);
	return false;
}

} /* namespace */

bool tx_mpwqe_ok(const prm::HcaCaps &caps, const char **why)
{
	if (!caps.enhanced_mpw || min_inline(caps))
		return refuse(why, "no enhanced multi-packet send WQE without inline headers");
	return true;
}

bool xdp_tx_mpwqe_ok(const prm::HcaCaps &caps, const char **why)
{
	if (!caps.enhanced_mpw)
		return refuse(why, "no enhanced multi-packet send WQE");
	if (min_inline(caps))
		return refuse(why, "no enhanced multi-packet send WQE without inline headers");
	return true;
}

bool striding_rq_ok(const prm::HcaCaps &caps, const char **why)
{
	if (!caps.striding_rq)
		return refuse(why, "no striding RQ (multi-packet RX WQE) on this device");
	return true;
}

bool hw_gro_ok(const prm::HcaCaps &caps, const char **why)
{
	if (!caps.shampo || !caps.striding_rq)
		return refuse(why, "no HW-GRO (SHAMPO) on this device");
	return true;
}

const char *params_conflict(const prm::HcaCaps &caps, const scx_port_params &params)
{
	/* a mini CQE has no timestamp: its packet would get the title's */
	if (params.rx_tstamp && params.rx_cqe_compress)
		return "RX hardware timestamps are incompatible with CQE compression";
	if (!params.rx_hw_gro)
		return nullptr;
	if (!hw_gro_ok(caps, nullptr))
		return "no HW-GRO (SHAMPO) on this device";
	if (!params.rx_striding)
		return "HW-GRO needs the striding RQ (private flag rx_striding_rq)";
	if (params.xdp)
		return "HW-GRO is incompatible with XDP";
	if (params.rx_cqe_compress)
		return "HW-GRO is incompatible with CQE compression";
	return nullptr;
}

bool cqe_compress_ok(const prm::HcaCaps &caps, const char **why)
{
	if (!caps.cqe_compression)
		return refuse(why, "no CQE compression on this device");
	return true;
}

RxComp rx_comp_mode(const prm::HcaCaps &caps, bool striding)
{
	if (!caps.cqe_compression)
		return RxComp::Off;
	/* the enhanced layout on a striding RQ only with the stride index in the mini CQEs */
	if (caps.enhanced_cqe_compression && (!striding || caps.mini_cqe_resp_stride_index))
		return RxComp::Enhanced;
	return RxComp::Basic;
}

namespace {

u32 log2_ceil(u32 n)
{
	u32 l = 0;

	while ((1u << l) < n)
		l++;
	return l;
}

/* Fragments a page holds when WQE fragment i opens it: i, i + 1, ... across WQEs while they fit. */
void page_frags(RqLayout *l)
{
	for (u32 i = 0; i < l->nfrags; i++) {
		u32 off = 0, k = i, m = 0;

		for (; off + l->frag[k].stride <= kPageSize; m++) {
			off += l->frag[k].stride;
			k = k + 1 == l->nfrags ? 0 : k + 1;
		}
		l->page_frags[i] = (u8)m;
	}
}

} /* namespace */

bool rx_layout(const scx_os_layout &os, u32 mtu, bool xdp, RqLayout *out)
{
	u32 frame = mtu + kHwMtuOverhead;
	u32 headroom = xdp ? os.rx_headroom : os.rx_skb_headroom;
	u32 need = headroom + frame + os.rx_tailroom;
	RqLayout l = {};

	if (need <= kPageSize) {
		u32 stride = xdp ? kPageSize : 1u << log2_ceil(need);

		l.linear = true;
		l.headroom = headroom;
		l.nfrags = 1;
		l.frag[0] = { (u16)(stride - headroom - os.rx_tailroom), (u16)stride };
		l.frame_room = l.frag[0].size;
		page_frags(&l);
		*out = l;
		return true;
	}
	/*
	 * XDP, multi-buffer: a page per fragment, the first with the XDP
	 * headroom and the skb_shared_info the frame's fragments are listed
	 * in; the others headroom-less. Else non-linear, headroom-less: the
	 * skb's head is a copy of the headers.
	 */
	u32 max = xdp || frame > kPageSize + (kMaxRxFrags - 1) * kRxFragSize ? kPageSize
									     : kRxFragSize;
	if (xdp)
		l.headroom = headroom;
	for (u32 left = frame; left; l.nfrags++) {
		u32 cap = xdp && !l.nfrags ? kPageSize - headroom - os.rx_tailroom : max;
		u32 size = left;

		if (l.nfrags == kMaxRxFrags)
			return false;
		if ((l.nfrags < kMaxRxFrags - 1 || xdp) && size > cap)
			size = cap;
		if (size > kPageSize)
			return false;
		l.frag[l.nfrags] = { (u16)size, (u16)(xdp ? kPageSize : 1u << log2_ceil(size)) };
		left -= size;
	}
	l.log_wqe_segs = (u8)log2_ceil(l.nfrags);
	l.frame_room = frame;
	page_frags(&l);
	*out = l;
	return true;
}

namespace {

/* Stride counts per WQE this device takes (CREATE_RQ's encodings, prm/wqe.h). */
u32 min_log_num_strides(const prm::HcaCaps &caps)
{
	return caps.ext_stride_num_range ? prm::kNumStridesLogExtBase : prm::kNumStridesLogBase;
}

u32 max_log_num_strides(const prm::HcaCaps &caps)
{
	return caps.ext_stride_num_range ? prm::kNumStridesLogExtMax : prm::kNumStridesLogMax;
}

} /* namespace */

namespace {

/* The striding geometry; nonlinear: 256-byte strides whatever the MTU (SHAMPO). */
bool striding_geometry(const prm::HcaCaps &caps, const scx_os_layout &os, u32 mtu,
		       u32 log_rq_size, bool xdp, bool nonlinear, RqLayout *out)
{
	u32 frame = mtu + kHwMtuOverhead;
	u32 headroom = xdp ? os.rx_headroom : os.rx_skb_headroom;
	u32 linear_need = headroom + frame + os.rx_tailroom;
	u32 log_stride, log_num, log_buf, log_pkts, log_wqes, segs;
	RqLayout l = {};

	if (!striding_rq_ok(caps, nullptr))
		return false;
	if (linear_need <= kPageSize && !nonlinear) {
		/* XDP: one frame per page, so XDP_TX and redirect hold whole pages */
		log_stride = xdp ? log2_ceil(kPageSize) : log2_ceil(linear_need);
		if (log_stride < prm::kStrideSizeLogBase)
			log_stride = prm::kStrideSizeLogBase;
		l.linear = true;
		l.headroom = headroom;
		l.frame_room = (1u << log_stride) - headroom - os.rx_tailroom;
	} else {
		if (xdp)
			return false;
		log_stride = kLogNonLinearStride;
		/* as a cyclic buffer would: what the device may deliver, not only this MTU */
		l.frame_room = prm::kMaxHwMtu;
	}
	log_num = kLogStridingWqeBuf > log_stride ? kLogStridingWqeBuf - log_stride : 0;
	if (log_num < min_log_num_strides(caps))
		log_num = min_log_num_strides(caps);
	if (log_num > max_log_num_strides(caps))
		return false;
	log_buf = log_stride + log_num;
	if (log_buf > kMaxLogStridingWqeBuf || (1u << log_buf) < kPageSize)
		return false;
	l.pages_per_wqe = (u16)((1u << log_buf) / kPageSize);
	segs = l.wqe_segs();
	if (segs > kMaxStridingWqeSegs)
		return false;
	/* frames of this MTU one WQE holds, at the size the device places them */
	log_pkts = l.linear ? log_num : log_buf - log2_ceil(frame);
	log_wqes = log_rq_size > log_pkts ? log_rq_size - log_pkts : 0;
	if (log_wqes < kMinLogStridingWqes)
		log_wqes = kMinLogStridingWqes;
	if (log_wqes > caps.log_max_rq_sz)
		return false;
	l.log_wqe_bytes = (u8)log2_ceil((1 + segs) * (u32)sizeof(prm::DataSeg));
	if (l.log_wqe_bytes < prm::kRxWqeStridingMinLogStride)
		l.log_wqe_bytes = prm::kRxWqeStridingMinLogStride;
	l.log_cqes = (u8)(log_wqes + log_num);
	if (l.log_cqes > kMaxLogStridingCqes)
		l.log_cqes = (u8)kMaxLogStridingCqes;
	if (l.log_cqes < log_rq_size)
		l.log_cqes = (u8)log_rq_size;
	if (l.log_cqes > caps.log_max_cq_sz)
		return false;
	l.striding = true;
	l.log_stride = (u8)log_stride;
	l.log_num_strides = (u8)log_num;
	l.log_wqes = (u8)log_wqes;
	*out = l;
	return true;
}

} /* namespace */

bool rx_striding_layout(const prm::HcaCaps &caps, const scx_os_layout &os, u32 mtu,
			u32 log_rq_size, bool xdp, RqLayout *out)
{
	return striding_geometry(caps, os, mtu, log_rq_size, xdp, false, out);
}

bool rx_shampo_layout(const prm::HcaCaps &caps, const scx_os_layout &os, u32 mtu,
		      u32 log_rq_size, RqLayout *out)
{
	RqLayout l;

	if (!hw_gro_ok(caps, nullptr) ||
	    !striding_geometry(caps, os, mtu, log_rq_size, false, true, &l))
		return false;
	u32 log_buf = l.log_stride + l.log_num_strides;
	l.log_res = (u8)(log_buf < kShampoLogRes ? log_buf : kShampoLogRes);
	if (l.log_res < prm::kShampoLogReservationBase)
		return false;
	l.log_res_pkts = (u8)kShampoLogResPkts;
	l.log_hd_entry = (u8)kShampoLogHdEntry;
	l.log_hd_entries =
		(u8)prm::shampo_log_min_hd_entries(l.log_wqes, log_buf, l.log_res, l.log_res_pkts);
	if (l.log_hd_entries > prm::kShampoLogMaxHdrEntries)
		return false;
	/* a CQE per packet (each takes a header entry) and a filler per reservation at most */
	l.log_cqes = (u8)(l.log_hd_entries + 1);
	if (l.log_cqes < log_rq_size)
		l.log_cqes = (u8)log_rq_size;
	if (l.log_cqes > caps.log_max_cq_sz)
		return false;
	l.shampo = true;
	*out = l;
	return true;
}

u32 xdp_max_mtu(const scx_os_layout &os)
{
	u32 room = os.rx_headroom + os.rx_tailroom + kHwMtuOverhead;

	return room < kPageSize ? kPageSize - room : 0;
}

bool os_layout_ok(const scx_os_layout &os)
{
	RqLayout l;

	/* the OS's page size; the smallest MTU fits a page with the XDP headroom */
	return os.page_size == kPageSize && os.rx_headroom < kPageSize &&
	       os.rx_skb_headroom <= os.rx_headroom && os.rx_tailroom < kPageSize &&
	       rx_layout(os, SCX_MIN_MTU, true, &l);
}

scx_cq_moder moder_default(bool rx, bool from_cqe)
{
	if (!rx)
		return scx_cq_moder{kTxModerUsecs, kTxModerFrames, from_cqe};
	return scx_cq_moder{from_cqe ? kRxModerUsecsFromCqe : kRxModerUsecsFromEqe, kRxModerFrames,
			    from_cqe};
}

scx_port_moder moder_port_default(const prm::HcaCaps &caps)
{
	if (!caps.cq_moderation)
		return scx_port_moder{};
	return scx_port_moder{moder_default(true, caps.cq_period_start_from_cqe),
			      moder_default(false, false)};
}

bool moder_ok(const prm::HcaCaps &caps, const scx_cq_moder &m, bool rx, const char **why,
	      int *err)
{
	static_assert(kMaxModerUsecs == 4095 && kMaxModerFrames == 65535, "the messages below");
	*err = -SCX_EINVAL;
	if (m.usecs > kMaxModerUsecs)
		return refuse(why, rx ? "rx-usecs above 4095 (the device's CQ period limit)" :
					"tx-usecs above 4095 (the device's CQ period limit)");
	if (m.frames > kMaxModerFrames)
		return refuse(why, rx ? "rx-frames above 65535 (the device's CQ count limit)" :
					"tx-frames above 65535 (the device's CQ count limit)");
	*err = -SCX_EOPNOTSUPP;
	if ((m.usecs || m.frames > 1) && !caps.cq_moderation)
		return refuse(why, "no CQ moderation on this device");
	if (m.from_cqe && !caps.cq_period_start_from_cqe)
		return refuse(why, "no CQ period from CQE on this device");
	*err = 0;
	return true;
}

int params_build(const Port *p, const scx_port_params *params, ChannelParams *cp)
{
	const prm::HcaCaps &caps = p->caps;

	if (!params->nch || params->nch > p->nch_max || params->mtu < SCX_MIN_MTU ||
	    params->mtu > max_mtu(caps) || params->log_sq_size < kMinLogSqSize ||
	    params->log_sq_size > caps.log_max_sq_sz || params->log_rq_size < kMinLogRqSize ||
	    params->log_rq_size > caps.log_max_rq_sz)
		return -SCX_EINVAL;
	if ((params->tx_mpwqe && !tx_mpwqe_ok(caps, nullptr)) ||
	    (params->xdp_tx_mpwqe && !xdp_tx_mpwqe_ok(caps, nullptr)) ||
	    (params->rx_striding && !striding_rq_ok(caps, nullptr)) ||
	    (params->rx_cqe_compress && !cqe_compress_ok(caps, nullptr)) ||
	    params_conflict(caps, *params))
		return -SCX_EOPNOTSUPP;

	*cp = ChannelParams{};
	cp->fn = p->fn;
	cp->os_dev = p->os_dev;
	cp->os_port = p->os_port;
	cp->log_sq_size = (u8)params->log_sq_size;
	cp->log_rq_size = (u8)params->log_rq_size;
	cp->xdp = params->xdp != 0;
	cp->skb_sq = skb_sq_limits(caps, params->tx_mpwqe != 0);
	cp->xdp_sq = xdp_sq_limits(caps, params->mtu, params->xdp_tx_mpwqe != 0);
	cp->moder = p->moder;
	cp->rx_vlan_strip = p->rx_vlan_strip;
	cp->rx_tstamp = params->rx_tstamp != 0;
	cp->rx_csum = p->rx_csum;
	cp->rx_csum_complete = !p->rx_no_csum_complete;
	cp->rx_fcs = p->rx_fcs;
	/*
	 * XDP: one packet per order-0 page, so XDP_TX and redirect can recycle
	 * by page; past that only for a program that takes a frame in pages
	 */
	if (cp->xdp && params->mtu > xdp_max_mtu(p->os) && !params->xdp_frags)
		return -SCX_EINVAL;
	if (params->rx_hw_gro) {
		/* SHAMPO places no FCS (the kernel drops rx-gro-hw while rx-fcs is on) */
		if (p->rx_fcs)
			return -SCX_EOPNOTSUPP;
		if (!rx_shampo_layout(caps, p->os, params->mtu, params->log_rq_size, &cp->rx))
			return -SCX_EINVAL;
		return 0;
	}
	/* striding where asked and the device takes this geometry, else cyclic */
	if (!params->rx_striding ||
	    !rx_striding_layout(caps, p->os, params->mtu, params->log_rq_size, cp->xdp, &cp->rx)) {
		if (!rx_layout(p->os, params->mtu, cp->xdp, &cp->rx))
			return -SCX_EINVAL;
	}
	cp->rx_comp = params->rx_cqe_compress ? rx_comp_mode(caps, cp->rx.striding) : RxComp::Off;
	return 0;
}

} /* namespace softcx::en */

using namespace softcx;
using namespace softcx::en;

extern "C" void scx_params_queue_sizes(scx_queue_sizes *qs)
{
	qs->log_sq_size = kLogSqSize;
	qs->log_rq_size = kLogRqSize;
}

extern "C" void scx_port_get_caps(const scx_port *p, scx_port_caps *caps)
{
	caps->model = p->caps.model;
	caps->max_mtu = max_mtu(p->caps);
	caps->max_channels = p->nch_max;
	caps->min_inline = min_inline(p->caps);
	caps->max_lso = max_lso(p->caps);
	caps->max_lso_hdr = max_lso_hdr(p->caps);
	caps->tx_mpwqe = tx_mpwqe_ok(p->caps, nullptr);
	caps->xdp_tx_mpwqe = xdp_tx_mpwqe_ok(p->caps, nullptr);
	caps->rx_striding = striding_rq_ok(p->caps, nullptr);
	caps->rx_cqe_compress = cqe_compress_ok(p->caps, nullptr);
	caps->rx_hw_gro = hw_gro_ok(p->caps, nullptr);
	caps->timer_khz = p->caps.device_frequency_khz.get();
	caps->max_vxlan_ports = p->caps.max_vxlan_udp_ports;
	caps->geneve = p->caps.geneve;
	caps->gre = !!(p->caps.ip_tunnels & prm::kCapTunnelGre);
	caps->ip_over_ip = !!(p->caps.ip_tunnels & prm::kCapTunnelIpOverIp);
	caps->xdp_max_mtu = xdp_max_mtu(p->os);
	caps->min_log_sq_size = kMinUserLogQueue;
	caps->max_log_sq_size = p->caps.log_max_sq_sz;
	caps->min_log_rq_size = kMinUserLogQueue;
	caps->max_log_rq_size = p->caps.log_max_rq_sz;
	caps->cq_moderation = p->caps.cq_moderation;
	caps->cq_period_from_cqe = p->caps.cq_period_start_from_cqe;
	caps->max_uc_addrs = 1u << p->caps.log_max_current_uc_list;
	caps->max_mc_addrs = 1u << p->caps.log_max_current_mc_list;
}

extern "C" int scx_port_ring_check(const scx_port *p, int rx, uint32_t want, uint8_t *log,
				   const char **why)
{
	u32 max = rx ? p->caps.log_max_rq_sz : p->caps.log_max_sq_sz;
	u32 l = kMinUserLogQueue;

	if (want < 1u << kMinUserLogQueue)
		return refuse(why, "ring size below the minimum (64)"), -SCX_EINVAL;
	if (want > 1u << max)
		return refuse(why, "ring size above the maximum"), -SCX_EINVAL;
	while (1u << l < want)
		l++;
	*log = (u8)l;
	if (1u << l == want)
		return 0;
	refuse(why, "ring sizes are powers of two: rounded up");
	return 1;
}

extern "C" int scx_port_channels_check(const scx_port *p, uint32_t combined, uint32_t rx,
				       uint32_t tx, uint32_t other, const char **why)
{
	if (rx || tx || other)
		return refuse(why, "combined channels only"), -SCX_EINVAL;
	if (!combined)
		return refuse(why, "at least one channel"), -SCX_EINVAL;
	if (combined > p->nch_max)
		return refuse(why, "more channels than the port has (module parameter channels)"),
		       -SCX_EINVAL;
	const char *what = nullptr;
	if (combined < flows_min_channels(p, &what))
		return refuse(why, what), -SCX_EINVAL;
	return 0;
}

extern "C" void scx_moder_default(int rx, int from_cqe, scx_cq_moder *m)
{
	*m = moder_default(rx != 0, from_cqe != 0);
}

extern "C" int scx_port_feature_check(const scx_port *p, uint32_t feature, const char **why)
{
	bool ok;

	switch (feature) {
	case SCX_FEATURE_TX_MPWQE:
		ok = tx_mpwqe_ok(p->caps, why);
		break;
	case SCX_FEATURE_XDP_TX_MPWQE:
		ok = xdp_tx_mpwqe_ok(p->caps, why);
		break;
	case SCX_FEATURE_RX_STRIDING:
		ok = striding_rq_ok(p->caps, why);
		break;
	case SCX_FEATURE_RX_CQE_COMPRESS:
		ok = cqe_compress_ok(p->caps, why);
		break;
	case SCX_FEATURE_RX_HW_GRO:
		ok = hw_gro_ok(p->caps, why);
		break;
	default:
		refuse(why, "unknown feature");
		return -SCX_EINVAL;
	}
	return ok ? 0 : -SCX_EOPNOTSUPP;
}

extern "C" const char *scx_params_conflict(const scx_port *p, const scx_port_params *params)
{
	return params_conflict(p->caps, *params);
}
