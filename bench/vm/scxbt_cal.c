// SPDX-License-Identifier: GPL-2.0
/*
 * Calibration for bench/vm/rxcpu.bt. Times N calls of getpid (the near-empty
 * __x64_sys_getpid, probed by rxcpu.bt when the caller is named
 * "scxbt_cal") and N calls of syscall 1000 (past the table: -ENOSYS without
 * calling any function, never probed), alternating ROUNDS times; prints the
 * median ns per call of each:
 *
 *   scxbt_cal N ROUNDS   ->   "<ns per probed call> <ns per unprobed call>"
 *
 * The difference, probed minus unprobed, is the whole cost of one kprobe +
 * kretprobe pair. Built by bench/vm/xdp.sh as scxbt_cal.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
#include <sys/syscall.h>

static long long now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static double loop(long nr, long n)
{
	long long t = now();
	long i;

	for (i = 0; i < n; i++)
		syscall(nr);
	return (double)(now() - t) / n;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 20000;
	int r, rounds = argc > 2 ? atoi(argv[2]) : 9;
	double p[64], u[64];

	if (rounds < 1 || rounds > 64 || n < 1)
		return 2;
	loop(SYS_getpid, 1000);
	loop(1000, 1000);
	for (r = 0; r < rounds; r++) {
		p[r] = loop(SYS_getpid, n);
		u[r] = loop(1000, n);
	}
	qsort(p, rounds, sizeof(p[0]), cmp);
	qsort(u, rounds, sizeof(u[0]), cmp);
	printf("%.1f %.1f\n", p[rounds / 2], u[rounds / 2]);
	return 0;
}
