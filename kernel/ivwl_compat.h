/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Shims for the kernel APIs ivwl.ko uses that changed between the
 * kernels it builds for (Debian bookworm's 6.1 and 6.12, and newer).
 * Each one is named like the newest form and maps it onto the older
 * one, so the driver is written against the current API.
 */
#ifndef IVWL_COMPAT_H
#define IVWL_COMPAT_H

#include <linux/eventfd.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/version.h>

/* 6.8 dropped the count argument: every signal adds 1. */
#if KERNEL_VERSION(6, 8, 0) <= LINUX_VERSION_CODE
static inline void ivwl_eventfd_signal(struct eventfd_ctx *ctx)
{
	eventfd_signal(ctx);
}
#else
static inline void ivwl_eventfd_signal(struct eventfd_ctx *ctx)
{
	eventfd_signal(ctx, 1);
}
#endif

/* 6.3 made vma->vm_flags read-only behind vm_flags_set(). */
#if KERNEL_VERSION(6, 3, 0) <= LINUX_VERSION_CODE
static inline void ivwl_vm_flags_set(struct vm_area_struct *vma,
				     vm_flags_t flags)
{
	vm_flags_set(vma, flags);
}
#else
static inline void ivwl_vm_flags_set(struct vm_area_struct *vma,
				     vm_flags_t flags)
{
	vma->vm_flags |= flags;
}
#endif

/* 6.13 takes the namespace as a string literal. */
#if KERNEL_VERSION(6, 13, 0) <= LINUX_VERSION_CODE
#define IVWL_IMPORT_NS_DMA_BUF() MODULE_IMPORT_NS("DMA_BUF")
#else
#define IVWL_IMPORT_NS_DMA_BUF() MODULE_IMPORT_NS(DMA_BUF)
#endif

#endif /* IVWL_COMPAT_H */
