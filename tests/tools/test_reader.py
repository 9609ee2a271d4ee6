# SPDX-License-Identifier: MIT
"""harness.qemu's serial reader: what it echoes and keeps when a character's
bytes arrive in separate reads, as they do from an emulated UART."""
import subprocess
import sys
import time

from harness.qemu import runner

TEXT = "QR \u2588\u2580\u2584 blocks\n\u2584\u2588 done\n"

# Writes TEXT a byte at a time, pausing so that each byte is a read of its own.
DRIP = ("import sys, time\n"
        f"for c in {TEXT!r}.encode():\n"
        "    sys.stdout.buffer.write(bytes([c])); sys.stdout.buffer.flush(); time.sleep(0.003)\n")


def test_split_characters_echo_and_log_whole(capsys, tmp_path):
    proc = subprocess.Popen([sys.executable, "-c", DRIP], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    reader = runner._Reader(proc, time.monotonic(), quiet=False, log_path=str(tmp_path / "serial.log"))
    proc.wait(timeout=30)
    log = reader.finish()
    echoed = capsys.readouterr().out
    assert echoed == TEXT, "the echo broke characters split across reads"
    assert log == TEXT
    assert [line for _, line in reader.lines] == TEXT.splitlines()
    assert (tmp_path / "serial.log").read_text(encoding="utf-8") == TEXT
