//! The generators' tests: the same edges on any number of threads, a seed
//! per stream, metadata, parsing and defaults, validation, tiny graphs and
//! edge files.

use super::*;

fn run(cfg: &GenConfig) -> Vec<RawEdge> {
    let mut g = generator(cfg).unwrap();
    let mut all = Vec::new();
    g.for_each_edge_batch(&mut |b| {
        all.extend_from_slice(b);
        Ok(())
    })
    .unwrap();
    all
}

fn in_pool(threads: usize, cfg: &GenConfig) -> Vec<RawEdge> {
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .unwrap();
    pool.install(|| run(cfg))
}

fn configs() -> Vec<GenConfig> {
    let mut kron = GenConfig::new(GenKind::Kron);
    kron.scale = 12;
    kron.edge_factor = 40; // 163840 samples: 3 blocks
    kron.weighted = true;
    let mut rmat = GenConfig::new(GenKind::Rmat);
    rmat.scale = 11;
    rmat.edge_factor = 70;
    rmat.a = 0.45;
    rmat.b = 0.25;
    rmat.c = 0.15;
    let mut er = GenConfig::new(GenKind::Er);
    er.vertices = 1000;
    er.edges = 250_000; // 4 chunks
    er.weighted = true;
    let mut er_u = er.clone();
    er_u.directed = false;
    er_u.weighted = false;
    let mut grid = GenConfig::new(GenKind::Grid);
    grid.rows = 300;
    grid.cols = 301;
    grid.weighted = true;
    let mut grid_d = grid.clone();
    grid_d.directed = true;
    vec![kron, rmat, er, er_u, grid, grid_d]
}

#[test]
fn deterministic_across_thread_counts_and_seed_dependent() {
    for cfg in configs() {
        let one = in_pool(1, &cfg);
        assert_eq!(one.len() as u64, cfg.num_edges(), "{}", cfg.describe());
        assert!(!one.is_empty());
        for t in [2, 3] {
            let other = in_pool(t, &cfg);
            assert!(
                one == other,
                "{}: {t} threads differ from 1",
                cfg.describe()
            );
        }
        assert!(one == run(&cfg));
        let mut cfg2 = cfg.clone();
        cfg2.seed = 2;
        let two = in_pool(2, &cfg2);
        assert_eq!(two.len(), one.len());
        assert!(one != two, "{}: seed does not matter", cfg.describe());
        let n = cfg.num_vertices();
        assert!(one.iter().all(|e| e.src < n && e.dst < n));
    }
}

#[test]
fn source_metadata() {
    let mut cfg = GenConfig::new(GenKind::Kron);
    cfg.scale = 10;
    let mut g = generator(&cfg).unwrap();
    assert_eq!(g.dense_vertex_count(), Some(1024));
    assert_eq!(
        g.describe(),
        "kron scale 10 edge factor 16 (undirected, seed 1)"
    );
    assert_eq!(g.input_bytes(), Some(16 * 1024 * 24));
    g.for_each_edge_batch(&mut |_| Ok(())).unwrap();
    assert_eq!(g.bytes_consumed(), g.input_bytes().unwrap());
    let mut cfg = GenConfig::new(GenKind::Grid);
    cfg.weighted = true;
    assert_eq!(
        cfg.describe(),
        "grid 256x256 (undirected, weights 1..=100, seed 1)"
    );
    assert_eq!(cfg.num_vertices(), 65536);
    let cfg = GenConfig::new(GenKind::Er);
    assert_eq!(cfg.describe(), "er n 65536 m 1048576 (directed, seed 1)");
    let cfg = GenConfig::new(GenKind::Rmat);
    assert_eq!(
        cfg.describe(),
        "rmat scale 16 edge factor 16 a 0.57 b 0.19 c 0.19 (directed, seed 1)"
    );
}

#[test]
fn kinds_parse_and_defaults() {
    for (s, k) in [
        ("kron", GenKind::Kron),
        ("rmat", GenKind::Rmat),
        ("er", GenKind::Er),
        ("grid", GenKind::Grid),
    ] {
        assert_eq!(s.parse::<GenKind>().unwrap(), k);
        assert_eq!(k.to_string(), s);
        let cfg = GenConfig::new(k);
        cfg.validate().unwrap();
        assert_eq!(cfg.directed, GenConfig::default_directed(k));
    }
    assert!("ba".parse::<GenKind>().is_err());
    assert!(!GenConfig::default_directed(GenKind::Kron));
    assert!(GenConfig::default_directed(GenKind::Rmat));
    assert!(GenConfig::default_directed(GenKind::Er));
    assert!(!GenConfig::default_directed(GenKind::Grid));
}

fn invalid(cfg: &GenConfig, needle: &str) {
    match cfg.validate() {
        Err(Error::Invalid(msg)) => assert!(msg.contains(needle), "`{msg}` lacks `{needle}`"),
        other => panic!("expected Invalid containing `{needle}`, got {other:?}"),
    }
    assert!(generator(cfg).is_err());
}

#[test]
fn validation() {
    let mut c = GenConfig::new(GenKind::Rmat);
    c.a = 0.6;
    c.b = 0.2;
    c.c = 0.2;
    invalid(&c, "must be < 1");
    c.a = -0.1;
    invalid(&c, "a = -0.1");
    c.a = f64::NAN;
    invalid(&c, "a = NaN");
    c.a = 0.5;
    c.b = 0.0;
    c.c = 0.0;
    c.validate().unwrap();
    c.scale = 48;
    invalid(&c, "at most 47");
    c.scale = 47;
    c.edge_factor = 1 << 17;
    invalid(&c, "overflows");
    c.scale = 32;
    c.edge_factor = 1 << 31;
    c.validate().unwrap();
    c.edge_factor = 1 << 32;
    invalid(&c, "overflows");
    c.edge_factor = 16;
    c.validate().unwrap();
    // kron ignores a, b, c.
    let mut k = GenConfig::new(GenKind::Kron);
    k.a = 2.0;
    k.validate().unwrap();

    let mut e = GenConfig::new(GenKind::Er);
    e.vertices = 0;
    invalid(&e, "at least 1");
    e.vertices = 1 << 32;
    invalid(&e, "< 2^32");
    e.vertices = 10;
    e.edges = 90;
    e.validate().unwrap();
    e.edges = 91;
    invalid(&e, "only 90");
    e.directed = false;
    e.edges = 46;
    invalid(&e, "only 45");
    e.vertices = 1;
    e.edges = 0;
    e.validate().unwrap();

    let mut g = GenConfig::new(GenKind::Grid);
    g.rows = 0;
    invalid(&g, "rows and cols");
    g.rows = 1 << 16;
    g.cols = 1 << 16;
    invalid(&g, "< 2^32");
    g.cols = (1 << 16) - 1;
    g.validate().unwrap();
    g.max_weight = 0;
    invalid(&g, "max weight");
}

#[test]
fn tiny_generators() {
    // scale 0: one vertex, all samples are self-loops 0 -> 0.
    let mut k = GenConfig::new(GenKind::Kron);
    k.scale = 0;
    k.edge_factor = 5;
    let e = run(&k);
    assert_eq!(e.len(), 5);
    assert!(e
        .iter()
        .all(|x| x.src == 0 && x.dst == 0 && x.weight == 1.0));
    // er with m = 0 and with all pairs, through the pipeline.
    let mut er = GenConfig::new(GenKind::Er);
    er.vertices = 4;
    er.edges = 0;
    assert!(run(&er).is_empty());
    er.edges = 12;
    let mut all: Vec<(u64, u64)> = run(&er).iter().map(|x| (x.src, x.dst)).collect();
    all.sort();
    let want: Vec<(u64, u64)> = (0..4)
        .flat_map(|u| (0..4).filter(move |&v| v != u).map(move |v| (u, v)))
        .collect();
    assert_eq!(all, want);
    // 1x1 grid: one vertex, no edges.
    let mut g = GenConfig::new(GenKind::Grid);
    g.rows = 1;
    g.cols = 1;
    assert!(run(&g).is_empty());
    assert_eq!(generator(&g).unwrap().dense_vertex_count(), Some(1));
}

#[test]
fn write_generated_edge_file() {
    let dir = tempfile::tempdir().unwrap();
    let mut cfg = GenConfig::new(GenKind::Grid);
    cfg.rows = 30;
    cfg.cols = 40;
    cfg.weighted = true;
    let want = run(&cfg);
    let path = dir.path().join("grid.txt");
    let mut g = generator(&cfg).unwrap();
    let n = write_edge_file(g.as_mut(), &path, EdgeFileFormat::Text, true, false).unwrap();
    assert_eq!(n, want.len() as u64);
    let text = std::fs::read_to_string(&path).unwrap();
    for (line, e) in text.lines().zip(&want) {
        assert_eq!(line, format!("{} {} {}", e.src, e.dst, e.weight as u64));
    }
    assert!(write_edge_file(g.as_mut(), &path, EdgeFileFormat::Text, true, false).is_err());
}

fn time(cfg: &GenConfig) {
    let mut g = generator(cfg).unwrap();
    let t = std::time::Instant::now();
    let (mut n, mut x) = (0u64, 0u64);
    g.for_each_edge_batch(&mut |b| {
        n += b.len() as u64;
        x ^= b[b.len() / 2].src;
        Ok(())
    })
    .unwrap();
    let s = t.elapsed().as_secs_f64();
    println!(
        "{}: {n} edges in {s:.3} s = {:.1} M edges/s ({} threads, {x})",
        cfg.describe(),
        n as f64 / s / 1e6,
        rayon::current_num_threads()
    );
}

/// Timing: `cargo test --release -p outcore --lib gen::tests::gen_speed -- --ignored --nocapture`
#[test]
#[ignore]
fn gen_speed() {
    for scale in [20u32, 22] {
        let mut cfg = GenConfig::new(GenKind::Kron);
        cfg.scale = scale;
        time(&cfg);
    }
    let mut cfg = GenConfig::new(GenKind::Er);
    cfg.vertices = 1 << 20;
    cfg.edges = 16 << 20;
    time(&cfg);
    cfg.weighted = true;
    time(&cfg);
    cfg.directed = false;
    cfg.weighted = false;
    time(&cfg);
    let mut cfg = GenConfig::new(GenKind::Grid);
    cfg.rows = 4096;
    cfg.cols = 4096;
    time(&cfg);
}
