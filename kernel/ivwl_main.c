// SPDX-License-Identifier: GPL-2.0-only
/*
 * ivwl: guest driver for QEMU ivshmem-doorbell (PCI 1af4:1110).
 *
 * One misc device /dev/ivwlN per PCI device:
 *   - mmap maps the shared region (BAR2) write-back, bounds-checked;
 *   - IVWL_IOCTL_GET_INFO, IVWL_IOCTL_DOORBELL, IVWL_IOCTL_SET_EVENTFD
 *     (kernel/uapi/ivwl.h).
 *
 * BAR2 gets struct pages through devm_memremap_pages()
 * (MEMORY_DEVICE_GENERIC), which keeps the kernel mapping write-back and
 * will allow dma-buf export of sub-ranges later.  Should that fail (for
 * instance a BAR that is not 2 MiB aligned) the driver falls back to
 * memremap(MEMREMAP_WB) and says so in the log and in ivwl_info.flags.
 * Never pci_iomap(): an uncached mapping of the region is slow.
 *
 * MSI-X vectors are allocated and requested once at probe and never
 * masked afterwards; the handler only signals the bound eventfd.
 *
 * The region is untrusted memory: this driver never reads it.
 */
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
#include <linux/pci.h>
#include <linux/rcupdate.h>
#include <linux/rwsem.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include "uapi/ivwl.h"

#define IVWL_BAR_REGS 0
#define IVWL_BAR_SHM 2

#define IVWL_REG_IVPOSITION 0x08
#define IVWL_REG_DOORBELL 0x0c

/* QEMU masks the vector with 0xff. */
#define IVWL_MAX_VECTORS 256

struct ivwl_dev;

struct ivwl_vector {
	struct ivwl_dev *idev;
	struct eventfd_ctx __rcu *ctx;
	struct file *owner;	/* the open file that bound ctx */
	int irq;
};

struct ivwl_dev {
	struct kref ref;
	struct pci_dev *pdev;
	struct miscdevice misc;
	char name[16];
	int id;

	/*
	 * Read: doorbell, info, mmap.  Write: eventfd bindings, the file
	 * list, removal.  The interrupt handler only uses RCU.
	 */
	struct rw_semaphore rw;
	bool dead;
	struct list_head files;

	void __iomem *regs;
	phys_addr_t shm_phys;
	u64 shm_size;
	void *shm;		/* kernel mapping, write-back */
	struct dev_pagemap *pgmap;	/* devres: outlives remove() */
	u32 flags;		/* IVWL_INFO_F_* */

	u32 nr_vectors;
	struct ivwl_vector *vec;
};

struct ivwl_file {
	struct ivwl_dev *idev;
	struct file *filp;
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

	rcu_read_lock();
	ctx = rcu_dereference(vec->ctx);
	if (ctx)
		eventfd_signal(ctx, 1);
	rcu_read_unlock();
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

static int ivwl_open(struct inode *inode, struct file *filp)
{
	struct miscdevice *misc = filp->private_data;
	struct ivwl_dev *idev = container_of(misc, struct ivwl_dev, misc);
	struct ivwl_file *f;

	f = kzalloc(sizeof(*f), GFP_KERNEL);
	if (!f)
		return -ENOMEM;
	down_write(&idev->rw);
	if (idev->dead) {
		up_write(&idev->rw);
		kfree(f);
		return -ENODEV;
	}
	kref_get(&idev->ref);
	f->idev = idev;
	f->filp = filp;
	list_add(&f->link, &idev->files);
	up_write(&idev->rw);
	filp->private_data = f;
	return 0;
}

static int ivwl_release(struct inode *inode, struct file *filp)
{
	struct ivwl_file *f = filp->private_data;
	struct ivwl_dev *idev = f->idev;
	u32 v;

	down_write(&idev->rw);
	for (v = 0; v < idev->nr_vectors; v++)
		if (idev->vec[v].owner == filp)
			ivwl_bind(&idev->vec[v], NULL, NULL);
	list_del(&f->link);
	up_write(&idev->rw);
	kfree(f);
	kref_put(&idev->ref, ivwl_dev_free);
	return 0;
}

static long ivwl_get_info(struct ivwl_dev *idev, void __user *arg)
{
	struct ivwl_info info = {
		.abi = IVWL_ABI_VERSION,
		.nr_vectors = idev->nr_vectors,
		.flags = idev->flags,
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
	if (db.flags || db.vector >= idev->nr_vectors)
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

static long ivwl_set_eventfd(struct ivwl_dev *idev, struct file *filp,
			     void __user *arg)
{
	struct ivwl_eventfd req;
	struct eventfd_ctx *ctx = NULL;

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
	if (idev->dead) {
		up_write(&idev->rw);
		if (ctx)
			eventfd_ctx_put(ctx);
		return -ENODEV;
	}
	ivwl_bind(&idev->vec[req.vector], ctx, filp);
	up_write(&idev->rw);
	return 0;
}

static long ivwl_ioctl(struct file *filp, unsigned int cmd, unsigned long arg)
{
	struct ivwl_file *f = filp->private_data;
	void __user *uarg = (void __user *)arg;

	switch (cmd) {
	case IVWL_IOCTL_GET_INFO:
		return ivwl_get_info(f->idev, uarg);
	case IVWL_IOCTL_DOORBELL:
		return ivwl_doorbell(f->idev, uarg);
	case IVWL_IOCTL_SET_EVENTFD:
		return ivwl_set_eventfd(f->idev, filp, uarg);
	default:
		return -ENOTTY;
	}
}

static int ivwl_mmap(struct file *filp, struct vm_area_struct *vma)
{
	struct ivwl_file *f = filp->private_data;
	struct ivwl_dev *idev = f->idev;
	unsigned long size = vma->vm_end - vma->vm_start;
	u64 pages = idev->shm_size >> PAGE_SHIFT;
	u64 offset;
	int ret;

	if (!(vma->vm_flags & VM_SHARED))
		return -EINVAL;
	if (vma->vm_pgoff >= pages || (size >> PAGE_SHIFT) > pages - vma->vm_pgoff)
		return -ENXIO;
	offset = (u64)vma->vm_pgoff << PAGE_SHIFT;

	down_read(&idev->rw);
	if (idev->dead) {
		up_read(&idev->rw);
		return -ENODEV;
	}
	/*
	 * vm_page_prot of a shared mapping is write-back, the same memory
	 * type the kernel mapping reserved for the range (PAT).
	 */
	vma->vm_flags |= VM_IO | VM_DONTEXPAND | VM_DONTDUMP;
	ret = remap_pfn_range(vma, vma->vm_start,
			      PHYS_PFN(idev->shm_phys + offset), size,
			      vma->vm_page_prot);
	up_read(&idev->rw);
	return ret;
}

static const struct file_operations ivwl_fops = {
	.owner = THIS_MODULE,
	.open = ivwl_open,
	.release = ivwl_release,
	.unlocked_ioctl = ivwl_ioctl,
	.compat_ioctl = compat_ptr_ioctl,
	.mmap = ivwl_mmap,
	.llseek = noop_llseek,
};

static int ivwl_map_shm(struct ivwl_dev *idev)
{
	struct pci_dev *pdev = idev->pdev;
	void *addr;

	/*
	 * The pagemap is torn down by devres after remove() has dropped
	 * idev: it must not live in idev.
	 */
	idev->pgmap = devm_kzalloc(&pdev->dev, sizeof(*idev->pgmap),
				   GFP_KERNEL);
	if (!idev->pgmap)
		return -ENOMEM;
	idev->pgmap->type = MEMORY_DEVICE_GENERIC;
	idev->pgmap->range.start = idev->shm_phys;
	idev->pgmap->range.end = idev->shm_phys + idev->shm_size - 1;
	idev->pgmap->nr_range = 1;
	addr = devm_memremap_pages(&pdev->dev, idev->pgmap);
	if (!IS_ERR(addr)) {
		idev->shm = addr;
		idev->flags |= IVWL_INFO_F_PAGES;
		return 0;
	}
	dev_warn(&pdev->dev,
		 "devm_memremap_pages failed (%ld), falling back to memremap(MEMREMAP_WB)\n",
		 PTR_ERR(addr));
	addr = devm_memremap(&pdev->dev, idev->shm_phys, idev->shm_size,
			     MEMREMAP_WB);
	if (IS_ERR(addr))
		return PTR_ERR(addr);
	idev->shm = addr;
	return 0;
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
	idev->pdev = pdev;
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

	dev_info(&pdev->dev, "%s: %llu MiB region (%s), %u vectors, peer %u\n",
		 idev->name, idev->shm_size >> 20,
		 idev->flags & IVWL_INFO_F_PAGES ? "pages" : "memremap",
		 idev->nr_vectors, ioread32(idev->regs + IVWL_REG_IVPOSITION));
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
	up_write(&idev->rw);

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
MODULE_LICENSE("GPL");
