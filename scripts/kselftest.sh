#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# `make kselftest`: build the kernel's own network selftest programs that the
# VM suite runs against softcx's ports (tests/vm/t-kselftest-*.sh), from
# Debian's linux-source-6.1 (the same tree KUnit uses), into build/kselftest/:
#   bin/gro       tools/testing/selftests/net/gro.c: GRO conformance
#   bin/toeplitz  tools/testing/selftests/net/toeplitz.c: the RX hash is Toeplitz
#   bin/msg_zerocopy  tools/testing/selftests/net/msg_zerocopy.c: MSG_ZEROCOPY sends
#   src/net/forwarding/  the link tests of tools/testing/selftests/net/forwarding
#                 (ethtool.sh, ethtool_extended_state.sh, their lib.sh and
#                 ethtool_lib.sh), shell, with a forwarding.config of ours
# Nothing of the kernel's is kept in this repository: the sources are taken
# from the package's tarball at build time (src/, extracted once per tarball).
# Runs on the host, before the VM boots (scripts/vm-test.sh), as tests/bpf.
set -u -o pipefail

repo=$(cd "$(dirname "$0")/.." && pwd -P)
out=$repo/build/kselftest
top=linux-source-6.1/tools/testing/selftests
progs=(gro toeplitz msg_zerocopy)
scripts=(lib.sh ethtool_lib.sh ethtool.sh ethtool_extended_state.sh)

say() { echo "kselftest: $*" >&2; }

tarball=$("$repo/scripts/linux-source.sh") || exit 1

stamp="$(stat -c '%s %Y' "$tarball") ${progs[*]} ${scripts[*]}"	# the lists too: a new one extracts again
src=$out/src
if [ "$(cat "$src/.stamp" 2>/dev/null)" != "$stamp" ]; then
	say "extracting the net selftests from $tarball"
	rm -rf "$src" "$out/bin"
	mkdir -p "$src" || exit 1
	members=("$top/kselftest.h")
	for p in "${progs[@]}"; do members+=("$top/net/$p.c"); done
	for s in "${scripts[@]}"; do members+=("$top/net/forwarding/$s"); done
	tar -xJf "$tarball" -C "$src" --strip-components=4 "${members[@]}" ||
		{ say "extraction failed"; rm -rf "$src"; exit 1; }
	echo "$stamp" > "$src/.stamp"
fi

# The forwarding tests' settings for a cabled pair of existing ports
# (NETIFS given on the command line): no veth of their own, no mausezahn
# (the link tests send nothing but ping), a shorter settle time after
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
say "built: ${progs[*]} in $out/bin; scripts: ${scripts[*]} in $src/net/forwarding"
