//! The external engine (GraFBoost's sort-reduce + PartitionedVC's multi-log;
//! DESIGN.md "external"): vertex state lives on disk, so a run's memory
//! depends on the budget, not on |V|.
//!
//! Vertices are cut into intervals sized from the budget. The state file
//! holds every interval's states (each interval at an aligned offset), the
//! active file one bit per vertex. A superstep:
//!
//! 1. **Scatter**: for each interval with active vertices, its states and
//!    active bits are read; the CSR pages of the vertices that send are read
//!    (`scatter.rs`: one sequential read when the frontier is dense, only the
//!    pages when it is sparse) and every edge's message goes to the update
//!    logs (`log.rs`: an in-memory buffer, sorted and reduced when full, one
//!    sorted run per target interval appended to that interval's log).
//! 2. **Apply**: for each interval, its log is sort-reduced (`merge.rs`: in
//!    memory when it fits, else merged externally with reduction in every
//!    merge step), its states are read, the messages applied in one pass in
//!    vertex order, and the new states and next active bits written back
//!    (the next frontier is emitted lazily, as bits beside the states).
//!
//! With one interval the state stays in memory between supersteps.
//!
//! Dense supersteps of programs with an identity may skip the log instead
//! (`grid/`: GridGraph's dual sliding windows over the store's tiles);
//! the planner prices both per superstep.
//!
//! Every buffer is charged to the budget; all I/O goes through the io layer
//! (io_uring or the pread pool, O_DIRECT); the spill directory is removed
//! when the run ends, by success, error or Ctrl-C.
//!
//! [`run`] drives the supersteps; its settings are in `config.rs`, its
//! setup (lists, buffers, the init pass) in `setup.rs`, each superstep's
//! stats in `report.rs`.

mod accumulate;
mod config;
mod disk;
mod grid;
mod log;
mod logstep;
mod merge;
mod pages;
mod report;
mod scatter;
mod setup;
mod sizes;
mod states;
pub mod triangles;
pub mod walk;
mod words;

use crate::engine::planner;
use crate::engine::state::BLOCK;
use crate::engine::stats::RunStats;
use crate::engine::vertex::{Aggregate, Edges, Value, VertexProgram};
use crate::error::{Error, Result};
use crate::io::{AlignedBuf, Reader, ALIGN};
use crate::mem::Budget;
use crate::progress::{Progress, Unit};
use crate::store::csr::{Slot, SlotWidth};
use crate::store::Store;
pub use config::ExternalConfig;
use disk::{align_up, read_exact, write_all, Appender};
use log::MultiLog;
use merge::MergeConfig;
use scatter::coded_bytes;
use sizes::{shares, sizes, SLACK};
pub use states::ExternalStates;
use states::SpillDir;
use std::path::{Path, PathBuf};
use std::time::Instant;

/// Runs `prog` for at most `max_steps` supersteps on `store` inside `budget`.
pub fn run<P: VertexProgram>(
    store: &Store,
    prog: &mut P,
    max_steps: usize,
    cfg: &ExternalConfig,
    budget: &Budget,
) -> Result<(ExternalStates<P::State>, RunStats)> {
    if crate::engine::vertex::accumulates::<P>() {
        return accumulate::run(store, prog, max_steps, cfg, budget);
    }
    // The message buffer holds targets at the store's id width.
    match store.manifest().slot_width() {
        SlotWidth::Narrow => run_with::<P, u32>(store, prog, max_steps, cfg, budget),
        SlotWidth::Wide => run_with::<P, u64>(store, prog, max_steps, cfg, budget),
    }
}

/// [`run`] with message targets of `T`.
fn run_with<P: VertexProgram, T: Slot>(
    store: &Store,
    prog: &mut P,
    max_steps: usize,
    cfg: &ExternalConfig,
    budget: &Budget,
) -> Result<(ExternalStates<P::State>, RunStats)> {
    let t0 = Instant::now();
    let m = store.manifest();
    let n = m.num_vertices;
    let sz = sizes::<P, T>(n, prog.weighted(), m.csr.compression.is_some(), budget, cfg)?;
    let sbytes = P::State::BYTES;
    // Grid windows cover whole tile blocks: intervals cut at block edges
    // keep neighbouring windows from folding a block twice, and small
    // intervals (at most grid::INTERVAL_BLOCKS) let windows fill their cap
    // and leave the state buffers little memory.
    let grid_runs = grid::runs(store, prog);
    let iv = match grid_runs && cfg.interval_vertices.is_none() {
        true if sz.interval > BLOCK as u64 => {
            (sz.interval / BLOCK as u64).min(grid::INTERVAL_BLOCKS) * BLOCK as u64
        }
        _ => sz.interval,
    };
    let k = n.div_ceil(iv).max(1) as usize;
    let bounds: Vec<u64> = (0..=k as u64).map(|i| (i * iv).min(n)).collect();
    let stride = align_up(iv * sbytes as u64);
    let bit_stride = align_up(iv.div_ceil(64) * 8);
    let dir = SpillDir::new(store, cfg.tmp_dir.as_deref())?;
    let mut reader = Reader::new(cfg.io, 8)?;
    let state_file = reader.create(&dir.0.join("state.bin"), "state")?;
    let bits_file = reader.create(&dir.0.join("active.bin"), "active flags")?;
    let logs: Vec<usize> = (0..k)
        .map(|i| reader.create(&dir.0.join(format!("log-{i}.bin")), "update log"))
        .collect::<Result<_>>()?;
    let scratch = [
        reader.create(&dir.0.join("merge-a.bin"), "merge run")?,
        reader.create(&dir.0.join("merge-b.bin"), "merge run")?,
    ];
    // Lists the messages travel along.
    let weighted = prog.weighted();
    if weighted && !m.weighted {
        return Err(Error::Invalid(format!(
            "{} is not weighted; build it with --weighted",
            store.path().display()
        )));
    }
    let dirs: &[&str] = match (prog.edges(), m.directed) {
        (Edges::Both | Edges::Simple, true) => &["out", "in"],
        _ => &["out"],
    };
    let lists = setup::open_lists(store, &mut reader, dirs, weighted, budget)?;
    let mut state_buf = AlignedBuf::new(stride as usize, budget, "external engine state")?;
    let mut bits_buf = AlignedBuf::new(bit_stride as usize, budget, "external engine active bits")?;
    let sbufs = setup::scatter_bufs(iv, sz.chunk, weighted, m.csr.compression.is_some(), budget)?;
    let stage = Appender::new(logs[0], 0, sz.staging, budget)?;
    let mut mlog = Some(MultiLog::<P::Msg, T>::new::<P>(
        sz.messages,
        bounds.clone(),
        logs.clone(),
        budget,
    )?);

    // One interval: its state and active bits stay in their buffers from
    // superstep to superstep (read and written once), so a sparse superstep
    // costs its frontier's lists and messages, not a pass over the state.
    let resident = k == 1 && !cfg.force_spill;
    // Dense supersteps of programs with an identity may fold tiles instead
    // of logging messages (grid/).
    let grid_ok = !resident && cfg.grid != Some(false) && grid_runs;
    let reverse = prog.edges().both();
    let grid_reads = sz.chunk as u64;
    let mut words = grid::Words {
        files: [
            reader.create(&dir.0.join("words-a.bin"), "outgoing words")?,
            reader.create(&dir.0.join("words-b.bin"), "outgoing words")?,
        ],
        ready: None,
        sends: Vec::new(),
    };

    // Init: states from the degrees and ranks, streamed interval by interval.
    let mut active_count = vec![0u64; k];
    // Per tile block: active vertices and stored out-degrees, so the
    // planner prices a frontier of hubs by its edges, not its size.
    let nb = (n as usize).div_ceil(BLOCK).max(1);
    let (mut blk_active, mut blk_degree) = (vec![0u64; nb], vec![0u64; nb]);
    words.sends = vec![false; nb];
    let mut agg = Aggregate::default();
    // Tile bytes the last grid superstep read per byte its estimate named.
    let mut tile_factor = 1.0f64;
    let spill = logstep::Spill {
        store,
        bounds: &bounds,
        state_file,
        bits_file,
        stride,
        bit_stride,
        lists: &lists,
        scratch,
        merge: &sz.merge,
        resident,
    };
    setup::init_states(
        prog,
        &mut reader,
        &spill,
        &mut state_buf,
        &mut bits_buf,
        &mut active_count,
        &mut blk_active,
        &mut blk_degree,
        &mut agg,
    )?;

    let mut stats = RunStats {
        algorithm: prog.name().to_string(),
        engine: "external".into(),
        io_backend: reader.backend().to_string(),
        direct_io: lists.iter().all(|l| reader.direct(l.adj)),
        memory_budget: budget.limit(),
        threads: rayon::current_num_threads(),
        ..Default::default()
    };
    let label = format!("{} (external)", prog.name());
    let mut progress = if max_steps < usize::MAX {
        Progress::bar(label, max_steps as u64, Unit::Steps)
    } else {
        Progress::new(label)
    };
    let model = planner::CostModel::for_store(store);
    // The adjacency as read (coded pages, or slots at the store's width),
    // and the weights beside it when the program reads them.
    let weight_bytes = |d: &str| match weighted {
        true => m.weight_bytes(d),
        false => 0,
    };
    let adj_bytes: u64 = dirs
        .iter()
        .map(|d| m.adjacency_bytes(d) + weight_bytes(d))
        .sum();
    let mut entries = m.csr.out_entries;
    if dirs.len() == 2 {
        entries += m.csr.in_entries;
    }
    let mut step = 0;
    let mut bufs = logstep::Bufs {
        state: state_buf,
        bits: bits_buf,
        scatter: sbufs,
        stage,
        pages: Vec::new(),
        msgs: Vec::new(),
    };
    while step < max_steps {
        crate::cancel::check()?;
        if !prog.begin(step, &agg) {
            break;
        }
        let it0 = Instant::now();
        let io0 = reader.stats();
        let active_now: u64 = active_count.iter().sum();
        let (edge_share, block_share) = shares(&blk_active, &blk_degree, n);
        let rec = log::record_bytes::<P::Msg>() as u64;
        let mut work =
            planner::ExternalWork::estimate(active_now, n, entries, adj_bytes, rec, sbytes as u64);
        work.adjacency_bytes = (adj_bytes as f64 * edge_share) as u64;
        work.messages = (entries as f64 * edge_share) as u64;
        work.log_bytes = work.messages * rec;
        if grid_ok {
            // Memory the grid may use: what is free plus the log's buffer.
            let free = budget.available() + mlog.as_ref().map_or(0, |l| l.bytes());
            let cap =
                grid::cap(store, free, grid_reads).min(cfg.grid_window_blocks.unwrap_or(u64::MAX));
            work.grid = grid::windows(&bounds, cap as usize).map(|w| {
                let fused = words.ready.is_some();
                planner::grid_work(
                    store,
                    reverse,
                    w.len() as u64,
                    block_share,
                    sbytes as u64,
                    fused,
                    tile_factor,
                )
            });
        }
        // A forced grid may alternate with the log (tests).
        let grid = match cfg.grid {
            Some(true) => Some(!cfg.grid_alternate || step % 2 == 0),
            g => g,
        };
        let plan = planner::choose_external(&model, &work, grid);
        blk_active.fill(0);
        let use_grid = plan.chosen == "external-grid";
        let mut ls = logstep::LogStep::default();
        let mut next_agg = Aggregate::default();
        let mut gcounts = None;
        if use_grid {
            // The log's buffer makes room for the grid's accumulators.
            mlog = None;
            let mut g = grid::Grid::open(store, &mut reader, reverse, grid_reads, budget)?;
            let cap = (budget.available().saturating_sub(grid::LEFT_FREE) / grid::BLOCK_BYTES)
                .min(cfg.grid_window_blocks.unwrap_or(u64::MAX));
            let lay = grid::Layout {
                bounds: &bounds,
                state_file,
                bits_file,
                stride,
                bit_stride,
            };
            gcounts = Some(g.superstep(
                &mut reader,
                store,
                prog,
                &lay,
                cap as usize,
                &mut bufs.state,
                &mut bufs.bits,
                &mut bufs.stage,
                &mut words,
                &mut active_count,
                &mut blk_active,
                &mut next_agg,
                budget,
            )?);
            if let (Some(g), Some((_, _, edges))) = (gcounts, work.grid) {
                if edges > 0 && g.tile_bytes > 0 {
                    tile_factor = (g.tile_bytes as f64 / (edges * 4) as f64).clamp(0.25, 2.0);
                }
            }
            progress.tick(|| format!("superstep {} (grid)", step + 1));
        } else {
            // The log path changes states the grid's words came from.
            words.ready = None;
            if mlog.is_none() {
                mlog = Some(MultiLog::new::<P>(
                    sz.messages,
                    bounds.clone(),
                    logs.clone(),
                    budget,
                )?);
            }
            let mlog = mlog.as_mut().expect("created above");
            ls = logstep::superstep(
                &mut reader,
                prog,
                &spill,
                &mut bufs,
                mlog,
                &mut active_count,
                &mut blk_active,
                &mut next_agg,
                budget,
                &mut progress,
                step,
            )?;
        }
        agg = next_agg;
        let lc = mlog.as_ref().map_or(Default::default(), |l| l.counts);
        let active_next: u64 = active_count.iter().sum();
        let done = prog.end(step, &agg, active_next);
        let io = reader.stats() - io0;
        let secs = it0.elapsed().as_secs_f64();
        let rec = log::record_bytes::<P::Msg>() as u64;
        stats.iterations.push(report::iter_stats(
            step, secs, io, active_now, plan, k, &ls, lc, rec, gcounts,
        ));
        step += 1;
        progress.tick(|| format!("superstep {step}: {active_next} active"));
        progress.set(step as u64);
        if done || active_next == 0 && !prog.apply_all() {
            break;
        }
    }
    if resident {
        let len = align_up(n * sbytes as u64) as usize;
        write_all(&mut reader, state_file, 0, &bufs.state.as_slice()[..len])?;
    }
    bufs.stage.drain(&mut reader)?;
    stats.finish_io(&reader.stats(), t0);
    stats.vertex_state_bytes = n * sbytes as u64;
    stats.segment_bytes = sz.chunk as u64;
    progress.done(|| format!("{step} supersteps, {k} intervals of {iv} vertices"));
    drop(mlog);
    drop(bufs);
    Ok((
        ExternalStates {
            reader,
            _dir: dir,
            state_file,
            bounds,
            stride,
            budget_bytes: stride as usize,
            _s: std::marker::PhantomData,
        },
        stats,
    ))
}
