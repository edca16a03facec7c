// SPDX-License-Identifier: GPL-2.0-only
/*
 * ivwl: IVWL_IOCTL_EXPORT_DMABUF, a page-aligned range of the region as
 * a dma-buf.
 *
 * CPU mappings of a dma-buf are PFN mappings of the range, made and
 * faulted like the node's (ivwl_mmap_span()).  A device attachment gets
 * an sg_table of the region's struct pages, so it needs them
 * (IVWL_INFO_F_PAGES); each mapped sg_table holds a reference on the
 * pagemap, so the pages outlive every importer (unbind waits for them).
 * Every dma-buf holds a reference on struct ivwl_dev, and through the
 * dma-buf's owner on the module.  No vmap: a kernel pointer into a BAR
 * that may go away is not something to hand out.
 */
#include <linux/dma-buf.h>
#include <linux/dma-mapping.h>
#include <linux/fcntl.h>
#include <linux/fs.h>
#include <linux/memremap.h>
#include <linux/scatterlist.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <linux/version.h>

#include "ivwl_drv.h"
#include "uapi/ivwl.h"

/*
 * get_dev_pagemap() lost its pgmap argument after 6.12: Debian's 6.1
 * and 6.12 take two, sid's 7.2 one (the kernels between are not built
 * here).
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 13, 0)
#define ivwl_get_dev_pagemap(pfn) get_dev_pagemap(pfn)
#else
#define ivwl_get_dev_pagemap(pfn) get_dev_pagemap(pfn, NULL)
#endif

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
	pgmap = idev->dead ? NULL : ivwl_get_dev_pagemap(pfn);
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
	ivwl_dev_put(idev);
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

long ivwl_export(struct ivwl_dev *idev, struct file *filp, void __user *arg)
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
	ivwl_dev_get(idev);
	buf->dmabuf = dmabuf;
	list_add(&buf->link, &idev->bufs);
	up_write(&idev->rw);

	fd = dma_buf_fd(dmabuf, O_CLOEXEC);
	if (fd < 0)
		dma_buf_put(dmabuf);
	return fd;
}
