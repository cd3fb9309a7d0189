//! `outcore demo`: the built-in tour a newcomer runs first.

use anyhow::Result;
use clap::Args;
use outcore::ingest::build::{build_store, BuildOptions};
use outcore::ingest::gen::{self, GenConfig, GenKind};
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
    /// Memory budget.
    #[arg(long, value_parser = crate::parse_size, default_value = "256MiB")]
    pub memory: u64,
}

pub fn demo(a: DemoArgs) -> Result<()> {
    let mut cfg = GenConfig::new(GenKind::Kron);
    cfg.scale = a.scale;
    cfg.validate()?;
    println!("== outcore demo: {} ==", cfg.describe());
    let t = Instant::now();
    let mut source = gen::generator(&cfg)?;
    let opts = BuildOptions {
        directed: cfg.directed,
        memory: a.memory,
        force: true,
        format: format!("generate {}", cfg.describe()),
        ..Default::default()
    };
    let report = build_store(source.as_mut(), &a.out, &opts)?;
    println!(
        "generated and stored in {:.2}s inside a {} budget (peak RSS {})\n",
        t.elapsed().as_secs_f64(),
        format_size(a.memory),
        format_size(report.peak_rss_bytes)
    );
    let store = Store::open(&a.out)?;
    print!(
        "{}",
        crate::info::info_text(&store, &crate::info::info_json(&store))
    );
    let t = Instant::now();
    let v = outcore::store::verify::verify(&a.out)?;
    println!(
        "\nverify: ok ({} files, {}) in {:.2}s",
        v.files,
        format_size(v.bytes),
        t.elapsed().as_secs_f64()
    );
    Ok(())
}
