# SPDX-License-Identifier: MIT
"""The source builds' shared layer as Xen uses it (harness/real/source/,
harness/real/xen/source.py): the series
read in order without its cover letter, a patch that does not apply named
with its file and hunk and the tree left as it was, the build key that
decides when a build is reused, and the private apt's deb-src lines."""
import os
import re
import subprocess

import pytest

from harness.real.source import build as srcbuild, package
from harness.real.xen import source
from harness.real.xen.source import XEN
from harness.real.debian.apt import sources_text


def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)


def make_patch(tmp_path, name, before, after, rel="xen/common/page_alloc.c"):
    """A unified diff of one file from `before` to `after` with a/ and b/
    prefixes (-p1), as git format-patch writes it."""
    work = tmp_path / ("diff-" + name)
    write(str(work / "a" / rel), before)
    write(str(work / "b" / rel), after)
    diff = subprocess.run(["diff", "-u", f"a/{rel}", f"b/{rel}"], capture_output=True, text=True,
                          cwd=str(work)).stdout
    assert diff.startswith("--- a/")
    path = tmp_path / "patches" / name
    write(str(path), "From: bootheap\nSubject: [PATCH] test\n\n---\n" + diff)
    return str(path)


TEXT = "".join(f"line {i}\n" for i in range(1, 40))


def tree(tmp_path, text=TEXT):
    t = tmp_path / "xen-src"
    write(str(t / "xen" / "common" / "page_alloc.c"), text)
    return str(t)


def test_a_series_applies_in_order(tmp_path):
    first = make_patch(tmp_path, "0001-a.patch", TEXT, TEXT.replace("line 5\n", "line five\n"))
    second = make_patch(tmp_path, "0002-b.patch", TEXT.replace("line 5\n", "line five\n"),
                        TEXT.replace("line 5\n", "line five\n").replace("line 30\n", "line thirty\n"))
    t = tree(tmp_path)
    package.apply_series(t, [first, second])
    with open(os.path.join(t, "xen", "common", "page_alloc.c")) as f:
        text = f.read()
    assert "line five\n" in text and "line thirty\n" in text and "line 5\n" not in text


def test_a_patch_that_does_not_apply_is_named_with_its_file_and_hunk(tmp_path):
    good = make_patch(tmp_path, "0001-good.patch", TEXT, TEXT.replace("line 3\n", "line three\n"))
    bad = make_patch(tmp_path, "0002-bad.patch", TEXT, TEXT.replace("line 30\n", "line thirty\n"))
    # The tree has moved on where the second patch's hunk lands.
    moved = TEXT.replace("line 29\n", "line 29 moved\n").replace("line 30\n", "line 30 moved\n") \
        .replace("line 31\n", "line 31 moved\n")
    t = tree(tmp_path, moved)
    with pytest.raises(source.SourceError) as e:
        package.apply_series(t, [good, bad])
    msg = str(e.value)
    assert "0002-bad.patch does not apply" in msg
    assert "xen/common/page_alloc.c, hunk #1 at line 27" in msg
    # The good patch went in; the bad one left its file as it was (dry run first).
    with open(os.path.join(t, "xen", "common", "page_alloc.c")) as f:
        text = f.read()
    assert "line three\n" in text and "line 30 moved\n" in text and "thirty" not in text


def test_a_hunk_that_would_land_only_with_fuzz_is_refused_and_named(tmp_path):
    """patch's default fuzz of 2 lets a hunk land where its outer context
    lines no longer match: the series is applied with none, so such a hunk
    is named and nothing moves."""
    p = make_patch(tmp_path, "0001-fuzzy.patch", TEXT, TEXT.replace("line 20\n", "line twenty\n"))
    # The tree changed one line of the hunk's context, three lines above its change.
    t = tree(tmp_path, TEXT.replace("line 17\n", "line 17 changed\n"))
    with pytest.raises(source.SourceError) as e:
        package.apply_series(t, [p])
    assert "0001-fuzzy.patch does not apply" in str(e.value)
    assert "xen/common/page_alloc.c, hunk #1 at line 17" in str(e.value)
    with open(os.path.join(t, "xen", "common", "page_alloc.c")) as f:
        assert "twenty" not in f.read()


def test_a_patch_for_a_file_the_tree_lacks_is_named(tmp_path):
    p = make_patch(tmp_path, "0001-elsewhere.patch", TEXT, TEXT + "more\n", rel="xen/common/gone.c")
    with pytest.raises(source.SourceError, match=r"0001-elsewhere.patch does not apply.*not in the tree"):
        package.apply_series(tree(tmp_path), [p])


def test_patch_failures_reads_what_patch_prints():
    said = ("checking file xen/common/page_alloc.c\nHunk #2 FAILED at 1777.\nHunk #4 FAILED at 1901.\n"
            "2 out of 4 hunks FAILED\nchecking file xen/arch/x86/setup.c\n")
    assert package.patch_failures(said) == [("xen/common/page_alloc.c", 2, 1777),
                                           ("xen/common/page_alloc.c", 4, 1901)]


def test_the_series_leaves_out_its_cover_letter_and_keeps_the_order(tmp_path):
    folder = tmp_path / "4.17"
    for name in ("0002-b.patch", "0000-cover-letter.patch", "0001-a.patch", "notes.txt"):
        write(str(folder / name), "x")
    assert [os.path.basename(p) for p in XEN.series("4.17", str(folder))] == ["0001-a.patch", "0002-b.patch"]
    with pytest.raises(source.SourceError, match="no patches for Xen 4.20"):
        XEN.series("4.20", str(tmp_path / "empty"))


def test_the_build_key_changes_with_a_patch_the_config_or_the_compiler(tmp_path):
    p = tmp_path / "0001-a.patch"
    p.write_text("one")
    tools = {"gcc": "gcc (Debian 12.2.0-14) 12.2.0"}
    key = srcbuild.build_key("4.17.5", [str(p)], "release", tools)
    assert key == srcbuild.build_key("4.17.5", [str(p)], "release", dict(tools))
    assert key != srcbuild.build_key("4.17.5", [str(p)], "debug", tools)
    assert key != srcbuild.build_key("4.17.7", [str(p)], "release", tools)
    assert key != srcbuild.build_key("4.17.5", [str(p)], "release", {"gcc": "gcc 13"})
    p.write_text("two")
    assert key != srcbuild.build_key("4.17.5", [str(p)], "release", tools)


def test_unknown_releases_and_configs_are_refused():
    with pytest.raises(source.SourceError, match="no Xen release 4.99"):
        source.build("4.99")
    with pytest.raises(source.SourceError, match="no build config fast"):
        source.build("4.17", "fast")


def test_the_private_sources_list_has_deb_src_lines_for_the_source_builds():
    text = sources_text("http://m/debian", "http://m/debian-security", "/k.gpg", ["trixie"], ("deb-src",))
    lines = [x for x in text.splitlines() if not x.startswith("#")]
    assert lines == ["deb-src [signed-by=/k.gpg] http://m/debian trixie main",
                     "deb-src [signed-by=/k.gpg] http://m/debian-security trixie-security main"]


class FakeApt:
    """Stands in for PrivateApt: a suite's xen source versions (newest first),
    those of them whose files download, and the calls made."""

    archive = "http://m/debian"

    def __init__(self, versions=(), serves=(), into=None):
        self.versions, self.serves, self.into, self.calls = list(versions), set(serves), into, []

    def update(self):
        self.calls.append("update")

    def source_versions(self, package):
        from harness.real.debian.apt import FetchError
        if not self.versions:
            raise FetchError(f"source package {package} is not on {self.archive} in trixie")
        return self.versions

    def source(self, package, version, into):
        from harness.real.debian.apt import FetchError
        self.calls.append(version)
        if version not in self.serves:
            raise FetchError(f"apt-get source {package}={version} failed:\nE: Failed to fetch "
                             f"{self.archive}/pool/main/x/xen/xen_{version}.dsc  404  Not Found [IP: 192.0.2.1 80]"
                             "\nE: Failed to fetch some archives.")
        os.makedirs(into, exist_ok=True)
        path = os.path.join(into, f"xen_{version}.dsc")
        open(path, "w").close()
        return path


@pytest.fixture
def src(tmp_path, monkeypatch):
    monkeypatch.setattr(XEN, "src", str(tmp_path))
    return tmp_path


def quiet(*a):
    pass


def test_a_source_package_apt_cannot_get_is_named(src):
    with pytest.raises(source.SourceError, match="the source of Xen 4.20: source package xen is not on"):
        XEN.fetch("4.20", FakeApt(), say=quiet)


def test_a_newer_version_the_mirror_will_not_serve_falls_back_to_an_older_one(src):
    apt = FakeApt(["4.17.7+13-0+deb12u1", "4.17.5+72-1"], serves={"4.17.5+72-1"})
    version, dsc = XEN.fetch("4.17", apt, say=quiet)
    assert version == "4.17.5+72-1" and dsc.endswith("xen_4.17.5+72-1.dsc")
    assert apt.calls == ["update", "4.17.7+13-0+deb12u1", "4.17.5+72-1"]


def test_when_no_version_downloads_each_is_named_with_apts_reason(src):
    apt = FakeApt(["4.20.4+63-0+deb13u1", "4.20.4+39-1"])
    with pytest.raises(source.SourceError) as e:
        XEN.fetch("4.20", apt, say=quiet)
    msg = str(e.value)
    assert msg.startswith("apt cannot get the source of Xen 4.20 from http://m/debian (trixie)")
    assert "4.20.4+63-0+deb13u1: E: Failed to fetch" in msg and "4.20.4+39-1: E: Failed" in msg
    assert "404  Not Found" in msg and "[IP:" not in msg and "some archives" not in msg


def test_a_source_already_downloaded_is_used_without_the_network(src):
    os.makedirs(src / "dl")
    for v in ("4.17.5+72-1", "4.17.7+13-0+deb12u1"):
        (src / "dl" / f"xen_{v}.dsc").write_text("")
    apt = FakeApt()
    assert XEN.fetch("4.17", apt, say=quiet)[0] == "4.17.7+13-0+deb12u1"
    assert apt.calls == []
    with pytest.raises(source.SourceError):                 # refresh asks the mirror again
        XEN.fetch("4.17", apt, say=quiet, refresh=True)


def test_a_suite_whose_xen_is_another_release_is_refused(src):
    with pytest.raises(source.SourceError, match="trixie's xen source packages hold no Xen 4.20"):
        XEN.fetch("4.20", FakeApt(["4.19.1-1"], serves={"4.19.1-1"}), say=quiet)


def test_debian_versions_sort_as_dpkg_sorts_them():
    from harness.real.debian.apt import compare_versions
    assert compare_versions("4.17.7+13-0+deb12u1", "4.17.5+72-1") == 1
    assert compare_versions("1.0~rc1-1", "1.0-1") == -1
    assert compare_versions("1:0.9-1", "2.0-1") == 1


def test_a_new_build_prunes_only_older_builds_of_its_own_kind(src):
    for name in ("4.17-release-aaa", "4.17-release-bbb", "4.17-release-unpatched-ccc", "4.17-debug-ddd",
                 "4.20-release-eee"):
        os.makedirs(src / name)
    srcbuild.prune(XEN.src, str(src / "4.17-release-bbb"))
    assert sorted(os.listdir(src)) == ["4.17-debug-ddd", "4.17-release-bbb", "4.17-release-unpatched-ccc",
                                       "4.20-release-eee"]
    srcbuild.prune(XEN.src, str(src / "4.17-release-unpatched-fff"))
    assert "4.17-release-unpatched-ccc" not in os.listdir(src) and "4.17-release-bbb" in os.listdir(src)


def test_a_build_that_fails_ends_with_the_logs_tail(tmp_path):
    """make's own output, the compiler's error among it, ends the message."""
    write(str(tmp_path / "t" / "xen" / "Makefile"),
          "all:\n\t@echo 'common/page_alloc.c:1880:28: error: implicit declaration of function page_to_nid'\n"
          "\t@echo 'make[2]: *** [Rules.mk:249: common/page_alloc.o] Error 1'\n\t@exit 2\n")
    log = str(tmp_path / "build.log")
    with pytest.raises(source.SourceError) as e:
        source.make(str(tmp_path / "t"), ["all"], log, "the build of Xen 4.17.5 (release)")
    msg = str(e.value)
    assert msg.startswith("the build of Xen 4.17.5 (release) failed (make exit 2);")
    assert "error: implicit declaration of function page_to_nid" in msg
    assert "[Rules.mk:249: common/page_alloc.o] Error 1" in msg
    # the last line is make's own verdict, at whatever depth make runs it
    # (under `make test` it is make[1], and no "Leaving directory" follows)
    assert re.search(r"^make(\[\d+\])?: \*\*\* \[Makefile:4: all\] Error 2$", msg.rstrip(), re.M)
    assert msg.rstrip().splitlines()[-1].startswith("make")
