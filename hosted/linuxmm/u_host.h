/* SPDX-License-Identifier: MIT */
/* User half: the machine (u_host.c). */
#ifndef LXT_U_HOST_H
#define LXT_U_HOST_H

/*
 * Reserves the direct map and the vmemmap (vmemmap_fd's memory when it is
 * not -1), maps the CPUs' areas and loads CPU 0.
 */
void host_setup(unsigned long phys_bytes, unsigned long vmemmap_bytes, int vmemmap_fd,
		void (*fail)(const char *));

extern int host_verbose;
extern unsigned long host_threads_cpu_ns;	/* CPU time of the threads joined */

#endif
