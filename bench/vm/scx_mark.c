// SPDX-License-Identifier: GPL-2.0
/*
 * Executes the marker instruction bench/vm/insn_window.c watches for
 * (nopl 0x53435831(%rax), a no-op), so the plugin records the guest's
 * instruction count at this point. Runs in the guest.
 */
int main(void)
{
	__asm__ volatile(".byte 0x0f, 0x1f, 0x80, 0x31, 0x58, 0x43, 0x53" ::: "memory");
	return 0;
}
