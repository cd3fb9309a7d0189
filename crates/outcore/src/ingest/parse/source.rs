//! Reading a [`FileSource`]: its [`EdgeSource`] passes, each running the
//! vertex or edge files through the block pipeline with the format's
//! parser (Matrix Market entries counted against their size line as they
//! stream), and the byte counts behind progress.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use super::pipeline::{self, BlockParser, Cut, Event};
use super::{mtx, named, sample, text};
use super::{FileSource, Kind};
use crate::error::{Error, Result};
use crate::ingest::{EdgeSource, RawEdge};

impl FileSource {
    fn vertex_bytes(&self) -> u64 {
        self.vertex_files.iter().map(|f| f.size).sum()
    }

    /// Runs the edge files through `parser`, passing batches to `f`.
    fn edges<P: BlockParser<Item = RawEdge>>(
        &self,
        parser: &Arc<P>,
        cut: Cut,
        f: &mut dyn FnMut(&[RawEdge]) -> Result<()>,
    ) -> Result<()> {
        let mut sink = |ev: Event<'_, RawEdge>| match ev {
            Event::Block(_, items) if !items.is_empty() => f(items),
            _ => Ok(()),
        };
        pipeline::run(
            &self.edge_files,
            cut,
            self.block_size,
            Arc::clone(&self.consumed),
            Arc::clone(parser),
            &mut sink,
        )
    }

    /// Runs the vertex files (`vertices`) or the edge files (headers
    /// skipped) through a line parser.
    fn lines<P: BlockParser>(
        &self,
        vertices: bool,
        parser: Arc<P>,
        sink: &mut dyn FnMut(Event<'_, P::Item>) -> Result<()>,
    ) -> Result<()> {
        let (files, skip) = match vertices {
            true => (&self.vertex_files, vec![0; self.vertex_files.len()]),
            false => (&self.edge_files, self.skip.clone()),
        };
        pipeline::run(
            files,
            Cut::Lines { skip },
            self.block_size,
            Arc::clone(&self.consumed),
            parser,
            sink,
        )
    }

    fn mtx_edges(
        &self,
        parser: &Arc<mtx::MtxParser>,
        f: &mut dyn FnMut(&[RawEdge]) -> Result<()>,
    ) -> Result<()> {
        let mut counter = mtx::EntryCounter::new(self.edge_files.len());
        let files = &self.edge_files;
        let headers = &parser.files;
        let mut sink = |ev: Event<'_, RawEdge>| match ev {
            Event::Block(info, items) => {
                let i = info.file;
                counter.block(
                    &files[i],
                    &headers[i],
                    info.data,
                    info.line_base,
                    info.stats.records,
                    i,
                )?;
                if items.is_empty() {
                    Ok(())
                } else {
                    f(items)
                }
            }
            Event::FileEnd { file } => counter.file_end(&files[file], &headers[file], file),
        };
        pipeline::run(
            files,
            Cut::Lines {
                skip: self.skip.clone(),
            },
            self.block_size,
            Arc::clone(&self.consumed),
            Arc::clone(parser),
            &mut sink,
        )
    }
}

impl EdgeSource for FileSource {
    fn describe(&self) -> String {
        self.name.clone()
    }

    fn input_bytes(&self) -> Option<u64> {
        Some(self.vertex_bytes() + self.edge_files.iter().map(|f| f.size).sum::<u64>())
    }

    fn bytes_consumed(&self) -> u64 {
        self.consumed.load(Ordering::Relaxed)
    }

    fn ids_fit_u32(&self) -> bool {
        match &self.kind {
            Kind::Bin(p) => !p.wide && self.vertex_files.is_empty(),
            Kind::Mtx(p) => p
                .files
                .iter()
                .all(|h| h.rows.max(h.cols) <= u32::MAX as u64),
            _ => false,
        }
    }

    /// Bytes over 8 (a bin32 record, a short text line); gzip about
    /// quadruples the bytes.
    fn expected_edges(&self) -> Option<u64> {
        Some(
            self.edge_files
                .iter()
                .map(|f| if f.gz { 4 * f.size } else { f.size })
                .sum::<u64>()
                / 8,
        )
    }

    fn consumed_counter(&self) -> Option<Arc<AtomicU64>> {
        Some(self.consumed.clone())
    }

    fn for_each_vertex_batch(&mut self, f: &mut dyn FnMut(&[u64]) -> Result<()>) -> Result<()> {
        self.consumed.store(0, Ordering::Relaxed);
        if let Kind::Mtx(p) = &self.kind {
            let n = p
                .files
                .iter()
                .map(|h| h.rows.max(h.cols))
                .max()
                .unwrap_or(0);
            return mtx::vertex_range(n, f);
        }
        if self.vertex_files.is_empty() {
            return Ok(());
        }
        let mut sink = |ev: Event<'_, u64>| match ev {
            Event::Block(_, items) if !items.is_empty() => f(items),
            _ => Ok(()),
        };
        self.lines(true, Arc::new(text::VertexParser), &mut sink)
    }

    fn string_ids(&self) -> bool {
        self.named.is_some()
    }

    fn for_each_named_batch(
        &mut self,
        f: &mut dyn FnMut(&named::NamedBatch) -> Result<()>,
    ) -> Result<()> {
        let Some(named) = &self.named else {
            return Err(Error::Invalid(format!(
                "{}: vertex ids are integers",
                self.name
            )));
        };
        let mut sink = |ev: Event<'_, named::NamedBatch>| match ev {
            Event::Block(_, items) => items.iter().try_for_each(&mut *f),
            _ => Ok(()),
        };
        self.consumed.store(0, Ordering::Relaxed);
        self.lines(true, Arc::clone(&named.vertices), &mut sink)?;
        self.consumed.store(self.vertex_bytes(), Ordering::Relaxed);
        self.lines(false, Arc::clone(&named.edges), &mut sink)
    }

    fn sample_edges(&mut self) -> Result<Option<Vec<RawEdge>>> {
        use sample::{sample, Records};
        let files = &self.edge_files;
        match &self.kind {
            _ if self.named.is_some() => Ok(None),
            Kind::Snap(p) => sample(files, &**p, Records::Lines),
            Kind::Delimited(p) => sample(files, &**p, Records::Lines),
            Kind::Bin(p) => sample(files, &**p, Records::Bytes(p.record_size())),
            // Symmetric matrices add mirrored entries: read whole.
            Kind::Mtx(_) => Ok(None),
        }
    }

    fn for_each_edge_batch(&mut self, f: &mut dyn FnMut(&[RawEdge]) -> Result<()>) -> Result<()> {
        if self.named.is_some() {
            return Err(Error::Invalid(format!(
                "{}: vertex ids are strings; they are read by for_each_named_batch",
                self.name
            )));
        }
        self.consumed.store(self.vertex_bytes(), Ordering::Relaxed);
        let lines = Cut::Lines {
            skip: self.skip.clone(),
        };
        match &self.kind {
            Kind::Snap(p) => self.edges(p, lines, f),
            Kind::Delimited(p) => self.edges(p, lines, f),
            Kind::Mtx(p) => self.mtx_edges(p, f),
            Kind::Bin(p) => self.edges(p, Cut::Records(p.record_size()), f),
        }
    }
}
