#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# vm-timeout: 200
#
# ethtool -m: each port reads the module at its end of the cable, a
# passive copper cable of 1 m whose kind follows the model's fastest link:
# - cx7 (default): a QSFP112 400G module, CMIS 5.0 (identifier 0x1e).
#   Debian's ethtool 6.1 does not decode 0x1e (it decodes CMIS for QSFP-DD
#   only) and prints the lower page in hex; page 00h read raw through
#   netlink (i2c 0x50, each half) holds vendor SOFTCX, part
#   SCX-DAC-400G-1M, serial SCXDAC0000 and a right checksum (byte 222);
#   scx1 has the same serial (one cable), scx2 SCXDAC0001 (the second
#   pair's). A page past 00h, another bank and I2C address 0x51 are
#   refused with the reason (netlink extack). A dump without page, bank
#   or i2c takes the ioctl interface, which has no type for CMIS.
# - cx5: QSFP28 100G (SFF-8636, 0x11, 100G Base-CR4), cx6dx: QSFP56 200G
#   (200GBASE-CR4), decoded; CC_BASE and CC_EXT right; the ioctl
#   interface (raw on) reads the same 256 bytes as netlink.
source "$(dirname "$0")/lib.sh"
need_cmd ethtool python3 cmp

# module DEV: `ethtool -m DEV` into the array MOD (field -> value; the
# values of a field printed more than once joined by " | ").
declare -A MOD
module() {
	local out line k v
	out=$(ethtool -m "$1" 2>&1) || fail "ethtool -m $1 failed: $out"
	MOD=()
	while IFS= read -r line; do
		[[ "$line" == *" : "* ]] || continue
		k=$(echo "${line%% : *}" | sed 's/^[[:space:]]*//; s/[[:space:]]*$//')
		v=$(echo "${line#* : }" | sed 's/^[[:space:]]*//; s/[[:space:]]*$//')
		MOD[$k]=${MOD[$k]+${MOD[$k]} | }$v
	done <<< "$out"
	MOD_OUT=$out
}
field_has() {
	[[ "${MOD[$1]-}" == *"$2"* ]] || fail "ethtool -m: '$1' is '${MOD[$1]-<none>}', expected '$2'"
	log "ok: $1: ${MOD[$1]}"
}
# page0 DEV: page 00h (256 bytes) through netlink into $SCX_TEST_OUT/DEV.bin
# (the kernel reads at most one half page a request).
page0() {
	local f=$SCX_TEST_OUT/$1.bin
	{ ethtool -m "$1" raw on i2c 0x50 offset 0 length 128 &&
	  ethtool -m "$1" raw on i2c 0x50 offset 128 length 128; } > "$f" ||
		fail "ethtool -m $1 raw on i2c 0x50: failed"
	echo "$f"
}
# check_page FILE KIND FIELD=VALUE...: the bytes and checksums of page 00h.
check_page() {
	python3 - "$@" <<'PY' || fail "page 00h of $1 wrong"
import sys
p = open(sys.argv[1], 'rb').read()
kind = sys.argv[2]
assert len(p) == 256, 'length %d' % len(p)
txt = lambda off, n: p[off:off + n].decode().rstrip(' ')
if kind == 'cmis':
    assert p[0] == 0x1e and p[128] == 0x1e, 'identifier'
    assert p[2] & 0x80, 'flat memory'
    assert p[222] == sum(p[128:222]) & 0xff, 'checksum of bytes 128..221'
    fields = {'vendor': txt(129, 16), 'pn': txt(148, 16), 'sn': txt(166, 16)}
    assert p[203] == 0x23 and p[212] == 0x0a and p[85] == 0x03, 'copper, no connector'
else:
    assert p[0] == 0x11 and p[128] == 0x11, 'identifier'
    assert p[2] & 0x04, 'flat memory'
    assert p[191] == sum(p[128:191]) & 0xff, 'CC_BASE'
    assert p[223] == sum(p[192:223]) & 0xff, 'CC_EXT'
    fields = {'vendor': txt(148, 16), 'pn': txt(168, 16), 'sn': txt(196, 16)}
for kv in sys.argv[3:]:
    k, v = kv.split('=', 1)
    assert fields[k] == v, '%s is %r, expected %r' % (k, fields[k], v)
PY
	log "ok: page 00h of $(basename "$1" .bin): $2, checksums right, ${*:3}"
}
# refused WHY ARGS...: `ethtool -m scx0 ARGS` fails with WHY in its output.
refused() {
	local why=$1 out rc=0; shift
	out=$(ethtool -m scx0 "$@" 2>&1) || rc=$?
	[ $rc -ne 0 ] || fail "ethtool -m scx0 $* succeeded but must fail"
	[[ "$out" == *"$why"* ]] || fail "ethtool -m scx0 $*: expected '$why', got: $out"
	log "ok: ethtool -m scx0 $* refused: $(echo "$out" | head -n 1)"
}

scx_load nr_pairs=2
out=$(ethtool -m scx0 2>&1) || fail "ethtool -m scx0 failed: $out"
[[ "$out" == *"0x0000:"*"1e 50 80 06"* ]] ||
	fail "ethtool -m scx0 (cx7): expected the lower page in hex from 1e 50 80 06: $out"
log "ok: ethtool 6.1 shows the CMIS module's lower page in hex: $(grep 0x0000: <<< "$out")"
check_page "$(page0 scx0)" cmis vendor=SOFTCX pn=SCX-DAC-400G-1M sn=SCXDAC0000
check_page "$(page0 scx1)" cmis sn=SCXDAC0000
check_page "$(page0 scx2)" cmis sn=SCXDAC0001

refused "page 00h of bank 0 only (flat memory)" page 1 offset 128 length 16
refused "page 00h of bank 0 only (flat memory)" bank 1 offset 128 length 16
refused "does not answer at that I2C address" i2c 0x51 offset 0 length 16
refused "not supported" raw on

for m in cx5 cx6dx; do
	scx_load model=$m
	module scx0
	field_has Identifier "0x11 (QSFP28)"
	field_has Connector "0x23 (No separable connector)"
	field_has "Length (Copper or Active cable)" 1m
	field_has "Transmitter technology" "Copper cable unequalized"
	field_has "Vendor name" SOFTCX
	field_has "Vendor SN" SCXDAC0000
	if [ $m == cx5 ]; then
		field_has "Vendor PN" SCX-DAC-100G-1M
		field_has "Transceiver type" "100G Base-CR4"
		pn=SCX-DAC-100G-1M
	else
		field_has "Vendor PN" SCX-DAC-200G-1M
		field_has "Transceiver type" "200GBASE-CR4"
		pn=SCX-DAC-200G-1M
	fi
	f=$(page0 scx0)
	check_page "$f" sff8636 vendor=SOFTCX pn=$pn sn=SCXDAC0000
	ethtool -m scx0 raw on > "$SCX_TEST_OUT/ioctl.bin" || fail "$m: ethtool -m scx0 raw on (ioctl) failed"
	cmp -s "$SCX_TEST_OUT/ioctl.bin" "$f" || fail "$m: the ioctl interface's 256 bytes differ from netlink's"
	log "ok: $m: the ioctl interface reads the same 256 bytes"
done
scx_unload
