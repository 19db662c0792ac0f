// SPDX-License-Identifier: GPL-2.0
/*
 * softcx_prm: the hardware formats of src/prm as the C++ core compiled them
 * inside this kernel (layouts, big-endian fields, accessors).
 */
#include <kunit/test.h>
#include <linux/kernel.h>

#include "hooks.h"

#define SCX_KT_MAX_ROWS 256

static void scx_prm_layout(struct kunit *test)
{
	struct scx_kt_layout *rows;
	u32 n, i;

	rows = kunit_kcalloc(test, SCX_KT_MAX_ROWS, sizeof(*rows), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, rows);
	n = scx_kt_prm_layout(rows, SCX_KT_MAX_ROWS);
	KUNIT_ASSERT_LE(test, n, (u32)SCX_KT_MAX_ROWS);
	KUNIT_EXPECT_GT(test, n, 0u);
	for (i = 0; i < n; i++)
		KUNIT_EXPECT_EQ_MSG(test, rows[i].got, rows[i].want, "%s", rows[i].what);
}

static void scx_prm_ctrl_seg(struct kunit *test)
{
	static const u8 want[16] = {
		0x00, 0xbe, 0xef, 0x0a,		/* opmod 0, wqe_index 0xbeef, SEND */
		0x12, 0x34, 0x56, 0x3f,		/* sqn 0x123456, ds 63 */
	};
	u8 seg[16], opcode;
	u32 sqn, ds, i;
	u16 index;

	scx_kt_prm_ctrl_encode(0x0a, 0xbeef, 0x123456, 63, seg);
	for (i = 0; i < sizeof(want); i++)
		KUNIT_EXPECT_EQ_MSG(test, seg[i], want[i], "byte %u", i);

	scx_kt_prm_ctrl_decode(seg, &opcode, &index, &sqn, &ds);
	KUNIT_EXPECT_EQ(test, opcode, 0x0a);
	KUNIT_EXPECT_EQ(test, index, 0xbeef);
	KUNIT_EXPECT_EQ(test, sqn, 0x123456u);
	KUNIT_EXPECT_EQ(test, ds, 63u);

	/* ds is a 6-bit field: larger values must not spill into the sqn */
	scx_kt_prm_ctrl_encode(0x00, 0xffff, 0xffffff, 64 + 5, seg);
	scx_kt_prm_ctrl_decode(seg, &opcode, &index, &sqn, &ds);
	KUNIT_EXPECT_EQ(test, ds, 5u);
	KUNIT_EXPECT_EQ(test, sqn, 0xffffffu);
	KUNIT_EXPECT_EQ(test, index, 0xffff);
	KUNIT_EXPECT_EQ(test, opcode, 0x00);
}

static void scx_prm_cqe(struct kunit *test)
{
	struct scx_kt_cqe c;
	u8 raw[64] = {};

	raw[29] = (4 << 4) | (2 << 2);	/* TCP with ACK and data, IPv4 */
	raw[44] = 0x00;			/* byte_cnt 0x000105ee */
	raw[45] = 0x01;
	raw[46] = 0x05;
	raw[47] = 0xee;
	raw[60] = 0xab;			/* wqe_counter 0xabcd */
	raw[61] = 0xcd;
	raw[63] = (0x2 << 4) | 1;	/* RESP_SEND, owner 1 */
	scx_kt_prm_cqe_decode(raw, &c);
	KUNIT_EXPECT_EQ(test, c.opcode, 0x2);
	KUNIT_EXPECT_EQ(test, c.owner, 1);
	KUNIT_EXPECT_EQ(test, c.l3_type, 2);
	KUNIT_EXPECT_EQ(test, c.l4_type, 4);
	KUNIT_EXPECT_EQ(test, c.wqe_counter, 0xabcd);
	KUNIT_EXPECT_EQ(test, c.byte_cnt, 0x105eeu);

	/* A fresh CQE reads as INVALID, owned by the lap-1 parity. */
	memset(raw, 0, sizeof(raw));
	raw[63] = scx_kt_prm_cqe_init_op_own();
	scx_kt_prm_cqe_decode(raw, &c);
	KUNIT_EXPECT_EQ(test, c.opcode, 0xf);
	KUNIT_EXPECT_EQ(test, c.owner, 1);
}

static struct kunit_case scx_prm_cases[] = {
	KUNIT_CASE(scx_prm_layout),
	KUNIT_CASE(scx_prm_ctrl_seg),
	KUNIT_CASE(scx_prm_cqe),
	{}
};

static struct kunit_suite scx_prm_suite = {
	.name = "softcx_prm",
	.test_cases = scx_prm_cases,
};

kunit_test_suite(scx_prm_suite);
