// SPDX-License-Identifier: GPL-2.0
/*
 * The cable modules (QUERY_MODULE_EEPROM): each generation's cable as
 * SFF-8636 or CMIS lays out page 00h, its checksums, both ends the same
 * cable, and every read the module cannot answer.
 */
#include <string>

#include "hw_harness.h"

using namespace hwt;

namespace {

struct Read {
	uint8_t status;		/* command */
	uint8_t module;		/* prm::ModuleStatus */
	std::vector<uint8_t> data;
};

Read read(Fn *fn, uint32_t offset, uint32_t size, uint8_t page = 0, uint8_t bank = 0,
	  uint8_t addr = prm::kModuleI2cAddr)
{
	prm::QueryModuleEepromIn in;
	prm::QueryModuleEepromOut out;

	set_op(&in, prm::kCmdQueryModuleEeprom);
	in.i2c_address = addr;
	in.page = page;
	in.bank = bank;
	in.size = (uint8_t)size;
	in.offset.set((uint16_t)offset);
	Read r;
	r.status = exec(fn, in, &out);
	r.module = out.module_status;
	if (r.status == prm::kStatOk && r.module == prm::kModuleOk)
		r.data.assign(out.data, out.data + size);
	return r;
}

/* Page 00h, lower and upper, in the largest reads the command takes. */
std::vector<uint8_t> page0(Fn *fn)
{
	std::vector<uint8_t> p;

	for (uint32_t off = 0; off < 256; off += prm::kModuleReadMax) {
		Read r = read(fn, off, prm::kModuleReadMax);
		EXPECT_EQ(r.status, prm::kStatOk);
		EXPECT_EQ(r.module, prm::kModuleOk);
		p.insert(p.end(), r.data.begin(), r.data.end());
	}
	EXPECT_EQ(p.size(), 256u);
	return p;
}

std::string text(const std::vector<uint8_t> &p, uint32_t off, uint32_t len)
{
	std::string s(p.begin() + off, p.begin() + off + len);
	return s.substr(0, s.find_last_not_of(' ') + 1);
}

uint8_t sum8(const std::vector<uint8_t> &p, uint32_t from, uint32_t to)
{
	uint32_t s = 0;
	for (uint32_t i = from; i <= to; i++)
		s += p[i];
	return (uint8_t)s;
}

class HwModule : public HwTest, public ::testing::WithParamInterface<int> {
protected:
	int model() const override { return GetParam(); }
};

TEST_P(HwModule, EachModelsCableAsItsStandardLaysItOut)
{
	const int m = GetParam();
	std::vector<uint8_t> p = page0(fn0);

	EXPECT_EQ(p, page0(fn1)) << "both ends of one cable: the same part and serial number";
	if (m == prm::kModelCx7) {
		/* CMIS 5.0, QSFP112 */
		EXPECT_EQ(p[0], 0x1e);
		EXPECT_EQ(p[128], 0x1e);
		EXPECT_EQ(p[1], 0x50) << "CMIS 5.0";
		EXPECT_EQ(p[2] & 0x80, 0x80) << "flat memory";
		EXPECT_EQ((p[3] >> 1) & 7, 3) << "ModuleReady";
		EXPECT_EQ(p[85], 0x03) << "passive copper";
		EXPECT_EQ(text(p, 129, 16), "SOFTCX");
		EXPECT_EQ(text(p, 148, 16), "SCX-DAC-400G-1M");
		EXPECT_EQ(text(p, 166, 16), "SCXDAC0000");
		EXPECT_EQ(text(p, 182, 6), "261201");
		EXPECT_EQ(p[202], 0x41) << "1 m";
		EXPECT_EQ(p[203], 0x23) << "no separable connector";
		EXPECT_EQ(p[212], 0x0a) << "copper, unequalized";
		EXPECT_EQ(p[222], sum8(p, 128, 221));
	} else {
		/* SFF-8636: QSFP28 100G, or QSFP56 200G on cx6dx */
		const bool q56 = m == prm::kModelCx6Dx;
		EXPECT_EQ(p[0], 0x11);
		EXPECT_EQ(p[128], 0x11);
		EXPECT_EQ(p[2] & 0x04, 0x04) << "flat memory";
		EXPECT_EQ(p[130], 0x23);
		EXPECT_EQ(p[131], 0x80) << "extended compliance";
		EXPECT_EQ(p[192], q56 ? 0x40 : 0x0b);
		EXPECT_EQ(p[146], 1) << "1 m of copper";
		EXPECT_EQ(p[147] >> 4, 0xa) << "copper, unequalized";
		EXPECT_EQ(text(p, 148, 16), "SOFTCX");
		EXPECT_EQ(text(p, 168, 16), q56 ? "SCX-DAC-200G-1M" : "SCX-DAC-100G-1M");
		EXPECT_EQ(text(p, 196, 16), "SCXDAC0000");
		EXPECT_EQ(p[140], 0xff);
		EXPECT_EQ(p[222], q56 ? 106 : 103);
		EXPECT_EQ(p[191], sum8(p, 128, 190)) << "CC_BASE";
		EXPECT_EQ(p[223], sum8(p, 192, 222)) << "CC_EXT";
	}
	/* any offset and size reads the same bytes */
	for (uint32_t off : { 0u, 1u, 100u, 127u, 128u, 200u, 255u }) {
		uint32_t n = std::min(256 - off, (uint32_t)prm::kModuleReadMax);
		Read r = read(fn0, off, n);
		ASSERT_EQ(r.status, prm::kStatOk);
		EXPECT_EQ(r.data, std::vector<uint8_t>(p.begin() + off, p.begin() + off + n)) << off;
	}
}

INSTANTIATE_TEST_SUITE_P(Models, HwModule, ::testing::Values(4, 5, 6, 7));

class HwModuleReads : public HwTest {};

TEST_F(HwModuleReads, ThoseTheModuleCannotAnswer)
{
	/* the command itself: size 1..32, within the page */
	EXPECT_EQ(read(fn0, 0, 0).status, prm::kStatBadParam);
	EXPECT_EQ(read(fn0, 0, prm::kModuleReadMax + 1).status, prm::kStatBadParam);
	EXPECT_EQ(read(fn0, 250, 7).status, prm::kStatBadParam);
	EXPECT_EQ(read(fn0, 256, 1).status, prm::kStatBadParam);
	EXPECT_EQ(read(fn0, 249, 7).status, prm::kStatOk);
	/* the module: only at 0x50 (no SFF-8472 diagnostics at 0x51) */
	Read r = read(fn0, 0, 8, 0, 0, 0x51);
	EXPECT_EQ(r.status, prm::kStatOk);
	EXPECT_EQ(r.module, prm::kModuleNoAnswer);
	/* flat memory: an upper page other than 00h, or another bank, is not there */
	EXPECT_EQ(read(fn0, 128, 16, 3).module, prm::kModuleNoPage);
	EXPECT_EQ(read(fn0, 120, 16, 1).module, prm::kModuleNoPage) << "ends in the upper page";
	EXPECT_EQ(read(fn0, 128, 16, 0, 1).module, prm::kModuleNoPage);
	/* the lower page is the same whatever is selected */
	Read low = read(fn0, 0, 32, 2, 1);
	ASSERT_EQ(low.module, prm::kModuleOk);
	EXPECT_EQ(low.data, read(fn0, 0, 32).data);
}

} /* namespace */
