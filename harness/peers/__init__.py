# SPDX-License-Identifier: MIT
"""The real binaries beside the models (`make peers`): Debian's packages
through a private apt (`apt`, `fetch`), booted under -icount with exact
brackets (`boot`), their own log lines (`logs`), function by function
(`profile`), the report (`report`), the command (`command`), and the Linux
models against the real Linux (`icount`, `peers-icount`)."""
