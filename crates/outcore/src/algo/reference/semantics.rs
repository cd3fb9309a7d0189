//! The references' semantics by hand: loading, self-loops, directions, small graphs.

use super::tests::build;
use super::*;

#[test]
fn load_matches_from_edges() {
    // Original ids with gaps, duplicates (last weight wins), self-loops,
    // both orientations of an undirected edge, isolated vertices.
    let orig = [3u64, 10, 11, 40, 41, 99, 1000];
    let edges = [
        (10, 3, 0.5),
        (3, 10, 1.5),
        (3, 10, 2.5),
        (11, 11, 4.0),
        (40, 3, 1.0),
        (41, 40, 7.0),
        (40, 41, 8.0),
        (10, 3, 0.25),
        (1000, 11, 3.0),
    ];
    let rank = |id: u64| orig.binary_search(&id).unwrap() as u32;
    let dense: Vec<(u32, u32, f64)> = edges
        .iter()
        .map(|&(s, d, w)| (rank(s), rank(d), w))
        .collect();
    for directed in [true, false] {
        for weighted in [true, false] {
            let tmp = tempfile::tempdir().unwrap();
            let store = build(tmp.path(), directed, weighted, &orig, &edges);
            let g = MemGraph::load(&store).unwrap().in_rank_order();
            let mut want = MemGraph::from_edges(orig.len(), directed, &dense);
            if !weighted {
                want.weighted = false;
                for l in want.out.iter_mut().chain(want.inn.iter_mut()) {
                    for e in l {
                        e.1 = 1.0;
                    }
                }
            }
            assert_eq!(g, want, "directed {directed} weighted {weighted}");
            let ids = store.load_ids().unwrap();
            for (r, &o) in orig.iter().enumerate() {
                let r = r as u64;
                assert_eq!(ids.original_of_rank(r), o);
                assert_eq!(ids.get(ids.dense_of_rank(r)), o);
                assert_eq!(ids.rank(ids.dense_of_rank(r)), r);
                assert_eq!(
                    ids.dense_of_original(o, orig.len() as u64),
                    Some(ids.dense_of_rank(r))
                );
            }
            assert_eq!(ids.dense_of_original(4, orig.len() as u64), None);
            // 10 (rank 1) has fewer neighbours than 11 and 40 (ranks 2, 3).
            assert!(!ids.order_is_identity());
        }
    }
}

#[test]
fn from_edges_semantics() {
    let g = MemGraph::from_edges(3, true, &[(0, 1, 1.0), (0, 1, 2.0), (2, 2, 3.0)]);
    assert_eq!(g.out, vec![vec![(1, 2.0)], vec![], vec![(2, 3.0)]]);
    assert_eq!(g.inn, vec![vec![], vec![(0, 2.0)], vec![(2, 3.0)]]);
    let g = MemGraph::from_edges(3, false, &[(0, 1, 1.0), (1, 0, 3.0), (2, 2, 5.0)]);
    assert_eq!(g.out, vec![vec![(1, 3.0)], vec![(0, 3.0)], vec![(2, 5.0)]]);
    assert_eq!(g.inn, g.out);
    let g = MemGraph::from_edges(4, false, &[(3, 0, 1.0), (0, 2, 1.0), (1, 0, 1.0)]);
    assert_eq!(g.out[0], vec![(1, 1.0), (2, 1.0), (3, 1.0)]);
}

#[test]
fn empty_graph() {
    let g = MemGraph::from_edges(0, true, &[]);
    assert!(pagerank(&g, 0.85, 10).is_empty());
    assert_eq!(pagerank_tol(&g, 0.85, 10, 1e-9), (vec![], 0));
    assert!(wcc(&g).is_empty());
    assert!(cdlp(&g, 3).is_empty());
    assert!(lcc(&g).is_empty());
    assert!(core_numbers(&g).is_empty());
    assert!(std::panic::catch_unwind(|| bfs(&g, 0)).is_err());
}

#[test]
fn isolated_vertices() {
    for directed in [true, false] {
        let g = MemGraph::from_edges(3, directed, &[]);
        let pr = pagerank(&g, 0.85, 5);
        assert!(pr.iter().all(|&x| (x - 1.0 / 3.0).abs() < 1e-15), "{pr:?}");
        assert_eq!(bfs(&g, 1), vec![BFS_UNREACHABLE, 0, BFS_UNREACHABLE]);
        assert_eq!(sssp(&g, 0), vec![0.0, f64::INFINITY, f64::INFINITY]);
        assert_eq!(wcc(&g), vec![0, 1, 2]);
        assert_eq!(cdlp(&g, 4), vec![0, 1, 2]);
        assert_eq!(lcc(&g), vec![0.0; 3]);
        assert_eq!(core_numbers(&g), vec![0; 3]);
        assert_eq!(khop(&g, 2, 5), vec![2]);
    }
}

#[test]
fn directed_vs_undirected() {
    let e = [(0, 1, 1.0), (1, 2, 1.0), (3, 2, 1.0)];
    let d = MemGraph::from_edges(5, true, &e);
    let u = MemGraph::from_edges(5, false, &e);
    let x = BFS_UNREACHABLE;
    assert_eq!(bfs(&d, 2), vec![x, x, 0, x, x]);
    assert_eq!(bfs(&u, 2), vec![2, 1, 0, 1, x]);
    assert_eq!(bfs(&d, 0), vec![0, 1, 2, x, x]);
    assert_eq!(wcc(&d), vec![0, 0, 0, 0, 4]);
    assert_eq!(wcc(&u), vec![0, 0, 0, 0, 4]);
    assert_eq!(khop(&d, 1, 3), vec![1, 2]);
    assert_eq!(khop(&u, 1, 1), vec![0, 1, 2]);
    // Vertex 0 linked both ways with 3 and one way with 1 and 2: directed
    // sees label 3 twice; undirected sees {1, 2, 3} once each, a tie.
    let e = [(0, 3, 1.0), (3, 0, 1.0), (0, 1, 1.0), (2, 0, 1.0)];
    assert_eq!(cdlp(&MemGraph::from_edges(4, true, &e), 1)[0], 3);
    assert_eq!(cdlp(&MemGraph::from_edges(4, false, &e), 1)[0], 1);
    // LCC: direction ignored for neighbours, respected for links.
    // N(0) = {1, 2}; directed: only 1 -> 2 of 2 possible.
    let e = [(0, 1, 1.0), (2, 0, 1.0), (1, 2, 1.0)];
    assert_eq!(lcc(&MemGraph::from_edges(3, true, &e)), vec![0.5; 3]);
    assert_eq!(lcc(&MemGraph::from_edges(3, false, &e)), vec![1.0; 3]);
}

#[test]
fn self_loops() {
    // Directed: 0 -> 0, 0 -> 1 (1 is a sink). One iteration by hand.
    let g = MemGraph::from_edges(2, true, &[(0, 0, 1.0), (0, 1, 1.0)]);
    let pr = pagerank(&g, 0.85, 1);
    let want = [
        0.075 + 0.85 * 0.25 + 0.425 * 0.5,
        0.075 + 0.85 * 0.25 + 0.425 * 0.5,
    ];
    assert!((pr[0] - want[0]).abs() < 1e-15 && (pr[1] - want[1]).abs() < 1e-15);
    // Undirected: 0 - 0, 0 - 1: deg(0) = 2 (the loop once), deg(1) = 1.
    let g = MemGraph::from_edges(2, false, &[(0, 0, 1.0), (0, 1, 1.0)]);
    let pr = pagerank(&g, 0.85, 1);
    assert!((pr[0] - 0.7125).abs() < 1e-15, "{pr:?}");
    assert!((pr[1] - 0.2875).abs() < 1e-15, "{pr:?}");
    // A triangle with a self-loop: LCC and cores ignore the loop.
    let e = [
        (0, 1, 1.0),
        (1, 2, 1.0),
        (2, 0, 1.0),
        (0, 0, 1.0),
        (2, 3, 1.0),
    ];
    for directed in [true, false] {
        let g = MemGraph::from_edges(4, directed, &e);
        assert_eq!(core_numbers(&g), vec![2, 2, 2, 1]);
        let l = lcc(&g);
        let third = if directed { 1.0 / 6.0 } else { 1.0 / 3.0 };
        let want = if directed {
            [0.5, 0.5, third, 0.0]
        } else {
            [1.0, 1.0, third, 0.0]
        };
        assert_eq!(l, want, "directed {directed}");
        assert_eq!(sssp(&g, 0)[0], 0.0);
        assert_eq!(bfs(&g, 0)[0], 0);
    }
    // CDLP: a directed self-loop is an out- and an in-neighbour (twice).
    // Vertex 1: out {1, 0}, in {1, 2} -> labels 1, 0, 1, 2 -> 1.
    let g = MemGraph::from_edges(3, true, &[(1, 1, 1.0), (1, 0, 1.0), (2, 1, 1.0)]);
    assert_eq!(cdlp(&g, 1)[1], 1);
    // Undirected: neighbours {0, 1, 2} once each -> tie -> 0.
    let g = MemGraph::from_edges(3, false, &[(1, 1, 1.0), (1, 0, 1.0), (2, 1, 1.0)]);
    assert_eq!(cdlp(&g, 1)[1], 0);
}

/// A deterministic pseudo-random graph with sinks, self-loops and duplicates.
fn random_graph(n: usize, m: usize, directed: bool, seed: u64) -> MemGraph {
    let mut s = seed
        .wrapping_mul(6364136223846793005)
        .wrapping_add(1442695040888963407);
    let mut next = || {
        s = s
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (s >> 33) as usize
    };
    let edges: Vec<(u32, u32, f64)> = (0..m)
        .map(|_| {
            // Vertices of the top quarter get no out-edges: sinks.
            let a = next() % (n * 3 / 4).max(1);
            let b = next() % n;
            (a as u32, b as u32, (next() % 1000) as f64 / 100.0)
        })
        .collect();
    MemGraph::from_edges(n, directed, &edges)
}

#[test]
fn pagerank_sums_to_one() {
    for (i, directed) in [true, false].into_iter().enumerate() {
        for n in [1, 2, 7, 50, 300] {
            let g = random_graph(n, n * 3, directed, 17 + n as u64 + i as u64);
            for it in [0, 1, 2, 20] {
                let pr = pagerank(&g, 0.85, it);
                let sum: f64 = pr.iter().sum();
                assert!((sum - 1.0).abs() < 1e-12, "n {n} it {it}: sum {sum}");
            }
            let (pr, iters) = pagerank_tol(&g, 0.85, 1000, 1e-13);
            assert!(iters < 1000, "n {n}: no convergence");
            let fixed = pagerank(&g, 0.85, iters);
            assert_eq!(pr, fixed);
            let more = pagerank(&g, 0.85, iters + 50);
            let l1: f64 = pr.iter().zip(&more).map(|(a, b)| (a - b).abs()).sum();
            assert!(l1 < 1e-11, "n {n}: {l1}");
            assert_eq!(pagerank_tol(&g, 0.85, 7, 0.0).1, 7);
        }
    }
}

#[test]
fn core_numbers_by_hand() {
    // K4 on 0..3, vertex 4 joined to 0 and 1, 5 hanging off 4, 6 isolated.
    let mut e = vec![(4, 0, 1.0), (1, 4, 1.0), (5, 4, 1.0)];
    for a in 0..4u32 {
        for b in a + 1..4 {
            e.push((a, b, 1.0));
        }
    }
    let want = vec![3, 3, 3, 3, 2, 1, 0];
    assert_eq!(core_numbers(&MemGraph::from_edges(7, false, &e)), want);
    assert_eq!(core_numbers(&MemGraph::from_edges(7, true, &e)), want);
    // Both directions of every edge: still the simple undirected graph.
    let both: Vec<_> = e
        .iter()
        .flat_map(|&(a, b, w)| [(a, b, w), (b, a, w)])
        .collect();
    assert_eq!(core_numbers(&MemGraph::from_edges(7, true, &both)), want);
    // A cycle is a 2-core; a path a 1-core.
    let cycle: Vec<_> = (0..5u32).map(|i| (i, (i + 1) % 5, 1.0)).collect();
    assert_eq!(
        core_numbers(&MemGraph::from_edges(5, true, &cycle)),
        vec![2; 5]
    );
    let path: Vec<_> = (0..4u32).map(|i| (i, i + 1, 1.0)).collect();
    assert_eq!(
        core_numbers(&MemGraph::from_edges(5, false, &path)),
        vec![1; 5]
    );
}

#[test]
fn khop_by_hand() {
    let e = [
        (0, 1, 1.0),
        (1, 2, 1.0),
        (2, 3, 1.0),
        (0, 4, 1.0),
        (4, 4, 1.0),
    ];
    let g = MemGraph::from_edges(6, true, &e);
    assert_eq!(khop(&g, 0, 0), vec![0]);
    assert_eq!(khop(&g, 0, 1), vec![0, 1, 4]);
    assert_eq!(khop(&g, 0, 2), vec![0, 1, 2, 4]);
    assert_eq!(khop(&g, 0, u32::MAX), vec![0, 1, 2, 3, 4]);
    assert_eq!(khop(&g, 3, 10), vec![3]);
    let u = MemGraph::from_edges(6, false, &e);
    assert_eq!(khop(&u, 3, 1), vec![2, 3]);
    assert_eq!(khop(&u, 3, 3), vec![0, 1, 2, 3]);
    assert_eq!(khop(&u, 5, 3), vec![5]);
}

#[test]
fn sssp_by_hand() {
    // The fewest hops is not the shortest path; 4 is unreachable.
    let e = [
        (0, 1, 5.0),
        (0, 2, 1.0),
        (2, 1, 1.0),
        (1, 3, 1.0),
        (4, 0, 1.0),
        (3, 3, 0.0),
    ];
    let g = MemGraph::from_edges(5, true, &e);
    assert_eq!(sssp(&g, 0), vec![0.0, 2.0, 1.0, 3.0, f64::INFINITY]);
    let u = MemGraph::from_edges(5, false, &e);
    assert_eq!(sssp(&u, 3), vec![3.0, 1.0, 2.0, 0.0, 4.0]);
    assert_eq!(bfs(&g, 0), vec![0, 1, 1, 2, BFS_UNREACHABLE]);
}

#[test]
fn wcc_and_cdlp_on_components() {
    // Two components {0, 2, 5} and {1, 3}, 4 alone; labels are the minima.
    let e = [(5, 2, 1.0), (2, 0, 1.0), (3, 1, 1.0)];
    let g = MemGraph::from_edges(6, true, &e);
    assert_eq!(wcc(&g), vec![0, 1, 0, 1, 4, 0]);
    // CDLP round 1 (directed, in + out): 0 <- {2}; 1 <- {3}; 2 <- {0, 5}
    // tie -> 0; 3 <- {1}; 5 <- {2}.
    assert_eq!(cdlp(&g, 1), vec![2, 3, 0, 1, 4, 2]);
    assert_eq!(cdlp(&g, 0), vec![0, 1, 2, 3, 4, 5]);
    // Round 2 from (2, 3, 0, 1, 4, 2): 0 <- {0}; 1 <- {1}; 2 <- {2, 2};
    // 3 <- {3}; 5 <- {0}.
    assert_eq!(cdlp(&g, 2), vec![0, 1, 2, 3, 4, 0]);
}

#[test]
fn labels_are_ranks_under_any_vertex_order() {
    // The graph of `wcc_and_cdlp_on_components` with dense ids permuted:
    // dense v has rank perm[v]; labels must be the same ranks.
    let e = [(5u32, 2u32, 1.0), (2, 0, 1.0), (3, 1, 1.0)];
    let perm = [4u32, 2, 5, 0, 3, 1]; // dense -> rank
    let mut dense_of = [0u32; 6];
    for (v, &r) in perm.iter().enumerate() {
        dense_of[r as usize] = v as u32;
    }
    let moved: Vec<_> = e
        .iter()
        .map(|&(a, b, w)| (dense_of[a as usize], dense_of[b as usize], w))
        .collect();
    for directed in [true, false] {
        let base = MemGraph::from_edges(6, directed, &e);
        let mut g = MemGraph::from_edges(6, directed, &moved);
        g.rank = perm.to_vec();
        assert_eq!(g.in_rank_order(), base);
        let (w0, w1) = (wcc(&base), wcc(&g));
        let (c0, c1) = (cdlp(&base, 2), cdlp(&g, 2));
        for v in 0..6 {
            let r = perm[v] as usize;
            assert_eq!(w1[v], w0[r], "wcc of dense {v}");
            assert_eq!(c1[v], c0[r], "cdlp of dense {v}");
        }
    }
}
