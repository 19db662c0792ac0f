/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Test hooks: extern "C" windows into the C++ core (kunit/hooks_*.cpp) for
 * the C KUnit suites. They expose internals the C ABI hides (PRM layouts,
 * ring arithmetic, raw device commands) and return plain values; the suites
 * hold every expectation. Valid C and C++.
 */
#ifndef SCX_KUNIT_HOOKS_H
#define SCX_KUNIT_HOOKS_H

#include <softcx/core.h>
#include "../src/prm/counter_list.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- PRM formats (hooks_prm.cpp) ---- */
struct scx_kt_layout {
	const char *what;	/* "sizeof(Cqe64)", "Cqe64.op_own", ... */
	uint32_t got;
	uint32_t want;		/* the PRM's value */
};
/* Fills up to max rows; returns how many rows exist. */
uint32_t scx_kt_prm_layout(struct scx_kt_layout *rows, uint32_t max);
/* prm::CtrlSeg::set() into 16 bytes, and the accessors on 16 bytes. */
void scx_kt_prm_ctrl_encode(uint8_t opcode, uint16_t index, uint32_t sqn, uint32_t ds,
			    uint8_t out[16]);
void scx_kt_prm_ctrl_decode(const uint8_t in[16], uint8_t *opcode, uint16_t *index,
			    uint32_t *sqn, uint32_t *ds);
/* prm::Cqe64 accessors on 64 raw bytes. */
struct scx_kt_cqe {
	uint8_t opcode, owner, l3_type, l4_type;
	uint16_t wqe_counter;
	uint32_t byte_cnt;
};
void scx_kt_prm_cqe_decode(const uint8_t in[64], struct scx_kt_cqe *out);
uint8_t scx_kt_prm_cqe_init_op_own(void);

/* ---- ring arithmetic of the driver core (hooks_ring.cpp) ---- */
int scx_kt_sq_has_room(uint16_t pc, uint16_t cc, uint32_t log_size, uint32_t n);
/* WQEBB index that en::Sq::wqe_at() returns for a counter value. */
uint32_t scx_kt_sq_slot(uint16_t ctr, uint32_t log_size);
uint32_t scx_kt_sq_max_wqebbs(void);
uint32_t scx_kt_rq_missing(uint16_t pc, uint16_t cc, uint32_t log_size);
/*
 * en::rx_layout() (cyclic RQ): 0 with its fragments, the page bytes they
 * take and the bytes the device may write; -1 when the MTU does not fit.
 */
int scx_kt_rx_layout(uint32_t mtu, uint32_t headroom, uint32_t skb_headroom, uint32_t tailroom,
		     int xdp, uint32_t *nfrags, uint32_t *bytes, uint32_t *frame_room);

/*
 * A CQ created through the command interface (en::cq_create), with the
 * device's writer (hw::cq_post) and the driver's reader (en::Cq) on the
 * same ring.
 */
struct scx_kt_cq;
struct scx_kt_cq *scx_kt_cq_create(struct scx_hw_function *fn, void *os_dev, uint32_t log_size,
				   uint32_t vector);
void scx_kt_cq_destroy(struct scx_kt_cq *q);
uint32_t scx_kt_cq_cqn(const struct scx_kt_cq *q);
/* Device: write the next CQE (opcode RESP_SEND, given wqe_counter and byte count). */
void scx_kt_cq_dev_post(struct scx_kt_cq *q, uint16_t wqe_counter, uint32_t byte_cnt);
uint32_t scx_kt_cq_dev_pi(const struct scx_kt_cq *q);
/* Driver: consume one CQE if one is ready (1) or not (0). */
int scx_kt_cq_poll(struct scx_kt_cq *q, uint16_t *wqe_counter, uint32_t *byte_cnt);
uint32_t scx_kt_cq_cc(const struct scx_kt_cq *q);
/* Driver: publish cc (set_ci doorbell record); returns the record's value. */
uint32_t scx_kt_cq_update_ci(struct scx_kt_cq *q);
/* Driver: arm for one interrupt (doorbell record + MMIO doorbell, never skipped). */
void scx_kt_cq_arm(struct scx_kt_cq *q);

/* ---- device commands (hooks_cmd.cpp) ---- */
/* prm::CmdStatus values, and "not delivered" (bus::cmd_exec returned false). */
enum {
	SCX_KT_STAT_OK = 0x0,
	SCX_KT_STAT_BAD_OP = 0x2,
	SCX_KT_STAT_BAD_PARAM = 0x3,
	SCX_KT_STAT_BAD_SYS_STATE = 0x4,
	SCX_KT_STAT_BAD_RESOURCE = 0x5,
	SCX_KT_STAT_RESOURCE_BUSY = 0x6,
	SCX_KT_STAT_EXCEED_LIM = 0x8,
	SCX_KT_STAT_BAD_RES_STATE = 0x9,
	SCX_KT_STAT_BAD_INPUT_LEN = 0x50,
	SCX_KT_STAT_BAD_OUTPUT_LEN = 0x51,
	SCX_KT_NOT_DELIVERED = -1,
};
/* prm::kCmdModifySq: the opcode a failed MODIFY_SQ line names */
enum { SCX_KT_CMD_MODIFY_SQ = 0x905 };

/* One command scenario run against a fresh function: what was sent, what came back. */
struct scx_kt_cmd_case {
	const char *name;
	int want;		/* SCX_KT_STAT_* */
	int got;
};
/*
 * Runs every bad-command scenario (and a few good ones that set them up)
 * against fn, which must have no objects; fills up to max cases and returns
 * how many exist. The function has no objects left afterwards.
 */
uint32_t scx_kt_cmd_cases(struct scx_hw_function *fn, void *os_dev, struct scx_kt_cmd_case *cases,
			  uint32_t max);
/* Raw command: status, or SCX_KT_NOT_DELIVERED. */
int scx_kt_cmd_raw(struct scx_hw_function *fn, const void *in, uint32_t in_len, void *out,
		   uint32_t out_len);
/* QUERY_HCA_CAP through the bus: 0 and the caps' model/max_hw_mtu, or the status. */
int scx_kt_query_caps(struct scx_hw_function *fn, uint32_t *model, uint32_t *max_hw_mtu,
		      uint32_t *inline_mode);
/* Live objects in the device's tables of fn (CQs + SQs + RQs + RSS). */
uint32_t scx_kt_dev_objects(struct scx_hw_function *fn);
/* Q, bus and port (MAC) counters of fn by command (0 or the status). */
#define SCX_KT_CTR_FIELD(field, name) uint64_t field;
struct scx_kt_dev_counters {
	SCX_PRM_Q_COUNTERS(SCX_KT_CTR_FIELD)
	SCX_PRM_BUS_COUNTERS(SCX_KT_CTR_FIELD)
	SCX_PRM_PORT_COUNTERS(SCX_KT_CTR_FIELD)
};
#undef SCX_KT_CTR_FIELD
int scx_kt_dev_query(struct scx_hw_function *fn, struct scx_kt_dev_counters *c);
/*
 * MODIFY_SQ RDY -> ERR on the stack's SQ of channel c, behind the driver's
 * back (a device that stopped the SQ without an error CQE): the status.
 */
int scx_kt_chan_sq_stop(struct scx_hw_function *fn, struct scx_channel *c);

#ifdef __cplusplus
}
#endif

#endif /* SCX_KUNIT_HOOKS_H */
