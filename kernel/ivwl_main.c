// SPDX-License-Identifier: GPL-2.0-only
/*
 * ivwl: guest driver for QEMU ivshmem-doorbell (PCI 1af4:1110).
 *
 * One misc device /dev/ivwlN per PCI device (kernel/uapi/ivwl.h):
 *   - mmap maps the shared region (BAR2) write-back, bounds-checked;
 *   - IVWL_IOCTL_GET_INFO, IVWL_IOCTL_DOORBELL, IVWL_IOCTL_SET_EVENTFD
 *     (a vector's eventfd belongs to the open file that bound it);
 *   - IVWL_IOCTL_EXPORT_DMABUF exports a page-aligned sub-range as a
 *     dma-buf (ivwl_dmabuf.c);
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
 * and wakes readers.  It reads the binding under RCU, so an unbound
 * eventfd is put after a grace period, waited for with rw dropped: once
 * per SET_EVENTFD that replaces a binding, once per release() or
 * remove() whatever the number of vectors they unbind.
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
#include <linux/eventfd.h>
#include <linux/fs.h>
#include <linux/idr.h>
#include <linux/interrupt.h>
#include <linux/io.h>
#include <linux/lockdep.h>
#include <linux/memremap.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/pci.h>
#include <linux/poll.h>
#include <linux/rcupdate.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#ifdef CONFIG_X86
#include <asm/memtype.h>
#include <asm/pgtable.h>
#endif

#include "ivwl_compat.h"
#include "ivwl_drv.h"
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

static DEFINE_IDA(ivwl_ida);

static void ivwl_dev_free(struct kref *ref)
{
	struct ivwl_dev *idev = container_of(ref, struct ivwl_dev, ref);

	ida_free(&ivwl_ida, idev->id);
	kfree(idev->unbound);
	kfree(idev->vec);
	kfree(idev);
}

void ivwl_dev_get(struct ivwl_dev *idev)
{
	kref_get(&idev->ref);
}

void ivwl_dev_put(struct ivwl_dev *idev)
{
	kref_put(&idev->ref, ivwl_dev_free);
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

/*
 * Replaces the binding of vec and returns the old eventfd, which the
 * interrupt handler may still be signalling: the caller puts it with
 * ivwl_put_unbound() once rw is dropped.
 */
static struct eventfd_ctx *ivwl_bind(struct ivwl_vector *vec,
				     struct eventfd_ctx *ctx,
				     struct file *owner)
{
	lockdep_assert_held_write(&vec->idev->rw);
	vec->owner = ctx ? owner : NULL;
	return rcu_replace_pointer(vec->ctx, ctx,
				   lockdep_is_held(&vec->idev->rw));
}

/*
 * Unbinds every vector bound through owner, or every vector when owner
 * is NULL, and stores the old eventfds in unbound (room for nr_vectors).
 * Returns how many it stored.
 */
static u32 ivwl_unbind_all(struct ivwl_dev *idev, struct file *owner,
			   struct eventfd_ctx **unbound)
{
	struct eventfd_ctx *old;
	u32 v, n = 0;

	lockdep_assert_held_write(&idev->rw);
	for (v = 0; v < idev->nr_vectors; v++) {
		if (owner && idev->vec[v].owner != owner)
			continue;
		old = ivwl_bind(&idev->vec[v], NULL, NULL);
		if (old)
			unbound[n++] = old;
	}
	return n;
}

/*
 * Puts n eventfds unbound under rw after one grace period, so that no
 * interrupt handler still signals them.  Called without rw: the wait
 * must not hold up doorbells, mmap and faults of other files.
 */
static void ivwl_put_unbound(struct eventfd_ctx **unbound, u32 n)
{
	if (!n)
		return;
	synchronize_rcu();
	while (n--)
		eventfd_ctx_put(unbound[n]);
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

/*
 * Maps [vm_pgoff, vm_pgoff + pages) of span into vma, write-back: the
 * mmap of the node and of dma-bufs.
 */
int ivwl_mmap_span(struct ivwl_span *span, struct vm_area_struct *vma)
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

static void ivwl_file_free(struct ivwl_file *f)
{
	mutex_destroy(&f->lock);
	kfree(f->unbound);
	kfree(f->seen);
	kfree(f->ev);
	kfree(f);
}

static int ivwl_open(struct inode *inode, struct file *filp)
{
	struct miscdevice *misc = filp->private_data;
	struct ivwl_dev *idev = container_of(misc, struct ivwl_dev, misc);
	u32 v, n = idev->nr_vectors;
	struct ivwl_file *f;

	f = kzalloc(sizeof(*f), GFP_KERNEL);
	if (!f)
		return -ENOMEM;
	mutex_init(&f->lock);
	f->seen = kcalloc(n, sizeof(*f->seen), GFP_KERNEL);
	f->ev = kcalloc(n, sizeof(*f->ev), GFP_KERNEL);
	f->unbound = kcalloc(n, sizeof(*f->unbound), GFP_KERNEL);
	if (!f->seen || !f->ev || !f->unbound) {
		ivwl_file_free(f);
		return -ENOMEM;
	}
	down_write(&idev->rw);
	if (idev->dead) {
		up_write(&idev->rw);
		ivwl_file_free(f);
		return -ENODEV;
	}
	ivwl_dev_get(idev);
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
	u32 n;

	down_write(&idev->rw);
	n = ivwl_unbind_all(idev, filp, f->unbound);
	list_del(&f->link);
	up_write(&idev->rw);
	ivwl_put_unbound(f->unbound, n);
	ivwl_file_free(f);
	ivwl_dev_put(idev);
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
	struct eventfd_ctx *ctx = NULL, *old = NULL;
	struct ivwl_eventfd req;
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
		old = ivwl_bind(vec, ctx, filp);
	up_write(&idev->rw);
	if (ret && ctx)
		eventfd_ctx_put(ctx);
	if (old)
		ivwl_put_unbound(&old, 1);
	return ret;
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
	idev->unbound = kcalloc(idev->nr_vectors, sizeof(*idev->unbound),
				GFP_KERNEL);
	if (!idev->vec || !idev->unbound) {
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
	ivwl_dev_put(idev);
	return ret;
}

static void ivwl_remove(struct pci_dev *pdev)
{
	struct ivwl_dev *idev = pci_get_drvdata(pdev);
	struct ivwl_file *f;
	struct ivwl_buf *buf;
	u32 n;

	misc_deregister(&idev->misc);
	ivwl_free_irqs(idev, idev->nr_vectors);

	down_write(&idev->rw);
	idev->dead = true;
	n = ivwl_unbind_all(idev, NULL, idev->unbound);
	/* Mappings must not outlive the device's BAR. */
	list_for_each_entry(f, &idev->files, link)
		unmap_mapping_range(f->filp->f_mapping, 0, 0, 1);
	list_for_each_entry(buf, &idev->bufs, link)
		unmap_mapping_range(buf->dmabuf->file->f_mapping, 0, 0, 1);
	up_write(&idev->rw);
	ivwl_put_unbound(idev->unbound, n);
	wake_up_interruptible_all(&idev->wq);

	ivwl_dev_put(idev);
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
