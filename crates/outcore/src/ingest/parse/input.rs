//! Opening input files: up-front checks, transparent gzip, byte counting.

use std::fs::File;
use std::io::{self, BufRead, BufReader, Read};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use flate2::bufread::MultiGzDecoder;

use crate::error::{Error, IoContext, Result};
use crate::io::fault::{self, Faulty};
use crate::io::{open_direct, Access, AlignedBuf, ALIGN};
use crate::mem::Budget;

/// Read buffer under the gzip decoder (compressed bytes).
const GZ_BUFFER: usize = 256 << 10;

/// One checked input file.
#[derive(Clone, Debug)]
pub(crate) struct InputFile {
    pub path: PathBuf,
    /// Size on disk (compressed size for `.gz`).
    pub size: u64,
    /// Decompressed transparently (the name ends in `.gz`).
    pub gz: bool,
}

/// True when `path`'s name ends in `.gz` (any case).
pub(crate) fn is_gz(path: &Path) -> bool {
    path.file_name()
        .map(|n| n.to_string_lossy().to_ascii_lowercase().ends_with(".gz"))
        .unwrap_or(false)
}

/// The file name without a trailing `.gz`, lowercased (for extension checks).
pub(crate) fn plain_name(path: &Path) -> String {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().to_ascii_lowercase())
        .unwrap_or_default();
    match name.strip_suffix(".gz") {
        Some(s) => s.to_string(),
        None => name,
    }
}

/// Checks that `path` exists, is a regular file (or a symlink to one) and can
/// be opened for reading: not a directory (an outcore store says so), not
/// a pipe.
pub(crate) fn check(path: &Path) -> Result<InputFile> {
    let meta = std::fs::metadata(path).at(path)?;
    if meta.is_dir() {
        let what = if path.join("manifest.json").is_file() {
            "is a directory: an outcore store, not an edge list (`outcore run` reads it \
             directly; `outcore export STORE` writes its edges as text)"
        } else {
            "is a directory, expected an input file"
        };
        return Err(Error::io(
            path,
            io::Error::new(io::ErrorKind::InvalidInput, what),
        ));
    }
    if !meta.is_file() {
        // The first bytes are sniffed and every pass reads the input again:
        // a pipe would be read empty after the first look.
        return Err(Error::io(
            path,
            io::Error::new(
                io::ErrorKind::InvalidInput,
                "is not a regular file (a pipe or a device?): inputs are read more than once; \
                 save it to a file first (`outcore import -` does so with standard input)",
            ),
        ));
    }
    File::open(path).at(path)?;
    Ok(InputFile {
        path: path.to_path_buf(),
        size: meta.len(),
        gz: is_gz(path),
    })
}

/// The first up to `n` bytes of `file`, decompressed when `gz`.
pub(crate) fn head(file: &InputFile, gz: bool, n: usize) -> Result<Vec<u8>> {
    let f = File::open(&file.path).at(&file.path)?;
    let mut r: Box<dyn Read> = match gz {
        true => Box::new(MultiGzDecoder::new(BufReader::new(Faulty(f)))),
        false => Box::new(Faulty(f)),
    };
    let mut buf = vec![0u8; n];
    let got = fill(&mut r, &mut buf).at(&file.path)?;
    buf.truncate(got);
    Ok(buf)
}

/// Reads until `buf` is full or the input ends; returns the bytes read.
fn fill(r: &mut dyn Read, buf: &mut [u8]) -> io::Result<usize> {
    let mut got = 0;
    while got < buf.len() {
        match r.read(&mut buf[got..]) {
            Ok(0) => break,
            Ok(n) => got += n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(got)
}

/// The UTF-8 byte-order mark, dropped from the start of a text file.
pub(crate) const BOM: &[u8] = b"\xEF\xBB\xBF";

/// Counts the bytes read from the file (compressed bytes for `.gz`).
struct Counting<R> {
    inner: R,
    counter: Option<Arc<AtomicU64>>,
}

impl<R: Read> Read for Counting<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        if let Some(c) = &self.counter {
            c.fetch_add(n as u64, Ordering::Relaxed);
        }
        Ok(n)
    }
}

/// Opens `file` for streaming its (decompressed) contents; bytes read from
/// disk are added to `counter`.
pub(crate) fn open_stream(
    file: &InputFile,
    counter: Option<Arc<AtomicU64>>,
) -> Result<Box<dyn Read + Send>> {
    if file.gz {
        let f = File::open(&file.path).at(&file.path)?;
        let counted = Counting {
            inner: Faulty(f),
            counter,
        };
        let buffered = BufReader::with_capacity(GZ_BUFFER, counted);
        return Ok(Box::new(MultiGzDecoder::new(buffered)));
    }
    let regular = std::fs::metadata(&file.path).at(&file.path)?.is_file();
    let (f, direct) = open_direct(&file.path, Access::Read, !regular)?;
    if !direct {
        return Ok(Box::new(Counting {
            inner: Faulty(f),
            counter,
        }));
    }
    let buf = AlignedBuf::new(DIRECT_CHUNK, &Budget::new(u64::MAX), "input reader")?;
    let inner = DirectRead {
        file: f,
        buf,
        at: 0,
        size: file.size,
        pos: 0,
        end: 0,
        eof: false,
    };
    Ok(Box::new(Counting { inner, counter }))
}

/// Bytes per direct read of an input file (charged with the parse
/// pipeline's memory).
pub(crate) const DIRECT_CHUNK: usize = 4 << 20;

/// A regular input file read with `O_DIRECT` in aligned chunks: the kernel's
/// copy out of the page cache was a third of the read phase's CPU (bin32,
/// Kronecker scale 24), and an input read once gains nothing from the cache.
struct DirectRead {
    file: File,
    buf: AlignedBuf,
    /// File offset of the next chunk.
    at: u64,
    /// The file's length when opened: a short read before it is an error.
    size: u64,
    /// The unread bytes of the current chunk: `buf[pos..end]`.
    pos: usize,
    end: usize,
    eof: bool,
}

impl Read for DirectRead {
    fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        if self.pos == self.end && !self.eof {
            let (mut got, want) = (0, self.buf.len());
            let slice = self.buf.as_mut_slice();
            // A short read ends the file (an aligned read past the end
            // returns what is left).
            while got < want {
                match fault::read_at(&self.file, &mut slice[got..want], self.at + got as u64) {
                    Ok(0) => break,
                    Ok(n) => got += n,
                    Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                    Err(e) => return Err(e),
                }
                if got % ALIGN != 0 {
                    break;
                }
            }
            self.eof = got < want;
            if self.eof && self.at + (got as u64) < self.size {
                return Err(io::Error::new(
                    io::ErrorKind::UnexpectedEof,
                    "a read ended short of the end of the file",
                ));
            }
            self.at += got as u64;
            (self.pos, self.end) = (0, got);
        }
        let n = out.len().min(self.end - self.pos);
        out[..n].copy_from_slice(&self.buf.as_slice()[self.pos..self.pos + n]);
        self.pos += n;
        Ok(n)
    }
}

/// Reads lines from the start of a file (for headers), with a length limit.
pub(crate) struct LineReader {
    inner: BufReader<Box<dyn Read + Send>>,
    path: PathBuf,
    /// Lines read so far.
    pub lines: u64,
}

/// The longest header line accepted.
const MAX_HEADER_LINE: u64 = 16 << 20;

impl LineReader {
    pub(crate) fn open(file: &InputFile) -> Result<LineReader> {
        Ok(LineReader {
            inner: BufReader::with_capacity(64 << 10, open_stream(file, None)?),
            path: file.path.clone(),
            lines: 0,
        })
    }

    /// The next line without its `\n` / `\r\n`, or `None` at the end of the file.
    pub(crate) fn next_line(&mut self) -> Result<Option<Vec<u8>>> {
        let mut line = Vec::new();
        let n = (&mut self.inner)
            .take(MAX_HEADER_LINE)
            .read_until(b'\n', &mut line)
            .at(&self.path)?;
        if n == 0 {
            return Ok(None);
        }
        if n as u64 == MAX_HEADER_LINE && line.last() != Some(&b'\n') {
            return Err(Error::parse(
                &self.path,
                self.lines + 1,
                &line[..200],
                "expected a text line (this line is longer than 16 MiB; is the file binary?)",
            ));
        }
        if self.lines == 0 && line.starts_with(BOM) {
            line.drain(..BOM.len());
        }
        self.lines += 1;
        if line.last() == Some(&b'\n') {
            line.pop();
        }
        if line.last() == Some(&b'\r') {
            line.pop();
        }
        Ok(Some(line))
    }
}

/// A short description of the inputs for messages.
pub(crate) fn describe(paths: &[PathBuf]) -> String {
    let name = |p: &PathBuf| {
        p.file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_else(|| p.display().to_string())
    };
    match paths {
        [] => "no input".to_string(),
        [one] => name(one),
        [a, b] => format!("{} + {}", name(a), name(b)),
        [a, .., z] => format!("{} .. {} ({} files)", name(a), name(z), paths.len()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Direct reads return the file's bytes exactly, across chunk ends and
    /// with unaligned tails, for reads of any size.
    #[test]
    fn direct_reads_return_the_file() {
        let d = tempfile::tempdir().unwrap();
        for len in [
            0,
            100,
            ALIGN,
            DIRECT_CHUNK,
            DIRECT_CHUNK + ALIGN,
            2 * DIRECT_CHUNK + 123,
        ] {
            let want: Vec<u8> = (0..len).map(|i| (i * 7 + i / 4099) as u8).collect();
            let path = d.path().join(format!("f{len}"));
            std::fs::write(&path, &want).unwrap();
            let counter = Arc::new(AtomicU64::new(0));
            let mut r = open_stream(&check(&path).unwrap(), Some(Arc::clone(&counter))).unwrap();
            let (mut got, mut step) = (Vec::new(), 1usize);
            loop {
                let mut b = vec![0u8; step];
                let n = r.read(&mut b).unwrap();
                if n == 0 {
                    break;
                }
                got.extend_from_slice(&b[..n]);
                step = step * 3 % 1_000_003 + 1;
            }
            assert!(got == want, "{len} bytes read back differently");
            assert_eq!(counter.load(Ordering::Relaxed), len as u64);
        }
    }
}
