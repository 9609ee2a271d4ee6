# SPDX-License-Identifier: MIT
"""Debian's packages through the harness's private apt configuration
(`apt`), and the binary packages of the peers fetched and checked
(`fetch`)."""
