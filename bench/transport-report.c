#include <stdio.h>
#include <unistd.h>

#include "bench.h"
#include "transport-report.h"

static const char *const names[IVWL_BENCH_LINKS] = {
	"ring", "socket", "stopwait",
};

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
		ok = false;
		v = value(&res->link[i], &ok);
		if (ok)
			printf(fmt, v);
		else if (res->link[i].rtt_done || res->link[i].bulk_done[0])
			printf("%11s", "-");
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
v_flood_ns(const struct ivwl_bench_link_result *r, bool *ok)
{
	*ok = r->flood_done;
	return r->flood_ns_per_record;
}

static void
print_ratios(const struct ivwl_bench_results *res, unsigned other)
{
	const struct ivwl_bench_link_result *ring = &res->link[IVWL_BENCH_RING];
	const struct ivwl_bench_link_result *o = &res->link[other];

	if (!ring->bulk_done[1] || !o->bulk_done[1])
		return;
	printf("ring vs %-9s 1 MiB %5.2fx   64 KiB %5.2fx   "
	       "rtt p50 %5.2fx (ring/%s, lower is better)\n",
	       names[other], ring->gbps[1] / o->gbps[1],
	       ring->gbps[0] / o->gbps[0],
	       ring->rtt_p50_us / o->rtt_p50_us, names[other]);
}

static void
print_table(const struct ivwl_bench_results *res)
{
	const struct ivwl_bench_link_result *ring = &res->link[IVWL_BENCH_RING];
	unsigned i;

	printf("ivwl-bench transport: %ld CPUs, %llu MiB per bulk run%s\n",
	       sysconf(_SC_NPROCESSORS_ONLN),
	       (unsigned long long)(res->bytes >> 20),
	       res->quick ? " (quick)" : "");
	if (res->ring_size)
		printf("ring: %u KiB via %s, bulk records of %u bytes, "
		       "kick batch %llu, spin %llu us\n", res->ring_size >> 10,
		       res->ring_local ? "a local memfd" : "ivwl-server",
		       res->ring_chunk, (unsigned long long)res->kick_batch,
		       (unsigned long long)res->spin_us);
	printf("stopwait: %u KiB buffer per direction\n\n",
	       res->stopwait_buffer >> 10);

	printf("%-26s", "");
	for (i = 0; i < IVWL_BENCH_LINKS; i++)
		if (res->link[i].rtt_done || res->link[i].bulk_done[0])
			printf("%11s", names[i]);
	printf("\n");
	print_row(res, "1 MiB messages, GB/s", v_gbps_1m, "%11.2f");
	print_row(res, "64 KiB messages, GB/s", v_gbps_64k, "%11.2f");
	print_row(res, "round trip p50, us", v_p50, "%11.1f");
	print_row(res, "round trip p99, us", v_p99, "%11.1f");
	print_row(res, "doorbells / 1000 records", v_doorbells, "%11.1f");
	print_row(res, "flood, ns / record", v_flood_ns, "%11.0f");
	printf("\n");

	print_ratios(res, IVWL_BENCH_SOCKET);
	print_ratios(res, IVWL_BENCH_STOPWAIT);
	if (ring->flood_done)
		printf("ring flood: %llu records, consumer work %llu ns each: "
		       "%llu producer + %llu consumer doorbells, "
		       "%llu + %llu sleeps\n",
		       (unsigned long long)ring->flood_records,
		       (unsigned long long)res->work_ns,
		       (unsigned long long)ring->flood_producer_doorbells,
		       (unsigned long long)ring->flood_consumer_doorbells,
		       (unsigned long long)ring->flood_producer_sleeps,
		       (unsigned long long)ring->flood_consumer_sleeps);
	printf("checked: %llu messages by stamp, %llu hashed in full, "
	       "%llu bad: checksums %s\n",
	       (unsigned long long)res->messages,
	       (unsigned long long)res->verified,
	       (unsigned long long)res->bad,
	       res->checksums_ok ? "ok" : "FAILED");
}

static void
json_link(struct ivwl_bench_json *j, const struct ivwl_bench_link_result *r,
	  const char *name)
{
	char key[64];

	if (r->bulk_done[1]) {
		snprintf(key, sizeof(key), "%s_gbps", name);
		ivwl_bench_json_num(j, key, r->gbps[1]);
	}
	if (r->bulk_done[0]) {
		snprintf(key, sizeof(key), "%s_gbps_64k", name);
		ivwl_bench_json_num(j, key, r->gbps[0]);
	}
	if (r->rtt_done) {
		snprintf(key, sizeof(key), "%s_rtt_p50_us", name);
		ivwl_bench_json_num(j, key, r->rtt_p50_us);
		snprintf(key, sizeof(key), "%s_rtt_p99_us", name);
		ivwl_bench_json_num(j, key, r->rtt_p99_us);
	}
	if (r->bulk_done[1]) {
		snprintf(key, sizeof(key), "%s_doorbells_per_mib", name);
		ivwl_bench_json_num(j, key, (double)r->bulk_doorbells[1] /
					    (double)r->bulk_messages[1]);
	}
	if (r->flood_done) {
		snprintf(key, sizeof(key), "%s_doorbells_per_1000", name);
		ivwl_bench_json_num(j, key, flood_per_1000(r));
		snprintf(key, sizeof(key), "%s_flood_ns_per_record", name);
		ivwl_bench_json_num(j, key, r->flood_ns_per_record);
	}
}

static void
json_ratios(struct ivwl_bench_json *j, const struct ivwl_bench_results *res,
	    unsigned other)
{
	const struct ivwl_bench_link_result *ring = &res->link[IVWL_BENCH_RING];
	const struct ivwl_bench_link_result *o = &res->link[other];
	char key[64];

	if (!ring->bulk_done[1] || !o->bulk_done[1])
		return;
	snprintf(key, sizeof(key), "ring_vs_%s_gbps", names[other]);
	ivwl_bench_json_num(j, key, ring->gbps[1] / o->gbps[1]);
	snprintf(key, sizeof(key), "ring_vs_%s_gbps_64k", names[other]);
	ivwl_bench_json_num(j, key, ring->gbps[0] / o->gbps[0]);
	snprintf(key, sizeof(key), "ring_vs_%s_rtt_p50", names[other]);
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
		json_link(&j, &res->link[i], names[i]);
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
	json_ratios(&j, res, IVWL_BENCH_SOCKET);
	json_ratios(&j, res, IVWL_BENCH_STOPWAIT);

	ivwl_bench_json_bool(&j, "checksums_ok", res->checksums_ok);
	ivwl_bench_json_uint(&j, "messages_checked", res->messages);
	ivwl_bench_json_uint(&j, "messages_hashed", res->verified);
	ivwl_bench_json_uint(&j, "messages_bad", res->bad);

	ivwl_bench_json_bool(&j, "quick", res->quick);
	ivwl_bench_json_str(&j, "ring_backend",
			    res->ring_local ? "local" : "ivwl-server");
	ivwl_bench_json_uint(&j, "ring_size", res->ring_size);
	ivwl_bench_json_uint(&j, "ring_chunk", res->ring_chunk);
	ivwl_bench_json_uint(&j, "kick_batch", res->kick_batch);
	ivwl_bench_json_uint(&j, "spin_us", res->spin_us);
	ivwl_bench_json_uint(&j, "stopwait_buffer", res->stopwait_buffer);
	ivwl_bench_json_uint(&j, "bulk_bytes", res->bytes);
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
