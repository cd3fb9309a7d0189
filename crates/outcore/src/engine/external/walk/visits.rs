//! The visit counts of a run, on disk: each interval's visit log is
//! sort-reduced (summed) when the values are read, in vertex order.

use super::super::disk::Appender;
use super::super::log::Run;
use super::super::merge::{sort_reduce, MergeConfig, MergeCounts};
use super::super::SpillDir;
use super::add;
use crate::engine::results::Values;
use crate::error::Result;
use crate::io::Reader;
use crate::mem::Budget;

/// Visit counts on disk: each interval's log sort-reduced when read.
pub(super) struct VisitCounts {
    pub merge: MergeConfig,
    pub bounds: Vec<u64>,
    pub runs: Vec<Vec<Run>>,
    // Declared before the directory: dropped (its I/O waited for) first.
    pub reader: Reader,
    pub stage: Appender,
    pub scratch: [usize; 2],
    pub _dir: SpillDir,
}

impl Values for VisitCounts {
    fn for_each(&mut self, budget: &Budget, f: &mut dyn FnMut(u64, u64)) -> Result<()> {
        let mut mc = MergeCounts::default();
        for (i, runs) in self.runs.iter().enumerate() {
            let (lo, mut next) = (self.bounds[i], self.bounds[i]);
            let (reader, stage) = (&mut self.reader, &mut self.stage);
            sort_reduce(
                reader,
                runs,
                Some(add),
                &self.merge,
                self.scratch,
                stage,
                budget,
                &mut mc,
                |x, c| {
                    // Targets are local to the interval.
                    let v = lo + x as u64;
                    for u in next..v {
                        f(u, 0);
                    }
                    f(v, c);
                    next = v + 1;
                    Ok(())
                },
            )?;
            for u in next..self.bounds[i + 1] {
                f(u, 0);
            }
        }
        Ok(())
    }

    fn buffer_bytes(&self) -> u64 {
        self.merge.memory + self.merge.run_buffer as u64
    }
}
