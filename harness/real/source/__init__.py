# SPDX-License-Identifier: MIT
"""A kernel built from a Debian source package with a series of this
project, the layer Xen and Linux share: the source package and the series
(`package`), what a build does once its tree is ready (`build`: the
.config settled, make, the key, build.json, pruning), and the kernel that
ties them to its folders and releases (`kernel`: SourceKernel)."""
