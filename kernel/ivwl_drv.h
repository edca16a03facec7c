/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * ivwl: state shared by the driver's files.  ivwl_main.c is probe,
 * remove, the file operations and the doorbell vectors; ivwl_dmabuf.c
 * exports ranges of the region as dma-bufs.
 */
#ifndef IVWL_DRV_H
#define IVWL_DRV_H

#include <linux/kref.h>
#include <linux/list.h>
#include <linux/miscdevice.h>
#include <linux/mm_types.h>
#include <linux/mutex.h>
#include <linux/rwsem.h>
#include <linux/types.h>
#include <linux/wait.h>

struct dev_pagemap;
struct dma_buf;
struct eventfd_ctx;
struct file;
struct pci_dev;
struct ivwl_dev;
struct ivwl_event;

/**
 * struct ivwl_vector - one MSI-X doorbell vector of our own
 * @idev: the device
 * @ctx: eventfd signalled on each interrupt, or NULL.  Written under
 *	&ivwl_dev.rw held for writing; the interrupt handler reads it
 *	under RCU, so an unbound eventfd is put only after a grace period.
 * @owner: the open file that bound @ctx (NULL when unbound); only that
 *	file may rebind or unbind it.  Under &ivwl_dev.rw.
 * @count: interrupts so far; read() reports the difference per file.
 * @irq: Linux IRQ number of the vector.
 */
struct ivwl_vector {
	struct ivwl_dev *idev;
	struct eventfd_ctx __rcu *ctx;
	struct file *owner;
	atomic64_t count;
	int irq;
};

/**
 * struct ivwl_span - a mappable window of the region
 * @idev: the device whose region it is
 * @offset: start in the region, page-aligned
 * @size: length in bytes, page-aligned
 *
 * The whole region for the node (&ivwl_file.span), the exported range
 * for a dma-buf (&ivwl_buf.span).  It is the vm_private_data of every
 * mapping, so faults after remove() find the device.
 */
struct ivwl_span {
	struct ivwl_dev *idev;
	u64 offset;
	u64 size;
};

/**
 * struct ivwl_dev - one ivshmem-doorbell PCI device and its /dev/ivwlN
 * @ref: held by probe (until remove), each open file and each dma-buf
 * @pdev: the PCI device
 * @misc: the node
 * @name: "ivwlN", the node's and the IRQs' name
 * @id: N, from an IDA
 * @rw: taken for reading by doorbell, info, mmap, faults and dma-buf
 *	mapping; for writing by eventfd bindings, the @files and @bufs
 *	lists and removal.  The interrupt handler takes no lock: it uses
 *	RCU (&ivwl_vector.ctx) and atomics.
 * @dead: set by remove() under @rw; every later call fails with ENODEV
 *	and every fault with SIGBUS.
 * @files: open files (&ivwl_file.link), under @rw
 * @bufs: exported dma-bufs (&ivwl_buf.link), under @rw
 * @wq: readers and pollers, woken by every interrupt and by remove()
 * @regs: BAR0, the registers (IVPosition, Doorbell)
 * @shm_phys: physical address of BAR2, the shared region
 * @shm_size: length of BAR2
 * @shm: kernel mapping of BAR2, write-back (the driver never reads it:
 *	the region is untrusted)
 * @pgmap: the region's struct pages, or NULL on the memremap fallback.
 *	Allocated with devres: it outlives remove() until every importer
 *	has unmapped its sg_table.
 * @flags: IVWL_INFO_F_PAGES and IVWL_INFO_F_WB as probe found them
 * @max_peers: DOORBELL refuses peer ids at or above this
 * @nr_vectors: MSI-X vectors in use, the length of @vec and @unbound
 * @vec: the vectors
 * @unbound: room for remove() to collect the eventfds it unbinds
 */
struct ivwl_dev {
	struct kref ref;
	struct pci_dev *pdev;
	struct miscdevice misc;
	char name[16];
	int id;

	struct rw_semaphore rw;
	bool dead;
	struct list_head files;
	struct list_head bufs;
	wait_queue_head_t wq;

	void __iomem *regs;
	phys_addr_t shm_phys;
	u64 shm_size;
	void *shm;
	struct dev_pagemap *pgmap;
	u32 flags;
	u32 max_peers;

	u32 nr_vectors;
	struct ivwl_vector *vec;
	struct eventfd_ctx **unbound;
};

/**
 * struct ivwl_file - one open file of /dev/ivwlN
 * @span: the whole region, for mmap
 * @filp: the file, to zap its mappings on remove()
 * @link: in &ivwl_dev.files
 * @lock: serialises read() of this file
 * @next: first vector the next read() looks at (round robin)
 * @seen: per vector, &ivwl_vector.count already reported by read()
 * @ev: scratch records for read(), one per vector
 * @unbound: room for release() to collect the eventfds it unbinds,
 *	allocated at open so that release cannot fail
 */
struct ivwl_file {
	struct ivwl_span span;
	struct file *filp;
	struct list_head link;

	struct mutex lock;	/* read() */
	u32 next;
	u64 *seen;
	struct ivwl_event *ev;
	struct eventfd_ctx **unbound;
};

/**
 * struct ivwl_buf - one exported dma-buf
 * @span: the exported range
 * @dmabuf: the dma-buf, to zap its mappings on remove()
 * @link: in &ivwl_dev.bufs
 */
struct ivwl_buf {
	struct ivwl_span span;
	struct dma_buf *dmabuf;
	struct list_head link;
};

void ivwl_dev_get(struct ivwl_dev *idev);
void ivwl_dev_put(struct ivwl_dev *idev);
int ivwl_mmap_span(struct ivwl_span *span, struct vm_area_struct *vma);
long ivwl_export(struct ivwl_dev *idev, struct file *filp, void __user *arg);

#endif /* IVWL_DRV_H */
