"""Inputs recognised through the Python API (issue 49): a header line
changes nothing, an input without edges is refused unless allow_empty, a
Parquet file is read by its first bytes whatever its name (issue 52)."""

import pandas as pd
import pytest

import outcore


def edges(store):
    s = outcore.open(store)
    return s.num_vertices, s.num_edges


def test_a_header_line_changes_nothing(tmp_path):
    (tmp_path / "plain.txt").write_text("1 2\n2 3\n")
    (tmp_path / "h.txt").write_text("src dst\n1 2\n2 3\n")
    (tmp_path / "a.txt").write_text("# from to\n1 2\n2 3\n")
    a = outcore.import_edges(tmp_path / "plain.txt", tmp_path / "p.oc", progress=False)
    b = outcore.import_edges(tmp_path / "h.txt", tmp_path / "h.oc", progress=False)
    c = outcore.import_edges(tmp_path / "a.txt", tmp_path / "a.oc", header=True, progress=False)
    for s in (a, b, c):
        assert (s.num_vertices, s.num_edges) == (3, 2)
        assert s.pagerank(progress=False).ids.tolist() == [1, 2, 3]


def test_an_input_without_edges_needs_allow_empty(tmp_path):
    src = tmp_path / "e.txt"
    src.write_text("# nothing\n")
    with pytest.raises(outcore.InputError, match=r"no edges.*e\.txt holds only comments"):
        outcore.import_edges(src, tmp_path / "e.oc", progress=False)
    assert not (tmp_path / "e.oc").exists()
    s = outcore.import_edges(src, tmp_path / "e.oc", allow_empty=True, progress=False)
    assert (s.num_vertices, s.num_edges) == (0, 0)


def test_parquet_is_read_by_its_first_bytes(tmp_path):
    p = tmp_path / "g.data"
    pd.DataFrame({"src": [1, 2], "dst": [2, 3]}).to_parquet(p)
    s = outcore.import_edges(p, tmp_path / "g.oc", progress=False)
    assert (s.num_vertices, s.num_edges) == (3, 2)
    assert s.pagerank(progress=False).ids.tolist() == [1, 2, 3]
