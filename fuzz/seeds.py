"""Writes the seed corpora (fuzz/seeds/TARGET/) from the formats the tests
use and the Graphalytics examples. Run from the repository root:
`python3 fuzz/seeds.py`. The seeds are kept in the repository."""

import gzip
import os
import struct
from pathlib import Path

ROOT = Path(__file__).resolve().parent
GA = ROOT.parent.parent / "shared" / "data" / "graphalytics"


def ctl(fmt, modulo=5, weighted=False, directed=True, header=False, ids=0):
    """The control byte the targets decode (common::options and the format pick)."""
    for c in range(256):
        if (c % modulo == fmt and bool(c & 8) == weighted and bool(c & 16) == directed
                and bool(c & 32) == header and (c >> 6) % 3 == ids):
            return c
    raise ValueError("no control byte")


def write(target, name, data):
    d = ROOT / "seeds" / target
    d.mkdir(parents=True, exist_ok=True)
    (d / name).write_bytes(data)


def main():
    text = {
        "snap": (0, b"# comment\n1 2\n2\t3\n3 1\n\n4 4\n"),
        "snap_w": (0, b"1 2 0.5\n2 3 1e3\n3 1 -2\n"),
        "csv": (1, b"src,dst,w\n1,2,0.5\n\"2\",3,1\n"),
        "csv_names": (1, b'a,b\n"ann lee",bob\nbob,"c""y"\n'),
        "tsv": (2, b"1\t2\n2\t3\n"),
        "mtx": (3, b"%%MatrixMarket matrix coordinate real general\n% c\n3 3 2\n1 2 0.5\n3 1 2\n"),
        "mtx_sym": (3, b"%%MatrixMarket matrix coordinate pattern symmetric\n3 3 2\n2 1\n3 3\n"),
        "ldbc": (4, b"1\n2\n3\n\x001 2 0.5\n2 3 1.5\n"),
    }
    for name, (fmt, body) in text.items():
        w = name.endswith("_w") or fmt in (3,) or name == "ldbc"
        ids = 2 if name.endswith("names") else 0
        write("parse_text", name, bytes([ctl(fmt, weighted=w, header=fmt == 1 and "names" not in name, ids=ids)]) + body)
    if GA.is_dir():
        for g in ("example-directed", "example-undirected"):
            v, e = (GA / f"{g}.v").read_bytes(), (GA / f"{g}.e").read_bytes()
            write("parse_text", g, bytes([ctl(4, weighted=True, directed="un" not in g)]) + v + b"\0" + e)
            write("parse_text", g + "-snap", bytes([ctl(0, weighted=True)]) + e)
    b32 = struct.pack("<6I", 1, 2, 2, 3, 3, 1)
    b64 = struct.pack("<4Q", 1, 2**40, 2**40, 7)
    write("parse_binary", "bin32", bytes([ctl(0, modulo=2)]) + b32)
    write("parse_binary", "bin64", bytes([ctl(1, modulo=2)]) + b64)
    write("parse_binary", "bin32_w", bytes([ctl(0, modulo=2, weighted=True)]) + struct.pack("<IId", 1, 2, 0.5))
    for i, (fmt, body) in enumerate([(0, text["snap"][1]), (1, text["csv"][1]), (2, b32)]):
        c = ctl(fmt, modulo=3, header=fmt == 1)
        write("parse_gzip", f"gz{i}", bytes([c & ~4]) + gzip.compress(body))
        write("parse_gzip", f"plain{i}", bytes([c | 4]) + body)
    # store: control byte (which base store) then ops of 5 bytes.
    for k in range(2):
        write("store", f"clean{k}", bytes([k]))
        write("store", f"flip{k}", bytes([k, 3, 0, 10, 0, 0x40]))
        write("store", f"cut{k}", bytes([k, 5, 2, 8, 0, 0]))
    # tilecode: compressed-tile frames (count, 2-bit lengths, gaps, padding).
    write("tilecode", "three-keys", struct.pack("<I", 3) + bytes([0x24, 0x01, 0x2A, 0x01, 0x43, 0x10, 0x01, 0]))
    write("tilecode", "long-gaps", struct.pack("<I", 5) + bytes([0xFF, 0x00]) + b"\xff" * 8 + bytes(18))
    # csrcode: page size byte, then a tagged page: 0 and stream-vbyte
    # (count, 2-bit lengths, zigzag gaps), or 1 and Huffman-coded bit
    # lengths (count, classes, code lengths, stream A's bytes, streams);
    # or, read as slots, a page's entries.
    write("csrcode", "three-entries", bytes([4, 0]) + struct.pack("<I", 3) + bytes([0, 2, 2, 2]))
    write("csrcode", "wide-gaps", bytes([8, 0]) + struct.pack("<I", 5) + bytes([0xFF, 0x03]) + b"\x7f" * 17)
    write("csrcode", "huffman", bytes([0, 1]) + struct.pack("<I", 3) + bytes([4, 0, 0x10, 0x10])
          + struct.pack("<I", 1) + bytes([0x03, 0x00]))
    write("csrcode", "slots", bytes([2]) + struct.pack("<6I", 9, 4, 70000, 3, 1 << 30, 5))


if __name__ == "__main__":
    main()
