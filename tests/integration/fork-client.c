/* SPDX-License-Identifier: MIT */
/*
 * A client that forks with its connection open (test-in-process.py).
 *
 *   ivwl-fork-client both     the child makes a round trip while the
 *                             parent still runs; the parent makes one
 *                             once the child has exited
 *   ivwl-fork-client daemon   the parent exits at once, without a word
 *                             on the connection, as a client that goes
 *                             into the background does; the
 *                             child makes its round trips
 *
 * Each process prints one line, "parent: ok", "child: ok" or
 * "child: refused (ERRNO)", and exits 0 whatever the round trip did:
 * the test judges.  stdout is unbuffered.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <wayland-client.h>

/* One round trip, and its result in a line. */
static void
say_roundtrip(struct wl_display *display, const char *who)
{
	if (wl_display_roundtrip(display) >= 0 &&
	    wl_display_roundtrip(display) >= 0)
		printf("%s: ok\n", who);
	else
		printf("%s: refused (%s)\n", who,
		       strerror(wl_display_get_error(display)));
}

int
main(int argc, char *argv[])
{
	struct wl_display *display;
	bool daemon;
	pid_t pid;

	if (argc != 2 || (strcmp(argv[1], "both") != 0 &&
			  strcmp(argv[1], "daemon") != 0)) {
		fprintf(stderr, "usage: %s both|daemon\n", argv[0]);
		return 2;
	}
	daemon = strcmp(argv[1], "daemon") == 0;
	setvbuf(stdout, NULL, _IONBF, 0);
	display = wl_display_connect(NULL);
	if (!display) {
		fprintf(stderr, "cannot connect: %s\n", strerror(errno));
		return 1;
	}
	if (wl_display_roundtrip(display) < 0) {
		fprintf(stderr, "the first round trip failed\n");
		return 1;
	}
	printf("connected\n");
	pid = fork();
	if (pid < 0) {
		fprintf(stderr, "fork: %s\n", strerror(errno));
		return 1;
	}
	if (pid == 0) {
		say_roundtrip(display, "child");
		/* the child's end, as a daemon's: the connection's too */
		if (daemon)
			wl_display_disconnect(display);
		return 0;
	}
	if (daemon)
		_exit(0);	/* not a word more, as a daemon's parent */
	while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
		;
	say_roundtrip(display, "parent");
	wl_display_disconnect(display);
	return 0;
}
