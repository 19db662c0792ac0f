// SPDX-License-Identifier: GPL-2.0
/* The port MAC's slower path: group addresses and MAC control frames (mac.h). */
#include "hw/mac.h"

namespace softcx::hw {

void mac_count_special(const MacDir &d, const u8 *frame, u32 len)
{
	if (frame[0] & 1) {
		bool bcast = (frame[0] & frame[1] & frame[2] & frame[3] & frame[4] & frame[5]) == 0xff;
		bus_add(bcast ? d.broadcast : d.multicast, 1);
	}
	if (prm::load_be16(frame + 12) != kEtherTypeMacControl)
		return;
	/* a control frame too short for an opcode has none: opcode 0 */
	u16 op = len >= prm::kEthHdrLen + 2 ? prm::load_be16(frame + prm::kEthHdrLen) : 0;
	bus_add(d.control, 1);
	if (op == kMacControlPause)
		bus_add(d.pause, 1);
	else if (d.unsupported)
		bus_add(d.unsupported, 1);
}

bool phy_rx_fault(Function *fn, u32 fault)
{
	const u16 fec = __atomic_load_n(&fn->link.fec_oper, __ATOMIC_RELAXED);
	const bool corrects = fec && fec != prm::kFecNone;

	if (corrects)
		bus_add(fault == kFaultBits ? &fn->port.fec_corrected_blocks :
					      &fn->port.fec_uncorrectable_blocks,
			1);
	return !(corrects && fault == kFaultBits);
}

bool mac_rx_bad_fcs(Function *fn, u32 len)
{
	mac_rx_hist(&fn->port, prm::wire_len(len));
	bus_add(&fn->port.rx_crc_errors, 1);
	return __atomic_load_n(&fn->fcs_chk_off, __ATOMIC_RELAXED) != 0;
}

} /* namespace softcx::hw */
