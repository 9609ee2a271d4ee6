// SPDX-License-Identifier: MIT
/*
 * User half: one boot of the kernel half in a child process, so that
 * every boot starts from the kernel objects' pristine state, with its
 * snapshots, times and failure in memory shared with the parent. A child
 * that does not end in child_seconds is a hang, and says so.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "u_child.h"
#include "u_host.h"

#define CAP_FIELDS (2UL << 20)
#define CAP_BYTES (256UL << 20)

unsigned int child_seconds = 120;
static struct run *me;

static void *shared(unsigned long bytes)
{
	void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);

	if (p == MAP_FAILED) {
		perror("linuxmm: mmap of the snapshots");
		exit(2);
	}
	return p;
}

struct run *new_run(void)
{
	struct run *r = shared(sizeof(*r));
	int i;

	for (i = 0; i < 2; i++) {
		r->snap[i].cap_fields = CAP_FIELDS;
		r->snap[i].fields = shared(CAP_FIELDS * sizeof(struct lxt_field));
		r->snap[i].bytes = shared(CAP_BYTES);
	}
	r->snapshots = 1;
	return r;
}

void copies(struct run *r, int on)
{
	r->snap[0].cap_bytes = r->snap[1].cap_bytes = on ? CAP_BYTES : 0;
}

/* A GiB beyond the last frame, at least 64 GiB: room for memblock's top-down allocations. */
unsigned long phys_bytes_of(const struct lxt_layout *l)
{
	unsigned long end = 0;
	int i;

	for (i = 0; i < l->nmem; i++)
		if (l->mem[i].end > end)
			end = l->mem[i].end;
	end = (end * 4096 + (1UL << 30) - 1) & ~((1UL << 30) - 1);
	return end > (64UL << 30) ? end : 64UL << 30;
}

static void child_failed(const char *what)
{
	if (me)
		snprintf(me->msg, sizeof(me->msg), "%s", what);
}

int boot(const struct lxt_layout *layout, const char *param, struct run *r)
{
	int status;
	pid_t pid;

	r->msg[0] = 0;
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		perror("linuxmm: fork");
		exit(2);
	}
	if (!pid) {
		struct lxt_layout l = *layout;
		unsigned long phys = phys_bytes_of(layout);

		me = r;
		alarm(child_seconds);	/* a hang ends as a failure, naming it */
		if (param)
			l.cmdline[l.ncmdline++] = param;
		host_setup(phys, phys / 4096 * lxt_page_bytes(), -1, child_failed);
		if (r->snapshots)
			lxt_boot(&l, &r->snap[0], &r->snap[1], &r->times);
		else
			lxt_boot(&l, NULL, NULL, &r->times);
		r->threads_cpu_ns = host_threads_cpu_ns;
		_exit(0);
	}
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (WIFEXITED(status) && WEXITSTATUS(status) == 0 && !r->snap[0].overflow && !r->snap[1].overflow)
		return 0;
	if (!r->msg[0] && WIFSIGNALED(status) && WTERMSIG(status) == SIGALRM)
		snprintf(r->msg, sizeof(r->msg), "no end after %u s: a hang (--timeout)", child_seconds);
	else if (!r->msg[0])
		snprintf(r->msg, sizeof(r->msg), WIFSIGNALED(status) ? "killed by signal %d" : "exit status %d",
			 WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status));
	if (r->snap[0].overflow || r->snap[1].overflow)
		snprintf(r->msg, sizeof(r->msg), "the snapshot outgrew its buffer");
	return 1;
}
