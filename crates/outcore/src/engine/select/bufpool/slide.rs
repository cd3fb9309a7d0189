//! The pin-and-slide loop of the [`BufferPool`] (TurboGraph §4.1): pin the
//! resident pages, read the missing ones asynchronously into free frames,
//! process every page as soon as it is available and unpin it, which frees
//! its frame for the next read.

use super::*;

impl BufferPool {
    /// Makes `pages` resident and pinned, reading misses through `reader`
    /// (file index `file`, which holds pages of `page_bytes` from offset 0)
    /// asynchronously with up to `reader.depth()` reads in flight, and calls
    /// `f(page, bytes)` for each page as soon as it is available; each page is
    /// unpinned after `f` returns.
    ///
    /// - Duplicates are removed: `f` sees each distinct page exactly once.
    /// - Order: the resident pages are pinned first (so that reads cannot
    ///   evict them), the first reads are submitted, then resident pages are
    ///   processed one by one, with any completed reads processed between
    ///   them; then the missing pages as their reads complete (submitted in
    ///   increasing page order, completing in any order).
    /// - Never pins more frames than the pool has: with every frame pinned it
    ///   waits for a completion, processes it, unpins, and continues, so any
    ///   number of pages goes through a pool of one frame.
    /// - Errors: a page beyond the pool's `file_pages` or the file's end, a
    ///   read error (with the path), a short read, or an error from `f`. After
    ///   the first error `f` is not called again, the reads in flight are
    ///   waited for, and every frame this call pinned is unpinned (pages read
    ///   successfully stay cached) before the error is returned.
    /// - `reader` must have nothing pending; the pool must not hold any of
    ///   `pages` in a loading frame of the caller's.
    ///
    /// Charges a copy of `pages` (8 bytes a page) to the budget for the call.
    pub fn for_each_page(
        &mut self,
        reader: &mut Reader,
        file: usize,
        pages: &[u64],
        mut f: impl FnMut(u64, &[u8]) -> Result<()>,
    ) -> Result<()> {
        if file >= reader.files() {
            return Err(Error::Invalid(format!(
                "buffer pool: file {file} is not open in the reader ({} are)",
                reader.files()
            )));
        }
        if reader.pending() != 0 {
            return Err(Error::Invalid(format!(
                "buffer pool: the reader has {} reads pending; for_each_page needs it idle",
                reader.pending()
            )));
        }
        if pages.is_empty() {
            return Ok(());
        }
        let path = reader.path(file).to_path_buf();
        let pb = self.page_bytes as u64;
        let file_len = reader.file_len(file);
        let max = pages.iter().copied().max().unwrap_or(0);
        if max >= self.file_pages() {
            return Err(Error::Invalid(format!(
                "{}: page {max} is beyond the {} pages of the buffer pool's page table",
                path.display(),
                self.file_pages()
            )));
        }
        // The last page may be short (a file that is not a whole number of
        // pages): it is read as far as the file goes and the rest is zeros.
        // A coded file's pages are its directory's.
        self.file_len = file_len;
        if let Some(c) = &self.coded {
            if max >= c.pages() {
                return Err(Error::Invalid(format!(
                    "{}: page {max} is beyond the {} coded pages",
                    path.display(),
                    c.pages()
                )));
            }
        } else if max.saturating_mul(pb) >= file_len {
            return Err(Error::Invalid(format!(
                "{}: page {max} ({pb} bytes at offset {}) is beyond the end of the file ({file_len} bytes)",
                path.display(),
                max * pb
            )));
        }

        // The distinct pages, in increasing order.
        let _list_charge = self
            .budget
            .charge(pages.len() as u64 * 8, "buffer pool page list")?;
        let mut list: Vec<u64> = Vec::new();
        list.try_reserve_exact(pages.len()).map_err(|_| {
            Error::Budget(format!(
                "buffer pool: cannot allocate a list of {} pages",
                pages.len()
            ))
        })?;
        list.extend_from_slice(pages);
        if !pages.windows(2).all(|w| w[0] < w[1]) {
            list.sort_unstable();
            list.dedup();
        }

        // Pin the resident pages; keep the missing ones in `list`.
        let mut hits = std::mem::take(&mut self.hits_scratch);
        hits.clear();
        let mut kept = 0;
        let mut err: Option<Error> = None;
        for i in 0..list.len() {
            let p = list[i];
            if let Some(fr) = self.pin_if_resident(p) {
                hits.push((p, fr));
            } else if self.table[p as usize] != ABSENT {
                err = Some(Error::Invalid(format!(
                    "{}: page {p} is being loaded by another user of the buffer pool",
                    path.display()
                )));
                break;
            } else {
                list[kept] = p;
                kept += 1;
            }
        }
        list.truncate(kept);
        if err.is_some() {
            list.clear();
        }

        let depth = reader.depth().min(self.frames);
        let guard = DrainOnUnwind(reader);
        let reader = &mut *guard.0;
        let mut reqs: Vec<ReadReq> = Vec::with_capacity(depth);
        let mut done: Vec<Completion> = Vec::with_capacity(depth);
        let mut next = 0; // next page of `list` to read
        let mut in_flight = 0;
        let mut h = 0; // next hit to process
        let mut reader_failed = false;
        loop {
            // Slide: read missing pages into free frames.
            if err.is_none() && next < list.len() && in_flight < depth {
                reqs.clear();
                while next < list.len() && in_flight + reqs.len() < depth {
                    let page = list[next];
                    let Some(fr) = self.reserve(page) else {
                        break;
                    };
                    self.in_flight[fr as usize] = true;
                    let req = match self.coded.take() {
                        Some(mut c) => {
                            let slot = c
                                .start(page, fr)
                                .expect("a staging buffer per read in flight");
                            // The wanted pages that follow share the read
                            // while their coded bytes fit its buffer.
                            while next + 1 < list.len() && c.can_extend(slot, list[next + 1]) {
                                let Some(f2) = self.reserve(list[next + 1]) else {
                                    break;
                                };
                                self.in_flight[f2 as usize] = true;
                                c.extend(slot, list[next + 1], f2);
                                next += 1;
                            }
                            let (offset, len, buf) = c.request(slot);
                            self.coded = Some(c);
                            ReadReq {
                                file,
                                offset,
                                len,
                                buf,
                                tag: slot as u64,
                            }
                        }
                        None => ReadReq {
                            file,
                            offset: page * pb,
                            len: self.page_bytes,
                            buf: self.frame_ptr(fr),
                            tag: fr as u64,
                        },
                    };
                    reqs.push(req);
                    next += 1;
                }
                if !reqs.is_empty() {
                    in_flight += reqs.len();
                    // SAFETY: each buffer is a reserved frame: pinned and
                    // loading, so it is neither evicted nor exposed until
                    // `loaded`, which is called only on its completion. The
                    // arena outlives the reads: this function waits for every
                    // one before returning, and `guard` waits on unwinding.
                    if let Err(e) = unsafe { reader.submit(&reqs) } {
                        err = Some(e);
                    }
                }
            }
            // Process one resident page, then whatever reads completed.
            if h < hits.len() {
                let (page, fr) = hits[h];
                h += 1;
                if err.is_none() {
                    if let Err(e) = f(page, self.frame(fr)) {
                        err = Some(e);
                    }
                }
                self.unpin(fr);
                if in_flight > 0 {
                    done.clear();
                    if let Err(e) = reader.wait(0, &mut done) {
                        err.get_or_insert(e);
                        reader_failed = true;
                        break;
                    }
                    self.complete(&mut done, &path, &mut in_flight, &mut f, &mut err);
                }
                continue;
            }
            if in_flight == 0 {
                if err.is_none() && next < list.len() {
                    err = Some(Error::Invalid(format!(
                        "{}: every one of the {} buffer pool frames is pinned by the caller; \
                         nothing can be read",
                        path.display(),
                        self.frames
                    )));
                }
                break;
            }
            done.clear();
            if let Err(e) = reader.wait(1, &mut done) {
                err.get_or_insert(e);
                reader_failed = true;
                break;
            }
            self.complete(&mut done, &path, &mut in_flight, &mut f, &mut err);
        }
        if reader_failed {
            // The backend failed: reads may still be in flight into their
            // frames, which therefore stay pinned and loading (never reused).
            for &(_, fr) in &hits[h..] {
                self.unpin(fr);
            }
            for x in self.in_flight.iter_mut() {
                *x = false;
            }
        }
        drop(guard);
        self.hits_scratch = hits;
        match err {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }

    /// Handles completions of `for_each_page`'s reads.
    fn complete(
        &mut self,
        done: &mut Vec<Completion>,
        path: &Path,
        in_flight: &mut usize,
        f: &mut impl FnMut(u64, &[u8]) -> Result<()>,
        err: &mut Option<Error>,
    ) {
        for c in done.drain(..) {
            *in_flight -= 1;
            if let Some(mut coded) = self.coded.take() {
                let mut pages = std::mem::take(&mut self.group_scratch);
                let (base, pb) = (self.base, self.page_bytes);
                // SAFETY: each frame of the read is one this pool reserved
                // (inside the arena), pinned and loading, its read (into
                // the staging buffer) complete.
                let frame_of = move |fr: u32| unsafe { base.add(fr as usize * pb) };
                let res = coded.finish(
                    c.tag as usize,
                    c.result,
                    &self.sums,
                    frame_of,
                    |p, fr, ok| pages.push((p, fr, ok)),
                );
                self.coded = Some(coded);
                if let Err(e) = res {
                    err.get_or_insert(e);
                }
                for &(page, fr, ok) in &pages {
                    debug_assert!(self.in_flight[fr as usize]);
                    self.in_flight[fr as usize] = false;
                    self.loaded(fr, ok);
                    if ok && err.is_none() {
                        if let Err(e) = f(page, self.frame(fr)) {
                            *err = Some(e);
                        }
                    }
                    self.unpin(fr);
                }
                pages.clear();
                self.group_scratch = pages;
                continue;
            }
            let fr = c.tag as u32;
            debug_assert!(self.in_flight[fr as usize]);
            self.in_flight[fr as usize] = false;
            let page = self.frame_page[fr as usize];
            match c.result {
                Ok(n)
                    if n == self.page_bytes
                        || n as u64
                            == self.file_len.saturating_sub(page * self.page_bytes as u64) =>
                {
                    if n < self.page_bytes {
                        let pb = self.page_bytes;
                        // SAFETY: the frame is this pool's, pinned, its read complete.
                        unsafe { std::ptr::write_bytes(self.frame_ptr(fr).add(n), 0, pb - n) };
                    }
                    let at = page * self.page_bytes as u64;
                    // SAFETY: as above; the bytes are only read here.
                    let bytes = unsafe { std::slice::from_raw_parts(self.frame_ptr(fr), n) };
                    if let Err(e) = pagesums::check(&self.sums, at, bytes) {
                        self.loaded(fr, false);
                        err.get_or_insert(e);
                        self.unpin(fr);
                        continue;
                    }
                    self.loaded(fr, true);
                    if err.is_none() {
                        if let Err(e) = f(page, self.frame(fr)) {
                            *err = Some(e);
                        }
                    }
                }
                Ok(n) => {
                    self.loaded(fr, false);
                    err.get_or_insert_with(|| {
                        Error::io(
                            path,
                            std::io::Error::new(
                                std::io::ErrorKind::UnexpectedEof,
                                format!(
                                    "short read of page {page}: {n} of {} bytes at offset {}",
                                    self.page_bytes,
                                    page * self.page_bytes as u64
                                ),
                            ),
                        )
                    });
                }
                Err(e) => {
                    self.loaded(fr, false);
                    err.get_or_insert_with(|| Error::io(path, e));
                }
            }
            self.unpin(fr);
        }
    }
}

/// Waits for every read of the reader if `for_each_page` unwinds (a panic in
/// the callback), so that no read writes into the arena after it is freed.
struct DrainOnUnwind<'a>(&'a mut Reader);

impl Drop for DrainOnUnwind<'_> {
    fn drop(&mut self) {
        if !std::thread::panicking() {
            return;
        }
        let mut sink = Vec::new();
        while self.0.pending() > 0 {
            sink.clear();
            if self.0.wait(self.0.pending(), &mut sink).is_err() {
                // Reads may still be writing into frames about to be freed.
                std::process::abort();
            }
        }
    }
}
