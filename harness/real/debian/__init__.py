# SPDX-License-Identifier: MIT
"""Debian's packages through the harness's private apt configuration
(`apt`), and Debian's Xen and Linux binary packages fetched and checked
(`fetch`)."""
