// SPDX-License-Identifier: GPL-2.0
/*
 * `kvmwalk top`: attaches, then reads the maps every interval and shows the change through the
 * top view (top.c, which is pure): here the terminal (its modes, the alternate screen, the keys'
 * timing, Ctrl-Z and resizes) and the lines for a pipe. A command, the top layer.
 */
#include <argp.h>
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "commands.h"
#include "clock.h"
#include "cmd_common.h"
#include "loader.h"
#include "probe_opts.h"
#include "record.h"
#include "top.h"

enum {
	OPT_TOP_FILTER = 1100, /* top's own, parsed by parse_top */
};

struct top_args {
	struct cmd_common c; /* first: cmd_parse_common reads state->input as a struct cmd_common */
	char filter[KW_TOP_FILTER_LEN];
};

static error_t parse_top(int key, char *arg, struct argp_state *state)
{
	struct top_args *t = state->input;

	switch (key) {
	case OPT_TOP_FILTER:
		if (strlen(arg) >= sizeof(t->filter))
			argp_error(state, "--filter: at most %zu characters",
				   sizeof(t->filter) - 1);
		snprintf(t->filter, sizeof(t->filter), "%s", arg);
		return 0;
	case ARGP_KEY_END:
		if (t->c.once && t->c.duration)
			argp_error(state, "--once or --duration, not both");
		break;
	}
	return cmd_parse_common(key, arg, state);
}

static const struct argp_option top_options[] = {
	{ .name = "interval", .key = 'i', .arg = "SECS",
	  .doc = "refresh every SECS seconds (default 2; + and - change it live, from 0.1 to 60)" },
	{ .name = "once", .key = OPT_ONCE,
	  .doc = "print the table of one interval and exit (no escapes, no keys; the table "
		 "also into a pipe)" },
	{ .name = "duration", .key = 'd', .arg = "SECS", .doc = "stop after SECS seconds" },
	{ .name = "filter", .key = OPT_TOP_FILTER, .arg = "TEXT",
	  .doc = "only the probes whose name contains TEXT (any case); the f key changes it" },
	{},
};

static const struct argp top_argp = {
	.options = top_options,
	.parser = parse_top,
	.children = kw_probe_children,
	.doc = "Live per-probe call rates, totals and latencies, refreshed every interval, like "
	       "kvm_stat. On a terminal, a full-screen table: per probe the calls/s over the "
	       "interval, the total calls since top started, the interval's mean, p50 and p99, and "
	       "the maximum since the start. Nothing stays attached after it ends, and the "
	       "terminal's settings are restored however it ends (q, Ctrl-C, SIGTERM, a "
	       "hangup).\n\n"
	       "Keys, read without Enter when stdin is a terminal:\n"
	       "  q    quit (exit status 0, as Ctrl-C)\n"
	       "  s    sort by the next column: calls/s (the default), total, mean, p50,\n"
	       "       p99, max, function; the header names it and marks its heading *\n"
	       "  v    rows per VM and back: each process the probes' trigger rows attribute\n"
	       "       work to, named by its VM (QEMU's -name, libvirt's scope), else its\n"
	       "       comm, else its pid (\"exited\": processes that ended meanwhile), with\n"
	       "       calls/s, total, probe time per second, mean and total time, then the\n"
	       "       same for each of its probes (sorts by calls/s, total, mean, name)\n"
	       "  f    filter by probe name: type part of a name (any case) on the bottom\n"
	       "       line; Enter applies it, an empty one clears it, Esc cancels\n"
	       "  + -  a longer or shorter interval: 0.1, 0.2, 0.5, 1, 2, 5, 10, 30, 60 s\n"
	       "       (the header shows it, and (min) or (max) at the bounds)\n\n"
	       "When stdout is not a terminal (a pipe, a file), no escapes: as kvm_stat -l, one "
	       "heading line, then per interval one line per attached probe, in the catalogue's "
	       "order, as these two (in aligned columns):\n\n"
	       "  t probe calls/s total mean_ns p50_ns p99_ns max_ns\n\n"
	       "  2.00 kvm_vm_ioctl 4786.9 9574 200170 1452 7295229 12567476\n\n"
	       "t: the seconds since the start at the end of the interval; total: the calls "
	       "since the start; times: the interval's, in ns (max: since the start; - when the "
	       "interval had no timed call). With these lines only q, + and - are read."
	       "\vExamples:\n"
	       "  kvmwalk top\n"
	       "  kvmwalk top --once --interval 5\n"
	       "  kvmwalk top -i 1 -d 600 --filter ioctl > top.log\n"
	       "  kvmwalk top --pid \"$(pidof qemu-system-x86_64)\"\n\n"
	       "Exit status: 0 (q, Ctrl-C, --duration, the reader of a pipe gone); 1 error; 2 "
	       "usage (a bad option value, a --pid that does not exist); " KW_EXIT_STATUS_PROBES,
};

static volatile sig_atomic_t top_winch, top_tstp;

static void on_top_signal(int sig)
{
	if (sig == SIGWINCH)
		top_winch = 1;
	else
		top_tstp = 1;
}

/* What top did to the terminal, undone by top_term_restore() on every way out. */
static struct termios top_saved;
static bool top_cbreak, top_screen;

static void top_term_restore(void)
{
	if (top_screen) {
		/* the cursor back, and the screen that was there before top */
		fputs("\033[?25h\033[?1049l", stdout);
		fflush(stdout);
		top_screen = false;
	}
	if (top_cbreak) {
		tcsetattr(STDIN_FILENO, TCSANOW, &top_saved);
		top_cbreak = false;
	}
}

/* Keys without Enter: no canonical mode, no echo. Signals (Ctrl-C) stay on. */
static int top_term_setup(bool keys, bool screen)
{
	struct termios t;

	if (keys) {
		if (tcgetattr(STDIN_FILENO, &top_saved))
			return -errno;
		t = top_saved;
		t.c_lflag &= ~(ICANON | ECHO);
		t.c_cc[VMIN] = 1;
		t.c_cc[VTIME] = 0;
		if (tcsetattr(STDIN_FILENO, TCSANOW, &t))
			return -errno;
		top_cbreak = true;
	}
	if (screen) {
		fputs("\033[?1049h\033[?25l", stdout);
		top_screen = true;
	}
	return 0;
}

/*
 * One screen, over the last: each line cleared to its end, cut to the terminal's width, then
 * everything below cleared, in one write (stdout is fully buffered): no flicker.
 */
static void top_paint(const char *buf, int cols)
{
	fputs("\033[H", stdout);
	while (*buf) {
		size_t n = strcspn(buf, "\n");

		fwrite(buf, 1, cols > 0 && n > (size_t)cols ? (size_t)cols : n, stdout);
		fputs("\033[K", stdout);
		if (buf[n] == '\n')
			fputc('\n', stdout);
		buf += n + (buf[n] == '\n');
	}
	fputs("\033[J", stdout);
}

static int top_draw(const struct kw_recording *prev, const struct kw_recording *cur, double secs,
		    struct kw_top_view *v, bool screen)
{
	struct winsize ws = {};
	char *buf = NULL;
	size_t len = 0;
	FILE *m;
	int ret;

	if (!screen) {
		ret = kw_top_render(stdout, prev, cur, secs, v);
		return ret ?: fflush(stdout) ? -errno : 0;
	}
	if (!ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) && ws.ws_row)
		v->rows = ws.ws_row;
	m = open_memstream(&buf, &len);
	if (!m)
		return -ENOMEM;
	ret = kw_top_render(m, prev, cur, secs, v);
	if (fclose(m) && !ret)
		ret = -ENOMEM;
	if (!ret)
		top_paint(buf, ws.ws_col);
	free(buf);
	return ret ?: fflush(stdout) ? -errno : 0;
}

/* When the next interval ends: iv after from, or at the end of --duration. */
static double top_due(double from, double iv, const struct cmd_common *c, double start)
{
	return c->duration && from + iv > start + c->duration ? start + c->duration : from + iv;
}

int top_main(int argc, char **argv)
{
	struct top_args a = { .c = { .interval = 2 } };
	struct cmd_common *c = &a.c;
	struct kw_recording prev = {}, cur = {}, next = {};
	struct kw_top_view v = {};
	struct sigaction sa = { .sa_handler = on_top_signal };
	struct loader *l;
	bool screen, keys, lines, quit = false, have_prev = false;
	double start, last, due, secs;
	int code, ret = 0, err = 0;

	argp_parse(&top_argp, argc, argv, ARGP_IN_ORDER, NULL, &a);
	if (cmd_args_only())
		return 0;
	cmd_install_signals();
	/* the reader of the log lines may go (| head): a failed write ends top, not SIGPIPE */
	signal(SIGPIPE, SIG_IGN);
	l = loader__open(&c->lo, &code);
	if (!l)
		return code;
	screen = !c->once && isatty(STDOUT_FILENO);
	lines = !c->once && !screen;
	/* a background `kvmwalk top &` must not take the terminal's keys (nor stop on SIGTTOU) */
	keys = !c->once && isatty(STDIN_FILENO) && tcgetpgrp(STDIN_FILENO) == getpgrp();
	v.interval = c->interval;
	v.keys = screen && keys;
	snprintf(v.filter, sizeof(v.filter), "%s", a.filter);
	if (screen)
		setvbuf(stdout, NULL, _IOFBF, 1 << 16);
	sigemptyset(&sa.sa_mask);
	sigaction(SIGWINCH, &sa, NULL);
	if (keys || screen)
		sigaction(SIGTSTP, &sa, NULL);
	atexit(top_term_restore);
	if ((err = top_term_setup(keys, screen))) {
		fprintf(stderr, "kvmwalk: cannot set up the terminal: %s\n", strerror(-err));
		err = 0;
		keys = v.keys = false;
	}

	/* the start: every later interval is the change from the snapshot before it */
	if (loader__collect(l, &cur)) {
		ret = KW_EXIT_ERROR;
		goto cleanup;
	}
	loader__meta(NULL, &cur.meta);
	start = last = kw_mono_s();
	due = top_due(start, c->interval, c, start);
	secs = c->interval;
	if (screen)
		err = top_draw(&cur, &cur, secs, &v, screen);
	else if (lines)
		err = kw_top_lines_header(stdout, &cur) ?: fflush(stdout) ? -errno : 0;
	while (!cmd_got_signal && !quit && !err) {
		double t = kw_mono_s();
		bool redraw = false;

		if (t >= due) {
			if (loader__collect(l, &next)) {
				ret = KW_EXIT_ERROR;
				break;
			}
			loader__meta(NULL, &next.meta);
			kw_recording_free(&prev);
			prev = cur;
			cur = next;
			memset(&next, 0, sizeof(next));
			have_prev = true;
			secs = t - last;
			last = t;
			/* on the grid of the start, unless top fell a whole interval behind */
			due = top_due(due + v.interval > t ? due : t, v.interval, c, start);
			if (lines)
				err = kw_top_lines(stdout, &prev, &cur, secs, t - start, &v) ?:
				      fflush(stdout) ? -errno : 0;
			else
				err = top_draw(&prev, &cur, secs, &v, screen);
			if (c->once || (c->duration && t - start >= c->duration - 1e-3))
				break;
			continue;
		}
		if (top_tstp) {
			/* Ctrl-Z: the shell gets its terminal back as it was; top goes on after fg */
			top_tstp = 0;
			top_term_restore();
			signal(SIGTSTP, SIG_DFL);
			raise(SIGTSTP);
			sigaction(SIGTSTP, &sa, NULL);
			top_term_setup(keys, screen);
			redraw = true;
		}
		if (top_winch) {
			top_winch = 0;
			redraw = true;
		}
		if (keys) {
			struct pollfd pfd = { .fd = STDIN_FILENO, .events = POLLIN };
			double wait = due - t < 0.25 ? due - t : 0.25;
			unsigned char buf[64];
			ssize_t n = 0;

			if (!redraw && poll(&pfd, 1, (int)(wait * 1000) + 1) > 0)
				n = read(STDIN_FILENO, buf, sizeof(buf));
			/* the terminal went (a hangup, EIO): the keys with it, not a busy loop */
			if ((n == 0 && pfd.revents & (POLLHUP | POLLERR | POLLNVAL)) ||
			    (n < 0 && errno != EINTR && errno != EAGAIN))
				keys = v.keys = false;
			for (ssize_t i = 0; i < n && !quit; i++) {
				/* the log lines have no prompt, no sort, no VM view */
				if (lines && (!buf[i] || !strchr("qQ+=-", buf[i])))
					continue;
				switch (kw_top_key(&v, buf[i])) {
				case KW_TOP_QUIT:
					quit = true;
					break;
				case KW_TOP_INTERVAL:
					due = top_due(last, v.interval, c, start);
					redraw = true;
					break;
				case KW_TOP_REDRAW:
					redraw = true;
					break;
				case KW_TOP_NONE:
					break;
				}
			}
		} else if (!redraw) {
			double w = due - t < 0.05 ? due - t : 0.05;

			loader__poll(l, w > 0 ? (int)(w * 1000) + 1 : 0);
		}
		/* with keys the wait was on stdin: the loader's events (names, --vm) now */
		if (keys)
			loader__poll(l, 0);
		if (redraw && screen && !quit)
			err = top_draw(have_prev ? &prev : &cur, &cur, secs, &v, screen);
	}
	/* the reader of the lines went away (| head): that is the end, not an error */
	if (err && err != -EPIPE) {
		fprintf(stderr, "kvmwalk: writing the table: %s\n", strerror(-err));
		ret = KW_EXIT_ERROR;
	}
cleanup:
	top_term_restore();
	loader__destroy(l);
	kw_recording_free(&prev);
	kw_recording_free(&cur);
	kw_recording_free(&next);
	return ret;
}
