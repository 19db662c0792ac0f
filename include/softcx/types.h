/* SPDX-License-Identifier: GPL-2.0 */
/* Fixed-width integer types for the shim <-> core ABI, in any of its builds. */
#ifndef SOFTCX_TYPES_H
#define SOFTCX_TYPES_H

#if defined(__KERNEL__) && !defined(__cplusplus)
#include <linux/types.h>
#else
typedef __UINT8_TYPE__ uint8_t;
typedef __UINT16_TYPE__ uint16_t;
typedef __UINT32_TYPE__ uint32_t;
typedef __UINT64_TYPE__ uint64_t;
typedef __INT32_TYPE__ int32_t;
typedef __INT64_TYPE__ int64_t;
#endif

#endif /* SOFTCX_TYPES_H */
