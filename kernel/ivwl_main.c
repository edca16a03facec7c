// SPDX-License-Identifier: GPL-2.0-only
/*
 * ivwl: guest driver for QEMU ivshmem-doorbell (PCI 1af4:1110).
 *
 * One misc device /dev/ivwlN per PCI device (kernel/uapi/ivwl.h):
 *   - mmap maps the shared region (BAR2) write-back, bounds-checked;
 *   - IVWL_IOCTL_GET_INFO, IVWL_IOCTL_DOORBELL, IVWL_IOCTL_SET_EVENTFD
 *     (a vector's eventfd belongs to the open file that bound it);
 *   - IVWL_IOCTL_EXPORT_DMABUF exports a page-aligned sub-range as a
 *     dma-buf;
 *   - read() and poll() report doorbells on our own vectors.
 *
 * BAR2 gets struct pages through devm_memremap_pages()
 * (MEMORY_DEVICE_GENERIC), which keeps the kernel mapping write-back and
 * lets devices import the dma-bufs (an sg_table of those pages).  Should
 * that fail (for instance a BAR that is not 2 MiB aligned) the driver
 * falls back to memremap(MEMREMAP_WB) and says so in the log and in
 * ivwl_info.flags: mmap of the node and of dma-bufs still works (PFN
 * mappings need no struct pages), attaching a dma-buf to a device fails
 * with EOPNOTSUPP.  Never pci_iomap(): an uncached mapping of the region
 * is slow.
 *
 * MSI-X vectors are allocated and requested once at probe and never
 * masked afterwards; the handler only counts, signals the bound eventfd
 * and wakes readers.
 *
 * Lifetime: every open file and every dma-buf holds a reference on
 * struct ivwl_dev (and, through fops/dma-buf owner, on the module).
 * remove() marks the device dead under rw, zaps every user mapping of
 * the node and of the dma-bufs (later faults get SIGBUS) and wakes
 * readers; the structure goes when the last reference does.  A device
 * attachment of a dma-buf holds a reference on the pagemap, so the
 * region's struct pages outlive every sg_table that names them (unbind
 * waits for importers to unmap).
 *
 * The region is untrusted memory: this driver never reads it.
 */
#include <linux/dma-buf.h>
#include <linux/dma-mapping.h>
#include <linux/eventfd.h>
#include <linux/fs.h>
#include <linux/idr.h>
#include <linux/interrupt.h>
#include <linux/io.h>
#include <linux/kref.h>
#include <linux/list.h>
#include <linux/memremap.h>
#include <linux/miscdevice.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/pci.h>
#include <linux/poll.h>
#include <linux/rcupdate.h>
#include <linux/rwsem.h>
#include <linux/scatterlist.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <linux/wait.h>

#ifdef CONFIG_X86
#include <asm/memtype.h>
#include <asm/pgtable.h>
#endif

#include "ivwl_compat.h"
#include "uapi/ivwl.h"

#define IVWL_BAR_REGS 0
#define IVWL_BAR_SHM 2

#define IVWL_REG_IVPOSITION 0x08
#define IVWL_REG_DOORBELL 0x0c

/* QEMU masks the vector with 0xff. */
#define IVWL_MAX_VECTORS 256
/* The doorbell register has 16 bits of peer id. */
#define IVWL_PEER_LIMIT 0x10000

static unsigned int max_peers = 2;
module_param(max_peers, uint, 0444);
MODULE_PARM_DESC(max_peers,
		 "DOORBELL refuses peer ids >= this (default 2: ivwl-server's display and app peers; 0 or > 65536: 65536)");

static bool move_high = true;
module_param(move_high, bool, 0444);
MODULE_PARM_DESC(move_high,
		 "Move a 64-bit BAR2 that firmware placed below 4 GiB above it, out of the MTRR-uncached 32-bit PCI hole (default on)");

static bool no_pages;
module_param(no_pages, bool, 0444);
MODULE_PARM_DESC(no_pages,
		 "Map the region with memremap() even where devm_memremap_pages() works (exercises the fallback)");

struct ivwl_dev;

struct ivwl_vector {
	struct ivwl_dev *idev;
	struct eventfd_ctx __rcu *ctx;
	/* The open file that bound ctx (NULL when unbound); rw. */
	struct file *owner;
	atomic64_t count;	/* interrupts so far */
	int irq;
};

/* A mappable window of the region: the whole of it, or a dma-buf. */
struct ivwl_span {
	struct ivwl_dev *idev;
	u64 offset;
	u64 size;
};

struct ivwl_dev {
	struct kref ref;
	struct pci_dev *pdev;
	struct miscdevice misc;
	char name[16];
	int id;

	/*
	 * Read: doorbell, info, mmap, faults, dma-buf mapping.  Write:
	 * eventfd bindings, the file and dma-buf lists, removal.  The
	 * interrupt handler only uses RCU and atomics.
	 */
	struct rw_semaphore rw;
	bool dead;
	struct list_head files;
	struct list_head bufs;
	wait_queue_head_t wq;	/* readers and pollers */

	void __iomem *regs;
	phys_addr_t shm_phys;
	u64 shm_size;
	void *shm;		/* kernel mapping, write-back */
	struct dev_pagemap *pgmap;	/* devres: outlives remove() */
	u32 flags;		/* IVWL_INFO_F_* */
	u32 max_peers;

	u32 nr_vectors;
	struct ivwl_vector *vec;
};

struct ivwl_file {
	struct ivwl_span span;	/* the whole region */
	struct file *filp;
	struct list_head link;

	struct mutex lock;	/* read() */
	u32 next;		/* first vector the next read() looks at */
	u64 *seen;		/* vec[v].count already reported */
	struct ivwl_event *ev;	/* nr_vectors records */
};

struct ivwl_buf {
	struct ivwl_span span;
	struct dma_buf *dmabuf;
	struct list_head link;
};

static DEFINE_IDA(ivwl_ida);

static void ivwl_dev_free(struct kref *ref)
{
	struct ivwl_dev *idev = container_of(ref, struct ivwl_dev, ref);

	ida_free(&ivwl_ida, idev->id);
	kfree(idev->vec);
	kfree(idev);
}

static irqreturn_t ivwl_irq(int irq, void *data)
{
	struct ivwl_vector *vec = data;
	struct eventfd_ctx *ctx;

	atomic64_inc(&vec->count);
	rcu_read_lock();
	ctx = rcu_dereference(vec->ctx);
	if (ctx)
		ivwl_eventfd_signal(ctx);
	rcu_read_unlock();
	wake_up_interruptible_poll(&vec->idev->wq, EPOLLIN | EPOLLRDNORM);
	return IRQ_HANDLED;
}

/* Replaces the binding of vec; rw held for writing. */
static void ivwl_bind(struct ivwl_vector *vec, struct eventfd_ctx *ctx,
		      struct file *owner)
{
	struct eventfd_ctx *old;

	old = rcu_replace_pointer(vec->ctx, ctx,
				  lockdep_is_held(&vec->idev->rw));
	vec->owner = ctx ? owner : NULL;
	if (old) {
		synchronize_rcu();
		eventfd_ctx_put(old);
	}
}

/*
 * Faults of a span's mappings.  mmap populates the whole mapping, so
 * this runs only after remove() zapped it (SIGBUS) or if something else
 * zapped it while the device lives (the page is put back).
 */
static vm_fault_t ivwl_vm_fault(struct vm_fault *vmf)
{
	struct vm_area_struct *vma = vmf->vma;
	struct ivwl_span *span = vma->vm_private_data;
	struct ivwl_dev *idev = span->idev;
	vm_fault_t ret;

	if (vmf->pgoff >= span->size >> PAGE_SHIFT)
		return VM_FAULT_SIGBUS;
	down_read(&idev->rw);
	if (idev->dead)
		ret = VM_FAULT_SIGBUS;
	else
		ret = vmf_insert_pfn(vma, vmf->address,
				     PHYS_PFN(idev->shm_phys + span->offset) +
				     vmf->pgoff);
	up_read(&idev->rw);
	return ret;
}

static const struct vm_operations_struct ivwl_vm_ops = {
	.fault = ivwl_vm_fault,
};

/* Maps [vm_pgoff, vm_pgoff + pages) of span into vma, write-back. */
static int ivwl_mmap_span(struct ivwl_span *span, struct vm_area_struct *vma)
{
	struct ivwl_dev *idev = span->idev;
	u64 pages = span->size >> PAGE_SHIFT;
	int ret;

	/* VM_MAYSHARE: read-only files lose VM_SHARED but stay shared. */
	if (!(vma->vm_flags & VM_MAYSHARE))
		return -EINVAL;
	if (vma->vm_pgoff >= pages || vma_pages(vma) > pages - vma->vm_pgoff)
		return -ENXIO;

	down_read(&idev->rw);
	if (idev->dead) {
		up_read(&idev->rw);
		return -ENODEV;
	}
	/*
	 * remap_pfn_range() takes the memory type the kernel mapping
	 * reserved for the range (PAT): write-back unless the range is
	 * MTRR-uncached (see ivwl_move_high()).
	 */
	ivwl_vm_flags_set(vma, VM_IO | VM_DONTEXPAND | VM_DONTDUMP);
	vma->vm_ops = &ivwl_vm_ops;
	vma->vm_private_data = span;
	ret = remap_pfn_range(vma, vma->vm_start,
			      PHYS_PFN(idev->shm_phys + span->offset) +
			      vma->vm_pgoff,
			      vma->vm_end - vma->vm_start, vma->vm_page_prot);
	up_read(&idev->rw);
	return ret;
}

static int ivwl_open(struct inode *inode, struct file *filp)
{
	struct miscdevice *misc = filp->private_data;
	struct ivwl_dev *idev = container_of(misc, struct ivwl_dev, misc);
	struct ivwl_file *f;
	u32 v;

	f = kzalloc(sizeof(*f), GFP_KERNEL);
	if (!f)
		return -ENOMEM;
	f->seen = kcalloc(idev->nr_vectors, sizeof(*f->seen), GFP_KERNEL);
	f->ev = kcalloc(idev->nr_vectors, sizeof(*f->ev), GFP_KERNEL);
	if (!f->seen || !f->ev) {
		kfree(f->seen);
		kfree(f->ev);
		kfree(f);
		return -ENOMEM;
	}
	mutex_init(&f->lock);
	down_write(&idev->rw);
	if (idev->dead) {
		up_write(&idev->rw);
		kfree(f->seen);
		kfree(f->ev);
		kfree(f);
		return -ENODEV;
	}
	kref_get(&idev->ref);
	f->span.idev = idev;
	f->span.size = idev->shm_size;
	f->filp = filp;
	/* read() reports doorbells from now on. */
	for (v = 0; v < idev->nr_vectors; v++)
		f->seen[v] = atomic64_read(&idev->vec[v].count);
	list_add(&f->link, &idev->files);
	up_write(&idev->rw);
	filp->private_data = f;
	return 0;
}

static int ivwl_release(struct inode *inode, struct file *filp)
{
	struct ivwl_file *f = filp->private_data;
	struct ivwl_dev *idev = f->span.idev;
	u32 v;

	down_write(&idev->rw);
	for (v = 0; v < idev->nr_vectors; v++)
		if (idev->vec[v].owner == filp)
			ivwl_bind(&idev->vec[v], NULL, NULL);
	list_del(&f->link);
	up_write(&idev->rw);
	mutex_destroy(&f->lock);
	kfree(f->seen);
	kfree(f->ev);
	kfree(f);
	kref_put(&idev->ref, ivwl_dev_free);
	return 0;
}

/* Lockless: may be called from a wait condition or poll. */
static bool ivwl_pending(struct ivwl_file *f)
{
	struct ivwl_dev *idev = f->span.idev;
	u32 v;

	for (v = 0; v < idev->nr_vectors; v++)
		if ((u64)atomic64_read(&idev->vec[v].count) !=
		    READ_ONCE(f->seen[v]))
			return true;
	return false;
}

/*
 * Fills f->ev with at most max records, round robin from f->next;
 * f->lock held.  Nothing is consumed until ivwl_consume().
 */
static u32 ivwl_collect(struct ivwl_file *f, u32 max)
{
	struct ivwl_dev *idev = f->span.idev;
	u32 i, v, n = 0;
	u64 delta;

	for (i = 0; i < idev->nr_vectors && n < max; i++) {
		v = (f->next + i) % idev->nr_vectors;
		delta = (u64)atomic64_read(&idev->vec[v].count) - f->seen[v];
		if (!delta)
			continue;
		f->ev[n].vector = v;
		f->ev[n].count = min_t(u64, delta, U32_MAX);
		n++;
	}
	return n;
}

static void ivwl_consume(struct ivwl_file *f, u32 n)
{
	struct ivwl_dev *idev = f->span.idev;
	u32 i, v;

	for (i = 0; i < n; i++) {
		v = f->ev[i].vector;
		/* a saturated count leaves the rest for the next read */
		WRITE_ONCE(f->seen[v], f->seen[v] + f->ev[i].count);
	}
	if (n)
		f->next = (f->ev[n - 1].vector + 1) % idev->nr_vectors;
}

static ssize_t ivwl_read(struct file *filp, char __user *buf, size_t len,
			 loff_t *ppos)
{
	struct ivwl_file *f = filp->private_data;
	struct ivwl_dev *idev = f->span.idev;
	size_t max = len / sizeof(struct ivwl_event);
	size_t bytes;
	u32 n;
	int ret;

	if (!max)
		return -EINVAL;
	max = min_t(size_t, max, idev->nr_vectors);

	for (;;) {
		if (READ_ONCE(idev->dead))
			return -ENODEV;
		if (mutex_lock_interruptible(&f->lock))
			return -ERESTARTSYS;
		n = ivwl_collect(f, max);
		if (n) {
			bytes = n * sizeof(struct ivwl_event);
			if (copy_to_user(buf, f->ev, bytes)) {
				mutex_unlock(&f->lock);
				return -EFAULT;
			}
			ivwl_consume(f, n);
			mutex_unlock(&f->lock);
			return bytes;
		}
		mutex_unlock(&f->lock);

		if (filp->f_flags & O_NONBLOCK)
			return -EAGAIN;
		ret = wait_event_interruptible(idev->wq,
					       ivwl_pending(f) ||
					       READ_ONCE(idev->dead));
		if (ret)
			return ret;
	}
}

static __poll_t ivwl_poll(struct file *filp, poll_table *wait)
{
	struct ivwl_file *f = filp->private_data;
	struct ivwl_dev *idev = f->span.idev;

	poll_wait(filp, &idev->wq, wait);
	if (READ_ONCE(idev->dead))
		return EPOLLHUP | EPOLLERR;
	if (ivwl_pending(f))
		return EPOLLIN | EPOLLRDNORM;
	return 0;
}

static long ivwl_get_info(struct ivwl_dev *idev, void __user *arg)
{
	struct ivwl_info info = {
		.abi = IVWL_ABI_VERSION,
		.nr_vectors = idev->nr_vectors,
		.flags = idev->flags | IVWL_INFO_F_EXPORT | IVWL_INFO_F_READ,
		.shm_size = idev->shm_size,
	};

	down_read(&idev->rw);
	if (idev->dead) {
		up_read(&idev->rw);
		return -ENODEV;
	}
	info.ivposition = ioread32(idev->regs + IVWL_REG_IVPOSITION);
	up_read(&idev->rw);

	if (copy_to_user(arg, &info, sizeof(info)))
		return -EFAULT;
	return 0;
}

static long ivwl_doorbell(struct ivwl_dev *idev, void __user *arg)
{
	struct ivwl_doorbell db;

	if (copy_from_user(&db, arg, sizeof(db)))
		return -EFAULT;
	if (db.flags || db.vector >= idev->nr_vectors ||
	    db.peer >= idev->max_peers)
		return -EINVAL;

	down_read(&idev->rw);
	if (idev->dead) {
		up_read(&idev->rw);
		return -ENODEV;
	}
	iowrite32((u32)db.peer << 16 | db.vector,
		  idev->regs + IVWL_REG_DOORBELL);
	up_read(&idev->rw);
	return 0;
}

/*
 * A vector's binding belongs to the open file that made it (dups and
 * forks of it are the same file): another file gets EBUSY until the
 * owner unbinds or is released, so a second opener cannot silently take
 * over the vectors of the first.
 */
static long ivwl_set_eventfd(struct ivwl_dev *idev, struct file *filp,
			     void __user *arg)
{
	struct ivwl_eventfd req;
	struct eventfd_ctx *ctx = NULL;
	struct ivwl_vector *vec;
	long ret = 0;

	if (copy_from_user(&req, arg, sizeof(req)))
		return -EFAULT;
	if (req.vector >= idev->nr_vectors || req.fd < -1)
		return -EINVAL;
	if (req.fd >= 0) {
		ctx = eventfd_ctx_fdget(req.fd);
		if (IS_ERR(ctx))
			return PTR_ERR(ctx);
	}

	down_write(&idev->rw);
	vec = &idev->vec[req.vector];
	if (idev->dead)
		ret = -ENODEV;
	else if (vec->owner && vec->owner != filp)
		ret = -EBUSY;
	else
		ivwl_bind(vec, ctx, filp);
	up_write(&idev->rw);
	if (ret && ctx)
		eventfd_ctx_put(ctx);
	return ret;
}

/* dma-buf export */

static int ivwl_dmabuf_attach(struct dma_buf *dmabuf,
			      struct dma_buf_attachment *at)
{
	struct ivwl_buf *buf = dmabuf->priv;

	/* An sg_table needs struct pages; see the comment at the top. */
	if (!(buf->span.idev->flags & IVWL_INFO_F_PAGES))
		return -EOPNOTSUPP;
	return 0;
}

static struct sg_table *ivwl_dmabuf_map(struct dma_buf_attachment *at,
					enum dma_data_direction dir)
{
	struct ivwl_buf *buf = at->dmabuf->priv;
	struct ivwl_dev *idev = buf->span.idev;
	unsigned long pfn = PHYS_PFN(idev->shm_phys + buf->span.offset);
	u64 seg, left = buf->span.size;
	struct dev_pagemap *pgmap;
	struct scatterlist *sg;
	struct sg_table *sgt;
	unsigned int i;
	int ret;

	seg = min_t(u64, dma_get_max_seg_size(at->dev), SZ_1G) & PAGE_MASK;
	if (!seg)
		seg = PAGE_SIZE;

	sgt = kzalloc(sizeof(*sgt), GFP_KERNEL);
	if (!sgt)
		return ERR_PTR(-ENOMEM);
	ret = sg_alloc_table(sgt, DIV_ROUND_UP_ULL(left, seg), GFP_KERNEL);
	if (ret)
		goto err_free;

	down_read(&idev->rw);
	/* Held until unmap: devres keeps the pages until it is dropped. */
	pgmap = idev->dead ? NULL : get_dev_pagemap(pfn, NULL);
	up_read(&idev->rw);
	if (!pgmap) {
		ret = -ENODEV;
		goto err_table;
	}

	for_each_sgtable_sg(sgt, sg, i) {
		u64 len = min(left, seg);

		sg_set_page(sg, pfn_to_page(pfn), len, 0);
		pfn += len >> PAGE_SHIFT;
		left -= len;
	}
	ret = dma_map_sgtable(at->dev, sgt, dir, 0);
	if (ret)
		goto err_pgmap;
	return sgt;

err_pgmap:
	put_dev_pagemap(pgmap);
err_table:
	sg_free_table(sgt);
err_free:
	kfree(sgt);
	return ERR_PTR(ret);
}

static void ivwl_dmabuf_unmap(struct dma_buf_attachment *at,
			      struct sg_table *sgt,
			      enum dma_data_direction dir)
{
	struct ivwl_buf *buf = at->dmabuf->priv;

	dma_unmap_sgtable(at->dev, sgt, dir, 0);
	sg_free_table(sgt);
	kfree(sgt);
	put_dev_pagemap(buf->span.idev->pgmap);
}

static void ivwl_dmabuf_release(struct dma_buf *dmabuf)
{
	struct ivwl_buf *buf = dmabuf->priv;
	struct ivwl_dev *idev = buf->span.idev;

	down_write(&idev->rw);
	list_del(&buf->link);
	up_write(&idev->rw);
	kfree(buf);
	kref_put(&idev->ref, ivwl_dev_free);
}

/*
 * The region is ordinary cache-coherent memory for the CPU: nothing to
 * flush.  Report a device that went away.
 */
static int ivwl_dmabuf_cpu_access(struct dma_buf *dmabuf,
				  enum dma_data_direction dir)
{
	struct ivwl_buf *buf = dmabuf->priv;

	return READ_ONCE(buf->span.idev->dead) ? -ENODEV : 0;
}

static int ivwl_dmabuf_mmap(struct dma_buf *dmabuf,
			    struct vm_area_struct *vma)
{
	struct ivwl_buf *buf = dmabuf->priv;

	return ivwl_mmap_span(&buf->span, vma);
}

static const struct dma_buf_ops ivwl_dmabuf_ops = {
	.attach = ivwl_dmabuf_attach,
	.map_dma_buf = ivwl_dmabuf_map,
	.unmap_dma_buf = ivwl_dmabuf_unmap,
	.release = ivwl_dmabuf_release,
	.begin_cpu_access = ivwl_dmabuf_cpu_access,
	.end_cpu_access = ivwl_dmabuf_cpu_access,
	.mmap = ivwl_dmabuf_mmap,
};

static long ivwl_export(struct ivwl_dev *idev, struct file *filp,
			void __user *arg)
{
	DEFINE_DMA_BUF_EXPORT_INFO(exp);
	struct ivwl_export req;
	struct dma_buf *dmabuf;
	struct ivwl_buf *buf;
	int fd;

	if (copy_from_user(&req, arg, sizeof(req)))
		return -EFAULT;
	if ((req.flags & ~IVWL_EXPORT_F_RDWR) || req.pad)
		return -EINVAL;
	if (!req.size || !IS_ALIGNED(req.offset, PAGE_SIZE) ||
	    !IS_ALIGNED(req.size, PAGE_SIZE))
		return -EINVAL;
	if (req.offset >= idev->shm_size ||
	    req.size > idev->shm_size - req.offset)
		return -EINVAL;
	if ((req.flags & IVWL_EXPORT_F_RDWR) && !(filp->f_mode & FMODE_WRITE))
		return -EACCES;

	buf = kzalloc(sizeof(*buf), GFP_KERNEL);
	if (!buf)
		return -ENOMEM;
	buf->span.idev = idev;
	buf->span.offset = req.offset;
	buf->span.size = req.size;

	exp.ops = &ivwl_dmabuf_ops;
	exp.size = req.size;
	exp.flags = req.flags & IVWL_EXPORT_F_RDWR ? O_RDWR : O_RDONLY;
	exp.priv = buf;

	down_write(&idev->rw);
	if (idev->dead) {
		up_write(&idev->rw);
		kfree(buf);
		return -ENODEV;
	}
	dmabuf = dma_buf_export(&exp);
	if (IS_ERR(dmabuf)) {
		up_write(&idev->rw);
		kfree(buf);
		return PTR_ERR(dmabuf);
	}
	/* From here on ivwl_dmabuf_release() undoes all of this. */
	kref_get(&idev->ref);
	buf->dmabuf = dmabuf;
	list_add(&buf->link, &idev->bufs);
	up_write(&idev->rw);

	fd = dma_buf_fd(dmabuf, O_CLOEXEC);
	if (fd < 0)
		dma_buf_put(dmabuf);
	return fd;
}

static long ivwl_ioctl(struct file *filp, unsigned int cmd, unsigned long arg)
{
	struct ivwl_file *f = filp->private_data;
	void __user *uarg = (void __user *)arg;

	switch (cmd) {
	case IVWL_IOCTL_GET_INFO:
		return ivwl_get_info(f->span.idev, uarg);
	case IVWL_IOCTL_DOORBELL:
		return ivwl_doorbell(f->span.idev, uarg);
	case IVWL_IOCTL_SET_EVENTFD:
		return ivwl_set_eventfd(f->span.idev, filp, uarg);
	case IVWL_IOCTL_EXPORT_DMABUF:
		return ivwl_export(f->span.idev, filp, uarg);
	default:
		return -ENOTTY;
	}
}

static int ivwl_mmap(struct file *filp, struct vm_area_struct *vma)
{
	struct ivwl_file *f = filp->private_data;

	return ivwl_mmap_span(&f->span, vma);
}

static const struct file_operations ivwl_fops = {
	.owner = THIS_MODULE,
	.open = ivwl_open,
	.release = ivwl_release,
	.read = ivwl_read,
	.poll = ivwl_poll,
	.unlocked_ioctl = ivwl_ioctl,
	.compat_ioctl = compat_ptr_ioctl,
	.mmap = ivwl_mmap,
	.llseek = noop_llseek,
};

/*
 * Firmware (SeaBIOS) tends to put a small 64-bit BAR in the 32-bit PCI
 * hole, which its MTRRs make uncached: PAT then turns every write-back
 * request for the region into uncached-minus, and a hypervisor that
 * honours guest memory types (KVM with a passed-through device) makes
 * every access to the region uncached.  Above 4 GiB the MTRR default
 * (write-back) applies, so move the BAR there while nothing uses it;
 * pci_assign_resource() tries a 64-bit window above 4 GiB first.  On
 * failure the BAR stays where it was.
 */
static void ivwl_move_high(struct pci_dev *pdev)
{
	struct resource *res = &pdev->resource[IVWL_BAR_SHM];
	resource_size_t start = res->start, size = resource_size(res);
	struct resource old = *res;

	if (!move_high || !(res->flags & IORESOURCE_MEM_64) ||
	    start >= SZ_4G || !res->parent)
		return;
	pci_release_resource(pdev, IVWL_BAR_SHM);
	if (!pci_assign_resource(pdev, IVWL_BAR_SHM)) {
		dev_info(&pdev->dev, "BAR 2 moved from %pR to %pR\n", &old,
			 res);
		return;
	}
	/* Still programmed at the old address: claim it again. */
	res->start = start;
	res->end = start + size - 1;
	res->flags &= ~IORESOURCE_UNSET;
	if (pci_claim_resource(pdev, IVWL_BAR_SHM))
		dev_warn(&pdev->dev, "BAR 2 lost its old place %pR\n", &old);
	else
		dev_info(&pdev->dev, "BAR 2 stays at %pR: no room above 4 GiB\n",
			 res);
}

/* Whether the kernel mapping at addr is write-back (PAT). */
static bool ivwl_mapped_wb(void *addr)
{
#ifdef CONFIG_X86
	unsigned int level;
	pgprot_t prot;
	pte_t *pte;

	if (!pat_enabled())
		return false;	/* MTRRs alone decide: unknown */
	pte = lookup_address((unsigned long)addr, &level);
	if (!pte || !pte_present(*pte))
		return false;
	prot = pte_pgprot(*pte);
	if (level != PG_LEVEL_4K)
		prot = pgprot_large_2_4k(prot);
	return (pgprot_val(prot) & _PAGE_CACHE_MASK) ==
	       cachemode2protval(_PAGE_CACHE_MODE_WB);
#else
	return true;
#endif
}

/* Gives the region struct pages and a write-back kernel mapping. */
static int ivwl_map_pages(struct ivwl_dev *idev)
{
	struct pci_dev *pdev = idev->pdev;
	struct dev_pagemap *pgmap;
	void *addr;

	/*
	 * The pagemap is torn down by devres after remove() has dropped
	 * idev: it must not live in idev.
	 */
	pgmap = devm_kzalloc(&pdev->dev, sizeof(*pgmap), GFP_KERNEL);
	if (!pgmap)
		return -ENOMEM;
	pgmap->type = MEMORY_DEVICE_GENERIC;
	pgmap->range.start = idev->shm_phys;
	pgmap->range.end = idev->shm_phys + idev->shm_size - 1;
	pgmap->nr_range = 1;
	addr = devm_memremap_pages(&pdev->dev, pgmap);
	if (IS_ERR(addr)) {
		devm_kfree(&pdev->dev, pgmap);
		return PTR_ERR(addr);
	}
	idev->pgmap = pgmap;
	idev->shm = addr;
	idev->flags |= IVWL_INFO_F_PAGES;
	return 0;
}

static int ivwl_map_shm(struct ivwl_dev *idev)
{
	struct pci_dev *pdev = idev->pdev;
	void *addr;
	int ret;

	if (no_pages) {
		dev_info(&pdev->dev, "no_pages set: using memremap(MEMREMAP_WB)\n");
	} else {
		ret = ivwl_map_pages(idev);
		if (!ret)
			return 0;
		dev_warn(&pdev->dev,
			 "devm_memremap_pages failed (%d), falling back to memremap(MEMREMAP_WB)\n",
			 ret);
	}
	addr = devm_memremap(&pdev->dev, idev->shm_phys, idev->shm_size,
			     MEMREMAP_WB);
	if (IS_ERR(addr))
		return PTR_ERR(addr);
	idev->shm = addr;
	return 0;
}

/* Sets IVWL_INFO_F_WB when the region ended up write-back. */
static void ivwl_check_wb(struct ivwl_dev *idev)
{
	if (ivwl_mapped_wb(idev->shm)) {
		idev->flags |= IVWL_INFO_F_WB;
		return;
	}
	dev_warn(&idev->pdev->dev,
		 "region at %pa is not mapped write-back (MTRR-uncached range?): every access may be uncached; see move_high\n",
		 &idev->shm_phys);
}

static void ivwl_free_irqs(struct ivwl_dev *idev, u32 n)
{
	while (n--)
		free_irq(idev->vec[n].irq, &idev->vec[n]);
	pci_free_irq_vectors(idev->pdev);
}

static int ivwl_setup_irqs(struct ivwl_dev *idev)
{
	struct pci_dev *pdev = idev->pdev;
	int count, ret;
	u32 v;

	count = pci_msix_vec_count(pdev);
	if (count <= 0) {
		dev_err(&pdev->dev, "no MSI-X: use ivshmem-doorbell with vectors=N\n");
		return -ENODEV;
	}
	count = min(count, IVWL_MAX_VECTORS);
	ret = pci_alloc_irq_vectors(pdev, 1, count, PCI_IRQ_MSIX);
	if (ret < 0)
		return ret;
	idev->nr_vectors = ret;

	idev->vec = kcalloc(idev->nr_vectors, sizeof(*idev->vec), GFP_KERNEL);
	if (!idev->vec) {
		pci_free_irq_vectors(pdev);
		return -ENOMEM;
	}
	for (v = 0; v < idev->nr_vectors; v++) {
		struct ivwl_vector *vec = &idev->vec[v];

		vec->idev = idev;
		vec->irq = pci_irq_vector(pdev, v);
		ret = request_irq(vec->irq, ivwl_irq, 0, idev->name, vec);
		if (ret) {
			ivwl_free_irqs(idev, v);
			return ret;
		}
	}
	return 0;
}

static int ivwl_probe(struct pci_dev *pdev, const struct pci_device_id *id)
{
	struct ivwl_dev *idev;
	int ret;

	ivwl_move_high(pdev);
	ret = pcim_enable_device(pdev);
	if (ret)
		return ret;
	/* MSI-X messages are memory writes by the device. */
	pci_set_master(pdev);
	if (!(pci_resource_flags(pdev, IVWL_BAR_SHM) & IORESOURCE_MEM) ||
	    pci_resource_len(pdev, IVWL_BAR_SHM) < PAGE_SIZE) {
		dev_err(&pdev->dev, "no shared memory BAR\n");
		return -ENODEV;
	}
	ret = pcim_iomap_regions(pdev, BIT(IVWL_BAR_REGS), KBUILD_MODNAME);
	if (ret)
		return ret;
	ret = pci_request_region(pdev, IVWL_BAR_SHM, KBUILD_MODNAME);
	if (ret)
		return ret;

	idev = kzalloc(sizeof(*idev), GFP_KERNEL);
	if (!idev)
		return -ENOMEM;
	kref_init(&idev->ref);
	init_rwsem(&idev->rw);
	INIT_LIST_HEAD(&idev->files);
	INIT_LIST_HEAD(&idev->bufs);
	init_waitqueue_head(&idev->wq);
	idev->pdev = pdev;
	idev->max_peers = max_peers && max_peers < IVWL_PEER_LIMIT ?
			  max_peers : IVWL_PEER_LIMIT;
	idev->id = ida_alloc(&ivwl_ida, GFP_KERNEL);
	if (idev->id < 0) {
		ret = idev->id;
		kfree(idev);
		return ret;
	}
	snprintf(idev->name, sizeof(idev->name), "ivwl%d", idev->id);
	idev->regs = pcim_iomap_table(pdev)[IVWL_BAR_REGS];
	idev->shm_phys = pci_resource_start(pdev, IVWL_BAR_SHM);
	idev->shm_size = pci_resource_len(pdev, IVWL_BAR_SHM);

	ret = ivwl_map_shm(idev);
	if (ret)
		goto err_put;
	ivwl_check_wb(idev);
	ret = ivwl_setup_irqs(idev);
	if (ret)
		goto err_put;

	idev->misc.minor = MISC_DYNAMIC_MINOR;
	idev->misc.name = idev->name;
	idev->misc.fops = &ivwl_fops;
	idev->misc.parent = &pdev->dev;
	idev->misc.mode = 0600;
	ret = misc_register(&idev->misc);
	if (ret)
		goto err_irqs;
	pci_set_drvdata(pdev, idev);

	dev_info(&pdev->dev, "%s: %llu MiB region (%s), %u vectors, peer %u, max_peers %u, %s at %pa\n",
		 idev->name, idev->shm_size >> 20,
		 idev->flags & IVWL_INFO_F_PAGES ? "pages" : "memremap",
		 idev->nr_vectors, ioread32(idev->regs + IVWL_REG_IVPOSITION),
		 idev->max_peers,
		 idev->flags & IVWL_INFO_F_WB ? "write-back" : "NOT write-back",
		 &idev->shm_phys);
	return 0;

err_irqs:
	ivwl_free_irqs(idev, idev->nr_vectors);
err_put:
	kref_put(&idev->ref, ivwl_dev_free);
	return ret;
}

static void ivwl_remove(struct pci_dev *pdev)
{
	struct ivwl_dev *idev = pci_get_drvdata(pdev);
	struct ivwl_file *f;
	struct ivwl_buf *buf;
	u32 v;

	misc_deregister(&idev->misc);
	ivwl_free_irqs(idev, idev->nr_vectors);

	down_write(&idev->rw);
	idev->dead = true;
	for (v = 0; v < idev->nr_vectors; v++)
		ivwl_bind(&idev->vec[v], NULL, NULL);
	/* Mappings must not outlive the device's BAR. */
	list_for_each_entry(f, &idev->files, link)
		unmap_mapping_range(f->filp->f_mapping, 0, 0, 1);
	list_for_each_entry(buf, &idev->bufs, link)
		unmap_mapping_range(buf->dmabuf->file->f_mapping, 0, 0, 1);
	up_write(&idev->rw);
	wake_up_interruptible_all(&idev->wq);

	kref_put(&idev->ref, ivwl_dev_free);
}

static const struct pci_device_id ivwl_ids[] = {
	{ PCI_DEVICE(PCI_VENDOR_ID_REDHAT_QUMRANET, 0x1110) },
	{ }
};
MODULE_DEVICE_TABLE(pci, ivwl_ids);

static struct pci_driver ivwl_driver = {
	.name = KBUILD_MODNAME,
	.id_table = ivwl_ids,
	.probe = ivwl_probe,
	.remove = ivwl_remove,
};
module_pci_driver(ivwl_driver);

MODULE_DESCRIPTION("ivwl: QEMU ivshmem-doorbell guest driver");
IVWL_IMPORT_NS_DMA_BUF();
MODULE_LICENSE("GPL");
