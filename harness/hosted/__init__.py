# SPDX-License-Identifier: MIT
"""The hosted runner (build/bootheap-host, the kernel's heap code in user
space) from the host side: its runs, its sizes, and `hosted` (`runner`)."""
