# SPDX-License-Identifier: MIT
"""The real Xen and Linux: Debian's binaries and builds from source, each
measured beside bootheap's models of them (the models themselves, the
"peers", live in the kernel: mm/peers/). A room a subject:

  cli.py     the command line the three commands share: modes as
             subcommands, one name and default a flag, results folders
  debian/    Debian's packages through a private apt; the binaries fetched
  bracket/   a real kernel booted under -icount, its hand-over bracketed
  binaries/  Debian's Xen and Linux binaries beside the models (`binaries`),
             and the Linux models held to them (`peers-icount`)
  source/    a kernel built from a Debian source package with a series of
             this project: source, tree, configuration, key, folder and
             build.json, for both of
  xen/       Xen from source (`xen-src`)
  linux/     Linux from source (`linux-src`)"""
