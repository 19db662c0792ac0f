// SPDX-License-Identifier: GPL-2.0
#include "fuzz.h"

#include <cstdarg>

namespace fz {

void fail(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fprintf(stderr, "==fuzz== INVARIANT BROKEN: ");
	vfprintf(stderr, fmt, ap);
	fprintf(stderr, "\n");
	va_end(ap);
	abort();
}

/* ---- coverage table ---- */
namespace {
const char *g_target = "?";
Cov *g_cov;
size_t g_ncov;
uint64_t g_execs;

void cov_print()
{
	size_t unreached = 0;
	for (size_t i = 0; i < g_ncov; i++) {
		const Cov &c = g_cov[i];
		printf("fuzz-cov %s %-28s %12llu%s\n", g_target, c.name, (unsigned long long)c.count,
		       c.required ? (c.count ? "" : "  NEVER REACHED (required)") : "  (info)");
		if (c.required && !c.count)
			unreached++;
	}
	printf("fuzz-summary %s execs %llu unreached %zu\n", g_target,
	       (unsigned long long)g_execs, unreached);
	fflush(stdout);
}
} /* namespace */

void cov_init(const char *target, Cov *table, size_t n)
{
	g_target = target;
	g_cov = table;
	g_ncov = n;
	atexit(cov_print);
	abort_on_gtest_failure();
}

void count_exec() { g_execs++; }

/* ---- adapters ---- */
namespace {
scx_hw_adapter *g_adapters[8];
int64_t g_base_zalloc, g_base_locks;	/* what the kept adapters hold */

bool fresh()
{
	static const bool f = getenv("SCX_FUZZ_FRESH") != nullptr;
	return f;
}

/*
 * An RSS slot keeps its Toeplitz table from its first CREATE_RSS to the
 * adapter's end: fill every slot once so the baseline does not move later.
 */
void warm_rss_slots(scx_hw_adapter *a)
{
	for (uint32_t f = 0; f < 2; f++) {
		Fn *fn = scx_hw_function(a, f);
		Cq cq;
		Rq rq;
		FZ_CHECK(cq.create(fn, 1, 0) == prm::kStatOk, "warm-up CQ");
		FZ_CHECK(rq.create(fn, cq.cqn, 1, 64) == prm::kStatOk, "warm-up RQ");
		std::vector<uint32_t> nums(query_caps(fn).max_rss);
		for (auto &n : nums)
			FZ_CHECK(rss_cmd(fn, prm::kCmdCreateRss, 0, { rq.rqn }, 0, kMsKey, &n) ==
				 prm::kStatOk, "warm-up RSS");
		for (uint32_t n : nums)
			FZ_CHECK(destroy(fn, prm::kCmdDestroyRss, n) == prm::kStatOk, "RSS");
		FZ_CHECK(rq.destroy() == prm::kStatOk, "warm-up RQ");
		FZ_CHECK(cq.destroy() == prm::kStatOk, "warm-up CQ");
	}
}
} /* namespace */

scx_hw_adapter *adapter_get(int model)
{
	scx_hw_adapter **slot = &g_adapters[model & 7];
	if (fresh() || !*slot) {
		scx_hw_adapter *a = nullptr;
		FZ_CHECK(scx_hw_adapter_create(model, 2, &g_os_dev, &a) == 0, "adapter_create");
		for (uint32_t i = 0; i < 2; i++)
			FZ_CHECK(hwt::link_admin(scx_hw_function(a, i), true) == prm::kStatOk,
				 "link up");
		if (fresh())
			return a;
		warm_rss_slots(a);
		*slot = a;
		g_base_zalloc = host::zalloc_outstanding();
		g_base_locks = host::locks_live();
	}
	return *slot;
}

int model_of(uint8_t b)
{
	static const int models[4] = { prm::kModelCx4, prm::kModelCx5, prm::kModelCx6Dx,
				       prm::kModelCx7 };
	return models[b & 3];
}

void adapter_put(scx_hw_adapter *a)
{
	if (fresh())
		scx_hw_adapter_destroy(a);
}

/* ---- end-of-input checks ---- */
void begin_input()
{
	host::reset();
	count_exec();
}

void check_clean(const char *what)
{
	int64_t base_zalloc = fresh() ? 0 : g_base_zalloc;
	int64_t base_locks = fresh() ? 0 : g_base_locks;
	FZ_CHECK(host::errors() == 0, "%s: %d OS layer misuse reports (see above)", what,
		 host::errors());
	FZ_CHECK(host::zalloc_outstanding() == base_zalloc, "%s: %lld allocations leaked", what,
		 (long long)(host::zalloc_outstanding() - base_zalloc));
	FZ_CHECK(host::locks_live() == base_locks, "%s: %lld locks leaked", what,
		 (long long)(host::locks_live() - base_locks));
	FZ_CHECK(host::dma_tx_mappings() == 0, "%s: %zu TX mappings leaked", what,
		 host::dma_tx_mappings());
	FZ_CHECK(host::rx_buffers_outstanding() == 0, "%s: %zu RX buffers leaked", what,
		 host::rx_buffers_outstanding());
	FZ_CHECK(host::rxqs_live() == 0, "%s: %zu RX pools leaked", what, host::rxqs_live());
	FZ_CHECK(host::dma_coherent_regions() == 0, "%s: %zu coherent DMA regions leaked", what,
		 host::dma_coherent_regions());
}

/* ---- gtest assertions of the shared driver ---- */
namespace {
class AbortOnFailure : public ::testing::EmptyTestEventListener {
	void OnTestPartResult(const ::testing::TestPartResult &r) override
	{
		if (r.failed())
			fail("%s:%d: %s", r.file_name() ? r.file_name() : "?", r.line_number(),
			     r.message());
	}
};
} /* namespace */

void abort_on_gtest_failure()
{
	::testing::UnitTest::GetInstance()->listeners().Append(new AbortOnFailure);
}

} /* namespace fz */
