// SPDX-License-Identifier: GPL-2.0
/*
 * Adapter creation: models and their capabilities, functions cabled in
 * pairs, and the per-function object tables with their locks. Everything
 * the data path may touch is allocated here or by a command, never by an
 * engine.
 */
#include "hw/adapter.h"
#include "hw/cq.h"
#include "hw/link.h"
#include "softcx/errno.h"

namespace softcx::hw {
namespace {

struct ModelName {
	u8 model;
	const char *name;
};

constexpr ModelName kModels[] = {
	{ prm::kModelCx4, "cx4" },
	{ prm::kModelCx5, "cx5" },
	{ prm::kModelCx6Dx, "cx6dx" },
	{ prm::kModelCx7, "cx7" },
};

bool str_eq(const char *a, const char *b)
{
	while (*a && *a == *b) {
		a++;
		b++;
	}
	return *a == *b;
}

bool model_known(int model)
{
	for (const ModelName &m : kModels)
		if (m.model == model)
			return true;
	return false;
}

/*
 * What each generation offers, as QUERY_HCA_CAP reports it. ConnectX-4
 * needs the L2 headers inlined in every SEND and has no enhanced
 * multi-packet WQE and no striding RQ (the others have it with the
 * extended stride-count range, 8..256 strides per WQE, so that a linear
 * RQ of 2 KiB strides fits a 32 KiB WQE); SHAMPO (HW-GRO) starts with
 * ConnectX-7. The limits are the same for all, VXLAN's four UDP ports
 * (stateless offloads from ConnectX-4 on) among them; GENEVE from
 * ConnectX-5 on. The internal timer runs at 156.25 MHz up to
 * ConnectX-5, at 1 GHz from ConnectX-6 Dx.
 */
constexpr u32 kTimerKhzSlow = 156250;
constexpr u32 kTimerKhzFast = 1000000;

prm::HcaCaps model_caps(u8 model)
{
	prm::HcaCaps c = {};
	c.model = model;
	c.wqe_inline_mode = model == prm::kModelCx4 ? prm::kInlineL2 : prm::kInlineNone;
	c.enhanced_mpw = model == prm::kModelCx4 ? 0 : 1;
	c.lso = 1;
	c.log_max_sq_sz = kLogMaxSqSize;
	c.log_max_rq_sz = kLogMaxRqSize;
	c.log_max_cq_sz = kLogMaxCqSize;
	c.log_max_rss_tbl = prm::kRssMaxTableLog;
	c.log_max_ft_size = kLogMaxFlowTable;
	c.max_rss = kMaxRss;
	c.max_vxlan_udp_ports = kMaxVxlanPorts;
	c.geneve = model == prm::kModelCx4 ? 0 : 1;
	/* GRE (NVGRE's tunnel) from ConnectX-4 on, IP in IP from ConnectX-5 */
	c.ip_tunnels = prm::kCapTunnelGre | (model == prm::kModelCx4 ? 0 : prm::kCapTunnelIpOverIp);
	c.max_sqs.set(kMaxSqs);
	c.max_rqs.set(kMaxRqs);
	c.max_cqs.set(kMaxCqs);
	c.max_hw_mtu.set((u16)kMaxHwMtu);
	c.csum = 1;
	c.striding_rq = model == prm::kModelCx4 ? 0 : 1;
	c.ext_stride_num_range = c.striding_rq;
	c.shampo = model == prm::kModelCx7 ? 1 : 0;
	c.cqe_compression = 1;
	c.max_lso_sz.set(kMaxLsoSize);
	c.cq_moderation = 1;
	c.cq_period_start_from_cqe = 1;
	c.enhanced_cqe_compression = model >= prm::kModelCx6Dx ? 1 : 0;
	c.mini_cqe_resp_stride_index = c.enhanced_cqe_compression;
	c.device_frequency_khz.set(model >= prm::kModelCx6Dx ? kTimerKhzFast : kTimerKhzSlow);
	c.log_max_current_uc_list = kLogMaxUcList;
	c.log_max_current_mc_list = kLogMaxMcList;
	return c;
}

void function_destroy(Function *fn)
{
	if (!fn)
		return;
	for (Sq &sq : fn->sq) {
		if (sq.scratch)
			scx_os_free(sq.scratch);
		if (sq.lock)
			scx_os_lock_destroy(sq.lock);
	}
	for (Rq &rq : fn->rq)
		if (rq.lock)
			scx_os_lock_destroy(rq.lock);
	for (Rss &r : fn->rss)
		if (r.toeplitz)
			scx_os_free(r.toeplitz);
	for (Cq &cq : fn->cq) {
		cq_slot_fini(&cq);
		if (cq.done_at)
			scx_os_free(cq.done_at);
	}
	if (fn->cmd_lock)
		scx_os_lock_destroy(fn->cmd_lock);
	scx_os_free(fn);
}

Function *function_create(Adapter *a, u32 ix)
{
	auto *fn = static_cast<Function *>(scx_os_zalloc(sizeof(Function)));
	if (!fn)
		return nullptr;
	fn->adapter = a;
	fn->ix = ix;
	fn->active_rss = -1;
	fn->vport.fast = kVportPassAll;	/* open until the driver sets the filter */
	fn->tunnel_port_bits = tunnel_port_bits(fn);
	link_init(fn);
	fn->cmd_lock = scx_os_lock_create(SCX_LOCK_HW_CMD);
	if (!fn->cmd_lock)
		goto fail;
	for (Sq &sq : fn->sq) {
		sq.lock = scx_os_lock_create(SCX_LOCK_HW_SQ);
		if (!sq.lock)
			goto fail;
	}
	for (Rq &rq : fn->rq) {
		rq.lock = scx_os_lock_create(SCX_LOCK_HW_RQ);
		if (!rq.lock)
			goto fail;
	}
	for (Cq &cq : fn->cq)
		if (cq_slot_init(fn, &cq))
			goto fail;
	return fn;
fail:
	function_destroy(fn);
	return nullptr;
}

} /* namespace */

} /* namespace softcx::hw */

using namespace softcx;
using namespace softcx::hw;

extern "C" int scx_hw_model_parse(const char *name)
{
	if (!name)
		return -1;
	for (const ModelName &m : kModels)
		if (str_eq(name, m.name))
			return m.model;
	return -1;
}

extern "C" const char *scx_hw_model_name(int model)
{
	for (const ModelName &m : kModels)
		if (m.model == model)
			return m.name;
	return "unknown";
}

extern "C" int scx_hw_adapter_create(int model, uint32_t nr_functions, void *os_dev,
				     struct scx_hw_adapter **out)
{
	if (!out)
		return -SCX_EINVAL;
	*out = nullptr;
	if (!model_known(model) || nr_functions < 2 || nr_functions % 2 ||
	    nr_functions > kMaxFunctions)
		return -SCX_EINVAL;

	auto *a = static_cast<Adapter *>(scx_os_zalloc(sizeof(Adapter)));
	if (!a)
		return -SCX_ENOMEM;
	a->os_dev = os_dev;
	a->caps = model_caps((u8)model);
	a->timer_rate = timer_rate(a->caps.device_frequency_khz.get());
	a->timer_base_ns = scx_os_timer_now();
	a->link_lock = scx_os_lock_create(SCX_LOCK_HW_LINK);
	if (!a->link_lock) {
		scx_os_free(a);
		return -SCX_ENOMEM;
	}
	a->nr_functions = nr_functions;
	for (u32 i = 0; i < nr_functions; i++) {
		a->fn[i] = function_create(a, i);
		if (!a->fn[i]) {
			scx_hw_adapter_destroy(a);
			return -SCX_ENOMEM;
		}
	}
	/* The cable: function 2k talks to 2k+1. */
	for (u32 i = 0; i < nr_functions; i++)
		a->fn[i]->peer = a->fn[i ^ 1];
	*out = a;
	return 0;
}

/* The caller has stopped every user: no command, doorbell or RX is in flight. */
extern "C" void scx_hw_adapter_destroy(struct scx_hw_adapter *a)
{
	if (!a)
		return;
	for (u32 i = 0; i < a->nr_functions; i++)
		function_destroy(a->fn[i]);
	scx_os_lock_destroy(a->link_lock);
	scx_os_free(a);
}

extern "C" struct scx_hw_function *scx_hw_function(struct scx_hw_adapter *a, uint32_t ix)
{
	if (!a || ix >= a->nr_functions)
		return nullptr;
	return a->fn[ix];
}

extern "C" void scx_hw_set_irq_ctx(struct scx_hw_function *fn, void *irq_ctx)
{
	if (fn)
		__atomic_store_n(&fn->irq_ctx, irq_ctx, __ATOMIC_RELEASE);
}

extern "C" void scx_hw_inject_fcs_errors(struct scx_hw_function *fn, uint32_t n)
{
	if (fn)
		__atomic_fetch_add(&fn->wire_faults, (u64)n, __ATOMIC_RELAXED);
}

extern "C" void scx_hw_inject_bit_errors(struct scx_hw_function *fn, uint32_t n)
{
	if (fn)
		__atomic_fetch_add(&fn->wire_faults, (u64)n << 32, __ATOMIC_RELAXED);
}

extern "C" void scx_hw_set_timing(struct scx_hw_adapter *a, int on)
{
	if (!a)
		return;
	for (u32 i = 0; i < a->nr_functions; i++)
		__atomic_store_n(&a->fn[i]->timing, on ? 1u : 0u, __ATOMIC_RELAXED);
}
