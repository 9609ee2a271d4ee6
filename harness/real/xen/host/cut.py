# SPDX-License-Identifier: MIT
"""The cut of a tree's page_alloc.c (heap.extract()): gcc -E output read as
C's top-level items, each with the names it defines and the names it uses,
laid out on its own source lines so that the compiler's messages name
page_alloc.c's."""
import os
import re

TOKEN = re.compile(r'\s+|"(?:\\.|[^"\\])*"|\'(?:\\.|[^\'\\])*\'|[A-Za-z_]\w*|\d[\w.]*'
                   r'|->|\+\+|--|<<=|>>=|<<|>>|<=|>=|==|!=|&&|\|\||[-+*/%&|^]=|\.\.\.|\S')
MARKER = re.compile(r'^# (\d+) "([^"]*)"')


def items(preprocessed, origin):
    """The top-level items of gcc -E output that come from `origin`:
    [(line, text, names defined, names used)], in file order."""
    out, cur, lines, line, depth, opener = [], [], [], None, 0, None
    cur_file, cur_line = None, 0
    for raw in preprocessed.splitlines():
        m = MARKER.match(raw)
        if m:
            cur_line, cur_file = int(m.group(1)), m.group(2)
            continue
        mine = os.path.basename(cur_file or "") == os.path.basename(origin)
        for tok in TOKEN.findall(raw):
            if tok.isspace():
                continue
            if not cur:
                line = cur_line if mine else None
            cur.append(tok)
            lines.append(cur_line)
            if tok in "({[":
                if tok == "{" and depth == 0:
                    opener = cur[-2] if len(cur) > 1 else None
                depth += 1
            elif tok in ")}]":
                depth -= 1
            if depth == 0 and (tok == ";" or (tok == "}" and opener == ")")):
                if line is not None and cur != [";"] and cur[0] != "_Static_assert":
                    out.append((line, text_of(cur, lines)) + names_of(cur))
                cur, lines, opener = [], [], None
        cur_line += 1
    return out


def text_of(toks, lines):
    """The tokens laid out on their source lines, so that the compiler's
    messages name page_alloc.c's own line numbers."""
    out, at = [], lines[0]
    for tok, n in zip(toks, lines):
        if n > at:
            out.append("\n" * (n - at))
            at = n
        elif out:
            out.append(" ")
        out.append(tok)
    return "".join(out)


def names_of(toks):
    """(what an item defines, the identifiers it uses)."""
    idents = {t for t in toks if re.match(r"[A-Za-z_]\w*$", t)}
    defined = set()
    if toks[0] == "enum" or (len(toks) > 2 and toks[:2] == ["typedef", "enum"]):
        defined |= {toks[i] for i in range(1, len(toks))
                    if re.match(r"[A-Za-z_]\w*$", toks[i]) and toks[i - 1] in ("{", ",")}
    depth, last = 0, None
    for i, t in enumerate(toks):
        if t in "([{":
            if depth == 0 and last and (t == "(" or t == "[") and toks[i - 1] == last:
                defined.add(last)
                if t == "(":
                    break
            depth += 1
        elif t in ")]}":
            depth -= 1
        elif depth == 0 and re.match(r"[A-Za-z_]\w*$", t):
            last = t
        elif depth == 0 and t in ("=", ";", ",") and last:
            defined.add(last)
            if t == "=":
                break
    if toks[0] in ("struct", "union", "enum") and len(toks) > 2 and toks[2] == "{":
        defined.add(toks[1])
    return defined, idents - defined
