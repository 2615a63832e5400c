#!/usr/bin/python3
# pngstat.py: how much of a screenshot is drawn, from the PNG alone (stdlib: zlib + struct).
#
# Prints "pixels=N nonwhite=N colors=N" for an 8-bit, non-interlaced RGB/RGBA PNG
# (what Chromium writes). The report test uses it to tell a blank page from a drawn one
# without image libraries.
# Usage: pngstat.py FILE.png
import struct, sys, zlib

def read(path):
    data = open(path, "rb").read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise SystemExit("pngstat: not a PNG: " + path)
    pos, idat, hdr = 8, b"", None
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        if kind == b"IHDR":
            hdr = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat += body
        pos += 12 + n
    w, h, depth, ctype, _, _, interlace = hdr
    if depth != 8 or ctype not in (2, 6) or interlace:
        raise SystemExit("pngstat: unsupported PNG (depth %d, colour type %d)" % (depth, ctype))
    bpp = 3 if ctype == 2 else 4
    raw = zlib.decompress(idat)
    stride = w * bpp
    prev = bytearray(stride)
    rows = []
    for y in range(h):
        f = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b = prev[i]
            c = prev[i - bpp] if i >= bpp else 0
            if f == 1:
                line[i] = (line[i] + a) & 255
            elif f == 2:
                line[i] = (line[i] + b) & 255
            elif f == 3:
                line[i] = (line[i] + ((a + b) >> 1)) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append(line)
        prev = line
    return w, h, bpp, rows

w, h, bpp, rows = read(sys.argv[1])
nonwhite = 0
colors = set()
for line in rows:
    for x in range(0, w * bpp, bpp):
        px = bytes(line[x:x + 3])
        if px != b"\xff\xff\xff":
            nonwhite += 1
            colors.add(px)
print("pixels=%d nonwhite=%d colors=%d" % (w * h, nonwhite, len(colors)))
