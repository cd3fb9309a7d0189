//! The parallel, deterministic block pipeline shared by all generators.
//!
//! A generator is a sequence of blocks. A cheap sequential planner
//! ([`Blocks::plan`]) hands out the blocks' tasks in order; the blocks are then
//! generated in parallel (rayon) a window at a time, and delivered in block
//! order. While the consumer works through one window on the calling thread,
//! the next window is generated on the current rayon pool. Memory is two
//! windows of blocks, never the whole edge list. The output depends only on
//! the tasks, never on the window size or the number of threads.

use std::sync::atomic::{AtomicU64, Ordering};

use rayon::prelude::*;

use crate::error::Result;
use crate::ingest::{RawEdge, SAMPLE_PER_PLACE, SAMPLE_PLACES};

/// Most blocks generate about this many edges.
pub(crate) const BLOCK_EDGES: u64 = 1 << 16;

/// A generator split into independent blocks.
pub(crate) trait Blocks: Sync {
    /// What one block needs to know (its index, its edge count, ...).
    type Task: Send + Sync;
    /// The planner's state between windows.
    type Cursor: Send;

    /// A cursor at the first block.
    fn start(&self) -> Self::Cursor;

    /// Appends the tasks of up to `max` next blocks, in order; appends nothing at the end.
    fn plan(&self, cursor: &mut Self::Cursor, max: usize, out: &mut Vec<Self::Task>);

    /// Generates one block's edges into `out` (which is empty).
    fn run(&self, task: &Self::Task, out: &mut Vec<RawEdge>);
}

/// Generators whose blocks are simply numbered `0..num_blocks()`: they are
/// [`Blocks`] with the block number as task and cursor.
pub(crate) trait NumberedBlocks: Sync {
    /// How many blocks there are.
    fn num_blocks(&self) -> u64;

    /// Generates block `block`'s edges into `out` (which is empty).
    fn run_block(&self, block: u64, out: &mut Vec<RawEdge>);
}

impl<T: NumberedBlocks> Blocks for T {
    type Task = u64;
    type Cursor = u64;

    fn start(&self) -> u64 {
        0
    }

    fn plan(&self, cursor: &mut u64, max: usize, out: &mut Vec<u64>) {
        let end = self.num_blocks();
        while *cursor < end && out.len() < max {
            out.push(*cursor);
            *cursor += 1;
        }
    }

    fn run(&self, &block: &u64, out: &mut Vec<RawEdge>) {
        self.run_block(block, out)
    }
}

/// Up to [`SAMPLE_PER_PLACE`] edges of each of [`SAMPLE_PLACES`] blocks
/// spread evenly over the sequence (`EdgeSource::sample_edges`), generated
/// in parallel.
pub(crate) fn sample<B: NumberedBlocks>(blocks: &B) -> Vec<RawEdge> {
    let n = blocks.num_blocks();
    let picks: Vec<u64> = (0..SAMPLE_PLACES.min(n))
        .map(|p| p * n / SAMPLE_PLACES.min(n))
        .collect();
    picks
        .par_iter()
        .map(|&b| {
            let mut out = Vec::new();
            blocks.run_block(b, &mut out);
            out.truncate(SAMPLE_PER_PLACE as usize);
            out
        })
        .collect::<Vec<_>>()
        .concat()
}

/// Blocks per window: enough to keep every thread of the current pool busy,
/// capped so the two live windows stay below about 100 MB.
fn window_blocks() -> usize {
    (2 * rayon::current_num_threads()).clamp(2, 32)
}

/// Plans and generates the next window into `bufs` (reusing their allocations).
fn produce<B: Blocks>(
    blocks: &B,
    cursor: &mut B::Cursor,
    window: usize,
    tasks: &mut Vec<B::Task>,
    bufs: &mut Vec<Vec<RawEdge>>,
) {
    tasks.clear();
    blocks.plan(cursor, window, tasks);
    bufs.truncate(tasks.len());
    bufs.resize_with(tasks.len(), Vec::new);
    bufs.par_iter_mut()
        .zip(tasks.par_iter())
        .with_max_len(1)
        .for_each(|(buf, task)| {
            buf.clear();
            blocks.run(task, buf);
        });
}

/// Streams every block's edges to `f`, in block order. `delivered` counts edges handed over.
pub(crate) fn stream<B: Blocks>(
    blocks: &B,
    f: &mut dyn FnMut(&[RawEdge]) -> Result<()>,
    delivered: &AtomicU64,
) -> Result<()> {
    let window = window_blocks();
    let mut cursor = blocks.start();
    let mut tasks = Vec::new();
    let mut cur: Vec<Vec<RawEdge>> = Vec::new();
    let mut next: Vec<Vec<RawEdge>> = Vec::new();
    produce(blocks, &mut cursor, window, &mut tasks, &mut cur);
    while !cur.is_empty() {
        let mut result = Ok(());
        rayon::in_place_scope(|s| {
            s.spawn(|_| produce(blocks, &mut cursor, window, &mut tasks, &mut next));
            for batch in &cur {
                if batch.is_empty() {
                    continue;
                }
                if let Err(e) = f(batch) {
                    result = Err(e);
                    break;
                }
                delivered.fetch_add(batch.len() as u64, Ordering::Relaxed);
            }
        });
        result?;
        std::mem::swap(&mut cur, &mut next);
    }
    Ok(())
}

/// Every block's edges in order, generated one block after another (for
/// generators' tests).
#[cfg(test)]
pub(crate) fn collect_all<B: Blocks>(blocks: &B) -> Vec<RawEdge> {
    let (mut cursor, mut tasks, mut all) = (blocks.start(), Vec::new(), Vec::new());
    loop {
        tasks.clear();
        blocks.plan(&mut cursor, 64, &mut tasks);
        if tasks.is_empty() {
            return all;
        }
        for t in &tasks {
            let mut v = Vec::new();
            blocks.run(t, &mut v);
            all.extend(v);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Block i holds edges (i, j) for j < i % 5.
    struct Toy(u64);

    impl NumberedBlocks for Toy {
        fn num_blocks(&self) -> u64 {
            self.0
        }
        fn run_block(&self, task: u64, out: &mut Vec<RawEdge>) {
            for j in 0..task % 5 {
                out.push(RawEdge {
                    src: task,
                    dst: j,
                    weight: 1.0,
                });
            }
        }
    }

    #[test]
    fn delivers_in_order_and_stops_on_error() {
        let toy = Toy(100);
        let mut got = Vec::new();
        let n = AtomicU64::new(0);
        stream(
            &toy,
            &mut |b| {
                got.extend_from_slice(b);
                Ok(())
            },
            &n,
        )
        .unwrap();
        let want: Vec<(u64, u64)> = (0..100u64)
            .flat_map(|i| (0..i % 5).map(move |j| (i, j)))
            .collect();
        let got2: Vec<(u64, u64)> = got.iter().map(|e| (e.src, e.dst)).collect();
        assert_eq!(got2, want);
        assert_eq!(n.load(Ordering::Relaxed), want.len() as u64);

        let mut calls = 0;
        let r = stream(
            &toy,
            &mut |_| {
                calls += 1;
                if calls == 3 {
                    Err(crate::Error::Interrupted)
                } else {
                    Ok(())
                }
            },
            &n,
        );
        assert!(matches!(r, Err(crate::Error::Interrupted)));
        assert_eq!(calls, 3);
    }

    #[test]
    fn works_in_a_one_thread_pool() {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(1)
            .build()
            .unwrap();
        let n = AtomicU64::new(0);
        let mut count = 0u64;
        pool.install(|| {
            stream(
                &Toy(1000),
                &mut |b| {
                    count += b.len() as u64;
                    Ok(())
                },
                &n,
            )
        })
        .unwrap();
        assert_eq!(count, 2000);
    }
}
