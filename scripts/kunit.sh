#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# `make kunit`: run softcx's KUnit suites inside a UML kernel.
#
# kunit.py has no out-of-tree (M=) mode, so the project is overlaid on a
# Debian linux-source-6.1 tree kept in a cache outside the work tree:
#   drivers/net/softcx -> this repository (symlink)
#   drivers/net/Kconfig:  source "drivers/net/softcx/kunit/Kconfig"
#   drivers/net/Makefile: obj-$(CONFIG_SOFTCX_KUNIT_TEST) += softcx/
# The tree is extracted once and the UML build directory is reused, so a
# second run rebuilds incrementally.
#
# Ends with the line "N passed, N failed". Exit status: kunit.py's, or 1 when
# the kernel log holds a KASAN/lockdep/BUG/WARNING report or no result.
#
# Environment: SOFTCX_CACHE (default /var/cache/softcx), KUNIT_JOBS
# (default nproc), KUNIT_TIMEOUT (seconds for the test run, default 900),
# KUNIT_ARGS (extra kunit.py arguments, e.g. the filter glob 'softcx_pair*'
# or 'softcx_cq.*laps').
set -u -o pipefail

repo=$(cd "$(dirname "$0")/.." && pwd -P)
cache=${SOFTCX_CACHE:-/var/cache/softcx}
src=$cache/linux-source-6.1
build=$cache/build-um
log=$repo/build/kunit.log
jobs=${KUNIT_JOBS:-$(nproc)}
timeout=${KUNIT_TIMEOUT:-900}

say() { echo "kunit: $*"; }
# Final verdict line, then exit.
finish() { # passed failed rc [reason]
	[ -n "${4:-}" ] && say "$4"
	echo "$1 passed, $2 failed"
	exit "$3"
}

mkdir -p "$cache" "$repo/build" || finish 0 1 1 "cannot create $cache"

# One run at a time per cache (shared tree and build directory).
exec 9>"$cache/.lock"
if ! flock -n 9; then
	say "waiting for another run on $cache"
	flock 9 || finish 0 1 1 "cannot lock $cache/.lock"
fi

# ---- 1. kernel source, extracted once ----
tarball=$("$repo/scripts/linux-source.sh") || finish 0 1 1 "no linux-source-6.1 (scripts/linux-source.sh)"
stamp=$(stat -c '%s %Y' "$tarball")
if [ -d "$src" ] && [ "$(cat "$src/.softcx-extracted" 2>/dev/null)" != "$stamp" ]; then
	# A new tree keeps its files' old mtimes: objects built from the previous
	# tree would look up to date, so the build directory goes too.
	say "$tarball changed since extraction: extracting again"
	rm -rf "$src" "$build"
fi
if [ ! -d "$src" ]; then
	rm -rf "$cache"/.extract.*
	tmp=$(mktemp -d "$cache/.extract.XXXXXX") || finish 0 1 1 "mktemp failed"
	say "extracting $tarball into $cache"
	if ! tar -xJf "$tarball" -C "$tmp"; then
		rm -rf "$tmp"
		finish 0 1 1 "extraction failed"
	fi
	echo "$stamp" >"$tmp/linux-source-6.1/.softcx-extracted"
	# Only a complete extraction gets the final name.
	mv "$tmp/linux-source-6.1" "$src" && rmdir "$tmp" ||
		finish 0 1 1 "cannot move the extracted tree into place"
fi

# ---- 2. overlay: symlink + two idempotent hooks ----
link=$src/drivers/net/softcx
if [ "$(readlink "$link" 2>/dev/null)" != "$repo" ]; then
	say "drivers/net/softcx -> $repo"
	rm -rf "$link"
	ln -s "$repo" "$link" || finish 0 1 1 "cannot create $link"
fi
# Objects are judged up to date by file time, so objects built from another
# checkout sharing this cache (newer files, other code) would be linked as
# they are: when the checkout changes, softcx's objects are built afresh.
if [ "$(cat "$build/.softcx-repo" 2>/dev/null)" != "$repo" ]; then
	rm -rf "$build/drivers/net/softcx"
	mkdir -p "$build" && echo "$repo" >"$build/.softcx-repo"
fi
kconfig=$src/drivers/net/Kconfig
kline='source "drivers/net/softcx/kunit/Kconfig"'
if ! grep -qxF "$kline" "$kconfig"; then
	grep -qx 'endif # NETDEVICES' "$kconfig" ||
		finish 0 1 1 "no 'endif # NETDEVICES' in $kconfig"
	# Inside the `if NETDEVICES` block: just before its endif.
	sed -i "s|^endif # NETDEVICES\$|$kline\n\nendif # NETDEVICES|" "$kconfig" ||
		finish 0 1 1 "cannot hook $kconfig"
fi
mfile=$src/drivers/net/Makefile
mline='obj-$(CONFIG_SOFTCX_KUNIT_TEST) += softcx/'
grep -qxF "$mline" "$mfile" || echo "$mline" >>"$mfile" ||
	finish 0 1 1 "cannot hook $mfile"

# ---- 3. build and run ----
say "tree $src, build $build, $jobs jobs"
start=$(date +%s)
read -r -a extra <<<"${KUNIT_ARGS:-}"
(cd "$src" && python3 tools/testing/kunit/kunit.py run --arch=um \
	--kunitconfig="$repo/kunit/.kunitconfig" --build_dir="$build" \
	--jobs="$jobs" --timeout="$timeout" "${extra[@]}") 2>&1 | tee "$log"
rc=${PIPESTATUS[0]}
say "kunit.py exited $rc after $(($(date +%s) - start)) s (log: $log)"

# ---- 4. verdict ----
# "Testing complete. Ran 12 tests: passed: 11, failed: 1" (zero counts omitted)
summary=$(sed 's/\x1b\[[0-9;]*m//g' "$log" | grep -o 'Testing complete\. Ran [0-9]* tests.*' | tail -n 1)
if [ -z "$summary" ]; then
	[ "$rc" -ne 0 ] || rc=1
	grep -q 'Starting KUnit Kernel' "$log" ||
		finish 0 1 "$rc" "no test result: the configuration or the UML build failed (see $log)"
	finish 0 1 "$rc" "no test result: the kernel crashed or printed no KTAP (see $build/test.log)"
fi
count() { echo "$summary" | grep -o "$1: [0-9]*" | grep -o '[0-9]*$' || echo 0; }
passed=$(count passed)
failed=$(($(count failed) + $(count crashed) + $(count errors)))

# KASAN, lockdep and other kernel reports do not always fail a KUnit test.
report_re='BUG: KASAN|WARNING: possible|possible recursive locking|inconsistent lock state|BUG:|WARNING:|Kernel panic|general protection fault|UBSAN:'
if [ -f "$build/test.log" ] && grep -qE "$report_re" "$build/test.log"; then
	say "the kernel log holds a report; first lines around it:"
	grep -nE -m 3 -A 25 "$report_re" "$build/test.log" | head -n 80
	failed=$((failed + 1))
	[ "$rc" -ne 0 ] || rc=1
	finish "$passed" "$failed" "$rc" "kernel report in $build/test.log (counted as one failure)"
fi
if [ "$passed" -eq 0 ] && [ "$failed" -eq 0 ]; then
	[ "$rc" -ne 0 ] || rc=1
	finish 0 1 "$rc" "no test ran"
fi
[ "$failed" -eq 0 ] || [ "$rc" -ne 0 ] || rc=1
finish "$passed" "$failed" "$rc"
