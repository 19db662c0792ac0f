/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Fixed-width types and big-endian field wrappers shared by the device model
 * and the driver core. Freestanding: no libc or libstdc++ header is included,
 * so the same file builds inside the kernel (-nostdinc++) and for host tests.
 */
#pragma once

namespace softcx {

using u8 = __UINT8_TYPE__;
using u16 = __UINT16_TYPE__;
using u32 = __UINT32_TYPE__;
using u64 = __UINT64_TYPE__;
using s32 = __INT32_TYPE__;
using s64 = __INT64_TYPE__;
using usize = __SIZE_TYPE__;

static_assert(sizeof(u64) == 8 && sizeof(void *) == 8, "64-bit only");

/*
 * The kernel zeroes every stack variable (INIT_STACK_ALL_ZERO:
 * -ftrivial-auto-var-init=zero, which the host build copies). A per-packet
 * scratch structure whose arrays are written before they are read (an
 * entry count says how far) opts out with this, so that it costs no
 * memset on every call (IrqBatch: 600 bytes per doorbell).
 */
#define SCX_SCRATCH __attribute__((uninitialized))

namespace prm {

/* A big-endian field as the PRM lays it out; read with get(), write with set(). */
template <typename T>
struct Be {
	T raw;
	static constexpr T swap(T v)
	{
		if constexpr (sizeof(T) == 1)
			return v;
		else if constexpr (sizeof(T) == 2)
			return __builtin_bswap16(v);
		else if constexpr (sizeof(T) == 4)
			return __builtin_bswap32(v);
		else
			return __builtin_bswap64(v);
	}
	constexpr T get() const { return swap(raw); }
	constexpr void set(T v) { raw = swap(v); }
};
using be16 = Be<u16>;
using be32 = Be<u32>;
using be64 = Be<u64>;
static_assert(sizeof(be16) == 2 && sizeof(be32) == 4 && sizeof(be64) == 8);

/* Unaligned big-endian accessors for packet headers. */
inline u16 load_be16(const u8 *p) { return (u16)((p[0] << 8) | p[1]); }
inline u32 load_be32(const u8 *p)
{
	return ((u32)p[0] << 24) | ((u32)p[1] << 16) | ((u32)p[2] << 8) | p[3];
}
inline void store_be16(u8 *p, u16 v)
{
	p[0] = (u8)(v >> 8);
	p[1] = (u8)v;
}
inline void store_be32(u8 *p, u32 v)
{
	p[0] = (u8)(v >> 24);
	p[1] = (u8)(v >> 16);
	p[2] = (u8)(v >> 8);
	p[3] = (u8)v;
}

} /* namespace prm */
} /* namespace softcx */
