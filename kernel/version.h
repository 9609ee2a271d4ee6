/* SPDX-License-Identifier: MIT */
/* The version every boot record carries, kernel and hosted runner alike. */
#ifndef KERNEL_VERSION_H
#define KERNEL_VERSION_H

#define BOOTHEAP_VERSION "0.1"

#endif
