# SPDX-License-Identifier: MIT
"""What plot.png shows, read back: the PNG's pixels (decoded here with zlib
alone), the axis ranges and plot area gnuplot reports after drawing the
script, and whether every data point of the script is drawn where the axes
put it, in its own colour."""
import math
import os
import re
import struct
import subprocess
import zlib

# gnuplot's default colours for linetypes 1 to 8, which plot elements
# without a colour of their own take in turn.
DEFAULT_COLOURS = [(148, 0, 211), (0, 158, 115), (86, 180, 233), (230, 159, 0),
                   (240, 228, 66), (0, 114, 178), (229, 30, 36), (0, 0, 0)]


def read_png(path):
    """(width, height, [row of (r, g, b)]) of an 8-bit RGB or RGBA PNG."""
    with open(path, "rb") as f:
        data = f.read()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", data[:8]
    pos, idat, head = 8, b"", None
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        pos += 12 + n
        if kind == b"IHDR":
            head = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat += body
    w, h, depth, ctype, _, _, interlace = head
    assert depth == 8 and ctype in (2, 6) and interlace == 0, head
    bpp, raw, rows = {2: 3, 6: 4}[ctype], zlib.decompress(idat), []
    stride, prev, i = w * {2: 3, 6: 4}[ctype], bytearray(w * {2: 3, 6: 4}[ctype]), 0
    for _ in range(h):
        kind, line = raw[i], bytearray(raw[i + 1:i + 1 + stride])
        i += 1 + stride
        for x in range(stride):         # the PNG filters, undone
            a = line[x - bpp] if x >= bpp else 0
            b, c = prev[x], prev[x - bpp] if x >= bpp else 0
            if kind == 1:
                line[x] = (line[x] + a) & 255
            elif kind == 2:
                line[x] = (line[x] + b) & 255
            elif kind == 3:
                line[x] = (line[x] + (a + b) // 2) & 255
            elif kind == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[x] = (line[x] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append([tuple(line[x:x + 3]) for x in range(0, stride, bpp)])
        prev = line
    return w, h, rows


def axes(folder):
    """Draws the folder's plot.gp again and asks gnuplot where it put the
    axes: {x_min, x_max, y_min, y_max} in data units and {left, right,
    bottom, top} of the plot area in pixels from the bottom left."""
    probe = os.path.join(folder, "axes-probe.gp")
    with open(probe, "w") as f:
        f.write('load "plot.gp"\nset print "axes.txt"\n'
                "print GPVAL_X_MIN, GPVAL_X_MAX, GPVAL_Y_MIN, GPVAL_Y_MAX\n"
                "print GPVAL_TERM_XMIN, GPVAL_TERM_XMAX, GPVAL_TERM_YMIN, GPVAL_TERM_YMAX\n")
    subprocess.run(["gnuplot", "axes-probe.gp"], cwd=folder, check=True, capture_output=True)
    with open(os.path.join(folder, "axes.txt")) as f:
        data, term = ([float(v) for v in line.split()] for line in f.read().splitlines()[:2])
    return dict(zip(("x_min", "x_max", "y_min", "y_max"), data)), \
        dict(zip(("left", "right", "bottom", "top"), term))


def series(script):
    """[(block name, colour, [(x, y)])] in plot order, from the script: the
    data blocks and, from the plot command, each one's colour."""
    blocks = {name: [tuple(float(v) for v in line.split()) for line in body.splitlines()]
              for name, body in re.findall(r"^\$(\w+) << EOD\n(.*?)^EOD$", script, re.M | re.S)}
    plot = script[script.index("\nplot ") + 6:]
    out = []
    for k, element in enumerate(re.split(r", \\\n\s*", plot.strip())):
        name = re.match(r"\$(\w+) ", element).group(1)
        rgb = re.search(r'lc rgb "(black|#[0-9a-fA-F]{6})"', element)
        colour = DEFAULT_COLOURS[k % 8] if not rgb else (0, 0, 0) if rgb.group(1) == "black" else \
            tuple(int(rgb.group(1)[i:i + 2], 16) for i in (1, 3, 5))
        out.append((name, colour, blocks[name]))
    return out


def where(x, y, ax, area, height):
    """The pixel (column, row from the top) of data point (x, y) on log-log axes."""
    fx = (math.log(x) - math.log(ax["x_min"])) / (math.log(ax["x_max"]) - math.log(ax["x_min"]))
    fy = (math.log(y) - math.log(ax["y_min"])) / (math.log(ax["y_max"]) - math.log(ax["y_min"]))
    col = area["left"] + fx * (area["right"] - area["left"])
    row = area["bottom"] + fy * (area["top"] - area["bottom"])
    return round(col), round(height - row)


def near(c, want, tol=40):
    return all(abs(a - b) <= tol for a, b in zip(c, want))


def undrawn(folder, script, reach=3):
    """The data points of the script whose pixel, or one within reach of it,
    does not carry their series' colour: [] when the PNG shows them all."""
    w, h, rows = read_png(os.path.join(folder, "plot.png"))
    ax, area = axes(folder)
    missing = []
    for name, colour, points in series(script):
        for x, y in points:
            col, row = where(x, y, ax, area, h)
            window = [rows[r][c] for r in range(max(row - reach, 0), min(row + reach + 1, h))
                      for c in range(max(col - reach, 0), min(col + reach + 1, w))]
            if not any(near(p, colour) for p in window):
                missing.append((name, x, y, (col, row)))
    return missing
