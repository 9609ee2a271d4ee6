# SPDX-License-Identifier: MIT
"""harness.qemu's serial reader: what it echoes and keeps when a character's
bytes arrive in separate reads, as they do from an emulated UART; the echo
without the JSON records; a log that cannot be written."""
import os
import subprocess
import sys
import time

from harness.qemu import runner
from harness.qemu.echo import SerialEcho

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


# A record among human lines, and lines that start like one and are not.
MIXED = ('bootheap 0.1\n{"type":"bench","pages":3}\n{"typo": 1}\n{ not json\n'
         'qr: \u2588\u2580\n{"type":"done","status":"ok"}\nbootheap: finished')
HUMAN = 'bootheap 0.1\n{"typo": 1}\n{ not json\nqr: \u2588\u2580\nbootheap: finished'


def drip(text):
    return ("import sys, time\n"
            f"for c in {text!r}.encode():\n"
            "    sys.stdout.buffer.write(bytes([c])); sys.stdout.buffer.flush(); time.sleep(0.002)\n")


def test_the_echo_leaves_out_records_however_they_arrive(capsys, tmp_path):
    proc = subprocess.Popen([sys.executable, "-c", drip(MIXED)], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    reader = runner._Reader(proc, time.monotonic(), quiet=False, log_path=str(tmp_path / "serial.log"),
                            records=False)
    proc.wait(timeout=30)
    log = reader.finish()
    assert capsys.readouterr().out == HUMAN
    assert log == MIXED and (tmp_path / "serial.log").read_text(encoding="utf-8") == MIXED


def test_the_echo_in_one_read_and_with_records_asked_for():
    echo = SerialEcho(records=False)
    assert echo.feed(MIXED.encode()) + echo.flush() == HUMAN
    echo = SerialEcho(records=False)
    assert echo.feed(b'{"ty') == "" and echo.flush() == '{"ty'      # a last line cut short shows
    echo = SerialEcho(records=True)
    assert echo.feed(MIXED.encode()) + echo.flush() == MIXED


def test_a_log_on_a_full_disk_ends_the_log_not_the_echo(capsys, tmp_path):
    os.symlink("/dev/full", tmp_path / "serial.log")
    proc = subprocess.Popen([sys.executable, "-c", drip(TEXT)], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    reader = runner._Reader(proc, time.monotonic(), quiet=False, log_path=str(tmp_path / "serial.log"))
    proc.wait(timeout=30)
    log = reader.finish()
    assert capsys.readouterr().out == TEXT and log == TEXT
    assert reader.log_error == f"cannot write {tmp_path / 'serial.log'}: No space left on device"
