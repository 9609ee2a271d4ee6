# SPDX-License-Identifier: MIT
"""Every link in README.md and docs/ must lead somewhere: a relative file
or folder that exists, an #anchor that is one of the target's headings as
GitHub slugs them, or an #L12 / #L12-L20 line anchor within a source file.
test_doc_links.py holds the tree to it; `python3 tests/tools/doclinks.py
[ROOT]` prints what is broken and exits 1 when anything is."""
import os
import re
import sys
from urllib.parse import unquote

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
CODE_SPAN = re.compile(r"(`+)(.+?)\1")
COMMENT = re.compile(r"<!--.*?-->", re.S)
# [text](target) and ![alt](target), the target optionally in <> and with a "title";
# the text may wrap onto the next lines of its paragraph, never past a blank line.
LINK = re.compile(r"!?\[(?:[^\[\]\n]|\n(?![ \t]*\n)|\[[^\]\n]*\])*\]\(\s*<?([^)\s>]*)>?(?:\s+\"[^\"]*\")?\s*\)")
REFDEF = re.compile(r"^ {0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s+\"[^\"]*\")?\s*$")
HEADING = re.compile(r"^ {0,3}(#{1,6})\s+(.*?)\s*#*\s*$")
HTML_ANCHOR = re.compile(r"<a\s+(?:id|name)=\"([^\"]+)\"")
LINE_ANCHOR = re.compile(r"^L(\d+)(?:-L(\d+))?$")
EXTERNAL = re.compile(r"^[a-z][a-z0-9+.-]*:", re.I)


def md_files(root=ROOT):
    """README.md and every .md under docs/, as paths relative to root."""
    out = ["README.md"] if os.path.exists(os.path.join(root, "README.md")) else []
    for d, _, files in os.walk(os.path.join(root, "docs")):
        out += sorted(os.path.relpath(os.path.join(d, f), root) for f in files if f.endswith(".md"))
    return out


def prose_lines(text):
    """(line number, line) outside fenced code, with HTML comments blanked
    (keeping the line count) so that nothing shown as code counts as a link."""
    text = COMMENT.sub(lambda m: "\n" * m.group(0).count("\n"), text)
    fence = None
    for n, line in enumerate(text.split("\n"), 1):
        m = FENCE.match(line)
        if m:
            if fence is None:
                fence = m.group(1)[0]
            elif m.group(1)[0] == fence:
                fence = None
            continue
        if fence is None:
            yield n, line


def heading_text(raw):
    """A heading's text as GitHub renders it: links and images as their text,
    no code ticks, emphasis stars or HTML tags."""
    t = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", raw)
    t = re.sub(r"<[^>]+>", "", t)
    return t.replace("`", "").replace("*", "")


def slug(raw):
    """GitHub's anchor for a heading: lower case, every character that is not
    a letter, digit, underscore, hyphen or space dropped, each space a hyphen."""
    t = heading_text(raw).strip().lower()
    return re.sub(r"[^\w\- ]", "", t).replace(" ", "-")


def anchors(path):
    """Every anchor a Markdown file offers: its headings' slugs, a repeated
    slug numbered -1, -2, ... as GitHub does, and <a id/name> anchors."""
    with open(path, encoding="utf-8") as f:
        text = f.read()
    seen, out = {}, set()
    for _, line in prose_lines(text):
        out.update(HTML_ANCHOR.findall(line))
        m = HEADING.match(line)
        if not m:
            continue
        s = slug(m.group(2))
        n = seen.get(s, 0)
        seen[s] = n + 1
        out.add(s if n == 0 else f"{s}-{n}")
    return out


def links(text):
    """(line number, target) of every link in Markdown text, numbered by
    the line its text starts on."""
    out = []
    prose = ["" for _ in range(text.count("\n") + 1)]   # code and fences as blank lines
    for n, line in prose_lines(text):
        m = REFDEF.match(CODE_SPAN.sub("code", line))
        if m:
            out.append((n, m.group(1)))
        else:
            prose[n - 1] = CODE_SPAN.sub("code", line)
    joined = "\n".join(prose)
    out += [(joined.count("\n", 0, m.start()) + 1, m.group(1)) for m in LINK.finditer(joined)]
    return sorted(out)


def check_target(root, src, target, cache):
    """Why the link target from file src (relative to root) is broken, or None."""
    if EXTERNAL.match(target):
        return None if target.startswith(("http://", "https://", "mailto:")) else \
            f"{target}: not a link this tree can hold"
    path, _, anchor = target.partition("#")
    path, anchor = unquote(path), unquote(anchor)
    if path.startswith("/"):
        full = os.path.normpath(os.path.join(root, path.lstrip("/")))
    else:
        full = os.path.normpath(os.path.join(root, os.path.dirname(src), path)) if path else \
            os.path.join(root, src)
    if os.path.relpath(full, root).startswith(".."):
        return f"{target}: outside the repository"
    if not os.path.exists(full):
        return f"{target}: {os.path.relpath(full, root)} does not exist"
    if not anchor:
        return None
    if os.path.isdir(full):
        return f"{target}: a folder has no anchors"
    if full.endswith(".md"):
        if full not in cache:
            cache[full] = anchors(full)
        if anchor in cache[full]:
            return None
        return f"{target}: {os.path.relpath(full, root)} has no heading whose anchor is #{anchor}"
    m = LINE_ANCHOR.match(anchor)
    if not m:
        return f"{target}: #{anchor} is neither a heading (not a Markdown file) nor a line (#L12)"
    with open(full, encoding="utf-8", errors="replace") as f:
        count = sum(1 for _ in f)
    first, last = int(m.group(1)), int(m.group(2) or m.group(1))
    if not 1 <= first <= last <= count:
        return f"{target}: {os.path.relpath(full, root)} has {count} lines, not lines {first} to {last}"
    return None


def broken(root=ROOT, files=None):
    """['file:line: why'] for every link that leads nowhere; [] when all resolve."""
    out, cache = [], {}
    for src in files if files is not None else md_files(root):
        with open(os.path.join(root, src), encoding="utf-8") as f:
            text = f.read()
        for n, target in links(text):
            why = check_target(root, src, target, cache) if target else "empty link target"
            if why:
                out.append(f"{src}:{n}: {why}")
    return out


def main(argv):
    root = os.path.abspath(argv[1]) if len(argv) > 1 else ROOT
    bad = broken(root)
    for b in bad:
        print(b)
    print(f"{len(bad)} broken link(s) in {', '.join(md_files(root))}" if bad else "every link resolves")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
