//! One iteration of the stream engine: the rewind over cached tiles, the
//! slide of loads through the ring of segments (G-Store §VI), the reads in
//! flight per segment, and the chunk checks of what was read.

use super::*;
use work::process;

impl StreamEngine {
    /// One iteration of `prog` (after its `begin`, before its `end`).
    pub fn iterate<P: TileProgram>(
        &mut self,
        prog: &P,
        iter: usize,
        progress: &mut Progress,
    ) -> Result<IterStats> {
        let dirs = prog.directions();
        let (fwd, rev) = (dirs.contains(&Dir::Forward), dirs.contains(&Dir::Reverse));
        let t0 = Instant::now();
        let io0 = self.reader.stats();
        let mut it = IterStats {
            iteration: iter,
            active_vertices: prog.active_vertices(),
            engine: "stream",
            ..Default::default()
        };
        // Which directions of which tiles this iteration needs.
        let need = |t: &TileMeta| {
            (fwd && prog.active(t.row as u64)) as u8
                | ((rev && prog.active(t.col as u64)) as u8) << 1
        };
        let needs: Vec<u8> = self.tiles.tiles.iter().map(need).collect();
        let uncached: Vec<usize> = (0..needs.len())
            .filter(|&i| needs[i] != 0 && !self.pool.contains(i))
            .collect();
        let loads = self.plan(&uncached);
        // Reads of an iteration that failed part-way (none normally) must not
        // land in the ring from now on.
        self.flight.drain(&mut self.reader)?;
        // No segment is in use during the rewind: fill the whole ring.
        let k = self.segs.len();
        for (j, load) in loads.iter().enumerate().take(k) {
            self.submit(load, j)?;
        }
        // Rewind: the cache pool first, while the first loads are read.
        let cached: Vec<usize> = self.pool.tiles().filter(|&i| needs[i] != 0).collect();
        let tc = Instant::now();
        {
            let batch: Vec<(usize, &[u32])> = cached
                .iter()
                .map(|&i| (i, self.pool.get(i).expect("cached")))
                .collect();
            it.cache_hit_bytes = batch.iter().map(|(_, e)| e.len() as u64 * 4).sum();
            let coded = self.coded.is_some() && !self.pool_plain;
            self.process(prog, &needs, &batch, coded, &mut it);
        }
        it.compute_seconds += tc.elapsed().as_secs_f64();
        it.cache_hits = cached.len() as u64;
        // Slide: load j is in segment j mod K; while it is processed, the
        // next K - 1 loads are being read.
        let file_len = self.tiles.file_len;
        for (j, load) in loads.iter().enumerate() {
            let s = j % k;
            self.flight
                .wait_for(s, &mut self.reader, &self.store, file_len)?;
            {
                let tc = Instant::now();
                let seg = &self.segs[s];
                verify_chunks(seg.as_slice(), load, &self.tiles, &self.store)?;
                // Take completions (no waiting) so that requests queued in
                // the reader go out: the disk queue stays full.
                self.flight
                    .collect(&mut self.reader, 0, &self.store, file_len)?;
                let words = as_words(seg.as_slice());
                let batch: Vec<(usize, &[u32])> = load
                    .tiles
                    .iter()
                    .map(|&(i, w)| (i, &words[w..w + (self.tiles.tiles[i].bytes / 4) as usize]))
                    .collect();
                self.process(prog, &needs, &batch, self.coded.is_some(), &mut it);
                it.compute_seconds += tc.elapsed().as_secs_f64();
                self.flight
                    .collect(&mut self.reader, 0, &self.store, file_len)?;
                // Cache what the next iteration may need.
                let tk = Instant::now();
                self.pool.new_round();
                let metas = &self.tiles.tiles;
                let next: Vec<(usize, &[u32])> = batch
                    .iter()
                    .copied()
                    .filter(|&(i, _)| prog.may_need_next(metas[i].row, metas[i].col))
                    .collect();
                let keep = |j: usize| prog.may_need_next(metas[j].row, metas[j].col);
                match self.pool_plain {
                    true => decode_into_pool(&mut self.pool, &next, keep),
                    false => _ = self.pool.insert_all(&next, keep),
                }
                it.cache_seconds += tk.elapsed().as_secs_f64();
            }
            // Segment s is processed and its tiles cached: the load K after
            // this one goes there.
            if let Some(next) = loads.get(j + k) {
                self.submit(next, s)?;
            }
            it.cache_misses += load.tiles.len() as u64;
            let done = j + 1;
            progress.tick(|| format!("iteration {iter}: segment {done}/{}", loads.len()));
        }
        // The delta's additions, held in memory: an extra pass of tiles
        // under the same selective fetching.
        if let Some(d) = &self.delta {
            let tc = Instant::now();
            let needs: Vec<u8> = d.metas.iter().map(need).collect();
            let batch: Vec<(usize, &[u32])> = (0..needs.len())
                .filter(|&i| needs[i] != 0)
                .map(|i| (i, d.piece(i)))
                .collect();
            it.cache_hits += batch.len() as u64;
            let min = self.cfg.share_min_edges.unwrap_or(SHARE_MIN_EDGES);
            let share = self.scratch.as_ref().map(|s| (s, min));
            let (metas, threads) = (&d.metas, self.threads);
            process(
                prog, metas, &needs, &batch, threads, share, false, None, &mut it,
            );
            it.compute_seconds += tc.elapsed().as_secs_f64();
        }
        it.segments = k;
        it.loads = loads.len() as u64;
        let io1 = self.reader.stats();
        it.tiles_processed = it.cache_hits + it.cache_misses;
        it.bytes_read = io1.bytes_read - io0.bytes_read;
        it.read_requests = io1.requests - io0.requests;
        it.io_wait_seconds = io1.wait_seconds - io0.wait_seconds;
        it.seconds = t0.elapsed().as_secs_f64();
        Ok(it)
    }

    /// Applies a batch of tiles (see [`process`]).
    fn process<P: TileProgram>(
        &self,
        prog: &P,
        needs: &[u8],
        batch: &[(usize, &[u32])],
        coded: bool,
        it: &mut IterStats,
    ) {
        let min = self.cfg.share_min_edges.unwrap_or(SHARE_MIN_EDGES);
        let share = self.scratch.as_ref().map(|s| (s, min));
        process(
            prog,
            &self.tiles.tiles,
            needs,
            batch,
            self.threads,
            share,
            coded,
            self.delta.as_ref(),
            it,
        );
    }

    /// Groups tiles (in physical order) into chunk-aligned ranges and the
    /// ranges into segment-sized loads.
    fn plan(&self, tiles: &[usize]) -> Vec<Load> {
        let seg = self.segs[0].len() as u64;
        let file_end = self.tiles.file_len.next_multiple_of(ALIGN as u64);
        let mut loads = Vec::new();
        let mut cur = Load {
            ranges: Vec::new(),
            tiles: Vec::new(),
            bytes: 0,
        };
        for &i in tiles {
            let t = &self.tiles.tiles[i];
            let start = t.offset / CHUNK_BYTES * CHUNK_BYTES;
            let end = (t.offset + t.bytes)
                .next_multiple_of(CHUNK_BYTES)
                .min(file_end);
            // Extend the last range if this tile starts inside or right after it.
            let extend = cur.ranges.last().map(|r| {
                let r_end = r.file_off + r.len;
                (start <= r_end, r_end)
            });
            let grow = match extend {
                Some((true, r_end)) => end.saturating_sub(r_end),
                _ => end - start,
            };
            if cur.bytes + grow > seg && !cur.tiles.is_empty() {
                loads.push(std::mem::replace(
                    &mut cur,
                    Load {
                        ranges: Vec::new(),
                        tiles: Vec::new(),
                        bytes: 0,
                    },
                ));
            }
            let extend_now = cur
                .ranges
                .last()
                .is_some_and(|r| start <= r.file_off + r.len);
            if extend_now {
                let r = cur.ranges.last_mut().expect("a range");
                let r_end = r.file_off + r.len;
                if end > r_end {
                    r.len += end - r_end;
                    cur.bytes += end - r_end;
                }
            } else {
                cur.ranges.push(Range {
                    file_off: start,
                    len: end - start,
                    buf_off: cur.bytes,
                });
                cur.bytes += end - start;
            }
            let r = cur.ranges.last().expect("a range");
            cur.tiles
                .push((i, ((r.buf_off + t.offset - r.file_off) / 4) as usize));
        }
        if !cur.tiles.is_empty() {
            loads.push(cur);
        }
        loads
    }

    /// Starts the reads of `load` into segment `seg`, which must be free
    /// (its previous load arrived, was processed and cached).
    fn submit(&mut self, load: &Load, seg: usize) -> Result<()> {
        assert_eq!(
            self.flight.pending[seg], 0,
            "segment {seg} is still being read"
        );
        let base = self.segs[seg].as_mut_ptr();
        let meta = &mut self.flight.reqs[seg];
        meta.clear();
        let mut reqs = Vec::new();
        for r in &load.ranges {
            let mut off = 0;
            while off < r.len {
                let len = (r.len - off).min(self.cfg.request_bytes);
                reqs.push(ReadReq {
                    file: self.file,
                    offset: r.file_off + off,
                    len: len as usize,
                    // SAFETY: buf_off + off + len <= segment length (plan keeps loads within a segment).
                    buf: unsafe { base.add((r.buf_off + off) as usize) },
                    tag: (seg as u64) << 32 | meta.len() as u64,
                });
                meta.push((r.file_off + off, len));
                off += len;
            }
        }
        self.flight.pending[seg] = reqs.len();
        // SAFETY: the segment is not touched until `Flight::wait_for(seg)` has
        // taken every completion of this load (and not written to by another
        // load before: `pending` is 0 here).
        unsafe { self.reader.submit(&reqs) }
    }
}

impl Flight {
    /// Takes the completions `reader` has (first blocking until there are at
    /// least `min`), checks each and counts it against its segment's load.
    /// Returns how many were taken.
    fn collect(
        &mut self,
        reader: &mut Reader,
        min: usize,
        store: &Store,
        file_len: u64,
    ) -> Result<usize> {
        self.done.clear();
        reader.wait(min, &mut self.done)?;
        let n = self.done.len();
        for c in self.done.drain(..) {
            let (seg, i) = ((c.tag >> 32) as usize, (c.tag & 0xffff_ffff) as usize);
            let req = self.reqs.get(seg).and_then(|r| r.get(i)).copied();
            let Some((offset, len)) = req.filter(|_| self.pending[seg] > 0) else {
                return Err(Error::Invalid(format!(
                    "the I/O layer returned a read (tag {:#x}) that no load is waiting for",
                    c.tag
                )));
            };
            let got = c.result.map_err(|e| Error::io(store.file(EDGES_FILE), e))?;
            let want = len.min(file_len.saturating_sub(offset));
            if (got as u64) < want {
                let why = format!("{got} of {want} bytes at offset {offset}: the file ends early");
                return Err(Error::damaged(store.path(), EDGES_FILE, why));
            }
            self.pending[seg] -= 1;
        }
        Ok(n)
    }

    /// Waits until the load in segment `seg` has arrived; completions of
    /// the other loads in flight are taken as they come.
    fn wait_for(
        &mut self,
        seg: usize,
        reader: &mut Reader,
        store: &Store,
        file_len: u64,
    ) -> Result<()> {
        while self.pending[seg] > 0 {
            if self.collect(reader, 1, store, file_len)? == 0 {
                return Err(Error::Invalid("the I/O layer lost a request".into()));
            }
        }
        Ok(())
    }

    /// Waits for every read the reader still has and forgets every load.
    fn drain(&mut self, reader: &mut Reader) -> Result<()> {
        while reader.pending() > 0 {
            self.done.clear();
            reader.wait(reader.pending(), &mut self.done)?;
        }
        self.done.clear();
        self.pending.fill(0);
        Ok(())
    }
}

/// Reinterprets a 4-byte-aligned byte slice as little-endian u32 words.
fn as_words(b: &[u8]) -> &[u32] {
    assert!((b.as_ptr() as usize).is_multiple_of(4));
    // SAFETY: aligned, in bounds, and every bit pattern is a valid u32.
    unsafe { std::slice::from_raw_parts(b.as_ptr() as *const u32, b.len() / 4) }
}

/// Checks every chunk a load read against the store's chunk checksums.
fn verify_chunks(seg: &[u8], load: &Load, tiles: &TileSet, store: &Store) -> Result<()> {
    use rayon::prelude::*;
    let chunks: Vec<(u64, u64)> = load
        .ranges
        .iter()
        .flat_map(|r| {
            (0..r.len.div_ceil(CHUNK_BYTES))
                .map(move |k| (r.file_off + k * CHUNK_BYTES, r.buf_off + k * CHUNK_BYTES))
        })
        .collect();
    chunks.par_iter().try_for_each(|&(file_off, buf_off)| {
        let c = (file_off / CHUNK_BYTES) as usize;
        let len = CHUNK_BYTES.min(tiles.file_len.saturating_sub(file_off)) as usize;
        let bytes = &seg[buf_off as usize..buf_off as usize + len];
        if tiles.chunk_sums.get(c) != Some(&chunk_sum(bytes)) {
            let why = format!("chunk {c} (offset {file_off}) fails its checksum");
            return Err(Error::damaged(store.path(), EDGES_FILE, why));
        }
        Ok(())
    })
}

/// Caches coded `tiles` decoded, each straight into the pool's arena on
/// every core ([`CachePool::insert_with`]).
fn decode_into_pool(pool: &mut CachePool, tiles: &[(usize, &[u32])], keep: impl Fn(usize) -> bool) {
    let lens: Vec<(usize, usize)> = tiles
        .iter()
        .map(|&(i, words)| match pool.contains(i) {
            true => (i, 0),
            false => (i, tilecode::decoded_len(words)),
        })
        .collect();
    pool.insert_with(&lens, keep, |k, dst| tilecode::decode_into(tiles[k].1, dst));
}
