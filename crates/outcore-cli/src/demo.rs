//! `outcore demo`: the built-in tour a newcomer runs first.

use anyhow::Result;
use clap::Args;
use outcore::algo::query;
use outcore::api::{Algorithm, RunOptions};
use outcore::engine::select::{SelectConfig, SelectEngine};
use outcore::gen::{self, GenConfig, GenKind};
use outcore::ingest::build::BuildOptions;
use outcore::mem::Budget;
use outcore::size::format_size;
use outcore::store::Store;
use std::path::PathBuf;
use std::time::Instant;

#[derive(Args)]
pub struct DemoArgs {
    /// Kronecker scale of the demo graph.
    #[arg(long, default_value_t = 18)]
    pub scale: u32,
    /// Where to put the demo store.
    #[arg(long, default_value = "demo.oc")]
    pub out: PathBuf,
    /// Memory budget of the build and of every algorithm (kept small, so the demo works out of core).
    #[arg(long, value_parser = crate::parse_memory, default_value = "256MiB")]
    pub memory: u64,
}

pub fn demo(a: DemoArgs) -> Result<()> {
    let mut cfg = GenConfig::new(GenKind::Kron);
    cfg.scale = a.scale;
    cfg.validate()?;
    crate::outln!("== outcore demo: {} ==", cfg.describe())?;
    let t = Instant::now();
    let mut source = gen::generator(&cfg)?;
    let opts = BuildOptions {
        directed: cfg.directed,
        memory: a.memory,
        force: true,
        format: format!("generate {}", cfg.describe()),
        // The CLI's default layout (`--compress`).
        compress: true,
        ..Default::default()
    };
    let report = outcore::api::build(source.as_mut(), &a.out, &opts)?;
    crate::outln!(
        "generated and stored in {:.2}s inside a {} budget (peak RSS {})\n",
        t.elapsed().as_secs_f64(),
        format_size(a.memory),
        format_size(report.peak_rss_bytes)
    )?;
    let store = Store::open(&a.out)?;
    crate::out!(
        "{}",
        crate::info::info_text(&store, &outcore::api::info_json(&store))
    )?;
    let t = Instant::now();
    let v = outcore::store::verify::verify(&a.out)?;
    crate::outln!(
        "\nverify: ok ({} files, {}) in {:.2}s\n",
        v.files,
        format_size(v.bytes),
        t.elapsed().as_secs_f64()
    )?;
    // The algorithms through the one path every command takes (`api::run`:
    // the planner picks stream or select superstep by superstep), inside
    // the same budget.
    let budget = || Budget::new(a.memory);
    let run = |alg: Algorithm, source: Option<&str>| {
        let mut o = RunOptions::new(alg);
        o.memory = a.memory;
        o.source = source.map(String::from);
        outcore::api::run(&store, &o, &budget())
    };
    // Results speak original ids (the store's dense ids go by degree).
    let ids = store.load_ids()?;
    let mut pr = run(Algorithm::Pagerank, None)?;
    let (mut top, mut best) = (0, f64::NEG_INFINITY);
    pr.values.for_each_dense(&store, &budget(), &mut |v, x| {
        if f64::from_bits(x) > best {
            (top, best) = (v, f64::from_bits(x));
        }
    })?;
    let s = format!("top vertex {} with rank {best:.3e}", ids.get(top));
    crate::run::print_summary(&pr.stats, &s);
    let wcc = run(Algorithm::Wcc, None)?;
    crate::run::print_summary(
        &wcc.stats,
        &format!("{} (isolated vertices included)", wcc.summary),
    );
    let bfs = run(Algorithm::Bfs, Some("max-degree"))?;
    crate::run::print_summary(&bfs.stats, &bfs.summary);
    let n = store.manifest().num_vertices as usize;
    // A targeted query on the select engine: only the pages of the lists it needs.
    let mut eng = SelectEngine::new(&store, "out", false, &budget(), &SelectConfig::default())?;
    let probe = ids.dense_of_rank((n as u64).min(7).saturating_sub(1));
    let (vs, q) = query::khop(&mut eng, probe, 2)?;
    crate::outln!(
        "khop: {} vertices within 2 hops of vertex {} in {:.3} ms, {} pages read (select engine)",
        vs.len(),
        ids.get(probe),
        q.seconds * 1e3,
        q.pages_touched
    )?;
    crate::outln!(
        "\nnext: outcore run pagerank|wcc|bfs|kcore {0} --out FILE --stats FILE; outcore query khop {0} --source ID --hops 2",
        a.out.display()
    )?;
    Ok(())
}
