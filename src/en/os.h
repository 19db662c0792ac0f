/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The driver core's view of the OS layer: typed allocation, lock guard,
 * barriers named after the kernel's, and counters with u64_stats semantics
 * (single writer per counter, readers never see a torn value on 64-bit).
 */
#pragma once

#include "prm/types.h"
#include "softcx/errno.h"
#include "softcx/os.h"

namespace softcx::en {

/* Zeroed, untyped allocation as a T*. T must be trivially constructible. */
template <typename T>
T *zalloc_array(u64 n)
{
	return static_cast<T *>(scx_os_zalloc(sizeof(T) * n));
}

template <typename T>
T *zalloc_one()
{
	return zalloc_array<T>(1);
}

class LockGuard {
public:
	explicit LockGuard(struct scx_os_lock *l) : l_(l) { scx_os_lock(l_); }
	~LockGuard() { scx_os_unlock(l_); }
	LockGuard(const LockGuard &) = delete;
	LockGuard &operator=(const LockGuard &) = delete;

private:
	struct scx_os_lock *l_;
};

/* Order descriptor stores before the doorbell record / doorbell. */
inline void dma_wmb() { __atomic_thread_fence(__ATOMIC_RELEASE); }
/* Order the CQE owner-byte read before reading the rest of the CQE. */
inline void dma_rmb() { __atomic_thread_fence(__ATOMIC_ACQUIRE); }
/* Full barrier before an MMIO doorbell write. */
inline void wmb() { __atomic_thread_fence(__ATOMIC_SEQ_CST); }

/*
 * A counter written by one context and read by any: no tearing, no lock.
 * A counter that two contexts write (e.g. the xmit path and NAPI) uses
 * inc_shared() everywhere: an atomic add, for rare events only.
 */
struct Counter {
	u64 v;
	void add(u64 n) { __atomic_store_n(&v, v + n, __ATOMIC_RELAXED); }
	void inc() { add(1); }
	void add_shared(u64 n) { __atomic_fetch_add(&v, n, __ATOMIC_RELAXED); }
	void inc_shared() { add_shared(1); }
	u64 read() const { return __atomic_load_n(&v, __ATOMIC_RELAXED); }
};
static_assert(sizeof(Counter) == sizeof(u64));

constexpr u32 kPageSize = 4096;

inline u32 div_round_up(u32 n, u32 d) { return (n + d - 1) / d; }
inline u32 round_up16(u32 n) { return (n + 15) & ~15u; }

} /* namespace softcx::en */
