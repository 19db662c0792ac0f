#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Post-compile guard for one C++ object: no constructors/unwind sections, no
# guard variables, and no undefined symbol outside the allowlist (kernel
# entry points the compiler emits, string builtins, and our scx_os_* layer).
set -e
obj=$1
fail() { echo "cxx-guard: $obj: $*" >&2; rm -f "$obj"; exit 1; }

secs=$(readelf -SW "$obj" | grep -oE '\.(init_array|fini_array|ctors|dtors|eh_frame|gcc_except_table|tbss|tdata)\b' | sort -u | tr '\n' ' ')
[ -z "$secs" ] || fail "forbidden sections: $secs"

guards=$(nm "$obj" | awk '$NF ~ /^_ZGV/ {print $NF}' | tr '\n' ' ')
[ -z "$guards" ] || fail "dynamic-initialisation guard variables: $guards"

bad=$(nm -u "$obj" | awk '{print $2}' | grep -vE \
	'^(__fentry__|__stack_chk_fail|__x86_return_thunk|__x86_indirect_thunk_[a-z0-9]+|__x86_indirect_call_thunk_[a-z0-9]+|memcpy|memset|memmove|memcmp|__memcpy|__memset|scx_os_[a-z0-9_]+|scx_hw_[a-z0-9_]+|scx_port_[a-z0-9_]+|scx_channel_[a-z0-9_]+|scx_stats_[a-z0-9_]+|_ZN6softcx[A-Za-z0-9_]+|_Znwm|_ZdlPv|_ZdlPvm|_Znam|_ZdaPv|_ZdaPvm|__tsan_[A-Za-z0-9_]+|__asan_[A-Za-z0-9_]+|__ubsan_[A-Za-z0-9_]+|__sanitizer_[A-Za-z0-9_]+|__kasan_[A-Za-z0-9_]+|__kcov_[A-Za-z0-9_]+)$' || true)
[ -z "$bad" ] || fail "undefined symbols outside the allowlist: $(echo $bad)"
exit 0
