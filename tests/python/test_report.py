"""The HTML report in a real browser (issue 52): `run --report`, `import
--report`, `outcore report` of several stats files and `Result.report(path)`
are loaded in headless Chromium; each page's screenshot is not blank, every
chart is in the DOM and the console has no errors.

Chromium is the Debian package `chromium`; without it these tests are
skipped (scripts/test.sh says so), unless OUTCORE_REQUIRE_BROWSER=1 (.ci/run
sets it: CI installs Chromium, so a missing one is a failure there)."""

import json
import os
import shutil
import struct
import subprocess
import zlib
from pathlib import Path

import pytest

import outcore

BIN = os.environ.get("OUTCORE_BIN", "outcore")
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
if CHROMIUM is None and os.environ.get("OUTCORE_REQUIRE_BROWSER") != "1":
    pytest.skip("chromium is not installed (apt-get install chromium): the report's browser "
                "tests are skipped", allow_module_level=True)

RUN_CHARTS = ["time", "bytes", "rate", "engine", "estimates", "active", "memory", "result"]
IMPORT_CHARTS = ["phases", "spill"]


def outcore_cli(*args):
    p = subprocess.run([BIN, *map(str, args)], capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    return p


def png_pixels(path):
    """(width, height, rows of RGBA/RGB bytes) of an 8-bit PNG, decoded
    here (zlib and the five row filters) so the test needs no image
    library."""
    data = Path(path).read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", f"{path}: not a PNG"
    pos, idat = 8, b""
    while pos < len(data):
        (n,) = struct.unpack(">I", data[pos:pos + 4])
        kind, body = data[pos + 4:pos + 8], data[pos + 8:pos + 8 + n]
        if kind == b"IHDR":
            w, h, depth, color = struct.unpack(">IIBB", body[:10])
            assert depth == 8 and color in (2, 6), f"{path}: depth {depth}, colour type {color}"
            bpp = 3 if color == 2 else 4
        elif kind == b"IDAT":
            idat += body
        pos += 12 + n
    raw = zlib.decompress(idat)
    stride = w * bpp
    rows, prev = [], bytearray(stride)
    for y in range(h):
        f = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        if f == 1:
            for i in range(bpp, stride):
                line[i] = (line[i] + line[i - bpp]) & 255
        elif f == 2:
            line = bytearray((a + b) & 255 for a, b in zip(line, prev))
        elif f == 3:
            for i in range(stride):
                left = line[i - bpp] if i >= bpp else 0
                line[i] = (line[i] + ((left + prev[i]) >> 1)) & 255
        elif f == 4:
            for i in range(stride):
                a = line[i - bpp] if i >= bpp else 0
                b, c = prev[i], prev[i - bpp] if i >= bpp else 0
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                pred = a if pa <= pb and pa <= pc else (b if pb <= pc else c)
                line[i] = (line[i] + pred) & 255
        rows.append(bytes(line))
        prev = line
    return w, h, bpp, rows


def load(page, tmp_path, name):
    """Loads `page` in headless Chromium: (DOM after load, console lines,
    screenshot path)."""
    shot = tmp_path / f"{name}.png"
    common = [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
              "--enable-logging=stderr", "--v=0", "--window-size=1200,2000"]
    url = Path(page).resolve().as_uri()
    dom = subprocess.run(common + ["--dump-dom", url], capture_output=True, text=True, timeout=120)
    assert dom.returncode == 0, dom.stderr[-2000:]
    s = subprocess.run(common + [f"--screenshot={shot}", url], capture_output=True, text=True,
                       timeout=120)
    assert s.returncode == 0 and shot.exists(), s.stderr[-2000:]
    console = [ln for ln in (dom.stderr + s.stderr).splitlines()
               if "CONSOLE" in ln or "Uncaught" in ln]
    return dom.stdout, console, shot


def console_errors(console):
    return [ln for ln in console if "Uncaught" in ln or "ERROR:CONSOLE" in ln
            or ("CONSOLE" in ln and "error" in ln.lower())]


def check_page(page, tmp_path, name, charts):
    dom, console, shot = load(page, tmp_path, name)
    assert console_errors(console) == [], console
    for chart in charts:
        assert f'class="chart chart-{chart}"' in dom, f"{page}: no chart-{chart} in the DOM"
    w, h, bpp, rows = png_pixels(shot)
    assert (w, h) == (1200, 2000)
    # Not blank: many colours, and a good share of pixels that are not the
    # page's background.
    colours, ink = set(), 0
    bg = rows[h - 1][:3]
    for row in rows[::4]:
        for x in range(0, w * bpp, 4 * bpp):
            px = row[x:x + 3]
            colours.add(px)
            ink += px != bg
    assert len(colours) > 50, f"{shot}: {len(colours)} colours"
    assert ink / ((h // 4) * (w // 4)) > 0.2, f"{shot}: {ink} non-background samples"
    return dom


@pytest.fixture(scope="module")
def reports(tmp_path_factory):
    d = tmp_path_factory.mktemp("report")
    outcore_cli("generate", "kron", "--scale", "10", "--edges", d / "k.txt")
    outcore_cli("import", d / "k.txt", "--undirected", "--out", d / "k.oc", "--memory", "128MiB",
                "--stats", d / "import.json", "--report", d / "import.html")
    for mem in ["64MiB", "6MiB"]:
        outcore_cli("run", "pagerank", d / "k.oc", "--memory", mem,
                    "--stats", d / f"pr-{mem}.json", "--report", d / f"pr-{mem}.html")
    outcore_cli("run", "wcc", d / "k.oc", "--stats", d / "wcc.json")
    outcore_cli("run", "bfs", d / "k.oc", "--source", "max-degree", "--stats", d / "bfs.json")
    outcore_cli("report", d / "pr-64MiB.json", d / "pr-6MiB.json", d / "wcc.json",
                d / "bfs.json", d / "import.json", "--out", d / "all.html")
    return d


def test_run_report_in_the_browser(reports, tmp_path):
    dom = check_page(reports / "pr-64MiB.html", tmp_path, "pr", RUN_CHARTS)
    assert "Top 20" in dom and "pagerank" in dom
    stats = json.loads((reports / "pr-64MiB.json").read_text())
    assert stats["result"]["shape"] == "scores" and len(stats["result"]["top"]) == 20
    # The histogram counts every vertex (PageRank is never zero here).
    assert sum(b[2] for b in stats["result"]["histogram"]) == stats["result"]["vertices"]


def test_import_report_in_the_browser(reports, tmp_path):
    check_page(reports / "import.html", tmp_path, "import", IMPORT_CHARTS)
    stats = json.loads((reports / "import.json").read_text())
    assert [p["name"] for p in stats["phases"]][0] == "read"
    assert stats["spilled_bytes"] >= 0 and stats["memory_budget"] == 128 << 20


def test_comparison_of_several_stats_files(reports, tmp_path):
    dom = check_page(reports / "all.html", tmp_path, "all", RUN_CHARTS + IMPORT_CHARTS)
    # Every run has each chart: pagerank twice, wcc, bfs (ids by place).
    for k in range(4):
        for chart in RUN_CHARTS:
            assert f'id="{chart}-{k}"' in dom, f"no {chart}-{k}"
    assert 'id="phases-4"' in dom and 'id="spill-4"' in dom
    wcc = json.loads((reports / "wcc.json").read_text())["result"]
    assert wcc["shape"] == "groups" and sum(s[2] for s in wcc["sizes"]) == wcc["groups"]
    bfs = json.loads((reports / "bfs.json").read_text())["result"]
    assert bfs["counts"][0] == [0, 1]  # the source alone at depth 0


def test_python_result_report(reports, tmp_path):
    s = outcore.open(reports / "k.oc")
    small = s.pagerank(memory="6MiB", progress=False)
    big = s.pagerank(memory="64MiB", progress=False)
    big.report(tmp_path / "py.html", small)
    dom = check_page(tmp_path / "py.html", tmp_path, "py", RUN_CHARTS)
    assert 'id="time-1"' in dom
    # The same top vertex as the Result's own.
    top_id = str(big.top(1)[0][0])
    assert big.stats["result"]["top"][0][0] == top_id
    html = big._repr_html_()
    assert top_id in html and "report(path)" in html


def test_console_errors_are_caught(tmp_path):
    """The harness itself: a page that throws is seen as one with errors."""
    page = tmp_path / "bad.html"
    page.write_text("<html><body><script>throw new Error('boom')</script></body></html>")
    _, console, _ = load(page, tmp_path, "bad")
    assert console_errors(console), console


def test_string_ids_are_escaped_in_the_page(tmp_path):
    """A vertex named like markup is shown as text: were it written raw,
    its script would run and throw in the browser."""
    import networkx as nx

    g = nx.Graph([("<script>boom(</script>", "a"), ("a", "b"), ("<script>boom(</script>", "b"),
                  ("b", "c")])
    r = outcore.from_networkx(g, tmp_path / "e.oc", progress=False).pagerank(progress=False)
    r.report(tmp_path / "e.html")
    text = (tmp_path / "e.html").read_text()
    assert "<script>boom(" not in text and "&lt;script&gt;boom(" in text
    check_page(tmp_path / "e.html", tmp_path, "e", RUN_CHARTS)
