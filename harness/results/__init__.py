# SPDX-License-Identifier: MIT
"""What the kernel said, and what it must have said: records out of serial
logs and results folders (`records`), statistics recomputed from them
(`stats`), memory maps of every kind (`maps`), the heap a boot must build
(`oracle`), a QR code's payload (`qrpayload`) and Xen's published figures
(`xen`)."""
