/* SPDX-License-Identifier: MIT */
/*
 * ivwl_proc_parent: the relay walks a connecting process's ancestors
 * with it to decide whether it belongs to the app (relay-zc.c), so a
 * name chosen to confuse the /proc/<pid>/stat parser must not work.
 */
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness.h"
#include "proc.h"

/* A child named name, stopped until killed; its pid. */
static pid_t
named_child(const char *name)
{
	int sv[2];
	pid_t pid;
	char c;

	REQUIRE(pipe(sv) == 0);
	pid = fork();
	REQUIRE(pid >= 0);
	if (pid == 0) {
		prctl(PR_SET_NAME, name);
		if (write(sv[1], "x", 1) != 1)
			_exit(1);
		pause();
		_exit(0);
	}
	close(sv[1]);
	REQUIRE(read(sv[0], &c, 1) == 1);
	close(sv[0]);
	return pid;
}

static void
reap(pid_t pid)
{
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
}

static void
test_parent_of_child(void)
{
	pid_t pid = named_child("plain");

	CHECK_EQ(ivwl_proc_parent(pid), getpid());
	reap(pid);
}

static void
test_name_with_parentheses(void)
{
	/* Looks like the end of the name, a state and a parent of 1. */
	pid_t pid = named_child("x) S 1 (y");

	CHECK_EQ(ivwl_proc_parent(pid), getpid());
	reap(pid);
}

static void
test_gone(void)
{
	pid_t pid = named_child("gone");

	reap(pid);
	CHECK_EQ(ivwl_proc_parent(pid), -1);
	CHECK_EQ(ivwl_proc_parent(-5), -1);
}

IVWL_TEST_MAIN(
	{ "parent of a child", test_parent_of_child },
	{ "a name with parentheses", test_name_with_parentheses },
	{ "a process that is gone", test_gone },
)
