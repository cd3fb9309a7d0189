//! Where an external run keeps its files (the spill directory, removed on
//! drop) and the final states it hands back, on disk until dropped.

use super::*;

/// A directory of spill files, removed when dropped.
pub(super) struct SpillDir(pub(super) PathBuf);

impl SpillDir {
    pub(super) fn new(store: &Store, tmp: Option<&Path>) -> Result<SpillDir> {
        let parent = match tmp {
            Some(t) => t.to_path_buf(),
            None => store
                .path()
                .parent()
                .map(Path::to_path_buf)
                .unwrap_or_else(|| PathBuf::from(".")),
        };
        let name = store
            .path()
            .file_name()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_else(|| "store".into());
        crate::stale::clean(&parent, &name, "outcore-external");
        let dir = parent.join(format!(".{name}.outcore-external-{}", std::process::id()));
        std::fs::create_dir_all(&dir).map_err(|e| Error::io(&dir, e))?;
        Ok(SpillDir(dir))
    }
}

impl Drop for SpillDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// The final states of an external run, on disk until dropped.
pub struct ExternalStates<S: Value> {
    // Declared first: dropped (waiting for its I/O) before the files go.
    pub(super) reader: Reader,
    pub(super) _dir: SpillDir,
    pub(super) state_file: usize,
    pub(super) bounds: Vec<u64>,
    pub(super) stride: u64,
    pub(super) budget_bytes: usize,
    pub(super) _s: std::marker::PhantomData<S>,
}

impl<S: Value> ExternalStates<S> {
    /// Calls `f(dense id, state)` for every vertex in order, one interval in
    /// memory at a time.
    pub fn for_each(&mut self, budget: &Budget, mut f: impl FnMut(u64, &S)) -> Result<()> {
        let mut buf = AlignedBuf::new(self.budget_bytes, budget, "external engine state")?;
        for k in 0..self.bounds.len() - 1 {
            let (lo, hi) = (self.bounds[k], self.bounds[k + 1]);
            let bytes = (hi - lo) as usize * S::BYTES;
            let room = align_up(bytes as u64) as usize;
            let s = &mut buf.as_mut_slice()[..room];
            read_exact(
                &mut self.reader,
                self.state_file,
                k as u64 * self.stride,
                s,
                bytes,
            )?;
            for v in lo..hi {
                let at = (v - lo) as usize * S::BYTES;
                f(v, &S::get(&s[at..]));
            }
        }
        Ok(())
    }

    /// The buffer [`Self::for_each`] takes from the budget.
    pub fn buffer_bytes(&self) -> u64 {
        self.budget_bytes as u64
    }

    /// Rewrites every vertex's record in place as `f(dense id, record)`, a
    /// value of `T` no larger than `S`, one interval in memory at a time
    /// (vertex order).
    pub(super) fn map_into<T: Value>(
        mut self,
        budget: &Budget,
        mut f: impl FnMut(u64, &S) -> Result<T>,
    ) -> Result<ExternalStates<T>> {
        debug_assert!(T::BYTES <= S::BYTES);
        let mut buf = AlignedBuf::new(self.budget_bytes, budget, "external engine state")?;
        for k in 0..self.bounds.len() - 1 {
            let (lo, hi) = (self.bounds[k], self.bounds[k + 1]);
            let bytes = (hi - lo) as usize * S::BYTES;
            let at = k as u64 * self.stride;
            let s = &mut buf.as_mut_slice()[..align_up(bytes as u64) as usize];
            read_exact(&mut self.reader, self.state_file, at, s, bytes)?;
            // Record x's value lands at or before the record itself, after
            // it is read.
            for x in 0..(hi - lo) as usize {
                let t = f(lo + x as u64, &S::get(&s[x * S::BYTES..]))?;
                t.put(&mut s[x * T::BYTES..]);
            }
            let len = align_up(((hi - lo) as usize * T::BYTES) as u64) as usize;
            write_all(&mut self.reader, self.state_file, at, &s[..len])?;
        }
        Ok(ExternalStates {
            reader: self.reader,
            _dir: self._dir,
            state_file: self.state_file,
            bounds: self.bounds,
            stride: self.stride,
            budget_bytes: self.budget_bytes,
            _s: std::marker::PhantomData,
        })
    }
}
