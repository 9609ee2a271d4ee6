// SPDX-License-Identifier: MIT
/*
 * User half: one boot of the kernel half in a child process, so that
 * every boot starts from the kernel objects' pristine state, with its
 * snapshots, times and failure in memory shared with the parent. A run's
 * memory is one memfd, laid out from its header on, so that a child that
 * is another tester binary (a variant built from another tree: stock
 * against a proposal) can map it too; each process points the snapshots
 * into it where it mapped it (run_attach()). A child that does not end in
 * child_seconds is a hang, and says so.
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
#include "u_seq.h"

#define CAP_FIELDS (2UL << 20)
#define CAP_NAMES (1UL << 16)
#define CAP_BYTES (256UL << 20)
#define HEAD 4096UL
#define SNAP_BYTES (CAP_NAMES + CAP_FIELDS * sizeof(struct lxt_field) + CAP_BYTES)
#define RUN_BYTES (HEAD + 2 * SNAP_BYTES)

unsigned int child_seconds = 120;
static struct run *me;

void run_attach(struct run *r)
{
	unsigned char *at = (unsigned char *)r + HEAD;
	int i;

	for (i = 0; i < 2; i++, at += SNAP_BYTES) {
		r->snap[i].names = (char *)at;
		r->snap[i].cap_names = CAP_NAMES;
		r->snap[i].fields = (struct lxt_field *)(at + CAP_NAMES);
		r->snap[i].cap_fields = CAP_FIELDS;
		r->snap[i].bytes = at + CAP_NAMES + CAP_FIELDS * sizeof(struct lxt_field);
	}
}

static struct run *run_map(int fd)
{
	struct run *r = mmap(NULL, RUN_BYTES, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_NORESERVE, fd, 0);

	if (r == MAP_FAILED) {
		perror("linuxmm: mmap of a run's memory");
		exit(2);
	}
	run_attach(r);
	return r;
}

struct run *new_run(void)
{
	int fd = memfd_create("linuxmm-run", 0);
	struct run *r;

	if (fd < 0 || ftruncate(fd, RUN_BYTES)) {
		perror("linuxmm: memfd for a run");
		exit(2);
	}
	r = run_map(fd);
	r->fd = fd;
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

/* In the child: the layout booted with `param` (NULL or "-": none) into r. */
static _Noreturn void child_boot(const struct lxt_layout *layout, const char *param, struct run *r)
{
	struct lxt_layout l = *layout;
	unsigned long phys = phys_bytes_of(layout);
	int i;

	me = r;
	alarm(child_seconds);	/* a hang ends as a failure, naming it */
	if (param && strcmp(param, "-"))
		l.cmdline[l.ncmdline++] = param;
	host_setup(phys, phys / 4096 * lxt_page_bytes(), -1, child_failed);
	/* A timed boot's struct pages are garbage before its clock starts. */
	for (i = 0; l.prefilled && i < l.nmem; i++) {
		unsigned long sec = lxt_section_pages(), from = l.mem[i].start / sec * sec;
		unsigned long to = (l.mem[i].end + sec - 1) / sec * sec;

		lxt_host_fill((char *)lxt_vmemmap_base + from * lxt_page_bytes(), (to - from) * lxt_page_bytes(),
			      l.fill_seed ^ from, l.fill_kind);
	}
	if (r->snapshots)
		lxt_boot(&l, &r->snap[0], &r->snap[1], &r->times);
	else
		lxt_boot(&l, NULL, NULL, &r->times);
	r->threads_cpu_ns = host_threads_cpu_ns;
	_exit(0);
}

int child_main(int fd, unsigned long seed, const char *param)
{
	struct lxt_layout l;

	layout_of_seed(seed, &l);
	child_boot(&l, param, run_map(fd));
}

int boot(const struct lxt_layout *layout, unsigned long seed, const char *variant, struct run *r)
{
	const char *colon = strchr(variant, ':');
	int status;
	pid_t pid;

	r->msg[0] = 0;
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		perror("linuxmm: fork");
		exit(2);
	}
	if (!pid && variant[0] == '/') {
		/* Another tester binary: it makes the same machine from the seed. */
		char path[4096], fd[16], s[32], t[16];

		snprintf(path, sizeof(path), "%.*s", (int)(colon ? colon - variant : (long)strlen(variant)), variant);
		snprintf(fd, sizeof(fd), "%d", r->fd);
		snprintf(s, sizeof(s), "%lu", seed);
		snprintf(t, sizeof(t), "%u", child_seconds);
		execl(path, path, "--child", s, "--run-fd", fd, "--param", colon ? colon + 1 : "-", "--timeout", t,
		      (char *)NULL);
		snprintf(r->msg, sizeof(r->msg), "cannot run %.400s: %s", path, strerror(errno));
		_exit(2);
	}
	if (!pid)
		child_boot(layout, variant, r);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	run_attach(r);		/* the child may have pointed them into its own view */
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
