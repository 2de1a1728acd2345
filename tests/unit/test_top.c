// SPDX-License-Identifier: GPL-2.0
/*
 * `kvmwalk top`: the screen (each sort column, the per-VM view, the filter and its prompt, a
 * short terminal) and the log lines, byte for byte between two snapshots; the keys.
 */
#include <stdlib.h>

#include "test.h"
#include "top.h"

/*
 * Two snapshots 2 s apart: cur is the split fixture, with the identities of its two processes
 * (116 a QEMU named src, 51 a process without a VM name) and an exited process's row; prev is
 * the same host earlier, with part of each count.
 */
static void snapshots(struct kw_recording *prev, struct kw_recording *cur)
{
	static const struct kw_vm src = { .pid = 116, .comm = "qemu-system-aar", .vm = "src",
					   .source = "cmdline" };
	static const struct kw_vm other = { .pid = 51, .comm = "kvmwalk-load" };
	/* pid 0: the rows of processes that exited meanwhile (new since prev) */
	static const struct kw_trig exited = { KW_P_VM_IOCTL, KW_T_IOCTL, 0xae03, 0, 5, 2500000,
						"", KW_MS_NONE };

	kw_test_recording_fixture(cur);
	kw_recording_add_vm(cur, &src);
	kw_recording_add_vm(cur, &other);
	kw_recording_add_trig(cur, &exited);
	kw_recording_sort(cur);
	kw_test_recording_fixture(prev);
	memset(&prev->funcs[KW_P_PGT_WALK].dur, 0, sizeof(struct kw_hist));
	for (int i = 0; i < 4000; i++)
		kw_hist_add(&prev->funcs[KW_P_PGT_WALK].dur, 3000 + (i % 100) * 50);
	prev->funcs[KW_P_PGT_WALK].calls = 4000;
	memset(&prev->funcs[KW_P_S2_SPLIT].dur, 0, sizeof(struct kw_hist));
	for (int i = 0; i < 8; i++)
		kw_hist_add(&prev->funcs[KW_P_S2_SPLIT].dur, 874000 + i * 10000);
	prev->funcs[KW_P_S2_SPLIT].calls = 8;
	prev->funcs[KW_P_SPLIT_WALKER].calls = 4104;
	prev->funcs[KW_P_UNMAP_WALKER].calls = 0;
	prev->funcs[KW_P_S2_UNMAP].calls = 0;
	memset(&prev->funcs[KW_P_S2_UNMAP].dur, 0, sizeof(struct kw_hist));
	prev->funcs[KW_P_TLB_FLUSH_RANGE].calls = 0;
	memset(&prev->funcs[KW_P_TLB_FLUSH_RANGE].dur, 0, sizeof(struct kw_hist));
	prev->funcs[KW_P_VM_IOCTL].calls = 9;
	memset(&prev->funcs[KW_P_VM_IOCTL].dur, 0, sizeof(struct kw_hist));
	prev->counters[KW_C_UNMAP_CALLS] = 0;
	for (size_t i = 0; i < prev->ntrigs; i++) {
		struct kw_trig *t = &prev->trigs[i];

		if (t->probe == KW_P_S2_SPLIT) {
			t->calls = 8;
			t->ns = 10050000;
		} else if (t->probe == KW_P_PGT_WALK && t->pid == 116) {
			t->calls = 4000;
			t->ns = 29000000;
		} else if (t->probe == KW_P_S2_UNMAP) {
			t->calls = 0;
			t->ns = 0;
		}
	}
}

static bool no_escapes(const char *buf, size_t len)
{
	return !memchr(buf, '\033', len);
}

/* One golden file of several screens, each after a "==== what" line. */
struct shots {
	char *buf;
	size_t len;
	FILE *f;
};

static void shot(struct shots *s, const char *what, const struct kw_recording *prev,
		 const struct kw_recording *cur, const struct kw_top_view *v)
{
	fprintf(s->f, "==== %s\n", what);
	ASSERT_EQ(kw_top_render(s->f, prev, cur, 2, v), 0, what);
}

static void check(struct shots *s, const char *golden, bool width)
{
	fclose(s->f);
	ASSERT_GOLDEN(s->buf, s->len, golden);
	ASSERT_TRUE(no_escapes(s->buf, s->len), golden);
	if (width)
		ASSERT_TRUE(kw_test_fits(s->buf, 80), golden);
	free(s->buf);
	memset(s, 0, sizeof(*s));
}

static bool open_shots(struct shots *s)
{
	memset(s, 0, sizeof(*s));
	s->f = open_memstream(&s->buf, &s->len);
	return ASSERT_TRUE(s->f, "open_memstream");
}

static void keys(void)
{
	struct kw_top_view v = { .interval = 2 };
	static const enum kw_top_col cycle[] = { KW_TOP_TOTAL, KW_TOP_MEAN, KW_TOP_P50, KW_TOP_P99,
						 KW_TOP_MAX,   KW_TOP_NAME, KW_TOP_RATE };
	const char *typed = "Wa";

	for (size_t i = 0; i < sizeof(cycle) / sizeof(cycle[0]); i++) {
		ASSERT_EQ(kw_top_key(&v, 's'), KW_TOP_REDRAW, "s");
		ASSERT_EQ(v.sort, cycle[i], kw_top_col_name(cycle[i]));
	}
	/* the per-VM view has no histograms: s skips p50, p99 and max there */
	ASSERT_EQ(kw_top_key(&v, 'v'), KW_TOP_REDRAW, "v");
	ASSERT_TRUE(v.per_vm, "v: per VM");
	kw_top_key(&v, 's');
	kw_top_key(&v, 's');
	ASSERT_EQ(v.sort, KW_TOP_MEAN, "per VM: s to mean");
	kw_top_key(&v, 's');
	ASSERT_EQ(v.sort, KW_TOP_NAME, "per VM: s from mean to name");
	kw_top_key(&v, 'v');
	ASSERT_FALSE(v.per_vm, "v again: per function");

	ASSERT_EQ(kw_top_key(&v, 'f'), KW_TOP_REDRAW, "f");
	ASSERT_TRUE(v.prompt, "f opens the prompt");
	for (const char *p = typed; *p; p++)
		kw_top_key(&v, *p);
	ASSERT_EQ(kw_top_key(&v, 'q'), KW_TOP_REDRAW, "q at the prompt is text");
	ASSERT_EQ(kw_top_key(&v, 127), KW_TOP_REDRAW, "backspace");
	ASSERT_EQ(kw_top_key(&v, 'l'), KW_TOP_REDRAW, "l");
	ASSERT_STREQ(v.input, "Wal", "typed, less one");
	ASSERT_STREQ(v.filter, "", "not applied before Enter");
	ASSERT_EQ(kw_top_key(&v, '\r'), KW_TOP_REDRAW, "Enter");
	ASSERT_FALSE(v.prompt, "Enter closes the prompt");
	ASSERT_STREQ(v.filter, "Wal", "Enter applies");
	kw_top_key(&v, 'f');
	ASSERT_STREQ(v.input, "", "the prompt starts empty");
	kw_top_key(&v, 'x');
	ASSERT_EQ(kw_top_key(&v, 27), KW_TOP_REDRAW, "Esc");
	ASSERT_STREQ(v.filter, "Wal", "Esc keeps the filter");
	kw_top_key(&v, 'f');
	kw_top_key(&v, 'x');
	kw_top_key(&v, 'y');
	kw_top_key(&v, 21);
	ASSERT_STREQ(v.input, "", "Ctrl-U");
	kw_top_key(&v, '\n');
	ASSERT_STREQ(v.filter, "", "an empty filter clears it");
	ASSERT_EQ(kw_top_key(&v, 1), KW_TOP_NONE, "an unbound key");

	ASSERT_EQ(kw_top_key(&v, '+'), KW_TOP_INTERVAL, "+");
	ASSERT_NEAR(v.interval, 5, 1e-9, "+: 2 -> 5");
	kw_top_key(&v, '-');
	kw_top_key(&v, '-');
	ASSERT_NEAR(v.interval, 1, 1e-9, "- -: 5 -> 1");
	for (int i = 0; i < 20; i++)
		kw_top_key(&v, '-');
	ASSERT_NEAR(v.interval, KW_TOP_MIN_INTERVAL, 1e-9, "- stops at the minimum");
	ASSERT_EQ(kw_top_key(&v, '-'), KW_TOP_NONE, "- at the minimum");
	for (int i = 0; i < 20; i++)
		kw_top_key(&v, '=');
	ASSERT_NEAR(v.interval, KW_TOP_MAX_INTERVAL, 1e-9, "= (+) stops at the maximum");
	ASSERT_EQ(kw_top_key(&v, 'q'), KW_TOP_QUIT, "q");

	/* an -i between the steps, or out of them */
	ASSERT_NEAR(kw_top_interval_step(0.3, 1), 0.5, 1e-9, "0.3 up");
	ASSERT_NEAR(kw_top_interval_step(0.3, -1), 0.2, 1e-9, "0.3 down");
	ASSERT_NEAR(kw_top_interval_step(0.01, 1), 0.1, 1e-9, "0.01 up");
	ASSERT_NEAR(kw_top_interval_step(0.01, -1), 0.01, 1e-9, "0.01 down: stays");
	ASSERT_NEAR(kw_top_interval_step(600, -1), 60, 1e-9, "600 down");
	ASSERT_NEAR(kw_top_interval_step(600, 1), 600, 1e-9, "600 up: stays");
}

void test_top(void)
{
	struct kw_recording prev, cur;
	struct kw_top_view v = { .interval = 2, .keys = true };
	struct shots s;
	char what[64];

	keys();
	snapshots(&prev, &cur);

	if (open_shots(&s)) {
		for (int c = 0; c < KW_NR_TOP_COLS; c++) {
			v.sort = c;
			snprintf(what, sizeof(what), "sort %s", kw_top_col_name(c));
			shot(&s, what, &prev, &cur, &v);
		}
		check(&s, "top-sort.txt", true);
	}

	v.sort = KW_TOP_RATE;
	v.per_vm = true;
	if (open_shots(&s)) {
		shot(&s, "by VM, sort calls/s", &prev, &cur, &v);
		v.sort = KW_TOP_NAME;
		shot(&s, "by VM, sort function (name)", &prev, &cur, &v);
		v.sort = KW_TOP_P99;
		shot(&s, "by VM, sort p99: not in this view, so calls/s", &prev, &cur, &v);
		v.sort = KW_TOP_RATE;
		shot(&s, "by VM, since the start (no previous snapshot)", NULL, &cur, &v);
		shot(&s, "by VM, the first screen (prev = cur)", &cur, &cur, &v);
		check(&s, "top-vm.txt", true);
	}

	v.per_vm = false;
	if (open_shots(&s)) {
		v.prompt = true;
		snprintf(v.input, sizeof(v.input), "spl");
		shot(&s, "f, then spl typed: the prompt", &prev, &cur, &v);
		v.prompt = false;
		snprintf(v.filter, sizeof(v.filter), "SPLIT");
		shot(&s, "filter SPLIT (any case)", &prev, &cur, &v);
		v.per_vm = true;
		snprintf(v.filter, sizeof(v.filter), "walk");
		shot(&s, "filter walk, by VM", &prev, &cur, &v);
		v.per_vm = false;
		snprintf(v.filter, sizeof(v.filter), "nothing-matches");
		shot(&s, "filter that matches nothing", &prev, &cur, &v);
		v.per_vm = true;
		shot(&s, "filter that matches nothing, by VM", &prev, &cur, &v);
		v.per_vm = false;
		v.filter[0] = '\0';
		v.rows = 12;
		v.interval = 60;
		shot(&s, "a 12-line terminal, interval at its maximum", &prev, &cur, &v);
		fputc('\n', s.f);
		v.rows = 24;
		v.interval = 0.1;
		shot(&s, "a 24-line terminal: padded, no newline after the key line", &prev, &cur,
		     &v);
		fputc('\n', s.f);
		v.rows = 0;
		v.keys = false;
		v.interval = 0;
		shot(&s, "--once: no key line, the measured interval", &prev, &cur, &v);
		check(&s, "top-filter.txt", true);
	}

	if (open_shots(&s)) {
		struct kw_top_view lv = {};

		ASSERT_EQ(kw_top_lines_header(s.f, &cur), 0, "lines header");
		ASSERT_EQ(kw_top_lines(s.f, NULL, &prev, 2, 2, &lv), 0, "lines 1");
		ASSERT_EQ(kw_top_lines(s.f, &prev, &cur, 2, 4, &lv), 0, "lines 2");
		snprintf(lv.filter, sizeof(lv.filter), "split");
		ASSERT_EQ(kw_top_lines(s.f, &cur, &cur, 0.5, 4.5, &lv), 0, "lines 3, filtered");
		check(&s, "top-lines.txt", false);
	}
	kw_recording_free(&prev);
	kw_recording_free(&cur);
}
