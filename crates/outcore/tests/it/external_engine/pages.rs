//! What the external engine reads between supersteps: one interval stays
//! in memory, a sparse superstep of spilled state reads pages rather than
//! whole intervals, and every program still equals its reference page by
//! page.

use crate::common::dense_store as store_of;

use super::*;

/// With one interval the state, active bits and offsets stay in memory
/// between supersteps: BFS down a path of 1500 vertices (1500 supersteps
/// of one vertex each) reads about an adjacency page a superstep, not the
/// interval's state, bits and offsets again (16 KiB a superstep); with
/// `force_spill` it does read them, and the depths are the same.
#[test]
fn a_single_interval_stays_in_memory_between_supersteps() {
    let dir = tempfile::tempdir().unwrap();
    let n = 1500u64;
    let edges: Vec<(u64, u64)> = (0..n - 1).map(|i| (i, i + 1)).collect();
    let store = common::unweighted_store(dir.path(), n, &edges, true);
    let src = common::dense_id(&store, 0);
    let budget = Budget::new(64 << 20);
    let (resident, stats) =
        vertex::bfs::run(&store, src, &ExternalConfig::default(), &budget).unwrap();
    let steps = stats.iterations.len() as u64;
    assert!(steps >= n - 1);
    assert!(
        stats.bytes_read < steps * 9000,
        "{} bytes read in {steps} supersteps",
        stats.bytes_read
    );
    let spill = ExternalConfig {
        force_spill: true,
        ..Default::default()
    };
    let (spilled, stats) = vertex::bfs::run(&store, src, &spill, &budget).unwrap();
    assert_eq!(resident, spilled);
    assert!(
        stats.bytes_read > steps * 14000,
        "{} bytes read spilled",
        stats.bytes_read
    );
}

/// Sparse state access: with the state spilled in two large intervals, a
/// superstep of one active vertex reads that vertex's state page, its
/// offsets page and the pages its messages land on, not the interval's
/// whole state or offsets. BFS down a path of 300 vertices that goes back
/// and forth between the intervals, beside 60,000 others.
#[test]
fn a_sparse_superstep_reads_pages_not_the_interval() {
    let dir = tempfile::tempdir().unwrap();
    let n = 60_300u64;
    let half = n / 2 + 1;
    let mut edges: Vec<(u64, u64)> = (0..150)
        .flat_map(|i| [(i, half + i), (half + i, i + 1)])
        .collect();
    edges.extend((300..half - 1).step_by(2).map(|i| (i, i + 1)));
    let order = outcore::store::VertexOrder::Original;
    let store = common::unweighted_store_in(dir.path(), n, &edges, true, order);
    let budget = Budget::new(64 << 20);
    let cfg = ExternalConfig {
        force_spill: true,
        interval_vertices: Some(half),
        ..Default::default()
    };
    let (got, stats) = vertex::bfs::run(&store, 0, &cfg, &budget).unwrap();
    assert_eq!(got, reference::bfs(&MemGraph::load(&store).unwrap(), 0));
    let steps = stats.iterations.len() as u64;
    assert!(steps >= 299);
    let sparse: u64 = stats
        .iterations
        .iter()
        .map(|i| i.external.as_ref().unwrap().sparse_intervals)
        .sum();
    assert!(sparse >= 2 * 298, "{sparse} sparse intervals");
    // Per superstep: the active bits (4 KiB), a state page each way, an
    // offsets page, an adjacency page, a log; an interval's whole state or
    // offsets would be 30,151 x 8 bytes.
    let per_step = stats.bytes_read / steps;
    assert!(per_step < 48 << 10, "{per_step} bytes read a superstep");
}

/// Every program equals its reference with the state spilled in a few
/// large intervals, so that shrinking frontiers and few messages go page
/// by page (both backends; directed and undirected, weighted).
#[test]
fn every_program_matches_its_reference_page_by_page() {
    for (seed, directed, sync) in [(1, true, false), (2, false, true)] {
        let dir = tempfile::tempdir().unwrap();
        let n = 200_000u64;
        let mut edges = random_edges(n, 60_000, seed);
        edges.extend((0..400).map(|i| (i, i + 1, 1.5)));
        let store = store_of(dir.path(), n, &edges, directed, true);
        let cfg = ExternalConfig {
            io: Some(if sync { Backend::Sync } else { Backend::Uring }),
            force_spill: true,
            interval_vertices: Some(50_000),
            ..Default::default()
        };
        check_all(&store, &cfg, 64 << 20, common::dense_id(&store, 0));
    }
}
