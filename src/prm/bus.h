/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The bus between the driver core and the device model: everything a driver
 * can do to a PCI function. The device model defines these; the driver core
 * calls nothing else of it. Memory is reached only through DMA addresses
 * (translated by the OS layer), and interrupts come back through
 * scx_os_raise_irq().
 */
#pragma once

#include "types.h"

struct scx_hw_function;	/* defined by the device model (src/hw) */

namespace softcx::bus {

/* One PCI function = one port. */
using Function = struct ::scx_hw_function;	/* "struct": a function of that name exists */

/*
 * Execute one command. Returns false when the command could not be
 * delivered (in_len/out_len too small for the header); otherwise the status
 * is in the outbox header (prm::CmdOut).
 */
bool cmd_exec(Function *fn, const void *in, u32 in_len, void *out, u32 out_len);

/*
 * A 64-bit MMIO write into the function's BAR (prm::kUar* offsets). `value`
 * holds the 8 bytes in memory order (as memcpy'd from big-endian fields).
 */
void mmio_write64(Function *fn, u32 offset, u64 value);

/*
 * A 32-bit MMIO read from the function's BAR (prm::kInitSeg* offsets),
 * converted from the register's big-endian to CPU order. An offset with no
 * register reads as all ones, as a PCI read nothing answers. Any context.
 */
u32 mmio_read32(Function *fn, u32 offset);

} /* namespace softcx::bus */
