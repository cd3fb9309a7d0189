"""Errors from the Python API say what to do in Python: they name Python
arguments (`weighted=True`, `memory=`), never the CLI's flags; an unknown
keyword names the method and lists the valid ones; a number out of range is
a ValueError that gives the range."""

import re
from pathlib import Path

import networkx as nx
import pytest

import outcore
from outcore import errors

README = Path(__file__).resolve().parents[2] / "README.md"
CLI_FLAG = re.compile(r"--[a-z]")


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    g = nx.gnm_random_graph(60, 150, seed=3, directed=True)
    return outcore.from_networkx(g, tmp_path_factory.mktemp("s") / "g.oc", weight=None,
                                 progress=False)


def message(excinfo):
    text = str(excinfo.value)
    assert not CLI_FLAG.search(text), text
    return text


def test_messages_from_the_library_name_python_arguments(store, tmp_path):
    with pytest.raises(outcore.InputError) as e:
        store.pagerank(weighted=True, progress=False)
    assert "weighted=True" in message(e)
    with pytest.raises(outcore.BudgetError) as e:
        store.pagerank(memory="1KiB", progress=False)
    assert "memory=" in message(e)
    with pytest.raises(outcore.InputError) as e:
        store.lcc(engine="stream", progress=False)
    assert 'engine="external"' in message(e)
    with pytest.raises(outcore.InputError) as e:
        store.betweenness(sources=[0, 1], samples=2, progress=False)
    assert "sources=" in message(e) and "samples=" in message(e)
    with pytest.raises(outcore.InputError) as e:
        outcore.generate("er", store.path, vertices=10, edges=20, progress=False)
    assert "force=True" in message(e)


@pytest.mark.parametrize("cli,python", [
    ("weighted pagerank runs on the external engine; drop --engine or pass --engine external",
     'weighted pagerank runs on the external engine; drop engine= or pass engine="external"'),
    ("g has no weights; import it with --weighted, or drop --weighted for LDBC's",
     "g has no weights; import it with weighted=True, or drop weighted=True for LDBC's"),
    ("wcc on 5 vertices needs at least 1.00 MiB; raise --memory",
     "wcc on 5 vertices needs at least 1.00 MiB; raise memory="),
    ("--damping 1.5 must be within [0, 1]", "damping=1.5 must be within [0, 1]"),
    ("--memory 1.00 KiB is below the 2.00 MiB a build needs",
     "memory=1.00 KiB is below the 2.00 MiB a build needs"),
    ("--samples must be between 1 and the 5 vertices, got 9",
     "samples must be between 1 and the 5 vertices, got 9"),
    ("a (raise --memory or pass --order degree)", 'a (raise memory= or pass order="degree")'),
    ("(vertex ids that are not integers? pass --ids string)",
     '(vertex ids that are not integers? pass ids="string")'),
    ("x (pass --header; other columns? pass --columns SRC,DST; another separator? pass --delimiter)",
     'x (pass header=True; other columns? pass columns="SRC,DST"; another separator? pass delimiter=)'),
    ("p already exists; pass --force to replace it", "p already exists; pass force=True to replace it"),
    ("--walks-per-vertex must be at least 1", "walks_per_vertex must be at least 1"),
    ("read it with --format mtx", 'read it with format="mtx"'),
    ("build it with --undirected", "build it with directed=False"),
])
def test_cli_flags_become_python_arguments(cli, python):
    assert errors._python_message(cli) == python


@pytest.mark.parametrize("call,name", [
    (lambda s: s.pagerank(iters=3), "pagerank"),
    (lambda s: s.bfs(0, sorce=1), "bfs"),
    (lambda s: s.wcc(engin="stream"), "wcc"),
    (lambda s: s.betweenness(k=3), "betweenness"),
    (lambda s: s.khop(0, hop=2), "khop"),
    (lambda s: s.randomwalk(walks=None, lenght=3), "randomwalk"),
])
def test_unknown_keywords_name_the_method_and_the_valid_ones(store, call, name):
    with pytest.raises(TypeError) as e:
        call(store)
    text = str(e.value)
    assert text.startswith(f"{name}() got an unexpected keyword argument"), text
    assert "; valid: " in text and "memory" in text, text


def test_unknown_keywords_of_the_builders(tmp_path):
    with pytest.raises(TypeError, match=r"import_edges\(\) got an unexpected keyword argument "
                                        r"'headers'; valid: .*header"):
        outcore.import_edges([], tmp_path / "x.oc", headers=True)
    with pytest.raises(TypeError, match=r"generate\(\) got an unexpected keyword argument "
                                        r"'scal'; valid: .*scale"):
        outcore.generate("kron", tmp_path / "x.oc", scal=3)


BAD = [
    ("pagerank", {"iterations": -1}, "iterations", ">= 0"),
    ("pagerank", {"damping": 1.5}, "damping", "[0, 1]"),
    ("pagerank", {"damping": -0.1}, "damping", "[0, 1]"),
    ("pagerank", {"tol": 0}, "tol", "> 0"),
    ("pagerank", {"tol": float("nan")}, "tol", "> 0"),
    ("pagerank", {"memory": 0}, "memory", "> 0"),
    ("pagerank", {"memory": -5}, "memory", "> 0"),
    ("cdlp", {"iterations": 0}, "iterations", ">= 1"),
    ("sssp", {"source": 0, "delta": 0}, "delta", "> 0"),
    ("randomwalk", {"walks_per_vertex": 0}, "walks_per_vertex", ">= 1"),
    ("randomwalk", {"length": -1}, "length", ">= 0"),
    ("randomwalk", {"restart": 1.0}, "restart", "[0, 1)"),
    ("randomwalk", {"restart": -0.5}, "restart", "[0, 1)"),
    ("randomwalk", {"seed": -1}, "seed", ">= 0"),
    ("betweenness", {"samples": 0}, "samples", ">= 1"),
    ("betweenness", {"samples": 61}, "samples", "between 1 and the 60 vertices, got 61"),
    ("coloring", {"seed": 2**64}, "seed", "< 2**64"),
    ("mis", {"seed": -1}, "seed", ">= 0"),
    ("wcc", {"segments": 1}, "segments", ">= 2"),
    ("wcc", {"segment": 0}, "segment", "> 0"),
    ("wcc", {"cache": -1}, "cache", ">= 0"),
    ("bfs", {"source": 0, "depth": 0}, "depth", ">= 1"),
    ("khop", {"source": 0, "hops": -1}, "hops", ">= 0"),
    ("egonet", {"source": 0, "hops": -2}, "hops", ">= 0"),
]


@pytest.mark.parametrize("method,kw,name,expect", BAD)
def test_numbers_out_of_range_are_value_errors_with_the_range(store, method, kw, name, expect):
    with pytest.raises(ValueError) as e:
        getattr(store, method)(progress=False, **kw) if method not in ("khop", "egonet") \
            else getattr(store, method)(**kw)
    text = str(e.value)
    assert text.startswith(f"{method}(): {name} must be ") and expect in text, text


def test_wrong_types_are_type_errors(store):
    with pytest.raises(TypeError, match=r"pagerank\(\): iterations must be an int, got 2\.5"):
        store.pagerank(iterations=2.5)
    with pytest.raises(TypeError, match=r"pagerank\(\): damping must be a number, got '0\.8'"):
        store.pagerank(damping="0.8")
    with pytest.raises(ValueError, match=r"top\(\): k must be >= 0"):
        store.wcc(progress=False).top(-1)


def test_the_edges_of_each_range_are_accepted(store):
    store.pagerank(iterations=0, damping=0.0, progress=False)
    store.pagerank(iterations=1, damping=1.0, progress=False)
    store.randomwalk(length=0, restart=0.0, seed=2**64 - 1, progress=False)
    store.betweenness(samples=1, progress=False)
    assert store.khop(0, hops=0).tolist() == [0]


def test_every_exception_is_documented():
    python = README.read_text().split("## Python", 1)[1].split("\n## ", 1)[0]
    for name in errors.__all__:
        cls = getattr(errors, name)
        assert cls.__doc__ and len(cls.__doc__) > 40, name
        assert f"outcore.{name}" in python or f"`{name}`" in python, name
        assert getattr(outcore, name) is cls
