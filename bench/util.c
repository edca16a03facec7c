/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "bench.h"
#include "mono-time.h"

volatile int ivwl_bench_child_died;

uint64_t
ivwl_bench_now_ns(void)
{
	return (uint64_t)ivwl_now_ns();
}

uint64_t
ivwl_bench_voluntary_switches(void)
{
	struct rusage ru;

	if (getrusage(RUSAGE_SELF, &ru) < 0)
		return 0;
	return (uint64_t)ru.ru_nvcsw;
}

bool
ivwl_bench_parse_count(const char *s, uint64_t *out)
{
	unsigned long long v;
	char *end;

	if (!s || *s < '0' || *s > '9')
		return false;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || *end != '\0')
		return false;
	*out = v;
	return true;
}

bool
ivwl_bench_parse_size(const char *s, uint64_t *out)
{
	unsigned long long v;
	unsigned shift = 0;
	char *end;

	if (!s || *s < '0' || *s > '9')
		return false;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno)
		return false;
	switch (*end) {
	case '\0':
		break;
	case 'k': case 'K':
		shift = 10;
		end++;
		break;
	case 'm': case 'M':
		shift = 20;
		end++;
		break;
	case 'g': case 'G':
		shift = 30;
		end++;
		break;
	default:
		return false;
	}
	if (*end == 'i' && shift)
		end++;
	if (*end == 'B' && shift)
		end++;
	if (*end != '\0' || v > (UINT64_MAX >> shift))
		return false;
	*out = (uint64_t)v << shift;
	return true;
}

static uint64_t
splitmix64(uint64_t *state)
{
	uint64_t z = (*state += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

void
ivwl_bench_fill(void *buf, size_t len, uint64_t seed)
{
	uint8_t *p = buf;
	uint64_t state = seed, v;

	while (len >= 8) {
		v = splitmix64(&state);
		memcpy(p, &v, 8);
		p += 8;
		len -= 8;
	}
	v = splitmix64(&state);
	memcpy(p, &v, len);
}

static uint64_t
mix(uint64_t h, uint64_t w)
{
	h ^= w;
	h *= 0x9e3779b97f4a7c15ull;
	return h ^ (h >> 29);
}

uint64_t
ivwl_bench_hash(const void *buf, size_t len)
{
	const uint8_t *p = buf;
	uint64_t a = 1, b = 2, c = 3, d = 4, w[4], tail = 0;

	/* Four independent lanes keep the multiplier busy. */
	while (len >= 32) {
		memcpy(w, p, 32);
		a = mix(a, w[0]);
		b = mix(b, w[1]);
		c = mix(c, w[2]);
		d = mix(d, w[3]);
		p += 32;
		len -= 32;
	}
	while (len >= 8) {
		memcpy(w, p, 8);
		a = mix(a, w[0]);
		p += 8;
		len -= 8;
	}
	memcpy(&tail, p, len);
	a = mix(a, tail ^ ((uint64_t)len << 56));
	return mix(mix(mix(a, b), c), d);
}

static int
cmp_u64(const void *pa, const void *pb)
{
	uint64_t a = *(const uint64_t *)pa, b = *(const uint64_t *)pb;

	return a < b ? -1 : a > b;
}

void
ivwl_bench_sort_u64(uint64_t *v, size_t n)
{
	qsort(v, n, sizeof(*v), cmp_u64);
}

uint64_t
ivwl_bench_percentile(const uint64_t *sorted, size_t n, unsigned pct)
{
	size_t i;

	if (n == 0)
		return 0;
	i = (size_t)(((uint64_t)n * pct) / 100);
	if (i >= n)
		i = n - 1;
	return sorted[i];
}

int
ivwl_bench_write_full(int fd, const void *buf, size_t len)
{
	const uint8_t *p = buf;
	ssize_t n;

	while (len) {
		n = write(fd, p, len);
		if (n < 0) {
			if (errno == EINTR && !ivwl_bench_child_died)
				continue;
			return -errno;
		}
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

int
ivwl_bench_read_full(int fd, void *buf, size_t len)
{
	uint8_t *p = buf;
	ssize_t n;

	while (len) {
		n = read(fd, p, len);
		if (n < 0) {
			if (errno == EINTR && !ivwl_bench_child_died)
				continue;
			return -errno;
		}
		if (n == 0)
			return -EPIPE;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

static void
on_sigchld(int sig)
{
	ivwl_bench_child_died = 1;
}

void
ivwl_bench_install_signals(unsigned watchdog_s)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_sigchld;
	sigemptyset(&sa.sa_mask);
	sa.sa_flags = SA_NOCLDSTOP;	/* no SA_RESTART on purpose */
	sigaction(SIGCHLD, &sa, NULL);

	signal(SIGPIPE, SIG_IGN);
	/* Default SIGALRM action ends the process; children follow it
	 * through PR_SET_PDEATHSIG. */
	alarm(watchdog_s);
}

void
ivwl_bench_json_begin(struct ivwl_bench_json *j, FILE *f)
{
	j->f = f;
	j->first = true;
	fputc('{', f);
}

static void
json_key(struct ivwl_bench_json *j, const char *key)
{
	fprintf(j->f, "%s\n  \"%s\": ", j->first ? "" : ",", key);
	j->first = false;
}

void
ivwl_bench_json_num(struct ivwl_bench_json *j, const char *key, double v)
{
	json_key(j, key);
	/* JSON has no NaN or infinity. */
	if (v != v || v > 1e300 || v < -1e300)
		fputs("null", j->f);
	else
		fprintf(j->f, "%.6g", v);
}

void
ivwl_bench_json_uint(struct ivwl_bench_json *j, const char *key, uint64_t v)
{
	json_key(j, key);
	fprintf(j->f, "%llu", (unsigned long long)v);
}

void
ivwl_bench_json_bool(struct ivwl_bench_json *j, const char *key, bool v)
{
	json_key(j, key);
	fputs(v ? "true" : "false", j->f);
}

void
ivwl_bench_json_str(struct ivwl_bench_json *j, const char *key,
		    const char *v)
{
	const char *p;

	json_key(j, key);
	fputc('"', j->f);
	for (p = v; *p; p++) {
		unsigned char ch = (unsigned char)*p;

		if (ch == '"' || ch == '\\')
			fprintf(j->f, "\\%c", ch);
		else if (ch < 0x20)
			fprintf(j->f, "\\u%04x", ch);
		else
			fputc(ch, j->f);
	}
	fputc('"', j->f);
}

void
ivwl_bench_json_end(struct ivwl_bench_json *j)
{
	fputs("\n}\n", j->f);
	fflush(j->f);
}
