#ifndef IVWL_PROC_H
#define IVWL_PROC_H

#include <sys/types.h>

/* pid's parent from /proc, or -1. */
pid_t
ivwl_proc_parent(pid_t pid);

#endif
