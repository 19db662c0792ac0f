// SPDX-License-Identifier: GPL-2.0
/*
 * scx_icount: a QEMU TCG plugin (plugin API version 1, QEMU 7.2) that counts
 * the guest's executed instructions per translation block, exactly, and
 * writes them out when the guest executes a marker instruction.
 *
 *   qemu-system-x86_64 -accel tcg,thread=single \
 *       -plugin build/icount/scx_icount.so,dir=DIR[,percpu=on] ...
 *
 * Every translated block gets a record (start address, instruction count)
 * and, on every execution, its instruction count is added to the record's
 * 64-bit counter by an inline add that TCG emits in front of the block.
 * thread=single runs every vCPU on one host thread, so the plain (not
 * atomic) inline add is exact. With percpu=on the add is a callback instead,
 * which also knows the vCPU (slower; up to ICOUNT_MAXV vCPUs are told apart,
 * higher ones count as the last).
 *
 * The marker is `nopl DISP32(%rax)`, bytes 0f 1f 80 + DISP32 little endian,
 * with DISP32 = 0x5c1c0000 | kind << 12 | n (bench/icount/scx_mark.c):
 *   kind 1  start:  remember every counter (the window's start)
 *   kind 2  stop n: write DIR/icount-<n>.txt, the counts since the last start
 *   kind 3  snap n: write DIR/icount-<n>.txt, the counts since boot
 * Blocks are found at translation time, so no compiler-made NOP can match.
 *
 * Output, one text file per marker: '#' header lines, then
 *   total <instructions> [<vcpu0> <vcpu1> ...]
 *   user  <instructions> [...]       every block below the kernel half
 *   <hex start address> <insns in block> <instructions> [...]
 * one line per kernel block that ran in the window (a block translated more
 * than once appears once per translation: the symboliser adds them).
 *
 * The API functions used are declared here: Debian ships no qemu-plugin.h.
 */
#include <errno.h>
#include <stdarg.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define EXPORT __attribute__((visibility("default")))

/* --- the part of QEMU's plugin API (version 1) this plugin calls --------- */
typedef uint64_t qemu_plugin_id_t;
struct qemu_plugin_tb;
struct qemu_plugin_insn;
struct qemu_info_t;
enum qemu_plugin_cb_flags { CB_NO_REGS = 0 };
enum qemu_plugin_op { INLINE_ADD_U64 = 0 };
typedef void (*tb_trans_cb_t)(qemu_plugin_id_t id, struct qemu_plugin_tb *tb);
typedef void (*vcpu_udata_cb_t)(unsigned int vcpu_index, void *userdata);
typedef void (*udata_cb_t)(qemu_plugin_id_t id, void *userdata);

void qemu_plugin_register_vcpu_tb_trans_cb(qemu_plugin_id_t id, tb_trans_cb_t cb);
void qemu_plugin_register_vcpu_tb_exec_cb(struct qemu_plugin_tb *tb, vcpu_udata_cb_t cb,
					  enum qemu_plugin_cb_flags flags, void *userdata);
void qemu_plugin_register_vcpu_tb_exec_inline(struct qemu_plugin_tb *tb,
					      enum qemu_plugin_op op, void *ptr, uint64_t imm);
void qemu_plugin_register_vcpu_insn_exec_cb(struct qemu_plugin_insn *insn, vcpu_udata_cb_t cb,
					    enum qemu_plugin_cb_flags flags, void *userdata);
void qemu_plugin_register_atexit_cb(qemu_plugin_id_t id, udata_cb_t cb, void *userdata);
size_t qemu_plugin_tb_n_insns(const struct qemu_plugin_tb *tb);
uint64_t qemu_plugin_tb_vaddr(const struct qemu_plugin_tb *tb);
struct qemu_plugin_insn *qemu_plugin_tb_get_insn(const struct qemu_plugin_tb *tb, size_t idx);
const void *qemu_plugin_insn_data(const struct qemu_plugin_insn *insn);
size_t qemu_plugin_insn_size(const struct qemu_plugin_insn *insn);
void qemu_plugin_outs(const char *string);

EXPORT int qemu_plugin_version = 1;

/* --- records ---------------------------------------------------------------- */
#define ICOUNT_MAXV 4
#define MARK_MAGIC 0x5c1c0000u
#define KERNEL_HALF 0xffff800000000000ull
#define CHUNK 65536

struct rec {
	uint64_t vaddr;
	uint64_t count;		/* instructions executed in this block since boot */
	uint64_t base;		/* count at the last start marker */
	uint32_t n;		/* instructions in the block */
	uint32_t user;
	uint64_t vc[ICOUNT_MAXV];	/* percpu=on: per vCPU */
	uint64_t vbase[ICOUNT_MAXV];
};

static struct rec **chunks;
static size_t nchunks, nrecs;
static char outdir[512] = ".";
static bool percpu;
static uint64_t markers, files;

static struct rec *rec_new(void)
{
	if (nrecs == nchunks * CHUNK) {
		struct rec **c = realloc(chunks, (nchunks + 1) * sizeof(*c));
		if (!c)
			return NULL;
		chunks = c;
		chunks[nchunks] = calloc(CHUNK, sizeof(struct rec));
		if (!chunks[nchunks])
			return NULL;
		nchunks++;
	}
	struct rec *r = &chunks[nrecs / CHUNK][nrecs % CHUNK];
	nrecs++;
	return r;
}

#define FOR_EACH_REC(r)                                                      \
	for (size_t _i = 0; _i < nrecs; _i++)                                \
		for (struct rec *r = &chunks[_i / CHUNK][_i % CHUNK]; r; r = NULL)

/* --- output -------------------------------------------------------------------- */
static void say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void say(const char *fmt, ...)
{
	char buf[600];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	qemu_plugin_outs(buf);
}

static void write_counts(unsigned int n, bool window, unsigned int vcpu)
{
	char path[600];
	uint64_t tot = 0, usr = 0, vt[ICOUNT_MAXV] = { 0 }, vu[ICOUNT_MAXV] = { 0 };
	int nv = percpu ? ICOUNT_MAXV : 0;

	snprintf(path, sizeof(path), "%s/icount-%u.txt", outdir, n);
	FILE *f = fopen(path, "w");
	if (!f) {
		say("scx_icount: cannot write %s: %s\n", path, strerror(errno));
		return;
	}
	FOR_EACH_REC(r) {
		uint64_t d = r->count - (window ? r->base : 0);
		tot += d;
		if (r->user)
			usr += d;
		for (int v = 0; v < nv; v++) {
			uint64_t dv = r->vc[v] - (window ? r->vbase[v] : 0);
			vt[v] += dv;
			if (r->user)
				vu[v] += dv;
		}
	}
	fprintf(f, "# scx_icount %s %u (marker on vCPU %u), %zu blocks translated, percpu %s\n",
		window ? "window" : "snapshot", n, vcpu, nrecs, percpu ? "on" : "off");
	fprintf(f, "total %" PRIu64, tot);
	for (int v = 0; v < nv; v++)
		fprintf(f, " %" PRIu64, vt[v]);
	fprintf(f, "\nuser %" PRIu64, usr);
	for (int v = 0; v < nv; v++)
		fprintf(f, " %" PRIu64, vu[v]);
	fputc('\n', f);
	FOR_EACH_REC(r) {
		uint64_t d = r->count - (window ? r->base : 0);
		if (r->user || !d)
			continue;
		fprintf(f, "%" PRIx64 " %u %" PRIu64, r->vaddr, r->n, d);
		for (int v = 0; v < nv; v++)
			fprintf(f, " %" PRIu64, r->vc[v] - (window ? r->vbase[v] : 0));
		fputc('\n', f);
	}
	if (fclose(f))
		say("scx_icount: error writing %s\n", path);
	files++;
}

/* --- callbacks ---------------------------------------------------------------- */
static void on_marker(unsigned int vcpu, void *udata)
{
	uint32_t code = (uint32_t)(uintptr_t)udata;
	unsigned int kind = (code >> 12) & 0xf, n = code & 0xfff;

	markers++;
	switch (kind) {
	case 1:
		FOR_EACH_REC(r) {
			r->base = r->count;
			memcpy(r->vbase, r->vc, sizeof(r->vc));
		}
		break;
	case 2:
		write_counts(n, true, vcpu);
		break;
	case 3:
		write_counts(n, false, vcpu);
		break;
	default:
		say("scx_icount: unknown marker kind %u (code %08x)\n", kind, code);
	}
}

static void on_block_percpu(unsigned int vcpu, void *udata)
{
	struct rec *r = udata;

	r->count += r->n;
	r->vc[vcpu < ICOUNT_MAXV ? vcpu : ICOUNT_MAXV - 1] += r->n;
}

static void on_translate(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
	size_t n = qemu_plugin_tb_n_insns(tb);
	struct rec *r = rec_new();

	(void)id;
	if (!r) {
		say("scx_icount: out of memory after %zu blocks\n", nrecs);
		abort();
	}
	r->vaddr = qemu_plugin_tb_vaddr(tb);
	r->n = (uint32_t)n;
	r->user = r->vaddr < KERNEL_HALF;
	if (percpu)
		qemu_plugin_register_vcpu_tb_exec_cb(tb, on_block_percpu, CB_NO_REGS, r);
	else
		qemu_plugin_register_vcpu_tb_exec_inline(tb, INLINE_ADD_U64, &r->count, n);

	for (size_t i = 0; i < n; i++) {
		struct qemu_plugin_insn *insn = qemu_plugin_tb_get_insn(tb, i);
		const uint8_t *b;
		uint32_t disp;

		if (qemu_plugin_insn_size(insn) != 7)
			continue;
		b = qemu_plugin_insn_data(insn);
		if (b[0] != 0x0f || b[1] != 0x1f || b[2] != 0x80)
			continue;
		disp = (uint32_t)b[3] | (uint32_t)b[4] << 8 | (uint32_t)b[5] << 16 | (uint32_t)b[6] << 24;
		if ((disp & 0xffff0000u) != MARK_MAGIC)
			continue;
		qemu_plugin_register_vcpu_insn_exec_cb(insn, on_marker, CB_NO_REGS,
						       (void *)(uintptr_t)disp);
	}
}

static void icount_exit(qemu_plugin_id_t id, void *udata)
{
	(void)id;
	(void)udata;
	say("scx_icount: %zu blocks translated, %" PRIu64 " markers, %" PRIu64 " files written to %s\n",
	    nrecs, markers, files, outdir);
}

EXPORT int qemu_plugin_install(qemu_plugin_id_t id, const struct qemu_info_t *info,
			       int argc, char **argv)
{
	(void)info;
	for (int i = 0; i < argc; i++) {
		const char *a = argv[i];

		if (!strncmp(a, "dir=", 4) && strlen(a + 4) < sizeof(outdir)) {
			strcpy(outdir, a + 4);
		} else if (!strcmp(a, "percpu=on")) {
			percpu = true;
		} else if (!strcmp(a, "percpu=off")) {
			percpu = false;
		} else {
			say("scx_icount: unknown argument '%s' (dir=DIR, percpu=on|off)\n", a);
			return -1;
		}
	}
	qemu_plugin_register_vcpu_tb_trans_cb(id, on_translate);
	qemu_plugin_register_atexit_cb(id, icount_exit, NULL);
	say("scx_icount: counting per translation block (%s), output in %s\n",
	    percpu ? "callback per block, per vCPU" : "inline add", outdir);
	return 0;
}
