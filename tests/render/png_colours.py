#!/usr/bin/env python3
"""Decodes a PNG (8-bit RGB or RGBA, non-interlaced, as Chromium writes
screenshots) with zlib only and prints facts a test can check:
  size W H
  distinct N          distinct colours
  near RRGGBB N       pixels within a small distance of each colour asked for
Usage: png_colours.py FILE [RRGGBB ...]"""
import struct
import sys
import zlib


def decode(path):
    data = open(path, "rb").read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        sys.exit("%s: not a PNG file" % path)
    pos, idat, width = 8, [], None
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            width, height, depth, colour, _, _, interlace = struct.unpack(">IIBBBBB", body)
            if depth != 8 or colour not in (2, 6) or interlace != 0:
                sys.exit("%s: unsupported PNG (depth %d, colour type %d, interlace %d)" % (path, depth, colour, interlace))
            bpp = 3 if colour == 2 else 4
        elif kind == b"IDAT":
            idat.append(body)
        pos += 12 + length
    raw = zlib.decompress(b"".join(idat))
    stride = width * bpp
    rows, prev = [], bytearray(stride)
    for y in range(height):
        f = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        if f == 1:
            for i in range(bpp, stride):
                line[i] = (line[i] + line[i - bpp]) & 0xFF
        elif f == 2:
            line = bytearray((a + b) & 0xFF for a, b in zip(line, prev))
        elif f == 3:
            for i in range(stride):
                left = line[i - bpp] if i >= bpp else 0
                line[i] = (line[i] + ((left + prev[i]) >> 1)) & 0xFF
        elif f == 4:
            for i in range(stride):
                a = line[i - bpp] if i >= bpp else 0
                b = prev[i]
                c = prev[i - bpp] if i >= bpp else 0
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 0xFF
        rows.append(line)
        prev = line
    return width, height, bpp, rows


def main():
    width, height, bpp, rows = decode(sys.argv[1])
    wanted = [tuple(int(h[i:i + 2], 16) for i in (0, 2, 4)) for h in sys.argv[2:]]
    counts = {}
    for line in rows:
        for x in range(0, len(line), bpp):
            px = (line[x], line[x + 1], line[x + 2])
            counts[px] = counts.get(px, 0) + 1
    print("size %d %d" % (width, height))
    print("distinct %d" % len(counts))
    for w, h in zip(wanted, sys.argv[2:]):
        near = sum(n for px, n in counts.items() if sum(abs(a - b) for a, b in zip(px, w)) <= 24)
        print("near %s %d" % (h.lower(), near))


if __name__ == "__main__":
    main()
