#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Boot Debian's kernel under QEMU (TCG) with the host root shared read-only
# over 9p and run one script inside it.
#
#   scripts/vm-run.sh [options] SCRIPT [ARGS...]
#
#   --timeout S       kill QEMU after S seconds (default $VM_TIMEOUT or 900)
#   --append "..."    extra kernel command line
#   --results DIR     results directory (default build/vm-results/<run>/)
#   --env NAME=VALUE  set a variable for SCRIPT (repeatable); variables named
#                     SCX_* in the caller's environment are passed on as well
#   --quiet           do not copy the guest console to stdout (it is still
#                     saved in DIR/console.log)
#   --smp N           virtual CPUs (default $VM_SMP or 2)
#   --started FILE    the guest must create DIR/FILE within --start-timeout
#                     seconds (default 300), else QEMU is stopped and the
#                     status is 123: a guest that hangs before the script
#                     gets going fails in minutes, not at --timeout
#   --start-timeout S the deadline for --started
#   --icount          count the guest's instructions: load the TCG plugin
#                     bench/icount/scx_icount.c (built into build/icount/ when
#                     missing or older) with -accel tcg,thread=single; it
#                     writes DIR/icount/icount-N.txt when the guest runs
#                     $SCX_ICOUNT_MARK (bench/vm/icount.sh). Off by default.
#   --virtual-clock   the guest's clocks follow its instructions (QEMU
#                     -icount shift=0,sleep=off: one instruction a
#                     nanosecond, idle time skipped), so timers, and what
#                     they decide (interrupt moderation), repeat from boot to
#                     boot. Needs --smp 1: with more vCPUs the guest hangs
#                     bringing up the second one (one round-robin TCG
#                     thread, a vCPU spinning on another never yields).
#   --icount-percpu   as --icount, counting per vCPU too (a callback per
#                     block instead of an inline add: slower)
#
# SCRIPT runs as root inside the guest, chrooted into the host root, so its
# path (and every path under it) is the same as on the host; it starts in the
# current directory. Inside, $SCX_RESULTS is the results directory, which is
# a second, writable 9p share mounted over the same path: whatever the script
# writes there is on the host afterwards. SCX_IN_VM=1 is set.
#
# The guest has loopback only; tests create network namespaces themselves.
#
# Exit status: the script's own exit status (the guest writes it to
# DIR/exit-status; a missing file counts as failure: 125), 124 when the
# timeout killed QEMU, or 123 when --started's file did not appear in time.
# DIR keeps console.log (the whole serial console), output.log (the script's stdout+stderr), dmesg.log (guest dmesg at the end)
# and guest-uptime-start (seconds from kernel start to the script's start).
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
SELF="$ROOT/scripts/vm-run.sh"

usage() { sed -n '/^#   scripts\/vm-run.sh/,/^# SCRIPT runs/p' "$SELF" | sed '$d; s/^# \{0,1\}//' >&2; exit 2; }

TIMEOUT=${VM_TIMEOUT:-900}
APPEND=
RES=
QUIET=0
SMP=${VM_SMP:-2}
ICOUNT=
VCLOCK=
STARTED=
START_TIMEOUT=300
ENVS=()
while [ $# -gt 0 ]; do
	case "$1" in
	--timeout) TIMEOUT=${2:?}; shift 2 ;;
	--append) APPEND=${2?}; shift 2 ;;
	--results) RES=${2:?}; shift 2 ;;
	--env) [[ "${2:-}" == [A-Za-z_]*=* ]] || usage; ENVS+=("$2"); shift 2 ;;
	--quiet) QUIET=1; shift ;;
	--smp) SMP=${2:?}; shift 2 ;;
	--started) STARTED=${2:?}; shift 2 ;;
	--start-timeout) START_TIMEOUT=${2:?}; shift 2 ;;
	--icount) ICOUNT=${ICOUNT:-inline}; shift ;;
	--icount-percpu) ICOUNT=percpu; shift ;;
	--virtual-clock) VCLOCK=1; shift ;;
	-h|--help) usage ;;
	--) shift; break ;;
	-*) echo "vm-run: unknown option $1" >&2; usage ;;
	*) break ;;
	esac
done
[[ "$START_TIMEOUT" =~ ^[1-9][0-9]*$ ]] || { echo "vm-run: --start-timeout must be a number of seconds" >&2; exit 2; }
[[ "$SMP" =~ ^[1-8]$ ]] || { echo "vm-run: --smp must be 1..8" >&2; exit 2; }
[ -z "${VCLOCK:-}" ] || [ "$SMP" == 1 ] || { echo "vm-run: --virtual-clock needs --smp 1" >&2; exit 2; }
[ $# -ge 1 ] || usage
SCRIPT=$(realpath -e "$1" 2>/dev/null) || { echo "vm-run: no such script: $1" >&2; exit 2; }
shift

KVER=${KVER:-$("$ROOT/scripts/kver.sh")}
KERNEL=/boot/vmlinuz-$KVER
[ -r "$KERNEL" ] || { echo "vm-run: $KERNEL missing (run scripts/deps.sh)" >&2; exit 2; }
command -v qemu-system-x86_64 >/dev/null || { echo "vm-run: qemu-system-x86_64 missing (run scripts/deps.sh)" >&2; exit 2; }

# --- initramfs, cached under build/ and keyed on KVER and both scripts ------
CACHE="$ROOT/build/vm-initramfs"
key=$( { echo "$KVER"; cat "$ROOT/scripts/mkinitramfs.sh" "$SELF"; ls -l /bin/busybox; } | sha256sum | cut -c1-16)
INITRD="$CACHE/initramfs-$KVER-$key.cpio.gz"
if [ ! -s "$INITRD" ]; then
	mkdir -p "$CACHE"
	rm -f "$CACHE"/initramfs-*.cpio.gz
	"$ROOT/scripts/mkinitramfs.sh" "$KVER" "$INITRD"
fi

# --- results directory -------------------------------------------------------
if [ -z "$RES" ]; then
	base="$ROOT/build/vm-results"
	mkdir -p "$base"
	RES="$base/$(date +%Y%m%d-%H%M%S)-$(basename "$SCRIPT" .sh)-$$"
	# Keep the 20 newest runs.
	find "$base" -mindepth 1 -maxdepth 1 -type d -printf '%T@ %p\n' | sort -rn |
		tail -n +20 | cut -d' ' -f2- | xargs -r -d '\n' rm -rf
	mkdir -p "$RES"
	ln -sfn "$(basename "$RES")" "$base/latest"
else
	mkdir -p "$RES"
fi
RES=$(realpath -e "$RES")
case "$RES" in
*[[:space:]]*) echo "vm-run: results path must not contain whitespace: $RES" >&2; exit 2 ;;
esac
rm -f "$RES"/{exit-status,console.log,output.log,dmesg.log,guest-uptime-start,guest-uptime-end,job.sh,qemu.pid,start-timeout}
[ -z "$STARTED" ] || rm -f "$RES/$STARTED"

# --- the instruction counter (--icount) ---------------------------------------
PLUGIN=()
if [ -n "$ICOUNT" ]; then
	make --no-print-directory -s -C "$ROOT/bench/icount" >&2 ||
		{ echo "vm-run: cannot build bench/icount" >&2; exit 2; }
	rm -rf "$RES/icount"
	mkdir -p "$RES/icount"
	parg="dir=$RES/icount"
	[ "$ICOUNT" != percpu ] || parg+=",percpu=on"
	PLUGIN=(-accel tcg,thread=single -plugin "$ROOT/build/icount/scx_icount.so,$parg")
	ENVS+=("SCX_ICOUNT_DIR=$RES/icount" "SCX_ICOUNT_MARK=$ROOT/build/icount/scx-mark"
		"SCX_ICOUNT_PERCPU=$([ "$ICOUNT" == percpu ] && echo 1 || echo 0)")
fi
if [ -n "${VCLOCK:-}" ]; then
	[ -n "$ICOUNT" ] || PLUGIN=(-accel tcg,thread=single)
	PLUGIN+=(-icount shift=0,sleep=off,align=off)
	ENVS+=("SCX_VIRTUAL_CLOCK=1")
fi

# --- the job the guest runs ---------------------------------------------------
{
	echo '#!/bin/bash'
	echo '# Generated by scripts/vm-run.sh; run by the guest init inside the chroot.'
	echo 'cat /proc/uptime > "$SCX_RESULTS/guest-uptime-start"'
	while IFS= read -r v; do
		printf 'export %s=%q\n' "$v" "${!v}"
	done < <(compgen -e | grep '^SCX_' | grep -vx 'SCX_RESULTS\|SCX_IN_VM' | grep -v '^SCX_ICOUNT_' || true)
	for e in "${ENVS[@]}"; do
		printf 'export %s=%q\n' "${e%%=*}" "${e#*=}"
	done
	printf 'cd %q 2>/dev/null || cd /\n' "$PWD"
	if [ -x "$SCRIPT" ]; then
		printf '%q' "$SCRIPT"
	else
		printf 'bash %q' "$SCRIPT"
	fi
	for a in "$@"; do printf ' %q' "$a"; done
	echo ' 2>&1 </dev/null | tee "$SCX_RESULTS/output.log"'
	echo 'echo "${PIPESTATUS[0]}" > "$SCX_RESULTS/exit-status"'
} > "$RES/job.sh"

# --- boot ---------------------------------------------------------------------
# After `quiet`: warnings reach the console too (a soft lockup's or a hung
# task's registers and stack are printed at the default level, which quiet
# hides), with every CPU's backtrace for a soft lockup, so that a guest that
# hangs for good still leaves in console.log where it hung.
DIAG="loglevel=5 softlockup_all_cpu_backtrace=1"
qemu=(qemu-system-x86_64 -m 2048 -smp "$SMP" -nographic -no-reboot -nic none -pidfile "$RES/qemu.pid" "${PLUGIN[@]}"
	-kernel "$KERNEL" -initrd "$INITRD"
	-virtfs "local,path=/,mount_tag=hostroot,security_model=none,readonly=on,multidevs=remap"
	-virtfs "local,path=$RES,mount_tag=results,security_model=none,multidevs=remap"
	-append "console=ttyS0 panic=-1 quiet $DIAG scx.results=$RES $APPEND")
printf '%q ' "${qemu[@]}" > "$RES/qemu-cmdline"; echo >> "$RES/qemu-cmdline"

echo "vm-run: booting $KVER (TCG${ICOUNT:+ thread=single, instruction counter $ICOUNT}${VCLOCK:+, virtual clock}, $SMP vCPUs, timeout ${TIMEOUT}s): $SCRIPT $*" >&2
start=$(date +%s.%N)
# --started: a watcher stops QEMU when the file is late. Its stdio is
# /dev/null so that it never holds a pipe of the caller's open.
watcher=
if [ -n "$STARTED" ]; then
	(
		for ((i = 0; i < START_TIMEOUT; i++)); do
			sleep 1
			[ -e "$RES/$STARTED" ] && exit 0
		done
		: > "$RES/start-timeout"
		[ -s "$RES/qemu.pid" ] && kill -TERM "$(cat "$RES/qemu.pid")"
	) </dev/null >/dev/null 2>&1 &
	watcher=$!
fi
set +e
# QEMU reads nothing from the terminal; strip the serial console's CRs.
timeout -k 10 "$TIMEOUT" "${qemu[@]}" </dev/null 2>&1 | sed -u -e 's/\r//g' -e 's/\x1b\[[0-9;?]*[A-Za-z]//g' -e 's/\x1bc//g' |
	if [ $QUIET -eq 1 ]; then cat > "$RES/console.log"; else tee "$RES/console.log"; fi
qrc=${PIPESTATUS[0]}
[ -z "$watcher" ] || { kill "$watcher" 2>/dev/null; wait "$watcher" 2>/dev/null; }
set -e
elapsed=$(echo "$(date +%s.%N) - $start" | bc)

boot=
[ -s "$RES/guest-uptime-start" ] && boot=$(cut -d' ' -f1 "$RES/guest-uptime-start")
printf 'vm-run: %.0fs wall%s\n' "$elapsed" "${boot:+, guest up after ${boot}s}" >&2
echo "vm-run: logs in $RES/ (console.log output.log dmesg.log)" >&2

if [ -e "$RES/start-timeout" ]; then
	echo "vm-run: STALLED: the guest did not create $STARTED within ${START_TIMEOUT}s; QEMU stopped (see $RES/console.log)" >&2
	exit 123
fi
if [ "$qrc" -eq 124 ] || [ "$qrc" -eq 137 ]; then
	echo "vm-run: TIMEOUT: QEMU killed after ${TIMEOUT}s" >&2
	exit 124
fi
if [ ! -s "$RES/exit-status" ]; then
	echo "vm-run: FAILED: the guest wrote no exit status (QEMU status $qrc; boot failure, panic or crash: see $RES/console.log)" >&2
	exit 125
fi
rc=$(cat "$RES/exit-status")
[[ "$rc" =~ ^[0-9]+$ ]] || rc=125
[ "$rc" -eq 0 ] || echo "vm-run: script exited with status $rc" >&2
exit "$rc"
