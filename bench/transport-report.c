/* SPDX-License-Identifier: MIT */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "bench.h"
#include "transport-report.h"

const char *const ivwl_bench_link_names[IVWL_BENCH_LINKS] = {
	"ring", "ring-spin", "socket", "stopwait",
};

#define names ivwl_bench_link_names

static bool
link_ran(const struct ivwl_bench_link_result *r)
{
	return r->rtt_done || r->bulk_done[0] || r->bulk_done[1];
}

static void
summarize_link(struct ivwl_bench_link_result *r)
{
	double v[IVWL_BENCH_MAX_REPEAT];
	unsigned si, i, j, n;
	double t;

	for (si = 0; si < 2; si++) {
		n = r->runs[si];
		if (n == 0)
			continue;
		memcpy(v, r->gbps_run[si], n * sizeof(v[0]));
		for (i = 1; i < n; i++)
			for (j = i; j > 0 && v[j - 1] > v[j]; j--) {
				t = v[j];
				v[j] = v[j - 1];
				v[j - 1] = t;
			}
		r->gbps_min[si] = v[0];
		r->gbps_max[si] = v[n - 1];
		r->gbps[si] = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
		r->bulk_done[si] = true;
	}
}

void
ivwl_bench_report_summarize(struct ivwl_bench_results *res)
{
	unsigned i;

	for (i = 0; i < IVWL_BENCH_LINKS; i++)
		summarize_link(&res->link[i]);
}

static double
per_1000(uint64_t n, uint64_t records)
{
	return records ? 1000.0 * (double)n / (double)records : 0.0;
}

static double
flood_per_1000(const struct ivwl_bench_link_result *r)
{
	return per_1000(r->flood_producer_doorbells +
			r->flood_consumer_doorbells, r->flood_records);
}

static void
print_row(const struct ivwl_bench_results *res, const char *label,
	  double (*value)(const struct ivwl_bench_link_result *r, bool *ok),
	  const char *fmt)
{
	unsigned i;
	bool ok;
	double v;

	printf("%-26s", label);
	for (i = 0; i < IVWL_BENCH_LINKS; i++) {
		if (!link_ran(&res->link[i]))
			continue;
		ok = false;
		v = value(&res->link[i], &ok);
		if (ok)
			printf(fmt, v);
		else
			printf("%11s", "-");
	}
	printf("\n");
}

static void
print_spread(const struct ivwl_bench_results *res, unsigned si)
{
	const struct ivwl_bench_link_result *r;
	char cell[32];
	unsigned i;

	if (res->repeat < 2)
		return;
	printf("%-26s", "  spread (min-max)");
	for (i = 0; i < IVWL_BENCH_LINKS; i++) {
		r = &res->link[i];
		if (!link_ran(r))
			continue;
		if (r->bulk_done[si])
			snprintf(cell, sizeof(cell), "%.1f-%.1f",
				 r->gbps_min[si], r->gbps_max[si]);
		else
			snprintf(cell, sizeof(cell), "-");
		printf("%11s", cell);
	}
	printf("\n");
}

static double
v_gbps_1m(const struct ivwl_bench_link_result *r, bool *ok)
{
	*ok = r->bulk_done[1];
	return r->gbps[1];
}

static double
v_gbps_64k(const struct ivwl_bench_link_result *r, bool *ok)
{
	*ok = r->bulk_done[0];
	return r->gbps[0];
}

static double
v_p50(const struct ivwl_bench_link_result *r, bool *ok)
{
	*ok = r->rtt_done;
	return r->rtt_p50_us;
}

static double
v_p99(const struct ivwl_bench_link_result *r, bool *ok)
{
	*ok = r->rtt_done;
	return r->rtt_p99_us;
}

static double
v_doorbells(const struct ivwl_bench_link_result *r, bool *ok)
{
	*ok = r->flood_done;
	return flood_per_1000(r);
}

static double
v_bulk_doorbells(const struct ivwl_bench_link_result *r, bool *ok)
{
	*ok = r->bulk_done[1] && r->bulk_messages[1] && r->has_doorbells;
	return *ok ? (double)r->bulk_doorbells[1] /
		     (double)r->bulk_messages[1] : 0;
}

static double
v_bulk_switches(const struct ivwl_bench_link_result *r, bool *ok)
{
	*ok = r->bulk_done[1] && r->bulk_messages[1];
	return *ok ? (double)r->bulk_switches[1] /
		     (double)r->bulk_messages[1] : 0;
}

static double
v_flood_ns(const struct ivwl_bench_link_result *r, bool *ok)
{
	*ok = r->flood_done;
	return r->flood_ns_per_record;
}

static void
print_ratios(const struct ivwl_bench_results *res, unsigned ring_id,
	     unsigned other)
{
	const struct ivwl_bench_link_result *ring = &res->link[ring_id];
	const struct ivwl_bench_link_result *o = &res->link[other];
	char label[64];

	if (!ring->bulk_done[1] || !o->bulk_done[1])
		return;
	snprintf(label, sizeof(label), "%s vs %s", names[ring_id],
		 names[other]);
	printf("%-22s 1 MiB %5.2fx   64 KiB %5.2fx   rtt p50 %5.2fx\n", label,
	       ring->gbps[1] / o->gbps[1], ring->gbps[0] / o->gbps[0],
	       ring->rtt_p50_us / o->rtt_p50_us);
}

static void
print_flood(const struct ivwl_bench_results *res, unsigned li)
{
	const struct ivwl_bench_link_result *r = &res->link[li];

	if (!r->flood_done)
		return;
	printf("%s flood: %llu records: %llu producer + %llu consumer "
	       "doorbells, %llu + %llu sleeps\n", names[li],
	       (unsigned long long)r->flood_records,
	       (unsigned long long)r->flood_producer_doorbells,
	       (unsigned long long)r->flood_consumer_doorbells,
	       (unsigned long long)r->flood_producer_sleeps,
	       (unsigned long long)r->flood_consumer_sleeps);
}

static void
print_batch(uint32_t batch)
{
	if (batch == 0)
		printf("record");
	else if (batch >= UINT32_MAX - 1)
		printf("sleep");
	else
		printf("%u bytes", batch);
}

static void
print_table(const struct ivwl_bench_results *res)
{
	unsigned i;

	printf("ivwl-bench transport: %ld CPUs, %llu MiB per bulk run, "
	       "median of %llu runs%s\n", sysconf(_SC_NPROCESSORS_ONLN),
	       (unsigned long long)(res->bytes >> 20),
	       (unsigned long long)res->repeat,
	       res->quick ? " (quick)" : "");
	if (res->ring_size) {
		printf("ring: %u KiB via %s, bulk records of %u bytes, "
		       "ring-spin polls %llu us before sleeping\n",
		       res->ring_size >> 10,
		       res->ring_local ? "a local memfd" : "ivwl-server",
		       res->ring_chunk, (unsigned long long)res->spin_us);
		printf("ring kicks: consumer checks every ");
		print_batch(res->space_batch);
		printf(" freed, producer every ");
		print_batch(res->data_batch);
		printf(" published\n");
	}
	printf("stopwait: %u KiB buffer per direction; flood consumer works "
	       "%llu ns per record\n\n", res->stopwait_buffer >> 10,
	       (unsigned long long)res->work_ns);

	printf("%-26s", "");
	for (i = 0; i < IVWL_BENCH_LINKS; i++)
		if (link_ran(&res->link[i]))
			printf("%11s", names[i]);
	printf("\n");
	print_row(res, "1 MiB messages, GB/s", v_gbps_1m, "%11.2f");
	print_spread(res, 1);
	print_row(res, "  doorbells / MiB", v_bulk_doorbells, "%11.2f");
	print_row(res, "  sleeps / MiB", v_bulk_switches, "%11.2f");
	print_row(res, "64 KiB messages, GB/s", v_gbps_64k, "%11.2f");
	print_spread(res, 0);
	print_row(res, "round trip p50, us", v_p50, "%11.1f");
	print_row(res, "round trip p99, us", v_p99, "%11.1f");
	print_row(res, "doorbells / 1000 records", v_doorbells, "%11.1f");
	print_row(res, "flood, ns / record", v_flood_ns, "%11.0f");
	printf("\n");

	print_ratios(res, IVWL_BENCH_RING, IVWL_BENCH_SOCKET);
	print_ratios(res, IVWL_BENCH_RING, IVWL_BENCH_STOPWAIT);
	print_ratios(res, IVWL_BENCH_RING_SPIN, IVWL_BENCH_SOCKET);
	print_ratios(res, IVWL_BENCH_RING_SPIN, IVWL_BENCH_STOPWAIT);
	printf("(ratios: throughput higher is better, round trip lower is "
	       "better)\n");
	for (i = 0; i < IVWL_BENCH_LINKS; i++)
		print_flood(res, i);
	printf("checked: %llu messages by stamp, %llu hashed in full, "
	       "%llu bad: checksums %s\n",
	       (unsigned long long)res->messages,
	       (unsigned long long)res->verified,
	       (unsigned long long)res->bad,
	       res->checksums_ok ? "ok" : "FAILED");
}

/* "ring-spin" -> "ring_spin_<what>" */
static void
json_key(char *key, size_t size, unsigned li, const char *what)
{
	char *p;

	snprintf(key, size, "%s_%s", names[li], what);
	for (p = key; *p; p++)
		if (*p == '-')
			*p = '_';
}

static void
json_link(struct ivwl_bench_json *j, const struct ivwl_bench_link_result *r,
	  unsigned li)
{
	static const char *const gbps[2][3] = {
		{ "gbps_64k", "gbps_64k_min", "gbps_64k_max" },
		{ "gbps", "gbps_min", "gbps_max" },
	};
	char key[64];
	unsigned si;

	for (si = 2; si-- > 0;) {
		if (!r->bulk_done[si])
			continue;
		json_key(key, sizeof(key), li, gbps[si][0]);
		ivwl_bench_json_num(j, key, r->gbps[si]);
		json_key(key, sizeof(key), li, gbps[si][1]);
		ivwl_bench_json_num(j, key, r->gbps_min[si]);
		json_key(key, sizeof(key), li, gbps[si][2]);
		ivwl_bench_json_num(j, key, r->gbps_max[si]);
	}
	if (r->rtt_done) {
		json_key(key, sizeof(key), li, "rtt_p50_us");
		ivwl_bench_json_num(j, key, r->rtt_p50_us);
		json_key(key, sizeof(key), li, "rtt_p99_us");
		ivwl_bench_json_num(j, key, r->rtt_p99_us);
	}
	if (r->bulk_done[1]) {
		json_key(key, sizeof(key), li, "sleeps_per_mib");
		ivwl_bench_json_num(j, key, (double)r->bulk_switches[1] /
					    (double)r->bulk_messages[1]);
	}
	if (r->bulk_done[1] && r->has_doorbells) {
		json_key(key, sizeof(key), li, "doorbells_per_mib");
		ivwl_bench_json_num(j, key, (double)r->bulk_doorbells[1] /
					    (double)r->bulk_messages[1]);
	}
	if (r->flood_done) {
		json_key(key, sizeof(key), li, "doorbells_per_1000");
		ivwl_bench_json_num(j, key, flood_per_1000(r));
		json_key(key, sizeof(key), li, "flood_ns_per_record");
		ivwl_bench_json_num(j, key, r->flood_ns_per_record);
	}
}

static void
json_ratios(struct ivwl_bench_json *j, const struct ivwl_bench_results *res,
	    unsigned ring_id, unsigned other)
{
	const struct ivwl_bench_link_result *ring = &res->link[ring_id];
	const struct ivwl_bench_link_result *o = &res->link[other];
	char what[64], key[96];

	if (!ring->bulk_done[1] || !o->bulk_done[1])
		return;
	snprintf(what, sizeof(what), "vs_%s_gbps", names[other]);
	json_key(key, sizeof(key), ring_id, what);
	ivwl_bench_json_num(j, key, ring->gbps[1] / o->gbps[1]);
	snprintf(what, sizeof(what), "vs_%s_gbps_64k", names[other]);
	json_key(key, sizeof(key), ring_id, what);
	ivwl_bench_json_num(j, key, ring->gbps[0] / o->gbps[0]);
	snprintf(what, sizeof(what), "vs_%s_rtt_p50", names[other]);
	json_key(key, sizeof(key), ring_id, what);
	ivwl_bench_json_num(j, key, ring->rtt_p50_us / o->rtt_p50_us);
}

static void
print_json(const struct ivwl_bench_results *res)
{
	const struct ivwl_bench_link_result *ring = &res->link[IVWL_BENCH_RING];
	struct ivwl_bench_json j;
	unsigned i;

	ivwl_bench_json_begin(&j, stdout);
	for (i = 0; i < IVWL_BENCH_LINKS; i++)
		json_link(&j, &res->link[i], i);
	if (ring->flood_done) {
		ivwl_bench_json_num(&j, "doorbells_per_1000",
				    flood_per_1000(ring));
		ivwl_bench_json_num(&j, "ring_producer_doorbells_per_1000",
				    per_1000(ring->flood_producer_doorbells,
					     ring->flood_records));
		ivwl_bench_json_num(&j, "ring_consumer_doorbells_per_1000",
				    per_1000(ring->flood_consumer_doorbells,
					     ring->flood_records));
	}
	json_ratios(&j, res, IVWL_BENCH_RING, IVWL_BENCH_SOCKET);
	json_ratios(&j, res, IVWL_BENCH_RING, IVWL_BENCH_STOPWAIT);
	json_ratios(&j, res, IVWL_BENCH_RING_SPIN, IVWL_BENCH_SOCKET);
	json_ratios(&j, res, IVWL_BENCH_RING_SPIN, IVWL_BENCH_STOPWAIT);

	ivwl_bench_json_bool(&j, "checksums_ok", res->checksums_ok);
	ivwl_bench_json_uint(&j, "messages_checked", res->messages);
	ivwl_bench_json_uint(&j, "messages_hashed", res->verified);
	ivwl_bench_json_uint(&j, "messages_bad", res->bad);

	ivwl_bench_json_bool(&j, "quick", res->quick);
	ivwl_bench_json_str(&j, "ring_backend",
			    res->ring_local ? "local" : "ivwl-server");
	ivwl_bench_json_uint(&j, "ring_size", res->ring_size);
	ivwl_bench_json_uint(&j, "ring_chunk", res->ring_chunk);
	ivwl_bench_json_uint(&j, "space_kick_batch", res->space_batch);
	ivwl_bench_json_uint(&j, "data_kick_batch", res->data_batch);
	ivwl_bench_json_uint(&j, "spin_us", res->spin_us);
	ivwl_bench_json_uint(&j, "stopwait_buffer", res->stopwait_buffer);
	ivwl_bench_json_uint(&j, "bulk_bytes", res->bytes);
	ivwl_bench_json_uint(&j, "repeat", res->repeat);
	ivwl_bench_json_uint(&j, "rtt_count", res->rtt_count);
	ivwl_bench_json_uint(&j, "flood_work_ns", res->work_ns);
	ivwl_bench_json_uint(&j, "nproc",
			     (uint64_t)sysconf(_SC_NPROCESSORS_ONLN));
	ivwl_bench_json_end(&j);
}

void
ivwl_bench_report_print(const struct ivwl_bench_results *res, bool json)
{
	if (json)
		print_json(res);
	else
		print_table(res);
	fflush(stdout);
}
