/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Kernel errno values the C++ core returns across the ABI (negated). The
 * core cannot include <linux/errno.h>; these are the same numbers on every
 * Linux architecture softcx builds for (asm-generic/errno-base.h).
 */
#ifndef SOFTCX_ERRNO_H
#define SOFTCX_ERRNO_H

enum {
	SCX_ENOENT = 2,
	SCX_EIO = 5,
	SCX_ENOMEM = 12,
	SCX_EBUSY = 16,
	SCX_ENODEV = 19,
	SCX_EINVAL = 22,
	SCX_ENOSPC = 28,
	SCX_ERANGE = 34,
	SCX_EMSGSIZE = 90,
	SCX_EOPNOTSUPP = 95,
};

#endif /* SOFTCX_ERRNO_H */
