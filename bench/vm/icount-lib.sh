# SPDX-License-Identifier: GPL-2.0
# Sourced by the VM benchmarks (after tests/vm/lib.sh): exact instruction
# counts per packet with the scx_icount QEMU plugin (bench/icount/), when the
# guest was booted with `scripts/vm-run.sh --icount` (or --icount-percpu);
# without it every ic_* function does nothing and ic_on fails.
#
#   ic_pair CONFIG N1 N2 CMD...   run `CMD N1` and `CMD N2` (CMD sends that
#                                 many packets, and sets PPS if it can, and
#                                 IC_HANDLED: the frames the receiver
#                                 handled, for the rx1-* receiver metric), each
#                                 in a window of its own; the difference of
#                                 the two windows over N2 - N1 is the
#                                 instructions per packet, with whatever
#                                 CMD does besides the packets cancelled.
#                                 Call it again for another repetition.
#   ic_report TITLE [OPTIONS]     symbolise every window (bench/icount/
#                                 icount.py) and write IC_OUT/report.txt:
#                                 per configuration and repetition the
#                                 instructions per packet by group, the spread
#                                 between repetitions, and a top-30 table;
#                                 prints the RESULT lines.
#
# Files in IC_OUT ($SCX_ICOUNT_DIR, a directory of the results share):
# icount-K.txt (the plugin's windows), manifest (one line per window:
# CONFIG REP PACKETS K PPS HANDLED), kallsyms (the guest's /proc/kallsyms with every
# module and, when bpf_jit_kallsyms allows, the JITed BPF programs, copied at
# every ic_pair: the union is used), softcx.ko (the module loaded, $SCX_KO,
# for bench/icount/lines.py), report.txt.
IC_OUT=${SCX_ICOUNT_DIR:-}
IC_MARK=${SCX_ICOUNT_MARK:-}
IC_K=0
declare -A IC_REP=()

ic_on() { [ -n "$IC_OUT" ] && [ -x "$IC_MARK" ]; }

_ic_syms() {
	# Every JITed program gets a kallsyms line (bpf_prog_<tag>_<name> [bpf]).
	[ "$(cat /proc/sys/net/core/bpf_jit_kallsyms 2>/dev/null)" == 1 ] ||
		echo 1 > /proc/sys/net/core/bpf_jit_kallsyms 2>/dev/null || true
	cat /proc/kallsyms >> "$IC_OUT/kallsyms.raw"
	# the module the windows run, for bench/icount/lines.py (source lines)
	[ -e "$IC_OUT/softcx.ko" ] || [ ! -f "${SCX_KO:-}" ] || cp "$SCX_KO" "$IC_OUT/softcx.ko"
}

_ic_window() {   # CONFIG REP PACKETS CMD...
	local cfg=$1 rep=$2 n=$3
	shift 3
	IC_K=$((IC_K + 1))
	[ $IC_K -le 4095 ] || fail "icount: more than 4095 windows"
	PPS=- IC_HANDLED=-
	"$IC_MARK" start || fail "icount: scx-mark start failed"
	"$@" "$n"
	"$IC_MARK" stop "$IC_K" || fail "icount: scx-mark stop failed"
	[ -s "$IC_OUT/icount-$IC_K.txt" ] || fail "icount: the plugin wrote no $IC_OUT/icount-$IC_K.txt"
	echo "$cfg $rep $n $IC_K ${PPS:--} ${IC_HANDLED:--}" >> "$IC_OUT/manifest"
}

ic_pair() {   # CONFIG N1 N2 CMD...
	ic_on || return 0
	local cfg=$1 n1=$2 n2=$3 rep
	shift 3
	[[ "$cfg" =~ ^[A-Za-z0-9_.+-]+$ ]] || fail "icount: bad configuration name '$cfg'"
	rep=$(( ${IC_REP[$cfg]:-0} + 1 ))
	IC_REP[$cfg]=$rep
	[ "$rep" -gt 1 ] || _ic_syms
	_ic_window "$cfg" "$rep" "$n1" "$@"
	_ic_window "$cfg" "$rep" "$n2" "$@"
}

ic_report() {   # TITLE [icount.py options, e.g. --ratio SPEC]
	ic_on || return 0
	local title=$1
	shift
	[ -s "$IC_OUT/manifest" ] || { log "icount: no windows"; return 0; }
	sort -u "$IC_OUT/kallsyms.raw" > "$IC_OUT/kallsyms" && rm -f "$IC_OUT/kallsyms.raw"
	/usr/bin/python3 "$SCX_ROOT/bench/icount/icount.py" --title "$title" \
		--percpu "${SCX_ICOUNT_PERCPU:-0}" "$@" "$IC_OUT" > "$IC_OUT/report.txt" ||
		fail "icount: bench/icount/icount.py failed"
	grep '^RESULT' "$IC_OUT/report.txt" || true
}
