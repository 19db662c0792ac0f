// SPDX-License-Identifier: GPL-2.0
/*
 * scx-mark: tell the scx_icount QEMU plugin (bench/icount/scx_icount.c)
 * where a measurement window starts and ends, from inside the guest.
 *
 *   scx-mark start        remember all counters
 *   scx-mark stop N       write icount-N.txt: the counts since the last start
 *   scx-mark snap N       write icount-N.txt: the counts since boot
 *
 * N is 0..4095. The program executes one 7-byte NOP, `nopl DISP32(%rax)`
 * (0f 1f 80 + DISP32), with DISP32 = 0x5c1c0000 | kind << 12 | N, which the
 * plugin recognises when it translates it. The NOP is written into an
 * executable page at run time, so any N needs no table of stubs. Without the
 * plugin the NOP does nothing. Built static (bench/icount/Makefile).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

static int usage(void)
{
	fputs("usage: scx-mark start | stop N | snap N   (N: 0..4095)\n", stderr);
	return 2;
}

int main(int argc, char **argv)
{
	unsigned long kind, n = 0;
	char *end;

	if (argc == 2 && !strcmp(argv[1], "start"))
		kind = 1;
	else if (argc == 3 && !strcmp(argv[1], "stop"))
		kind = 2;
	else if (argc == 3 && !strcmp(argv[1], "snap"))
		kind = 3;
	else
		return usage();
	if (argc == 3) {
		n = strtoul(argv[2], &end, 10);
		if (!*argv[2] || *end || n > 4095)
			return usage();
	}

	uint32_t disp = 0x5c1c0000u | (uint32_t)(kind << 12) | (uint32_t)n;
	uint8_t *p = mmap(NULL, 4096, PROT_READ | PROT_WRITE | PROT_EXEC,
			  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED) {
		perror("scx-mark: mmap");
		return 1;
	}
	p[0] = 0x0f; p[1] = 0x1f; p[2] = 0x80;		/* nopl disp32(%rax) */
	memcpy(p + 3, &disp, 4);			/* x86: little endian */
	p[7] = 0xc3;					/* ret */
	((void (*)(void))p)();
	return 0;
}
