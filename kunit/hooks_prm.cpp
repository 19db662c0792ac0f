// SPDX-License-Identifier: GPL-2.0
/* Test hooks: PRM structure layouts and field accessors (see kunit/hooks.h). */
#include "hooks.h"

#include "prm/cmd.h"
#include "prm/cqe.h"
#include "prm/wqe.h"

using namespace softcx;
using namespace softcx::prm;

namespace {

struct Row {
	const char *what;
	u32 got;
	u32 want;
};

#define SZ(T, want) Row{ "sizeof(" #T ")", (u32)sizeof(T), want }
#define OFF(T, f, want) Row{ #T "." #f, (u32)__builtin_offsetof(T, f), want }

/* The wanted values are the ConnectX PRM's (mlx5_ifc.h / device.h in Linux). */
constexpr Row kRows[] = {
	/* send WQE segments */
	SZ(CtrlSeg, 16), OFF(CtrlSeg, opmod_idx_opcode, 0), OFF(CtrlSeg, qpn_ds, 4),
	OFF(CtrlSeg, signature, 8), OFF(CtrlSeg, fm_ce_se, 11), OFF(CtrlSeg, general_id, 12),
	SZ(EthSeg, 16), OFF(EthSeg, swp_offsets, 0), OFF(EthSeg, cs_flags, 4),
	OFF(EthSeg, swp_flags, 5), OFF(EthSeg, mss, 6), OFF(EthSeg, flow_table_metadata, 8),
	OFF(EthSeg, inline_hdr_sz, 12), OFF(EthSeg, inline_hdr_start, 14),
	SZ(DataSeg, 16), OFF(DataSeg, byte_count, 0), OFF(DataSeg, lkey, 4), OFF(DataSeg, addr, 8),
	SZ(SendWqe, 64), SZ(RxWqeCyc, 16), SZ(SrqNextSeg, 16), OFF(SrqNextSeg, next_wqe_index, 2),
	SZ(RxWqeStriding, 32), OFF(RxWqeStriding, data, 16),
	Row{ "kSendWqeBB", kSendWqeBB, 64 }, Row{ "kSendWqeDS", kSendWqeDS, 16 },
	Row{ "kMaxDsCount", kMaxDsCount, 63 }, Row{ "kOpSend", kOpSend, 0x0a },
	Row{ "kOpNop", kOpNop, 0x00 }, Row{ "kOpLso", kOpLso, 0x0e },
	Row{ "kOpEnhancedMpsw", kOpEnhancedMpsw, 0x29 },
	Row{ "kCtrlCqUpdate", kCtrlCqUpdate, 0x08 },
	Row{ "kCsL3", kCsL3, 0x40 }, Row{ "kCsL4", kCsL4, 0x80 },
	Row{ "kInlineSegFlag", kInlineSegFlag, 0x80000000u },
	/* CQE */
	SZ(Cqe64, 64), OFF(Cqe64, wqe_id, 2), OFF(Cqe64, rss_hash_result, 12),
	OFF(Cqe64, rss_hash_type, 16), OFF(Cqe64, check_sum, 20), OFF(Cqe64, flags_rqpn, 24),
	OFF(Cqe64, hds_ip_ext, 28), OFF(Cqe64, l4_l3_hdr_type, 29), OFF(Cqe64, vlan_info, 30),
	OFF(Cqe64, srqn, 32), OFF(Cqe64, byte_cnt, 44), OFF(Cqe64, timestamp_h, 48),
	OFF(Cqe64, sop_drop_qpn, 56), OFF(Cqe64, wqe_counter, 60), OFF(Cqe64, signature, 62),
	OFF(Cqe64, op_own, 63),
	SZ(ErrCqe, 64), OFF(ErrCqe, srqn, 32), OFF(ErrCqe, vendor_err_synd, 54),
	OFF(ErrCqe, syndrome, 55), OFF(ErrCqe, s_wqe_opcode_qpn, 56),
	OFF(ErrCqe, wqe_counter, 60), OFF(ErrCqe, op_own, 63),
	Row{ "kCqeReq", kCqeReq, 0x0 }, Row{ "kCqeRespSend", kCqeRespSend, 0x2 },
	Row{ "kCqeReqErr", kCqeReqErr, 0xd }, Row{ "kCqeRespErr", kCqeRespErr, 0xe },
	Row{ "kCqeInvalid", kCqeInvalid, 0xf },
	Row{ "kCqeFormatShift", kCqeFormatShift, 2 },
	Row{ "kCqeFormatCompressed", kCqeFormatCompressed, 3 },
	/* SHAMPO: the CQE's shampo union (mlx5_cqe64), the header ring entry */
	OFF(Cqe64, shampo, 4), SZ(CqeShampo, 8), OFF(CqeShampo, header_size, 1),
	OFF(CqeShampo, header_entry_index, 2), OFF(CqeShampo, data_offset, 4),
	Row{ "kCqeShampoMatch", kCqeShampoMatch, 0x02 },
	Row{ "kCqeShampoFlush", kCqeShampoFlush, 0x04 },
	SZ(ShampoHdrWqe, 16),
	/* CQE compression: mini CQEs (mlx5_mini_cqe8) and the enhanced layout's slot */
	SZ(MiniCqe8, 8), OFF(MiniCqe8, rx_hash_result, 0), OFF(MiniCqe8, csum, 0),
	OFF(MiniCqeCsum, checksum, 0), OFF(MiniCqeCsum, stridx, 2), OFF(MiniCqe8, byte_cnt, 4),
	SZ(EnhancedMiniSlot, 64), OFF(EnhancedMiniSlot, validity_iteration_count, 62),
	OFF(EnhancedMiniSlot, op_own, 63),
	Row{ "kMiniCqesPerSlot", kMiniCqesPerSlot, 8 },
	Row{ "kMiniCqeHash", kMiniCqeHash, 0 }, Row{ "kMiniCqeCsum", kMiniCqeCsum, 1 },
	Row{ "kMiniCqeCsumStridx", kMiniCqeCsumStridx, 3 },
	Row{ "kCqeInitValidity", kCqeInitValidity, 0xff },
	/* command interface (softcx's own layouts, fixed between driver and device) */
	SZ(CmdIn, 8), OFF(CmdIn, opcode, 0), OFF(CmdIn, op_mod, 2),
	SZ(CmdOut, 8), OFF(CmdOut, status, 0), OFF(CmdOut, syndrome, 4),
	SZ(HcaCaps, 40), SZ(QueryHcaCapOut, 48), OFF(HcaCaps, device_frequency_khz, 32),
	OFF(HcaCaps, log_max_current_uc_list, 36), OFF(HcaCaps, log_max_current_mc_list, 37),
	OFF(HcaCaps, cqe_compression, 19), OFF(HcaCaps, enhanced_cqe_compression, 26),
	OFF(HcaCaps, mini_cqe_resp_stride_index, 27),
	SZ(CreateCqIn, 40), OFF(CreateCqIn, log_cq_size, 8), OFF(CreateCqIn, cqe_comp_en, 9),
	OFF(CreateCqIn, mini_cqe_res_format, 10), OFF(CreateCqIn, cqe_comp_layout, 11),
	OFF(CreateCqIn, c_eqn, 12),
	OFF(CreateCqIn, dbr_addr, 16), OFF(CreateCqIn, pas, 24),
	SZ(CreateObjOut, 16), OFF(CreateObjOut, obj_num, 8), SZ(DestroyObjIn, 16),
	SZ(QueryCqOut, 24), OFF(QueryCqOut, status, 8), OFF(QueryCqOut, producer_counter, 12),
	SZ(CreateSqIn, 32), OFF(CreateSqIn, cqn, 8), OFF(CreateSqIn, log_wq_sz, 12),
	OFF(CreateSqIn, dbr_addr, 16), OFF(CreateSqIn, pas, 24),
	SZ(CreateRqIn, 56), OFF(CreateRqIn, cqn, 8), OFF(CreateRqIn, log_wq_sz, 12),
	OFF(CreateRqIn, wq_type, 14), OFF(CreateRqIn, vsd, 15), OFF(CreateRqIn, dbr_addr, 16),
	OFF(CreateRqIn, pas, 24),
	OFF(CreateRqIn, log_wqe_num_of_strides, 32), OFF(CreateRqIn, log_wqe_stride_size, 33),
	OFF(CreateRqIn, shampo_enable, 34), OFF(CreateRqIn, log_reservation_size, 37),
	OFF(CreateRqIn, log_headers_buffer_entry_num, 40), OFF(CreateRqIn, scatter_fcs, 41),
	OFF(CreateRqIn, reservation_timeout, 42), OFF(CreateRqIn, headers_pas, 48),
	SZ(ModifyQueueIn, 16), OFF(ModifyQueueIn, cur_state, 12), OFF(ModifyQueueIn, next_state, 13),
	SZ(ModifyRqIn, 24), OFF(ModifyRqIn, modify_bitmask, 16), OFF(ModifyRqIn, vsd, 20),
	OFF(ModifyRqIn, scatter_fcs, 21), SZ(ModifyPortIn, 16), OFF(ModifyPortIn, fcs_chk, 12),
	SZ(VxlanUdpDportIn, 16), OFF(VxlanUdpDportIn, vxlan_udp_port, 10),
	OFF(HcaCaps, max_vxlan_udp_ports, 30), OFF(HcaCaps, geneve, 38),
	OFF(HcaCaps, ip_tunnels, 39),
	SZ(RssIn, 1088), OFF(RssIn, type_fields, 17), OFF(RssIn, toeplitz_key, 24),
	OFF(RssIn, rqn, 64),
	OFF(RssIn, flags, 23),
	SZ(FlowFields, 56), OFF(FlowFields, src_port, 4), OFF(FlowFields, src_ip, 8),
	OFF(FlowFields, dst_ip, 24), OFF(FlowFields, smac, 40), OFF(FlowFields, ethertype, 46),
	OFF(FlowFields, dmac, 48), OFF(FlowFields, cvlan, 54), SZ(SetFlowEntryIn, 136),
	OFF(SetFlowEntryIn, flow_index, 8), OFF(SetFlowEntryIn, action, 12),
	OFF(SetFlowEntryIn, dest, 16), OFF(SetFlowEntryIn, mask, 24), OFF(SetFlowEntryIn, value, 80), SZ(DeleteFlowEntryIn, 16), OFF(DeleteFlowEntryIn, flow_index, 8),
	SZ(ModifyNicVportIn, 16), OFF(ModifyNicVportIn, promisc, 8), OFF(ModifyNicVportIn, n_uc, 10),
	OFF(ModifyNicVportIn, n_mc, 11), OFF(ModifyNicVportIn, field_select, 9),
	OFF(ModifyNicVportIn, vlan, 12), OFF(ModifyNicVportIn, local_lb, 13), SZ(VportMac, 8),
	OFF(VportMac, addr, 2),
	Row{ "kCmdModifyNicVportContext", kCmdModifyNicVportContext, 0x755 },
	SZ(QueryQCounterOut, 72), SZ(QueryBusCountersOut, 88),
	Row{ "kCmdQueryModuleEeprom", kCmdQueryModuleEeprom, 0xa05 }, SZ(QueryModuleEepromIn, 16),
	OFF(QueryModuleEepromIn, i2c_address, 8), OFF(QueryModuleEepromIn, size, 11),
	OFF(QueryModuleEepromIn, offset, 12), SZ(QueryModuleEepromOut, 48),
	OFF(QueryModuleEepromOut, module_status, 8), OFF(QueryModuleEepromOut, data, 16),
	Row{ "kUarCqDoorbell", kUarCqDoorbell, 0x20 }, Row{ "kUarSqDoorbell", kUarSqDoorbell, 0x800 },
	Row{ "kInitSegTimerH", kInitSegTimerH, 0x1000 }, Row{ "kInitSegTimerL", kInitSegTimerL, 0x1004 },
};

} /* namespace */

extern "C" uint32_t scx_kt_prm_layout(scx_kt_layout *rows, uint32_t max)
{
	u32 n = sizeof(kRows) / sizeof(kRows[0]);

	for (u32 i = 0; i < n && i < max; i++) {
		rows[i].what = kRows[i].what;
		rows[i].got = kRows[i].got;
		rows[i].want = kRows[i].want;
	}
	return n;
}

extern "C" void scx_kt_prm_ctrl_encode(uint8_t opcode, uint16_t index, uint32_t sqn, uint32_t ds,
				       uint8_t out[16])
{
	CtrlSeg c = {};

	c.set(opcode, index, sqn, ds);
	__builtin_memcpy(out, &c, sizeof(c));
}

extern "C" void scx_kt_prm_ctrl_decode(const uint8_t in[16], uint8_t *opcode, uint16_t *index,
				       uint32_t *sqn, uint32_t *ds)
{
	CtrlSeg c;

	__builtin_memcpy(&c, in, sizeof(c));
	*opcode = c.opcode();
	*index = c.wqe_index();
	*sqn = c.sqn();
	*ds = c.ds_count();
}

extern "C" void scx_kt_prm_cqe_decode(const uint8_t in[64], scx_kt_cqe *out)
{
	Cqe64 c;

	__builtin_memcpy(&c, in, sizeof(c));
	out->opcode = c.opcode();
	out->owner = c.owner();
	out->l3_type = c.l3_type();
	out->l4_type = c.l4_type();
	out->wqe_counter = c.wqe_counter.get();
	out->byte_cnt = c.byte_cnt.get();
}

extern "C" uint8_t scx_kt_prm_cqe_init_op_own(void)
{
	return kCqeInitOpOwn;
}
