// SPDX-License-Identifier: GPL-2.0
/* kvmwalk-load options: sizes, names, defaults and cross-option checks. */
#include <argp.h>

#include "load/load.h"
#include "test.h"

static int parse(struct load_opts *o, int argc, char **argv)
{
	return load_opts_parse(argc, argv, o, ARGP_NO_EXIT | ARGP_NO_HELP | ARGP_SILENT);
}

void test_load_opts(void)
{
	struct load_opts o;
	uint64_t v = 0;

	if (!ASSERT_EQ(parse_size("16M", &v), 0, "16M") || !ASSERT_EQ(v, 16ULL << 20, "16M"))
		goto out;
	ASSERT_EQ(parse_size("4k", &v), 0, "4k");
	ASSERT_EQ(v, 4096, "4k");
	ASSERT_EQ(parse_size("2MiB", &v), 0, "2MiB");
	ASSERT_EQ(v, 2ULL << 20, "2MiB");
	ASSERT_EQ(parse_size("256G", &v), 0, "256G");
	ASSERT_EQ(v, 256ULL << 30, "256G");
	ASSERT_EQ(parse_size("1T", &v), 0, "1T");
	ASSERT_EQ(v, 1ULL << 40, "1T");
	ASSERT_EQ(parse_size("0x1000", &v), 0, "hex");
	ASSERT_EQ(v, 4096, "hex");
	ASSERT_EQ(parse_size("12", &v), 0, "bytes");
	ASSERT_EQ(v, 12, "bytes");
	ASSERT_EQ(parse_size("", &v), -EINVAL, "empty");
	ASSERT_EQ(parse_size("-1M", &v), -EINVAL, "negative");
	ASSERT_EQ(parse_size("1X", &v), -EINVAL, "bad suffix");
	ASSERT_EQ(parse_size("1MM", &v), -EINVAL, "trailing");
	ASSERT_EQ(parse_size("99999999999T", &v), -ERANGE, "overflow");

	ASSERT_EQ(scenario_parse("wrprotect-fault"), SC_WRPROTECT_FAULT, "scenario");
	ASSERT_EQ(scenario_parse("all"), SC_ALL, "all");
	ASSERT_EQ(scenario_parse("splits"), -EINVAL, "unknown scenario");
	ASSERT_STREQ(scenario_name(SC_EMPTY_UNMAP), "empty-unmap", "name");
	ASSERT_EQ(scenario_parse("nested-unmap"), SC_NESTED_UNMAP, "nested-unmap");
	ASSERT_STREQ(scenario_name(SC_NESTED_UNMAP), "nested-unmap", "nested name");
	ASSERT_TRUE(scenario_in_all(SC_EMPTY_UNMAP), "all runs empty-unmap");
	ASSERT_FALSE(scenario_in_all(SC_NESTED_UNMAP), "all leaves nested-unmap out");
	ASSERT_FALSE(scenario_in_all(SC_ALL), "all is not a scenario of all");
	ASSERT_EQ(backing_parse("hugetlb"), BACKING_HUGETLB, "backing");
	ASSERT_EQ(pattern_parse("sweep"), PATTERN_SWEEP, "pattern");
	ASSERT_EQ(yesno_parse("yes"), 1, "yes");
	ASSERT_EQ(yesno_parse("no"), 0, "no");
	ASSERT_EQ(yesno_parse("off"), -EINVAL, "neither yes nor no");

	load_opts_default(&o);
	ASSERT_TRUE(load_opts_check(&o) == NULL, "defaults are valid");
	ASSERT_EQ(o.chunk_pages, 64, "default chunk");
	ASSERT_EQ(o.mem, 16ULL << 20, "default mem");
	ASSERT_TRUE(o.refault, "default refault");
	ASSERT_TRUE(o.enter_el1, "default enter-el1");

	{
		char *argv[] = { "kvmwalk-load", "--scenario", "invalidate",
				 "--vcpus",	 "2",	       "--mem",
				 "8M",		 "--range",    "1M",
				 "--pattern",	 "sweep",      "--json=out.json" };

		if (!ASSERT_EQ(parse(&o, 12, argv), 0, "good options"))
			goto out;
		ASSERT_EQ(o.scenario, SC_INVALIDATE, "scenario");
		ASSERT_EQ(o.vcpus, 2, "vcpus");
		ASSERT_EQ(o.mem, 8ULL << 20, "mem");
		ASSERT_EQ(o.range, 1ULL << 20, "range");
		ASSERT_EQ(o.pattern, PATTERN_SWEEP, "pattern");
		ASSERT_STREQ(o.json, "out.json", "json file");
		ASSERT_TRUE(o.refault, "refault when not given");
	}
	{
		char *argv[] = { "kvmwalk-load", "--scenario", "invalidate", "--refault=no" };

		ASSERT_EQ(parse(&o, 4, argv), 0, "--refault=no");
		ASSERT_FALSE(o.refault, "--refault=no");
	}
	{
		char *argv[] = { "kvmwalk-load", "--refault", "no", "--refault", "yes" };

		ASSERT_EQ(parse(&o, 5, argv), 0, "--refault yes");
		ASSERT_TRUE(o.refault, "the last --refault wins");
	}
	{
		char *argv[] = { "kvmwalk-load", "--scenario", "nested-unmap", "--vcpus", "2",
				 "--mem", "2M", "--iterations", "1", "--enter-el1=no" };

#ifdef __aarch64__
		ASSERT_EQ(parse(&o, 10, argv), 0, "nested-unmap options");
		ASSERT_EQ(o.scenario, SC_NESTED_UNMAP, "nested scenario");
		ASSERT_FALSE(o.enter_el1, "--enter-el1=no");
		ASSERT_EQ(o.backing, BACKING_ANON, "nested default backing");
#else
		ASSERT_EQ(parse(&o, 10, argv), EXIT_USAGE, "nested-unmap is arm64 only");
#endif
	}
	{
		char *argv[] = { "kvmwalk-load", "--scenario", "nested-unmap", "--backing", "thp" };

		ASSERT_EQ(parse(&o, 5, argv), EXIT_USAGE, "nested-unmap with thp: two notifiers");
	}
	{
		char *argv[] = { "kvmwalk-load", "--enter-el1", "maybe" };

		ASSERT_EQ(parse(&o, 3, argv), EXIT_USAGE, "bad --enter-el1");
	}
	{
		char *argv[] = { "kvmwalk-load", "--enter-el1=no", "--enter-el1=yes" };

		ASSERT_EQ(parse(&o, 3, argv), 0, "--enter-el1 twice");
		ASSERT_TRUE(o.enter_el1, "the last --enter-el1 wins");
	}
	{
		char *argv[] = { "kvmwalk-load", "--refault=x" };

		ASSERT_EQ(parse(&o, 2, argv), EXIT_USAGE, "bad --refault");
	}
	{
		char *argv[] = { "kvmwalk-load", "--json" };

		ASSERT_EQ(parse(&o, 2, argv), 0, "--json alone");
		ASSERT_STREQ(o.json, "-", "--json alone is stdout");
	}
	{
		char *argv[] = { "kvmwalk-load", "--json", "out.json", "--vcpus", "3" };

		ASSERT_EQ(parse(&o, 5, argv), 0, "--json FILE");
		ASSERT_STREQ(o.json, "out.json", "--json FILE takes the file");
		ASSERT_EQ(o.vcpus, 3, "options after --json FILE");
	}
	{
		char *argv[] = { "kvmwalk-load", "--json", "a.json", "b.json" };

		ASSERT_EQ(parse(&o, 4, argv), EXIT_USAGE, "a second argument");
	}
	{
		char *argv[] = { "kvmwalk-load", "--chunk-pages", "100" };

		ASSERT_EQ(parse(&o, 3, argv), EXIT_USAGE, "chunk not a multiple of 64");
	}
	{
		char *argv[] = { "kvmwalk-load", "--mem", "3M" };

		ASSERT_EQ(parse(&o, 3, argv), EXIT_USAGE, "mem not a multiple of 2M");
	}
	{
		char *argv[] = { "kvmwalk-load", "--mem", "2M", "--range", "4M" };

		ASSERT_EQ(parse(&o, 5, argv), EXIT_USAGE, "range larger than memory");
	}
	{
		char *argv[] = { "kvmwalk-load", "--vcpus", "64", "--mem", "1G" };

		ASSERT_EQ(parse(&o, 5, argv), EXIT_USAGE, "data slot reaching the sparse slot");
	}
	{
		char *argv[] = { "kvmwalk-load", "--scenario", "bogus" };

		ASSERT_EQ(parse(&o, 3, argv), EXIT_USAGE, "bad scenario");
	}
	{
		char *argv[] = { "kvmwalk-load", "--vcpus", "0" };

		ASSERT_EQ(parse(&o, 3, argv), EXIT_USAGE, "zero vcpus");
	}
	{
		char *argv[] = { "kvmwalk-load", "--backing", "hugetlb", "--range", "1M" };

		ASSERT_EQ(parse(&o, 5, argv), EXIT_USAGE, "hugetlb range below 2M");
	}
	{
		char *argv[] = { "kvmwalk-load", "--sparse", "1000M" };

		ASSERT_EQ(parse(&o, 3, argv), EXIT_USAGE, "sparse not whole GiB");
	}
	/* --concurrent and the presets */
	{
		char *argv[] = { "kvmwalk-load", "--scenario", "invalidate", "--concurrent",
				 "--vcpus", "2", "--duration", "10", "--rate", "50" };

		if (!ASSERT_EQ(parse(&o, 10, argv), 0, "--concurrent"))
			goto out;
		ASSERT_TRUE(o.concurrent, "concurrent");
		ASSERT_EQ(o.duration, 10, "duration");
		ASSERT_EQ(o.rate, 50, "rate");
		ASSERT_TRUE(o.preset == NULL, "no preset");
	}
	{
		char *argv[] = { "kvmwalk-load", "--scenario", "invalidate", "--concurrent" };

		ASSERT_EQ(parse(&o, 4, argv), 0, "--concurrent, defaults");
		ASSERT_EQ(o.duration, 0, "no duration: --iterations madvises");
		ASSERT_EQ(o.iterations, 3, "default iterations");
		ASSERT_EQ(o.rate, 100, "default rate");
	}
	{
		char *argv[] = { "kvmwalk-load", "--concurrent" };

		ASSERT_EQ(parse(&o, 2, argv), EXIT_USAGE, "--concurrent without invalidate");
	}
	{
		char *argv[] = { "kvmwalk-load", "--scenario", "invalidate", "--concurrent",
				 "--refault=no" };

		ASSERT_EQ(parse(&o, 5, argv), EXIT_USAGE, "--concurrent --refault=no");
	}
	{
		char *argv[] = { "kvmwalk-load", "--scenario", "invalidate", "--duration", "5" };

		ASSERT_EQ(parse(&o, 5, argv), EXIT_USAGE, "--duration without --concurrent");
	}
	{
		char *argv[] = { "kvmwalk-load", "--scenario", "invalidate", "--rate", "5" };

		ASSERT_EQ(parse(&o, 5, argv), EXIT_USAGE, "--rate without --concurrent");
	}
	{
		char *argv[] = { "kvmwalk-load", "--scenario", "invalidate", "--concurrent",
				 "--duration", "5", "--iterations", "7" };

		ASSERT_EQ(parse(&o, 8, argv), EXIT_USAGE, "--duration and --iterations");
	}
	{
		char *argv[] = { "kvmwalk-load", "--scenario", "invalidate", "--concurrent",
				 "--duration", "0" };

		ASSERT_EQ(parse(&o, 6, argv), EXIT_USAGE, "--duration 0");
	}
	{
		char *argv[] = { "kvmwalk-load", "--preset", "same16" };

		if (!ASSERT_EQ(parse(&o, 3, argv), 0, "--preset same16"))
			goto out;
		ASSERT_EQ(o.scenario, SC_INVALIDATE, "preset scenario");
		ASSERT_TRUE(o.concurrent, "preset concurrent");
		ASSERT_EQ(o.pattern, PATTERN_SAME, "same16 pattern");
		ASSERT_EQ(o.range, 16ULL << 20, "same16 range");
		ASSERT_EQ(o.vcpus, PRESET_VCPUS, "preset vcpus");
		ASSERT_EQ(o.mem, PRESET_MEM, "preset mem");
		ASSERT_EQ(o.duration, PRESET_DURATION, "preset duration");
		ASSERT_EQ(o.rate, PRESET_RATE, "preset rate");
		ASSERT_STREQ(o.preset, "same16", "preset name");
	}
	{
		/* options given win, before or after the preset */
		char *argv[] = { "kvmwalk-load", "--vcpus", "4", "--preset", "sweep1", "--mem", "8M",
				 "--iterations", "20", "--range", "2M" };

		if (!ASSERT_EQ(parse(&o, 11, argv), 0, "--preset sweep1 with options"))
			goto out;
		ASSERT_EQ(o.pattern, PATTERN_SWEEP, "sweep1 pattern");
		ASSERT_EQ(o.range, 2ULL << 20, "--range wins");
		ASSERT_EQ(o.vcpus, 4, "--vcpus before the preset wins");
		ASSERT_EQ(o.mem, 8ULL << 20, "--mem after the preset wins");
		ASSERT_EQ(o.duration, 0, "--iterations: no preset duration");
		ASSERT_EQ(o.iterations, 20, "iterations");
	}
	{
		char *argv[] = { "kvmwalk-load", "--preset", "sweep4", "--pattern", "same" };

		ASSERT_EQ(parse(&o, 5, argv), 0, "--preset sweep4 --pattern same");
		ASSERT_EQ(o.pattern, PATTERN_SAME, "--pattern wins");
		ASSERT_EQ(o.range, 4ULL << 20, "sweep4 range");
	}
	{
		char *argv[] = { "kvmwalk-load", "--preset", "same8" };

		ASSERT_EQ(parse(&o, 3, argv), EXIT_USAGE, "unknown preset");
	}
	{
		char *argv[] = { "kvmwalk-load", "--preset", "same4", "--scenario", "split" };

		ASSERT_EQ(parse(&o, 5, argv), EXIT_USAGE, "--preset with another scenario");
	}
	{
		char *argv[] = { "kvmwalk-load", "--preset", "same16", "--mem", "4M" };

		ASSERT_EQ(parse(&o, 5, argv), EXIT_USAGE, "--preset same16 larger than the guest");
	}
	ASSERT_EQ(load_nr_presets, 6, "six presets");
	{
		char *argv[] = { "kvmwalk-load", "extra" };

		ASSERT_EQ(parse(&o, 2, argv), EXIT_USAGE, "stray argument");
	}
out:;
}
