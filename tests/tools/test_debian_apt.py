# SPDX-License-Identifier: MIT
"""apt on a private sources list (harness/real/debian/apt.py): the mirror read
from a machine's apt configuration in both formats, the private list, and a
clear error naming the package or the suite when apt fails. apt itself is
replaced by a stand-in that records what it was asked."""
import os
import subprocess

import pytest

from harness.real.debian.apt import (DEFAULT_KEYRING, FetchError, PrivateApt, debian_mirror,
                               machine_sources, sources_text)

ONE_LINE = """\
# a comment
deb [arch=amd64 signed-by=KEYRING] http://mirror.example/debian bookworm main contrib
deb-src http://mirror.example/debian bookworm main
deb http://mirror.example/debian-security bookworm-security main # trailing
"""

DEB822 = """\
Types: deb
URIs: http://deb.example/debian
Suites: bookworm bookworm-updates
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg

Types: deb
URIs: http://deb.example/debian-security
Suites: bookworm-security
Components: main

Types: deb
Enabled: no
URIs: http://off.example/debian
Suites: bookworm
Components: main
"""


def etc(tmp_path, sources_list=None, parts=()):
    d = tmp_path / "etc"
    (d / "sources.list.d").mkdir(parents=True)
    if sources_list is not None:
        (d / "sources.list").write_text(sources_list)
    for name, text in parts:
        (d / "sources.list.d" / name).write_text(text)
    return str(d)


def test_one_line_format(tmp_path):
    keyring = str(tmp_path / "mirror.gpg")
    e = machine_sources(etc(tmp_path, ONE_LINE.replace("KEYRING", keyring)))
    assert [(x["uri"], x["suite"]) for x in e] == [
        ("http://mirror.example/debian", "bookworm"),
        ("http://mirror.example/debian-security", "bookworm-security")]
    assert debian_mirror(e) == ("http://mirror.example/debian", "http://mirror.example/debian-security",
                                keyring)


def test_deb822_format(tmp_path):
    e = machine_sources(etc(tmp_path, None, [("debian.sources", DEB822)]))
    assert {x["uri"] for x in e} == {"http://deb.example/debian", "http://deb.example/debian-security"}
    assert debian_mirror(e) == ("http://deb.example/debian", "http://deb.example/debian-security",
                                DEFAULT_KEYRING)


def test_only_names_apt_reads(tmp_path):
    """A file that apt would not read (another extension) does not count."""
    e = machine_sources(etc(tmp_path, "", [("other.list.disabled", ONE_LINE),
                                           ("debian.sources.bak", DEB822)]))
    assert e == []
    with pytest.raises(FetchError, match="no Debian release suite with 'main'"):
        debian_mirror(e)


def test_private_list_names_both_suites():
    text = sources_text("http://m/debian", "http://m/debian-security", DEFAULT_KEYRING,
                        ("bookworm", "bullseye"))
    lines = [l for l in text.splitlines() if l.startswith("deb ")]
    assert lines == [f"deb [signed-by={DEFAULT_KEYRING}] http://m/debian bookworm main",
                     f"deb [signed-by={DEFAULT_KEYRING}] http://m/debian-security bookworm-security main",
                     f"deb [signed-by={DEFAULT_KEYRING}] http://m/debian bullseye main",
                     f"deb [signed-by={DEFAULT_KEYRING}] http://m/debian-security bullseye-security main"]


class FakeApt:
    """Answers apt-get and apt-cache as told; records every call."""

    def __init__(self, update_rc=0, update_out="", known=None, download_rc=0):
        self.calls, self.update_rc, self.update_out = [], update_rc, update_out
        self.known, self.download_rc = known or {}, download_rc

    def __call__(self, cmd, capture_output=True, text=True, cwd=None):
        self.calls.append((cmd, cwd))
        out, rc = "", 0
        if cmd[:3] == ["apt-get", "-q", "update"]:
            out, rc = self.update_out, self.update_rc
        elif cmd[:3] == ["apt-cache", "show", "--no-all-versions"]:
            pkg = cmd[3]
            if pkg in self.known:
                out = f"Package: {pkg}\nVersion: {self.known[pkg]}\nDepends: libc6\n"
            else:
                out, rc = "E: No packages found\n", 100
        elif cmd[:3] == ["apt-get", "-q", "download"]:
            rc = self.download_rc
            pkg, ver = cmd[3].split("=")
            if rc == 0:
                open(os.path.join(cwd, f"{pkg}_{ver}_amd64.deb"), "w").close()
            else:
                out = f"E: Failed to fetch http://mirror/{pkg}  404  Not Found\n"
        return subprocess.CompletedProcess(cmd, rc, out, "")


def private(tmp_path, fake):
    return PrivateApt(str(tmp_path / "apt"), ("bookworm", "bullseye"),
                      etc=etc(tmp_path, None, [("debian.sources", DEB822)]), run=fake)


def test_everything_stays_in_the_private_folder(tmp_path):
    fake = FakeApt(known={"xen-hypervisor-4.14-amd64": "4.14.6-1"})
    apt = private(tmp_path, fake)
    apt.update()
    assert apt.candidate("xen-hypervisor-4.14-amd64")[0] == "4.14.6-1"
    deb = apt.download("xen-hypervisor-4.14-amd64", "4.14.6-1", str(tmp_path / "debs"))
    assert os.path.basename(deb) == "xen-hypervisor-4.14-amd64_4.14.6-1_amd64.deb"
    folder = str(tmp_path / "apt")
    for cmd, _ in fake.calls:
        opts = dict(cmd[i + 1].split("=", 1) for i, a in enumerate(cmd) if a == "-o")
        assert opts["Dir::Etc::sourcelist"] == os.path.join(folder, "sources.list")
        assert opts["Dir::Etc::sourceparts"] == "-"
        assert opts["Dir::State::Lists"].startswith(folder)
        assert opts["Dir::Cache"].startswith(folder)
    assert "bullseye-security" in open(os.path.join(folder, "sources.list")).read()


def test_no_network_names_the_suites(tmp_path):
    apt = private(tmp_path, FakeApt(update_rc=100, update_out="Err:1 http://deb.example/debian "
                                    "bookworm InRelease\n  Temporary failure resolving\n"
                                    "E: Some index files failed to download\n"))
    with pytest.raises(FetchError, match=r"update of bookworm, bullseye .* failed \(is the network"):
        apt.update()


def test_missing_package_is_named(tmp_path):
    apt = private(tmp_path, FakeApt(update_out="W: Failed to fetch .../bullseye/InRelease\n"))
    apt.update()
    with pytest.raises(FetchError) as e:
        apt.candidate("xen-hypervisor-4.14-amd64")
    assert "package xen-hypervisor-4.14-amd64 is not on" in str(e.value)
    assert "W: Failed to fetch .../bullseye/InRelease" in str(e.value)


def test_download_failure_is_named(tmp_path):
    apt = private(tmp_path, FakeApt(download_rc=100))
    with pytest.raises(FetchError, match=r"apt-get download xen-hypervisor-4.17-amd64=4.17.7 failed"):
        apt.download("xen-hypervisor-4.17-amd64", "4.17.7", str(tmp_path / "debs"))
