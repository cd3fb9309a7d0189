//! Compact degrees: one u16 per vertex, with an overflow table for degrees of
//! 0xFFFF and more (G-Store's compact degree array).
//!
//! Files `degrees/{out,in}.u16` (n little-endian u16, 0xFFFF = see overflow)
//! and `degrees/{out,in}.ovf` ((vertex u64, degree u64) pairs by vertex).

use super::delta::degrees::ViewDegrees;
use super::file::{read_chunks, DataWriter, StoreDir, WriteLe};
use crate::error::Result;
use std::path::Path;

/// The marker for "degree in the overflow table".
pub const OVERFLOW: u16 = u16::MAX;

/// Paths of a degree array: `degrees/{dir}.u16` and `degrees/{dir}.ovf`.
pub fn files(dir: &str) -> (String, String) {
    (format!("degrees/{dir}.u16"), format!("degrees/{dir}.ovf"))
}

/// Writes degrees in vertex order.
pub struct DegreeWriter {
    compact: DataWriter,
    ovf_name: String,
    overflow: Vec<u64>,
    buf: Vec<u16>,
    next: u64,
    max: u64,
    sum: u64,
}

impl DegreeWriter {
    /// Starts `degrees/{which}.*` in `dir`.
    pub fn new(dir: &mut StoreDir, which: &str) -> Result<DegreeWriter> {
        let (c, o) = files(which);
        Ok(DegreeWriter {
            compact: dir.file(&c)?,
            ovf_name: o,
            overflow: Vec::new(),
            buf: Vec::with_capacity(1 << 16),
            next: 0,
            max: 0,
            sum: 0,
        })
    }

    /// The degree of the next vertex.
    #[inline]
    pub fn push(&mut self, degree: u64) -> Result<()> {
        if degree >= OVERFLOW as u64 {
            self.overflow.push(self.next);
            self.overflow.push(degree);
            self.buf.push(OVERFLOW);
        } else {
            self.buf.push(degree as u16);
        }
        self.next += 1;
        self.max = self.max.max(degree);
        self.sum += degree;
        if self.buf.len() == self.buf.capacity() {
            self.compact.put_u16s(&self.buf)?;
            self.buf.clear();
        }
        Ok(())
    }

    /// Closes the files; returns (max degree, overflow entries, degree sum).
    pub fn finish(mut self, dir: &mut StoreDir) -> Result<(u64, u64, u64)> {
        self.compact.put_u16s(&self.buf)?;
        dir.close(self.compact)?;
        let mut ovf = dir.file(&self.ovf_name)?;
        ovf.put_u64s(&self.overflow)?;
        dir.close(ovf)?;
        Ok((self.max, self.overflow.len() as u64 / 2, self.sum))
    }
}

/// Streams the degrees of direction `which` of the graph `store` holds
/// (base + delta: [`ViewDegrees`]) in vertex order to `f`.
pub fn for_each_of(
    store: &super::Store,
    which: &str,
    mut f: impl FnMut(u64, u64) -> Result<()>,
) -> Result<()> {
    let Some(mut view) = ViewDegrees::load(store, which)? else {
        return for_each(store.root(), which, f);
    };
    for_each(store.root(), which, |v, d| f(v, view.next(v, d)))?;
    (view.n_base()..view.n()).try_for_each(|v| f(v, view.next(v, 0)))
}

/// Streams the degrees of `degrees/{which}.*` (the base files) in vertex
/// order to `f`.
pub fn for_each(
    store: &Path,
    which: &str,
    mut f: impl FnMut(u64, u64) -> Result<()>,
) -> Result<()> {
    let (c, o) = files(which);
    let ovf = super::file::read_u64s(&store.join(&o))?;
    let mut k = 0usize;
    let mut v = 0u64;
    read_chunks(&store.join(&c), 2, |b| {
        for d in b.chunks_exact(2) {
            let mut deg = u16::from_le_bytes([d[0], d[1]]) as u64;
            if deg == OVERFLOW as u64 {
                if k + 1 >= ovf.len() || ovf[k] != v {
                    return Err(super::file::damaged_at(
                        &store.join(&o),
                        format!("no overflow entry for vertex {v}"),
                    ));
                }
                deg = ovf[k + 1];
                k += 2;
            }
            f(v, deg)?;
            v += 1;
        }
        Ok(())
    })?;
    if k != ovf.len() {
        return Err(super::file::damaged_at(
            &store.join(&o),
            "overflow entries without a marked vertex",
        ));
    }
    Ok(())
}

/// Degrees held in memory compactly (2 bytes per vertex plus the overflow).
pub struct Degrees {
    compact: Vec<u16>,
    overflow: Vec<(u64, u64)>,
}

impl Degrees {
    /// Loads `degrees/{which}.*` of the store at `store`.
    pub fn load(store: &Path, which: &str) -> Result<Degrees> {
        let (c, o) = files(which);
        let mut compact = Vec::new();
        read_chunks(&store.join(&c), 2, |b| {
            compact.extend(b.chunks_exact(2).map(|d| u16::from_le_bytes([d[0], d[1]])));
            Ok(())
        })?;
        let raw = super::file::read_u64s(&store.join(&o))?;
        let overflow: Vec<(u64, u64)> = raw.chunks_exact(2).map(|p| (p[0], p[1])).collect();
        if overflow.windows(2).any(|w| w[0].0 >= w[1].0)
            || overflow
                .iter()
                .any(|&(v, _)| compact.get(v as usize) != Some(&OVERFLOW))
        {
            return Err(super::file::damaged_at(
                &store.join(&o),
                "overflow table does not match the compact degrees",
            ));
        }
        Ok(Degrees { compact, overflow })
    }

    /// Direction `which` of the graph `store` holds: the base's degrees
    /// (loaded whole) with the delta's touched ones written over them
    /// ([`ViewDegrees`]) and the new vertices' after them.
    pub fn of(store: &super::Store, which: &str) -> Result<Degrees> {
        let mut d = Degrees::load(store.root(), which)?;
        let Some(view) = ViewDegrees::load(store, which)? else {
            return Ok(d);
        };
        let t = view.touched();
        d.compact.resize(view.n() as usize, 0);
        // Overflow entries of touched vertices go; those of their new
        // degrees come.
        let mut overflow = Vec::with_capacity(d.overflow.len());
        let mut old = d.overflow.iter().peekable();
        t.for_each(|v, deg| {
            while let Some(&&e) = old.peek().filter(|e| e.0 <= v) {
                if e.0 < v {
                    overflow.push(e);
                }
                old.next();
            }
            if deg >= OVERFLOW as u64 {
                overflow.push((v, deg));
            }
            d.compact[v as usize] = deg.min(OVERFLOW as u64) as u16;
        });
        overflow.extend(old);
        d.overflow = overflow;
        Ok(d)
    }

    /// Bytes needed in memory for `n` vertices (without the small overflow table).
    pub fn memory_bytes(n: u64) -> u64 {
        2 * n
    }

    /// The degree of `v`.
    #[inline]
    pub fn get(&self, v: usize) -> u64 {
        match self.compact[v] {
            OVERFLOW => {
                let i = self
                    .overflow
                    .binary_search_by_key(&(v as u64), |p| p.0)
                    .expect("checked at load");
                self.overflow[i].1
            }
            d => d as u64,
        }
    }

    /// Number of vertices.
    pub fn len(&self) -> usize {
        self.compact.len()
    }

    /// True when there are no vertices.
    pub fn is_empty(&self) -> bool {
        self.compact.is_empty()
    }
}

/// Degrees read one at a time in vertex order (a buffered scan of the
/// compact file; the overflow table is small and read whole).
pub struct DegreeStream {
    compact: super::file::CheckedStream,
    overflow: Vec<u64>,
    k: usize,
    v: u64,
    /// The delta's degrees merged in ([`DegreeStream::of`]).
    view: Option<ViewDegrees>,
}

impl DegreeStream {
    /// Opens `degrees/{which}.*` of the store at `store`.
    pub fn open(store: &Path, which: &str) -> Result<DegreeStream> {
        let (c, o) = files(which);
        Ok(DegreeStream {
            compact: super::file::CheckedStream::open(&store.join(&c))?,
            overflow: super::file::read_u64s(&store.join(&o))?,
            k: 0,
            v: 0,
            view: None,
        })
    }

    /// Opens direction `which` of the graph `store` holds: the base's
    /// degrees with the delta's merged in ([`ViewDegrees`]), the new
    /// vertices' after them.
    pub fn of(store: &super::Store, which: &str) -> Result<DegreeStream> {
        let mut s = DegreeStream::open(store.root(), which)?;
        s.view = ViewDegrees::load(store, which)?;
        Ok(s)
    }

    /// The degree of the next vertex.
    pub fn next_degree(&mut self) -> Result<u64> {
        let v = self.v;
        let past = match &self.view {
            None => return self.next_base_degree(),
            Some(view) => v >= view.n_base(),
        };
        let base = match past {
            true => {
                self.v += 1;
                0
            }
            false => self.next_base_degree()?,
        };
        Ok(self.view.as_mut().map_or(base, |view| view.next(v, base)))
    }

    fn next_base_degree(&mut self) -> Result<u64> {
        let mut b = [0u8; 2];
        self.compact.read_exact(&mut b)?;
        let mut d = u16::from_le_bytes(b) as u64;
        if d == OVERFLOW as u64 {
            if self.k + 1 >= self.overflow.len() || self.overflow[self.k] != self.v {
                return Err(super::file::damaged_at(
                    self.compact.path(),
                    format!("no overflow entry for vertex {}", self.v),
                ));
            }
            d = self.overflow[self.k + 1];
            self.k += 2;
        }
        self.v += 1;
        Ok(d)
    }

    /// The degrees of the next `out.len()` vertices, in one read.
    pub fn next_degrees(&mut self, out: &mut [u64], buf: &mut Vec<u8>) -> Result<()> {
        let Some(mut view) = self.view.take() else {
            return self.next_base_degrees(out, buf);
        };
        // The base's degrees in one read, 0 past it, the delta's over them.
        let first = self.v;
        let k = view.n_base().saturating_sub(first).min(out.len() as u64) as usize;
        let (based, added) = out.split_at_mut(k);
        let read = self.next_base_degrees(based, buf);
        added.fill(0);
        self.v += added.len() as u64;
        view.overlay(first, out);
        self.view = Some(view);
        read
    }

    fn next_base_degrees(&mut self, out: &mut [u64], buf: &mut Vec<u8>) -> Result<()> {
        buf.resize(2 * out.len(), 0);
        self.compact.read_exact(buf)?;
        for (o, c) in out.iter_mut().zip(buf.chunks_exact(2)) {
            let d = u16::from_le_bytes([c[0], c[1]]);
            *o = d as u64;
            if d == OVERFLOW {
                if self.k + 1 >= self.overflow.len() || self.overflow[self.k] != self.v {
                    return Err(super::file::damaged_at(
                        self.compact.path(),
                        format!("no overflow entry for vertex {}", self.v),
                    ));
                }
                *o = self.overflow[self.k + 1];
                self.k += 2;
            }
            self.v += 1;
        }
        Ok(())
    }
}
