// SPDX-License-Identifier: GPL-2.0
/*
 * Layer: helpers. The recorded command's own phase times (workload.h): kvmwalk-load's --json
 * document or a KVM selftest's printed times, parsed into phases, and their JSON in a recording.
 */
#include <ctype.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "workload.h"

void kw_workload_free(struct kw_workload *w)
{
	if (!w)
		return;
	free(w->phases);
	memset(w, 0, sizeof(*w));
}

static int add_phase(struct kw_workload *w, const char *scenario, const char *phase,
		     unsigned int iteration, uint64_t ns)
{
	struct kw_wl_phase *p;

	if (w->nphases >= KW_WL_MAX_PHASES)
		return 0;
	p = realloc(w->phases, (w->nphases + 1) * sizeof(*p));
	if (!p)
		return -ENOMEM;
	w->phases = p;
	p = &p[w->nphases++];
	snprintf(p->scenario, sizeof(p->scenario), "%s", scenario);
	snprintf(p->phase, sizeof(p->phase), "%s", phase);
	p->iteration = iteration;
	p->wall_ns = ns;
	return 0;
}

/* ---- kvmwalk-load --json ------------------------------------------------------------------ */

static int parse_load_json(struct kw_workload *w, json_t *root)
{
	json_t *o;
	size_t i;

	json_array_foreach(json_object_get(root, "phases"), i, o)
	{
		const char *sc = json_string_value(json_object_get(o, "scenario"));
		const char *ph = json_string_value(json_object_get(o, "phase"));
		json_int_t it = json_integer_value(json_object_get(o, "iteration"));
		json_int_t ns = json_integer_value(json_object_get(o, "wall_ns"));

		if (!ph || ns < 0 || it < 0)
			continue;
		if (add_phase(w, sc ?: "", ph, (unsigned int)it, (uint64_t)ns))
			return -ENOMEM;
	}
	snprintf(w->source, sizeof(w->source), "kvmwalk-load");
	return 0;
}

/* ---- the selftests' printed times --------------------------------------------------------- */

/*
 * A selftest's label (what is left of "Iteration N " and of " time") and the phase it is. The
 * names kvmwalk-load has for the same operation where there is one.
 */
static const struct {
	const char *label, *scenario, *phase;
} labels[] = {
	{ "Populate memory", "dirty_log_perf_test", "populate" },
	{ "Enabling dirty logging", "dirty_log_perf_test", "dirty-log-enable" },
	{ "dirty memory", "dirty_log_perf_test", "dirty-write" },
	{ "get dirty log", "dirty_log_perf_test", "dirty-log-get" },
	{ "clear dirty log", "dirty_log_perf_test", "dirty-log-clear" },
	{ "Disabling dirty logging", "dirty_log_perf_test", "dirty-log-disable" },
	{ "Populating memory", "access_tracking_perf_test", "populate" },
	{ "Re-populating memory", "access_tracking_perf_test", "repopulate" },
	{ "Writing to populated memory", "access_tracking_perf_test", "write-populated" },
	{ "Reading from populated memory", "access_tracking_perf_test", "read-populated" },
	{ "Mark memory idle (lru_gen)", "access_tracking_perf_test", "mark-idle" },
	{ "Mark memory idle (page_idle)", "access_tracking_perf_test", "mark-idle" },
	{ "Mark memory idle", "access_tracking_perf_test", "mark-idle" },
	{ "Writing to idle memory", "access_tracking_perf_test", "write-idle" },
	{ "Reading from idle memory", "access_tracking_perf_test", "read-idle" },
	{ "KVM_CREATE_MAPPINGS: total execution", "kvm_page_table_test", "create-mappings" },
	{ "KVM_UPDATE_MAPPINGS: total execution", "kvm_page_table_test", "update-mappings" },
	{ "KVM_ADJUST_MAPPINGS: total execution", "kvm_page_table_test", "adjust-mappings" },
};

/*
 * "LABEL: SECS.FRACs" (the selftests print the nanoseconds as 9 digits, "%ld.%.9lds"), blanks
 * around the colon allowed, nothing after the 's' but blanks. 0 with the label (trimmed) and
 * the time, else -1.
 */
static int time_line(const char *line, size_t len, char *label, size_t lablen, uint64_t *ns)
{
	size_t end = len, dot, digits, colon;
	uint64_t sec = 0, frac = 0;

	while (end && isspace((unsigned char)line[end - 1]))
		end--;
	if (!end || line[end - 1] != 's')
		return -1;
	end--;
	/* the fraction: 1 to 9 digits */
	for (digits = 0; end && isdigit((unsigned char)line[end - 1]) && digits < 10; digits++)
		end--;
	if (!digits || digits > 9 || !end || line[end - 1] != '.')
		return -1;
	dot = end - 1;
	for (size_t i = dot + 1; i < dot + 1 + digits; i++)
		frac = frac * 10 + (line[i] - '0');
	for (size_t i = digits; i < 9; i++)
		frac *= 10;
	end = dot;
	for (digits = 0; end && isdigit((unsigned char)line[end - 1]) && digits < 12; digits++)
		end--;
	if (!digits || digits > 11)
		return -1;
	for (size_t i = end; i < dot; i++)
		sec = sec * 10 + (line[i] - '0');
	while (end && line[end - 1] == ' ')
		end--;
	if (!end || line[end - 1] != ':')
		return -1;
	colon = end - 1;
	while (colon && isspace((unsigned char)line[colon - 1]))
		colon--;
	if (!colon || colon >= lablen)
		return -1;
	snprintf(label, lablen, "%.*s", (int)colon, line);
	*ns = sec * 1000000000ULL + frac;
	return 0;
}

/* "Writing to idle memory" -> "writing-to-idle-memory", at most KW_WL_NAME_LEN - 1 characters */
static void name_of(char *dst, const char *label)
{
	size_t n = 0;

	for (const char *p = label; *p && n < KW_WL_NAME_LEN - 1; p++) {
		if (isalnum((unsigned char)*p) || *p == '_')
			dst[n++] = tolower((unsigned char)*p);
		else if (n && dst[n - 1] != '-')
			dst[n++] = '-';
	}
	while (n && dst[n - 1] == '-')
		n--;
	dst[n] = 0;
}

static unsigned int repeats(const struct kw_workload *w, const char *scenario, const char *phase)
{
	unsigned int n = 0;

	for (size_t i = 0; i < w->nphases; i++)
		n += !strcmp(w->phases[i].scenario, scenario) && !strcmp(w->phases[i].phase, phase);
	return n;
}

static int parse_selftest(struct kw_workload *w, const char *text)
{
	const char *scenario = NULL;
	bool mixed = false;

	for (const char *line = text; *line;) {
		size_t len = strcspn(line, "\n"), k = 0;
		char label[128], name[KW_WL_NAME_LEN];
		const char *l = label, *sc = "selftest", *ph = name;
		unsigned int it = 0;
		bool iter = false;
		uint64_t ns;
		int n = 0;

		if (!time_line(line, len, label, sizeof(label), &ns)) {
			if (sscanf(label, "Iteration %u %n", &it, &n) == 1 && n) {
				l = label + n;
				iter = true;
			}
			/* "Enabling dirty logging time" */
			if (strlen(l) > 5 && !strcmp(l + strlen(l) - 5, " time"))
				label[strlen(label) - 5] = 0;
			while (k < sizeof(labels) / sizeof(*labels) && strcmp(labels[k].label, l))
				k++;
			if (k < sizeof(labels) / sizeof(*labels)) {
				sc = labels[k].scenario;
				ph = labels[k].phase;
			} else {
				name_of(name, l);
			}
			if (*ph) {
				if (!iter)
					it = repeats(w, sc, ph);
				if (add_phase(w, sc, ph, it, ns))
					return -ENOMEM;
				mixed |= scenario && strcmp(scenario, sc);
				scenario = scenario ?: sc;
			}
		}
		line += len + !!line[len];
	}
	if (scenario)
		snprintf(w->source, sizeof(w->source), "%s", mixed ? "selftest" : scenario);
	return 0;
}

int kw_workload_parse(struct kw_workload *w, const char *text, char *err, size_t errlen)
{
	json_t *root = NULL;
	int ret;

	memset(w, 0, sizeof(*w));
	text += strspn(text, " \t\r\n");
	if (*text == '{')
		root = json_loads(text, 0, NULL);
	if (root && json_is_string(json_object_get(root, "tool")) &&
	    !strcmp(json_string_value(json_object_get(root, "tool")), "kvmwalk-load"))
		ret = parse_load_json(w, root);
	else
		ret = parse_selftest(w, text);
	json_decref(root);
	if (ret) {
		kw_workload_free(w);
		snprintf(err, errlen, "out of memory");
		return ret;
	}
	if (!w->nphases) {
		kw_workload_free(w);
		snprintf(err, errlen,
			 "no phase times in it (neither a kvmwalk-load --json document nor "
			 "lines \"LABEL: SECS.NNNNNNNNNs\" of a KVM selftest)");
		return -ENOENT;
	}
	return 0;
}

/* ---- in a recording ----------------------------------------------------------------------- */

json_t *kw_workload_json(const struct kw_workload *w)
{
	json_t *o = json_object(), *a = json_array();

	json_object_set_new(o, "source", json_string(w->source));
	json_object_set_new(o, "from", json_string(w->from));
	for (size_t i = 0; i < w->nphases; i++) {
		const struct kw_wl_phase *p = &w->phases[i];

		json_array_append_new(a, json_pack("{sssssisI}", "scenario", p->scenario, "phase",
						   p->phase, "iteration", (int)p->iteration,
						   "wall_ns", (json_int_t)p->wall_ns));
	}
	json_object_set_new(o, "phases", a);
	return o;
}

int kw_workload_from_json(struct kw_workload *w, const json_t *o)
{
	const char *source = json_string_value(json_object_get(o, "source"));
	const char *from = json_string_value(json_object_get(o, "from"));

	memset(w, 0, sizeof(*w));
	if (!json_is_object(o))
		return 0;
	if (parse_load_json(w, (json_t *)o)) {
		kw_workload_free(w);
		return -ENOMEM;
	}
	snprintf(w->source, sizeof(w->source), "%s", source ?: "");
	snprintf(w->from, sizeof(w->from), "%s", from ?: "");
	return 0;
}

int kw_workload_first(const struct kw_workload *w, size_t i)
{
	for (size_t j = 0; j < i; j++)
		if (!strcmp(w->phases[j].scenario, w->phases[i].scenario) &&
		    !strcmp(w->phases[j].phase, w->phases[i].phase))
			return 0;
	return 1;
}

uint64_t kw_workload_sum(const struct kw_workload *w, const char *scenario, const char *phase,
			 int *found)
{
	uint64_t ns = 0;

	*found = 0;
	for (size_t i = 0; i < w->nphases; i++)
		if (!strcmp(w->phases[i].scenario, scenario) && !strcmp(w->phases[i].phase, phase)) {
			ns += w->phases[i].wall_ns;
			*found = 1;
		}
	return ns;
}
