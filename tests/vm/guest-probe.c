/* SPDX-License-Identifier: MIT */
/*
 * guest-probe: runs as the command of the VM test's initramfs, inside a
 * QEMU guest with an ivshmem-doorbell device whose server is ivwl-server.
 * No driver is involved: everything goes through the PCI sysfs files.
 *
 *   guest-probe --size BYTES --vectors N [--timeout-ms MS]
 *
 * It checks, printing one "PROBE: " line per step on the console:
 *   - the 1af4:1110 device is there, BAR2 is --size bytes;
 *   - IVPosition is 1 (ivwl-server's app side);
 *   - the MSI-X table has --vectors entries;
 *   - the host block the host peer wrote into the heap holds the
 *     expected pattern and checksum;
 * then answers with the reply block, rings the host peer (peer 0) on
 * every vector through the Doorbell register, and waits for the host
 * peer to ring back on every vector.  Without a driver there is no
 * interrupt handler, so MSI-X is enabled with the function mask set:
 * QEMU then records each doorbell as a pending bit in the PBA, which we
 * read from BAR1.  The last line is "PROBE RESULT: PASS" or
 * "PROBE RESULT: FAIL <why>".
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "mono-time.h"
#include "probe.h"
#include "region.h"

#define PCI_DEVICES "/sys/bus/pci/devices"
#define DEV_DIR_LEN (sizeof(PCI_DEVICES) + 1 + 256)
#define IVSHMEM_VENDOR 0x1af4
#define IVSHMEM_DEVICE 0x1110

/* BAR0 registers */
#define REG_INTR_MASK 0x00
#define REG_INTR_STATUS 0x04
#define REG_IVPOSITION 0x08
#define REG_DOORBELL 0x0c

#define PCI_CAP_PTR 0x34
#define PCI_STATUS 0x06
#define PCI_STATUS_CAP_LIST 0x10
#define PCI_CAP_ID_MSIX 0x11
#define MSIX_CTRL_ENABLE 0x8000
#define MSIX_CTRL_MASKALL 0x4000
#define MSIX_CTRL_TABLE_SIZE 0x07ff

struct probe {
	uint64_t size;
	uint32_t vectors;
	int timeout_ms;

	char dir[DEV_DIR_LEN];
	int config_fd;
	volatile uint32_t *regs;
	size_t regs_len;
	uint8_t *shm;
	volatile uint32_t *pba;
	size_t pba_map_len;
	void *pba_map;
	struct ivwl_layout layout;
};

static void
say(const char *fmt, ...)
{
	va_list ap;

	printf("PROBE: ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
}

static int
fail(const char *fmt, ...)
{
	va_list ap;

	printf("PROBE RESULT: FAIL ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
	return -1;
}

static void
nap(void)
{
	struct timespec ts = { 0, 2 * 1000 * 1000 };

	nanosleep(&ts, NULL);
}

static int
read_text(const char *dir, const char *name, char *buf, size_t len)
{
	char path[PATH_MAX];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n < 0)
		return -errno;
	buf[n] = '\0';
	return 0;
}

static int
write_text(const char *dir, const char *name, const char *text)
{
	char path[PATH_MAX];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = write(fd, text, strlen(text));
	close(fd);
	return n < 0 ? -errno : 0;
}

static unsigned long
read_hex(const char *dir, const char *name)
{
	char buf[64];

	if (read_text(dir, name, buf, sizeof(buf)) < 0)
		return ULONG_MAX;
	return strtoul(buf, NULL, 0);
}

static int
find_device(struct probe *p)
{
	struct dirent *de;
	DIR *d;
	int found = 0;

	d = opendir(PCI_DEVICES);
	if (!d)
		return fail("cannot open %s: %s", PCI_DEVICES, strerror(errno));
	while ((de = readdir(d))) {
		char dir[DEV_DIR_LEN];

		if (de->d_name[0] == '.')
			continue;
		snprintf(dir, sizeof(dir), "%s/%s", PCI_DEVICES, de->d_name);
		if (read_hex(dir, "vendor") != IVSHMEM_VENDOR ||
		    read_hex(dir, "device") != IVSHMEM_DEVICE)
			continue;
		if (found++ == 0)
			memcpy(p->dir, dir, sizeof(p->dir));
	}
	closedir(d);

	if (found == 0)
		return fail("no PCI device %04x:%04x", IVSHMEM_VENDOR,
			    IVSHMEM_DEVICE);
	if (found > 1)
		return fail("%d ivshmem devices, expected one", found);
	say("found ivshmem %04x:%04x at %s, revision %lu", IVSHMEM_VENDOR,
	    IVSHMEM_DEVICE, p->dir, read_hex(p->dir, "revision"));
	return 0;
}

static int
enable_device(struct probe *p)
{
	char buf[16];
	int ret;

	ret = read_text(p->dir, "enable", buf, sizeof(buf));
	if (ret < 0)
		return fail("cannot read enable: %s", strerror(-ret));
	if (atoi(buf) > 0) {
		say("device already enabled");
		return 0;
	}
	ret = write_text(p->dir, "enable", "1");
	if (ret < 0)
		return fail("cannot enable the device: %s", strerror(-ret));
	say("device enabled");
	return 0;
}

/* Size of BAR n from the sysfs "resource" file (one line per BAR). */
static int
bar_size(struct probe *p, int bar, uint64_t *size)
{
	char buf[4096], *line = buf;
	unsigned long long start, end, flags;
	int i, ret;

	ret = read_text(p->dir, "resource", buf, sizeof(buf));
	if (ret < 0)
		return fail("cannot read resource: %s", strerror(-ret));
	for (i = 0; i < bar; i++) {
		line = strchr(line, '\n');
		if (!line)
			return fail("resource has no line for BAR%d", bar);
		line++;
	}
	if (sscanf(line, "%llx %llx %llx", &start, &end, &flags) != 3)
		return fail("cannot parse resource line for BAR%d", bar);
	*size = (start == 0 && end == 0) ? 0 : end - start + 1;
	return 0;
}

static void *
map_bar(struct probe *p, int bar, size_t len)
{
	char path[PATH_MAX];
	void *m;
	int fd;

	snprintf(path, sizeof(path), "%s/resource%d", p->dir, bar);
	fd = open(path, O_RDWR | O_SYNC | O_CLOEXEC);
	if (fd < 0) {
		fail("cannot open %s: %s", path, strerror(errno));
		return NULL;
	}
	m = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	close(fd);
	if (m == MAP_FAILED) {
		fail("cannot mmap %s (%zu bytes): %s", path, len,
		     strerror(errno));
		return NULL;
	}
	return m;
}

static int
check_bars(struct probe *p)
{
	uint64_t size;

	if (bar_size(p, 2, &size) < 0)
		return -1;
	if (size != p->size)
		return fail("BAR2 size %" PRIu64 " != expected %" PRIu64,
			    size, p->size);
	say("BAR2 size %" PRIu64 " matches", size);

	if (bar_size(p, 0, &size) < 0)
		return -1;
	if (size < 16)
		return fail("BAR0 is %" PRIu64 " bytes, too small", size);
	p->regs_len = 4096;
	p->regs = map_bar(p, 0, p->regs_len);
	if (!p->regs)
		return -1;
	p->shm = map_bar(p, 2, p->size);
	if (!p->shm)
		return -1;
	say("BAR0 and BAR2 mapped");
	return 0;
}

static int
check_ivposition(struct probe *p)
{
	uint32_t pos = p->regs[REG_IVPOSITION / 4];

	if (pos != IVWL_PEER_APP)
		return fail("IVPosition %u, expected %u (app side)", pos,
			    IVWL_PEER_APP);
	say("IVPosition %u (app side)", pos);
	return 0;
}

static int
config_read(struct probe *p, unsigned off, void *buf, size_t len)
{
	if (pread(p->config_fd, buf, len, off) != (ssize_t)len)
		return fail("config read at 0x%x failed", off);
	return 0;
}

static int
config_write16(struct probe *p, unsigned off, uint16_t v)
{
	if (pwrite(p->config_fd, &v, 2, off) != 2)
		return fail("config write at 0x%x failed: %s", off,
			    strerror(errno));
	return 0;
}

/*
 * Enables MSI-X with every vector masked: QEMU then sets a PBA bit for
 * each doorbell it receives instead of sending an interrupt nobody here
 * would handle.
 */
static int
setup_msix(struct probe *p)
{
	char path[PATH_MAX];
	uint16_t status, ctrl;
	uint32_t pba_reg, pba_off, pba_bir, nr;
	uint64_t bar_len;
	uint8_t pos = 0, hdr[2];
	int guard;

	snprintf(path, sizeof(path), "%s/config", p->dir);
	p->config_fd = open(path, O_RDWR | O_CLOEXEC);
	if (p->config_fd < 0)
		return fail("cannot open %s: %s", path, strerror(errno));

	if (config_read(p, PCI_STATUS, &status, 2) < 0)
		return -1;
	if (!(status & PCI_STATUS_CAP_LIST))
		return fail("device has no capability list");
	if (config_read(p, PCI_CAP_PTR, &pos, 1) < 0)
		return -1;
	for (guard = 0; pos && guard < 48; guard++) {
		pos &= ~3;
		if (config_read(p, pos, hdr, 2) < 0)
			return -1;
		if (hdr[0] == PCI_CAP_ID_MSIX)
			break;
		pos = hdr[1];
	}
	if (!pos || guard == 48)
		return fail("no MSI-X capability: is this ivshmem-doorbell?");

	if (config_read(p, pos + 2, &ctrl, 2) < 0 ||
	    config_read(p, pos + 8, &pba_reg, 4) < 0)
		return -1;
	nr = (ctrl & MSIX_CTRL_TABLE_SIZE) + 1;
	if (nr != p->vectors)
		return fail("MSI-X has %u vectors, expected %u", nr,
			    p->vectors);
	pba_bir = pba_reg & 7;
	pba_off = pba_reg & ~7u;
	if (bar_size(p, pba_bir, &bar_len) < 0)
		return -1;
	if ((uint64_t)pba_off + ((nr + 63) / 64) * 8 > bar_len)
		return fail("PBA at BAR%u+0x%x outside the BAR", pba_bir,
			    pba_off);

	p->pba_map_len = (pba_off + ((nr + 63) / 64) * 8 + 4095) & ~4095ul;
	p->pba_map = map_bar(p, pba_bir, p->pba_map_len);
	if (!p->pba_map)
		return -1;
	p->pba = (volatile uint32_t *)((uint8_t *)p->pba_map + pba_off);

	if (config_write16(p, pos + 2,
			   ctrl | MSIX_CTRL_ENABLE | MSIX_CTRL_MASKALL) < 0)
		return -1;
	if (config_read(p, pos + 2, &ctrl, 2) < 0)
		return -1;
	if ((ctrl & (MSIX_CTRL_ENABLE | MSIX_CTRL_MASKALL)) !=
	    (MSIX_CTRL_ENABLE | MSIX_CTRL_MASKALL))
		return fail("cannot enable MSI-X (control 0x%04x)", ctrl);
	say("MSI-X: %u vectors, enabled and masked, PBA at BAR%u+0x%x", nr,
	    pba_bir, pba_off);
	return 0;
}

static bool
pba_pending(struct probe *p, uint32_t vector)
{
	return (p->pba[vector / 32] >> (vector % 32)) & 1;
}

static int
check_host_block(struct probe *p, uint64_t *seed)
{
	struct probe_block *b = probe_block_at(p->shm, &p->layout,
					       PROBE_BLOCK_HOST);
	struct probe_block copy;
	uint64_t deadline = (uint64_t)ivwl_now_ms() + p->timeout_ms, sum, bad;

	while (__atomic_load_n(&b->magic, __ATOMIC_ACQUIRE) !=
	       PROBE_MAGIC_HOST) {
		if ((uint64_t)ivwl_now_ms() > deadline)
			return fail("no host block after %d ms (magic 0x%016"
				    PRIx64 ")", p->timeout_ms, b->magic);
		nap();
	}
	/* One copy of the header: the host could still change it. */
	memcpy(&copy, b, sizeof(copy));
	if (copy.length == 0 || copy.length % 8 ||
	    copy.length > PROBE_AREA - PROBE_DATA_OFFSET)
		return fail("host block length %" PRIu64 " out of range",
			    copy.length);
	bad = probe_verify(probe_block_data(b), copy.length, copy.seed, &sum);
	if (bad != copy.length / 8)
		return fail("host pattern wrong at byte %" PRIu64, bad * 8);
	if (sum != copy.checksum)
		return fail("host checksum 0x%016" PRIx64 " != computed 0x%016"
			    PRIx64, copy.checksum, sum);
	say("host pattern OK: %" PRIu64 " bytes, seed 0x%016" PRIx64
	    ", checksum 0x%016" PRIx64, copy.length, copy.seed, sum);
	*seed = copy.seed;
	return 0;
}

static void
write_block(struct probe_block *b, uint64_t magic, uint64_t seed,
	    uint64_t length, uint64_t value)
{
	uint64_t sum = PROBE_CHECKSUM_INIT;

	if (length)
		sum = probe_fill(probe_block_data(b), length, seed);
	b->seed = seed;
	b->length = length;
	b->checksum = sum;
	b->value = value;
	__atomic_store_n(&b->magic, magic, __ATOMIC_RELEASE);
}

static int
run(struct probe *p)
{
	struct probe_block *reply, *ack;
	uint64_t seed = 0, deadline, seen = 0, all;
	uint32_t v;

	if (find_device(p) < 0 || enable_device(p) < 0 || check_bars(p) < 0 ||
	    check_ivposition(p) < 0 || setup_msix(p) < 0)
		return -1;

	if (ivwl_layout_compute(p->size, &p->layout) < 0)
		return fail("size %" PRIu64 " is not a valid region size",
			    p->size);
	if (p->layout.heap_size < PROBE_HEAP_NEEDED)
		return fail("heap of %" PRIu64 " bytes too small for the probe",
			    p->layout.heap_size);

	if (check_host_block(p, &seed) < 0)
		return -1;

	reply = probe_block_at(p->shm, &p->layout, PROBE_BLOCK_REPLY);
	write_block(reply, PROBE_MAGIC_REPLY, seed ^ PROBE_REPLY_XOR,
		    PROBE_LENGTH, 0);
	say("reply pattern written: %" PRIu64 " bytes", PROBE_LENGTH);

	for (v = 0; v < p->vectors; v++)
		p->regs[REG_DOORBELL / 4] = (IVWL_PEER_DISPLAY << 16) | v;
	say("rang peer %u on vectors 0..%u", IVWL_PEER_DISPLAY,
	    p->vectors - 1);

	all = p->vectors >= 64 ? ~0ull : (1ull << p->vectors) - 1;
	deadline = (uint64_t)ivwl_now_ms() + p->timeout_ms;
	while (seen != all) {
		for (v = 0; v < p->vectors && v < 64; v++) {
			if (!(seen & (1ull << v)) && pba_pending(p, v)) {
				seen |= 1ull << v;
				say("doorbell from the host on vector %u", v);
			}
		}
		if (seen == all)
			break;
		if ((uint64_t)ivwl_now_ms() > deadline)
			return fail("host doorbells seen 0x%" PRIx64
				    " of 0x%" PRIx64 " after %d ms",
				    seen, all, p->timeout_ms);
		nap();
	}

	ack = probe_block_at(p->shm, &p->layout, PROBE_BLOCK_ACK);
	write_block(ack, PROBE_MAGIC_ACK, seed, 0, seen);
	say("ack written");
	return 0;
}

static void
usage(FILE *f)
{
	fprintf(f, "usage: guest-probe --size BYTES --vectors N "
		   "[--timeout-ms MS]\n");
}

int
main(int argc, char *argv[])
{
	static const struct option opts[] = {
		{ "size", required_argument, NULL, 's' },
		{ "vectors", required_argument, NULL, 'v' },
		{ "timeout-ms", required_argument, NULL, 't' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	struct probe p = { .timeout_ms = 60000, .config_fd = -1 };
	uint64_t t0 = (uint64_t)ivwl_now_ms();
	int c;

	setvbuf(stdout, NULL, _IOLBF, 0);
	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case 's':
			p.size = strtoull(optarg, NULL, 0);
			break;
		case 'v':
			p.vectors = strtoul(optarg, NULL, 0);
			break;
		case 't':
			p.timeout_ms = atoi(optarg);
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			fail("bad arguments");
			return 2;
		}
	}
	if (p.size == 0 || p.vectors == 0 || p.vectors > 64 ||
	    p.timeout_ms <= 0) {
		usage(stderr);
		fail("--size and --vectors (1..64) are required");
		return 2;
	}

	say("start: size %" PRIu64 ", vectors %u, timeout %d ms", p.size,
	    p.vectors, p.timeout_ms);
	if (run(&p) < 0)
		return 1;
	printf("PROBE RESULT: PASS (%" PRIu64 " ms)\n", (uint64_t)ivwl_now_ms() - t0);
	fflush(stdout);
	return 0;
}
