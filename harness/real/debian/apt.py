# SPDX-License-Identifier: MIT
"""apt on a private sources list and lists folder: the suites the real
binaries come from (bookworm and bullseye) on the Debian mirror this
machine's apt already uses, read from its configuration at run time. The
machine's own apt configuration, lists and caches are never written."""
import functools
import os
import re
import subprocess

DEFAULT_KEYRING = "/usr/share/keyrings/debian-archive-keyring.gpg"


class FetchError(Exception):
    """A package that cannot be had, with what apt said."""


def _one_line(text, origin):
    """Entries of a one-line sources.list: (uri, suite, components, options)."""
    out = []
    for raw in text.splitlines():
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        m = re.match(r"(deb|deb-src)\s+(?:\[([^\]]*)\]\s+)?(\S+)\s+(\S+)\s*(.*)$", line)
        if not m:
            continue
        kind, opts, uri, suite, comps = m.groups()
        if kind != "deb":
            continue
        options = dict(o.split("=", 1) for o in (opts or "").split() if "=" in o)
        out.append({"uri": uri.rstrip("/"), "suite": suite, "components": comps.split(),
                    "signed_by": options.get("signed-by"), "origin": origin})
    return out


def _deb822(text, origin):
    """Entries of a deb822 .sources file, one per URI and suite."""
    out = []
    for stanza in re.split(r"\n\s*\n", text):
        fields, key = {}, None
        for raw in stanza.splitlines():
            if raw.startswith("#"):
                continue
            if raw[:1] in (" ", "\t") and key:
                fields[key] += " " + raw.strip()
                continue
            m = re.match(r"([A-Za-z-]+):\s*(.*)$", raw)
            if m:
                key = m.group(1).lower()
                fields[key] = m.group(2).strip()
        if "deb" not in fields.get("types", "").split():
            continue
        if fields.get("enabled", "yes").lower() == "no":
            continue
        signed = fields.get("signed-by")
        if signed and not signed.startswith("/"):
            signed = None                   # an inline key: fall back to the keyring
        for uri in fields.get("uris", "").split():
            for suite in fields.get("suites", "").split():
                out.append({"uri": uri.rstrip("/"), "suite": suite,
                            "components": fields.get("components", "").split(),
                            "signed_by": signed, "origin": origin})
    return out


def machine_sources(etc="/etc/apt"):
    """Every enabled `deb` entry of the machine's apt configuration: the
    sources.list and the .list and .sources files of sources.list.d (apt
    reads no other names)."""
    entries = []
    main = os.path.join(etc, "sources.list")
    if os.path.isfile(main):
        with open(main, encoding="utf-8", errors="replace") as f:
            entries += _one_line(f.read(), main)
    parts = os.path.join(etc, "sources.list.d")
    for name in sorted(os.listdir(parts)) if os.path.isdir(parts) else []:
        path = os.path.join(parts, name)
        if not os.path.isfile(path):
            continue
        with open(path, encoding="utf-8", errors="replace") as f:
            text = f.read()
        if name.endswith(".list"):
            entries += _one_line(text, path)
        elif name.endswith(".sources"):
            entries += _deb822(text, path)
    return entries


def debian_mirror(entries):
    """(archive uri, security uri or None, keyring): the machine's Debian
    archive, the one serving a release suite with `main` (no -updates,
    -security or -backports suffix), and its security archive if it has one."""
    archive = [e for e in entries if "main" in e["components"] and "-" not in e["suite"]
               and e["suite"] not in ("sid", "unstable", "experimental")]
    if not archive:
        where = ", ".join(sorted({e["origin"] for e in entries})) or "no sources at all"
        raise FetchError("this machine's apt has no Debian release suite with 'main' to take the "
                         f"mirror from (read: {where})")
    sec = [e for e in entries if e["suite"].endswith("-security") and "main" in e["components"]]
    keyring = archive[0]["signed_by"] or DEFAULT_KEYRING
    return archive[0]["uri"], (sec[0]["uri"] if sec else None), keyring


def sources_text(archive, security, keyring, suites, kinds=("deb",)):
    """The private sources.list: each suite and its security suite (sid has
    none), main only, for each kind of line ('deb' binaries, 'deb-src'
    sources)."""
    lines = ["# Written by harness/real/debian/apt.py from this machine's apt configuration."]
    for kind in kinds:
        for suite in suites:
            lines.append(f"{kind} [signed-by={keyring}] {archive} {suite} main")
            if security and suite not in ("sid", "unstable", "experimental"):   # none has a security suite
                lines.append(f"{kind} [signed-by={keyring}] {security} {suite}-security main")
    return "\n".join(lines) + "\n"


def compare_versions(a, b, run=subprocess.run):
    """dpkg's order of two Debian versions: -1, 0 or 1."""
    if a == b:
        return 0
    return 1 if run(["dpkg", "--compare-versions", a, "gt", b]).returncode == 0 else -1


class PrivateApt:
    """apt-get and apt-cache confined to `folder`: sources.list, lists/ and
    cache/ live there; `run` is subprocess.run or a stand-in for tests.
    kinds: ('deb',) for binary packages, ('deb-src',) for source packages."""

    def __init__(self, folder, suites, etc="/etc/apt", run=subprocess.run, kinds=("deb",)):
        self.folder, self.suites, self.run, self.kinds = folder, tuple(suites), run, tuple(kinds)
        self.sources = os.path.join(folder, "sources.list")
        self.lists = os.path.join(folder, "lists")
        self.cache = os.path.join(folder, "cache")
        self.archive, self.security, self.keyring = debian_mirror(machine_sources(etc))
        self.update_said = ""

    def options(self):
        opts = [f"Dir::Etc::sourcelist={self.sources}", "Dir::Etc::sourceparts=-",
                f"Dir::State::Lists={self.lists}", f"Dir::Cache={self.cache}",
                "Acquire::Languages=none", "APT::Get::List-Cleanup=0"]
        if os.geteuid() == 0:
            opts.append("APT::Sandbox::User=root")    # the private folders are root's
        return [a for o in opts for a in ("-o", o)]

    def update(self):
        for d in (os.path.join(self.lists, "partial"), os.path.join(self.cache, "archives", "partial")):
            os.makedirs(d, exist_ok=True)
        with open(self.sources, "w") as f:
            f.write(sources_text(self.archive, self.security, self.keyring, self.suites, self.kinds))
        r = self.run(["apt-get", "-q", "update"] + self.options(), capture_output=True, text=True)
        said = (r.stdout + r.stderr).strip()
        self.update_said = "\n".join(l for l in said.splitlines() if l.startswith(("W:", "E:", "Err")))
        if r.returncode != 0:
            raise FetchError(f"apt-get update of {', '.join(self.suites)} from {self.archive} failed "
                             f"(is the network there?):\n{self.update_said or said}")

    def candidate(self, package):
        """(version, depends) of the package's candidate, or FetchError naming it."""
        r = self.run(["apt-cache", "show", "--no-all-versions", package] + self.options(),
                     capture_output=True, text=True)
        m = re.search(r"^Version:\s*(\S+)", r.stdout, re.M)
        if r.returncode != 0 or not m:
            more = f"\napt-get update said:\n{self.update_said}" if self.update_said else ""
            raise FetchError(f"package {package} is not on {self.archive} in "
                             f"{' or '.join(self.suites)}{more}")
        d = re.search(r"^Depends:\s*(.*)$", r.stdout, re.M)
        return m.group(1), (d.group(1) if d else "")

    def download(self, package, version, into):
        """The .deb of package=version in `into` -> its path."""
        os.makedirs(into, exist_ok=True)
        r = self.run(["apt-get", "-q", "download", f"{package}={version}"] + self.options(),
                     capture_output=True, text=True, cwd=into)
        if r.returncode != 0:
            raise FetchError(f"apt-get download {package}={version} failed:\n"
                             f"{(r.stdout + r.stderr).strip()}")
        quoted = version.replace(":", "%3a")
        for name in os.listdir(into):
            if name.startswith(f"{package}_") and name.endswith(".deb") and \
                    (version in name or quoted in name):
                return os.path.join(into, name)
        raise FetchError(f"apt-get download {package}={version} left no .deb in {into}")

    def source_versions(self, package):
        """Every version of source package `package` in the private suites,
        newest first, or FetchError naming it."""
        r = self.run(["apt-cache", "showsrc", "--only-source", package] + self.options(),
                     capture_output=True, text=True)
        versions = sorted(set(re.findall(r"^Version:\s*(\S+)", r.stdout, re.M)),
                          key=functools.cmp_to_key(compare_versions), reverse=True)
        if r.returncode != 0 or not versions:
            more = f"\napt-get update said:\n{self.update_said}" if self.update_said else ""
            raise FetchError(f"source package {package} is not on {self.archive} in "
                             f"{' or '.join(self.suites)}{more}")
        return versions

    def source_files(self, package, version):
        """The files of source package package=version as apt would fetch
        them -> [(url, name, size, sha256)], the sums from the signed index."""
        r = self.run(["apt-get", "-q", "source", "--print-uris", f"{package}={version}"] + self.options(),
                     capture_output=True, text=True)
        files = [(u, n, int(z), h) for u, n, z, h in
                 re.findall(r"^'(\S+)' (\S+) (\d+) SHA256:([0-9a-f]{64})$", r.stdout, re.M)]
        if r.returncode != 0 or not files:
            raise FetchError(f"apt-get source --print-uris {package}={version} failed:\n"
                             f"{(r.stdout + r.stderr).strip()}")
        return files

    def source(self, package, version, into):
        """The source package package=version downloaded into `into` (its
        .dsc, orig tarball and Debian tarball, checked against the signed
        Release file by apt) -> the .dsc's path."""
        os.makedirs(into, exist_ok=True)
        r = self.run(["apt-get", "-q", "source", "--download-only", f"{package}={version}"] + self.options(),
                     capture_output=True, text=True, cwd=into)
        if r.returncode != 0:
            raise FetchError(f"apt-get source {package}={version} failed:\n{(r.stdout + r.stderr).strip()}")
        bare = version.split(":", 1)[-1]
        dsc = os.path.join(into, f"{package}_{bare}.dsc")
        if not os.path.isfile(dsc):
            raise FetchError(f"apt-get source {package}={version} left no {os.path.basename(dsc)} in {into}")
        return dsc
