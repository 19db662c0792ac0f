/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Entry points of the device model (src/hw) that the C shim calls: the
 * adapter's creation and its platform-level settings, what a bus driver
 * would do to a PCI device before any port driver binds. Everything else
 * reaches the device through the bus (src/prm/bus.h). The device model
 * includes this header and os.h, nothing of the driver core.
 * Valid C and C++; returns 0 or a negative errno.
 */
#ifndef SOFTCX_HW_H
#define SOFTCX_HW_H

#ifdef __cplusplus
extern "C" {
#endif

#include "types.h"

struct scx_hw_adapter;
struct scx_hw_function;

/* "cx4", "cx5", "cx6dx", "cx7" -> model number; -1 when unknown. */
int scx_hw_model_parse(const char *name);
const char *scx_hw_model_name(int model);

/*
 * Create the emulated adapter: nr_functions ports, cabled in pairs
 * (function 2k <-> 2k+1). os_dev is what scx_os_dma_to_cpu() gets.
 */
int scx_hw_adapter_create(int model, uint32_t nr_functions, void *os_dev,
			  struct scx_hw_adapter **out);
void scx_hw_adapter_destroy(struct scx_hw_adapter *a);
struct scx_hw_function *scx_hw_function(struct scx_hw_adapter *a, uint32_t ix);
/* "request_irq": interrupts of this function reach scx_os_raise_irq(irq_ctx, vector, cqn). */
void scx_hw_set_irq_ctx(struct scx_hw_function *fn, void *irq_ctx);
/*
 * Emulation cost: when on, every function times its doorbell handling (the
 * TX engine, the wire and the peer's RX engine run inside an SQ doorbell)
 * and reports the sum as emul_ns in QUERY_BUS_COUNTERS: CPU time a real NIC
 * would not take from the host. Off by default (two clock reads a doorbell).
 */
void scx_hw_set_timing(struct scx_hw_adapter *a, int on);
/*
 * Test harness (a damaged cable): the next n frames fn sends reach its
 * peer with a wrong FCS (the peer counts rx_crc_errors_phy, and drops them
 * unless its FCS check is off). Adds to what is still pending.
 */
void scx_hw_inject_fcs_errors(struct scx_hw_function *fn, uint32_t n);
/*
 * Test harness (a noisy cable): the next n frames fn sends take bit errors
 * on the wire. A FEC corrects them (the peer counts a corrected block
 * each, the frame arrives intact); without FEC they are FCS errors. An FCS
 * error injected above is one the FEC could not correct (an uncorrectable
 * block where a FEC runs). FCS errors pending go first. Adds to what is
 * still pending (at most 2^32 - 1 of each).
 */
void scx_hw_inject_bit_errors(struct scx_hw_function *fn, uint32_t n);

#ifdef __cplusplus
}
#endif

#endif /* SOFTCX_HW_H */
