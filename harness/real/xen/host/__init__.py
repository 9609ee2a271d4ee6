# SPDX-License-Identifier: MIT
"""Xen's own heap code on the host: `heap` builds a tree's page_alloc.c into
the differential tester of hosted/xenheap/ and runs it (`xen-src heap-test`),
`timing` times the same code (`xen-src heap-time`), `cut` reads the
preprocessed page_alloc.c that `heap` cuts."""
