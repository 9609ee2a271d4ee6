/* SPDX-License-Identifier: MIT */
/* User half: the phases timed on this CPU (u_time.c). */
#ifndef LXT_U_TIME_H
#define LXT_U_TIME_H

/* runs boots of each variant at each size in GiB, their times as JSON lines -> exit status. */
int time_main(const unsigned long *gibs, int ngibs, int runs, char *const variants[2], int threads);

#endif
