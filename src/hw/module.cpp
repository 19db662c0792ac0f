// SPDX-License-Identifier: GPL-2.0
/*
 * The module at each end of a cable (prm::QueryModuleEepromIn): the
 * memory a passive direct-attach copper cable keeps, read over I2C. Both
 * ends of one cable carry the same part and serial number. The model's
 * fastest link picks the cable: a QSFP28 100G one for ConnectX-4 and -5,
 * a QSFP56 200G one for ConnectX-6 Dx (both SFF-8636), a QSFP112 400G one
 * for ConnectX-7 (CMIS 5.0). A passive cable has no monitors, no
 * controls and no pages past 00h (flat memory); nothing in it changes,
 * so the 256 bytes are built for each read.
 */
#include "hw/link.h"

namespace softcx::hw {
namespace {

using Page = u8[256];

enum class Kind { Qsfp28, Qsfp56, Qsfp112 };

Kind cable_kind(const Function *fn)
{
	switch (caps_of(fn).model) {
	case prm::kModelCx7: return Kind::Qsfp112;
	case prm::kModelCx6Dx: return Kind::Qsfp56;
	default: return Kind::Qsfp28;
	}
}

/* An ASCII field, padded with spaces as SFF-8636 and CMIS want. */
void put_text(Page p, u32 off, u32 len, const char *s)
{
	for (u32 i = 0; i < len; i++)
		p[off + i] = *s ? (u8)*s++ : ' ';
}

/* The cable's serial number: "SCXDAC" and the pair's number, the same at both ends. */
void put_serial(Page p, u32 off, const Function *fn)
{
	char sn[11] = "SCXDAC0000";
	u32 pair = fn->ix / 2;

	for (u32 i = 9; i >= 6; i--, pair /= 10)
		sn[i] = (char)('0' + pair % 10);
	put_text(p, off, 16, sn);
}

/* The low byte of the sum of p[from..to], the checksums both layouts keep. */
u8 sum8(const Page p, u32 from, u32 to)
{
	u32 s = 0;

	for (u32 i = from; i <= to; i++)
		s += p[i];
	return (u8)s;
}

constexpr const char *kVendor = "SOFTCX";
constexpr const char *kDate = "261201";		/* YYMMDD; the lot code stays blank */
constexpr u8 kConnectorNone = 0x23;		/* no separable connector: a DAC */

/* SFF-8636 (rev 2.7): a passive copper QSFP28 (100G) or QSFP56 (200G) cable, 1 m. */
void build_sff8636(Page p, const Function *fn, bool qsfp56)
{
	p[0] = prm::kModuleIdQsfp28;
	p[1] = 0x07;			/* revision compliance: SFF-8636 2.5 to 2.7 */
	p[2] = 1u << 2;			/* flat memory; data ready */
	p[128] = prm::kModuleIdQsfp28;
	p[129] = 0x00;			/* power class 1 (1.5 W) */
	p[130] = kConnectorNone;
	p[131] = 1u << 7;		/* Ethernet compliance: see the extended code (192) */
	p[139] = qsfp56 ? 0x08 : 0x05;	/* encoding: PAM4, 64B/66B */
	p[140] = 0xff;			/* nominal rate above 25.4 GBd: see byte 222 */
	p[146] = 1;			/* copper length, 1 m */
	p[147] = 0xa0;			/* transmitter: copper cable, unequalized */
	put_text(p, 148, 16, kVendor);
	put_text(p, 168, 16, qsfp56 ? "SCX-DAC-200G-1M" : "SCX-DAC-100G-1M");
	put_text(p, 184, 2, "A0");
	p[186] = qsfp56 ? 4 : 3;	/* attenuation at 2.5 GHz, dB */
	p[187] = qsfp56 ? 6 : 5;	/* at 5 GHz */
	p[191] = sum8(p, 128, 190);	/* CC_BASE */
	/* extended compliance: 50GBASE-CR/100GBASE-CR2/200GBASE-CR4, or 100GBASE-CR4/25GBASE-CR CA-L */
	p[192] = qsfp56 ? 0x40 : 0x0b;
	put_serial(p, 196, fn);
	put_text(p, 212, 8, kDate);
	p[222] = qsfp56 ? 106 : 103;	/* nominal rate, 250 MBd units: 26.5625, 25.78125 GBd */
	p[223] = sum8(p, 192, 222);	/* CC_EXT */
}

/* CMIS 5.0: a passive copper QSFP112 (400G) cable, 1 m. */
void build_cmis(Page p, const Function *fn)
{
	p[0] = prm::kModuleIdQsfpCmis;
	p[1] = 0x50;			/* CMIS revision 5.0 */
	p[2] = 1u << 7;			/* flat memory */
	p[3] = 3u << 1;			/* module state: ModuleReady */
	p[85] = 0x03;			/* media type: passive copper */
	p[128] = prm::kModuleIdQsfpCmis;
	put_text(p, 129, 16, kVendor);
	put_text(p, 148, 16, "SCX-DAC-400G-1M");
	put_text(p, 164, 2, "A0");
	put_serial(p, 166, fn);
	put_text(p, 182, 8, kDate);
	p[200] = 0x00;			/* power class 1 */
	p[201] = 0;			/* maximum power 0 W (0.25 W units): passive */
	p[202] = 0x40 | 1;		/* cable length: multiplier 1 m, 1 */
	p[203] = kConnectorNone;
	p[204] = 3;			/* attenuation at 5 GHz, dB */
	p[205] = 4;			/* 7 GHz */
	p[206] = 6;			/* 12.9 GHz */
	p[207] = 9;			/* 25.8 GHz */
	p[212] = 0x0a;			/* media technology: copper cable, unequalized */
	p[222] = sum8(p, 128, 221);
}

} /* namespace */

const char *module_read(Function *fn, const prm::QueryModuleEepromIn &in,
			prm::QueryModuleEepromOut *out)
{
	const u32 off = in.offset.get(), size = in.size;

	if (!size || size > prm::kModuleReadMax)
		return "size is not 1..32";
	if (off + size > sizeof(Page))
		return "the read crosses the end of the page";
	if (in.i2c_address != prm::kModuleI2cAddr) {
		out->module_status = prm::kModuleNoAnswer;
		return nullptr;
	}
	/* flat memory: the upper page 00h only, bank 0 */
	if (off + size > 128 && (in.page || in.bank)) {
		out->module_status = prm::kModuleNoPage;
		return nullptr;
	}

	Page p = {};
	Kind k = cable_kind(fn);
	if (k == Kind::Qsfp112)
		build_cmis(p, fn);
	else
		build_sff8636(p, fn, k == Kind::Qsfp56);
	__builtin_memcpy(out->data, p + off, size);
	out->module_status = prm::kModuleOk;
	return nullptr;
}

} /* namespace softcx::hw */
