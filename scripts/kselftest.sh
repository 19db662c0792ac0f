#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# `make kselftest`: build the kernel's own network selftest programs that the
# VM suite runs against softcx's ports (tests/vm/t-kselftest-*.sh), from
# Debian's linux-source-6.1 (the same tree KUnit uses), into build/kselftest/:
#   bin/gro       tools/testing/selftests/net/gro.c: GRO conformance
#   bin/toeplitz  tools/testing/selftests/net/toeplitz.c: the RX hash is Toeplitz
#   bin/msg_zerocopy  tools/testing/selftests/net/msg_zerocopy.c: MSG_ZEROCOPY sends
#   bin/xskxceiver  tools/testing/selftests/bpf/xskxceiver.c (with its xsk.c):
#                 AF_XDP in copy mode, generic and native XDP. One change of
#                 ours, made here at build time: its STAT_RX_DROPPED test is
#                 skipped, since Debian's 6.1 kernel (6.1.192) refuses the
#                 UMEM headroom that test asks for (xdp_umem_reg() leaves room
#                 for skb_shared_info and 128 bytes now; the 6.1 test predates
#                 that check and fails with EINVAL on any device, veth too)
#   src/net/forwarding/  tests of tools/testing/selftests/net/forwarding,
#                 shell, with a forwarding.config of ours: the link tests
#                 (ethtool.sh, ethtool_extended_state.sh, ethtool_lib.sh)
#                 and the bridge and VLAN tests t-kselftest-bridge runs;
#                 their lib.sh
# Nothing of the kernel's is kept in this repository: the sources are taken
# from the package's tarball at build time (src/, extracted once per tarball).
# Runs on the host, before the VM boots (scripts/vm-test.sh), as tests/bpf.
set -u -o pipefail

repo=$(cd "$(dirname "$0")/.." && pwd -P)
out=$repo/build/kselftest
top=linux-source-6.1/tools/testing/selftests
progs=(gro toeplitz msg_zerocopy)
scripts=(lib.sh ethtool_lib.sh ethtool.sh ethtool_extended_state.sh
	bridge_vlan_aware.sh bridge_vlan_unaware.sh router_vid_1.sh
	router_bridge_vlan.sh bridge_igmp.sh bridge_mld.sh)
xsk=(xskxceiver.c xskxceiver.h xsk.c xsk.h)
# the tools headers xskxceiver.c and xsk.c include (gcc -M)
tools_h=(arch/x86/include/asm/barrier.h include/asm-generic/bitsperlong.h
	include/linux/build_bug.h include/linux/compiler-gcc.h include/linux/compiler.h
	include/linux/compiler_types.h include/linux/const.h include/linux/filter.h
	include/linux/kernel.h include/linux/list.h include/linux/math.h include/linux/panic.h
	include/linux/poison.h include/linux/types.h include/uapi/asm-generic/bitsperlong.h
	include/uapi/linux/const.h include/vdso/const.h)

say() { echo "kselftest: $*" >&2; }

tarball=$("$repo/scripts/linux-source.sh") || exit 1

stamp="$(stat -c '%s %Y' "$tarball") ${progs[*]} ${scripts[*]} ${xsk[*]} xsk-skip-rx-dropped"	# the lists too: a new one extracts again
src=$out/src
if [ "$(cat "$src/.stamp" 2>/dev/null)" != "$stamp" ]; then
	say "extracting the net selftests from $tarball"
	rm -rf "$src" "$out/bin"
	mkdir -p "$src" || exit 1
	members=("$top/kselftest.h")
	for p in "${progs[@]}"; do members+=("$top/net/$p.c"); done
	for s in "${scripts[@]}"; do members+=("$top/net/forwarding/$s"); done
	for f in "${xsk[@]}"; do members+=("$top/bpf/$f"); done
	for h in "${tools_h[@]}"; do members+=("linux-source-6.1/tools/$h"); done
	# selftests/ as the top (net/, bpf/, kselftest.h), the tools headers under tools/
	tar -xJf "$tarball" -C "$src" \
		--transform 's#^linux-source-6.1/tools/testing/selftests/##;s#^linux-source-6.1/tools/#tools/#' \
		"${members[@]}" || { say "extraction failed"; rm -rf "$src"; exit 1; }
	python3 - "$src/bpf/xskxceiver.c" <<'PY' || { say "xskxceiver.c: the STAT_RX_DROPPED skip did not apply"; rm -rf "$src"; exit 1; }
import sys
p = sys.argv[1]
s = open(p).read()
old = ('\tcase TEST_TYPE_STATS_RX_DROPPED:\n\t\tif (mode == TEST_MODE_ZC) {\n'
       '\t\t\tksft_test_result_skip("Can not run RX_DROPPED test for ZC mode\\n");')
new = ('\tcase TEST_TYPE_STATS_RX_DROPPED:\n\t\tif (1) {\t/* softcx: the kernel refuses its headroom */\n'
       '\t\t\tksft_test_result_skip("RX_DROPPED: this kernel refuses the test\'s UMEM headroom\\n");')
if s.count(old) != 1:
    sys.exit(1)
open(p, 'w').write(s.replace(old, new))
PY
	echo "$stamp" > "$src/.stamp"
fi

# The forwarding tests' settings for cabled pairs of existing ports
# (NETIFS given on the command line): no veth of their own, mausezahn not
# required up front (the link tests send nothing but ping; the bridge tests
# that send with it find it, from netsniff-ng), a shorter settle time after
# carrier (the emulated link comes up at once).
cat > "$src/net/forwarding/forwarding.config" <<'CFG' || exit 1
# written by softcx's scripts/kselftest.sh
NETIF_CREATE=no
REQUIRE_MZ=no
WAIT_TIME=1
CFG

mkdir -p "$out/bin" || exit 1
for p in "${progs[@]}"; do
	[ "$out/bin/$p" -nt "$src/net/$p.c" ] && continue
	# the selftests' own flags (net/Makefile); uapi headers from linux-libc-dev
	gcc -Wall -O2 -g -I"$src" -o "$out/bin/$p" "$src/net/$p.c" ||
		{ say "$p did not build"; exit 1; }
done
if [ ! "$out/bin/xskxceiver" -nt "$src/bpf/xskxceiver.c" ]; then
	# the bpf selftests' tools headers for asm/barrier.h and linux/compiler.h; libbpf from libbpf-dev
	gcc -Wall -O2 -g -I"$src/bpf" -I"$src/tools/arch/x86/include" -I"$src/tools/include" \
		-o "$out/bin/xskxceiver" "$src/bpf/xskxceiver.c" "$src/bpf/xsk.c" -lbpf -lpthread ||
		{ say "xskxceiver did not build"; exit 1; }
fi
say "built: ${progs[*]} xskxceiver in $out/bin; scripts: ${scripts[*]} in $src/net/forwarding"
