/* SPDX-License-Identifier: MIT */
/* User half: machines from seeds (u_seq.c). */
#ifndef LXT_U_SEQ_H
#define LXT_U_SEQ_H

#include <stdio.h>

struct lxt_layout;

void seq_layout(unsigned long seed, struct lxt_layout *l);
void seq_print(FILE *f, const struct lxt_layout *l);

#endif
