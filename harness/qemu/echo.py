# SPDX-License-Identifier: MIT
"""What of the serial output a person sees on the terminal as it comes: the
kernel's human lines always, its JSON records (lines that start with
`{"type":`) only when asked for. The log keeps everything either way.

The echo streams: a line is held back only while what has come of it could
still be the start of a record, so GRUB's menu and a half-printed line show
at once, and a record is dropped without ever waiting for its end."""
import codecs

RECORD_START = '{"type":'


class SerialEcho:
    """Feed it the serial output's bytes as they arrive; it returns the text
    to write to the terminal, '\\r' removed, characters whole across reads."""

    def __init__(self, records=True):
        self.records = records
        self.decoder = codecs.getincrementaldecoder("utf-8")("replace")
        self.held = ""          # the start of a line that may yet be a record
        self.state = "start"    # 'start' of a line, 'show' the rest of it, 'hide' it

    def feed(self, raw):
        text = self.decoder.decode(raw).replace("\r", "")
        if self.records:
            return text
        out = []
        for piece in text.splitlines(keepends=True):
            out.append(self._piece(piece))
        return "".join(out)

    def _piece(self, piece):
        """A run of text with at most one newline, at its end."""
        ends = piece.endswith("\n")
        shown = ""
        if self.state == "start":
            self.held += piece
            line = self.held.rstrip("\n")
            if line.startswith(RECORD_START):
                self.state, self.held = "hide", ""
            elif RECORD_START.startswith(line) and not ends:
                return ""                   # still undecided
            else:
                self.state, shown, self.held = "show", self.held, ""
        elif self.state == "show":
            shown = piece
        if ends:
            self.state = "start"
        return shown

    def flush(self):
        """What is held back at the end of the output: a last line that
        started like a record and never became one."""
        held, self.held, self.state = self.held, "", "start"
        return held
