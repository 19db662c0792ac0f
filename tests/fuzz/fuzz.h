/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Shared pieces of the libFuzzer targets (tests/fuzz/fuzz_*.cpp): an input
 * reader, the coverage table each target prints at exit, the checks every
 * input ends with (leaks and misuse seen by the host OS layer), and the
 * adapters the targets keep. Targets that talk to the device model through
 * the bus only use the host tests' bare driver (tests/host/hw_harness.h); a
 * failed gtest assertion in it aborts the input like a sanitizer report.
 */
#pragma once

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <vector>

#include "hw_harness.h"
#include "os_host.h"

namespace fz {

using namespace softcx;
using namespace hwt;

/* A harness invariant broke: report like a sanitizer would and abort (libFuzzer saves the input). */
[[noreturn]] void fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
#define FZ_CHECK(cond, ...)                  \
	do {                                 \
		if (!(cond))                 \
			::fz::fail(__VA_ARGS__); \
	} while (0)

/* Reads the fuzzer's bytes front to back; past the end every read is 0. */
struct Input {
	const uint8_t *p;
	size_t n;
	Input(const uint8_t *d, size_t len) : p(d), n(len) {}
	bool empty() const { return n == 0; }
	uint8_t u8()
	{
		if (!n)
			return 0;
		n--;
		return *p++;
	}
	uint16_t u16() { return (uint16_t)(u8() | u8() << 8); }
	uint32_t u32() { return (uint32_t)u16() | (uint32_t)u16() << 16; }
	/* n bytes (zero-padded past the end) */
	void bytes(void *dst, size_t len)
	{
		size_t k = len < n ? len : n;
		memcpy(dst, p, k);
		memset(static_cast<uint8_t *>(dst) + k, 0, len - k);
		p += k;
		n -= k;
	}
};

/*
 * The coverage table: named events a target must reach at least once in a
 * run (required) or only reports. Printed at exit as
 *   fuzz-cov <target> <name> <count> [required]
 * followed by
 *   fuzz-summary <target> execs <N> unreached <K>
 * which scripts/fuzz.sh reads.
 */
struct Cov {
	const char *name;
	bool required;
	uint64_t count;
};
/* Register the table (static storage) and the target name; prints at exit. */
void cov_init(const char *target, Cov *table, size_t n);
inline void hit(Cov &c) { c.count++; }
void count_exec();

/* ---- adapters ---- */
/*
 * Creating an adapter (thousands of object slots and locks) costs more than
 * most inputs, so a target keeps one per model for the whole run and every
 * input must leave it as it found it: no object alive (check_clean then
 * finds the adapter's own allocations and nothing else). SCX_FUZZ_FRESH=1
 * gives every input a new adapter instead (to replay a crash on a pristine
 * device).
 */
scx_hw_adapter *adapter_get(int model);
/* The device generation an input byte picks (its low 2 bits). */
int model_of(uint8_t b);
/* End of the input's use (destroys it when fresh). */
void adapter_put(scx_hw_adapter *a);

/* ---- end-of-input checks ---- */
/* Forget the host layer's records (start of an input). */
void begin_input();
/*
 * After every object is destroyed: no memory, lock, mapping, RX buffer or
 * ring left beyond the kept adapters' own, no misuse.
 */
void check_clean(const char *what);

/* Abort on the first failed gtest assertion inside the shared bus driver (hw_harness). */
void abort_on_gtest_failure();

} /* namespace fz */
