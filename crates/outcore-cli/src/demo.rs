//! `outcore demo`: the built-in tour a newcomer runs first.

use anyhow::Result;
use clap::Args;
use outcore::algo::query;
use outcore::algo::{bfs, pagerank, wcc};
use outcore::engine::select::{SelectConfig, SelectEngine};
use outcore::engine::stream::StreamConfig;
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
    // The algorithms, on the stream engine, inside the same budget.
    let budget = || Budget::new(a.memory);
    let engine = |label: &str| StreamConfig {
        label: label.into(),
        ..Default::default()
    };
    // Results speak original ids (the store's dense ids go by degree).
    let ids = store.load_ids()?;
    let (pr, stats) =
        pagerank::pagerank(&store, &Default::default(), engine("pagerank"), &budget())?;
    let top = (0..store.manifest().num_vertices as usize)
        .max_by(|&x, &y| pr.value(x).total_cmp(&pr.value(y)))
        .unwrap_or(0);
    crate::run::print_summary(
        &stats,
        &format!(
            "top vertex {} with rank {:.3e}",
            ids.get(top as u64),
            pr.value(top)
        ),
    );
    let (w, stats) = wcc::wcc(&store, engine("wcc"), &budget())?;
    let n = store.manifest().num_vertices as usize;
    let components = (0..n).filter(|&v| w.value(v) == ids.rank(v as u64)).count();
    crate::run::print_summary(
        &stats,
        &format!("{components} components (isolated vertices included)"),
    );
    let source = crate::run::max_degree_vertex(&store)?;
    let (b, stats) = bfs::bfs(&store, source, engine("bfs"), &budget())?;
    let reached = (0..n).filter(|&v| b.value(v) != bfs::UNREACHABLE).count();
    crate::run::print_summary(
        &stats,
        &format!(
            "from vertex {} (highest degree): {reached} vertices reached",
            ids.get(source)
        ),
    );
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
