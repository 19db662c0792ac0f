// SPDX-License-Identifier: GPL-2.0
/*
 * The C++ runtime the core needs, in C: operator new/delete (by their
 * Itanium-mangled names, size_t = unsigned long on 64-bit) and the pure
 * virtual trap. The core allocates in process context only and compiles
 * with -fcheck-new, so a NULL return is handled before construction.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/bug.h>
#include <linux/mm.h>
#include <linux/slab.h>

#include "softcx.h"

/* kvzalloc: large tables fall back to vmalloc instead of failing. */
void *_Znwm(unsigned long size)
{
	return kvzalloc(size, GFP_KERNEL);
}

void *_Znam(unsigned long size)
{
	return kvzalloc(size, GFP_KERNEL);
}

void _ZdlPv(void *p)
{
	kvfree(p);
}

void _ZdaPv(void *p)
{
	kvfree(p);
}

void _ZdlPvm(void *p, unsigned long size)
{
	kvfree(p);
}

void _ZdaPvm(void *p, unsigned long size)
{
	kvfree(p);
}

void __cxa_pure_virtual(void)
{
	pr_crit("pure virtual function called\n");
	BUG();
}
