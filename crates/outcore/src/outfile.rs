//! One rule for output files (`--out`, `--stats`, `export --out`): `-` is
//! standard output; a special file that exists (`/dev/stdout`, a FIFO, a
//! character device) is written directly; a plain file is written to a
//! temporary beside it (`.NAME.tmp-PID`), fsynced and renamed over it when
//! complete, so a reader never sees half a file and an error or Ctrl-C
//! leaves the old file (the temporary is removed). Stores are different:
//! they are never replaced without `--force`, and `--force` replaces a
//! store only, never a plain file or an input ([`check_store_dest`]).
//!
//! Every command checks its outputs with [`check_writable`] (files) and
//! [`check_store_dest`] (stores) before it starts, so an output that cannot
//! be created fails at once, not after the work.

use crate::error::{Error, IoContext, Result};
use std::fs::File;
use std::io::{BufWriter, Write};
use std::os::unix::fs::{FileTypeExt, MetadataExt};
use std::path::{Path, PathBuf};

/// The directory `path` would be created in.
fn parent_dir(path: &Path) -> &Path {
    match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    }
}

/// Refuses `path` when nothing can be created there: its directory missing,
/// not a directory or not writable.
pub(crate) fn check_parent(path: &Path) -> Result<()> {
    let dir = parent_dir(path);
    let fail = |why: String| Err(Error::Invalid(format!("{}: {why}", path.display())));
    match std::fs::metadata(dir) {
        Err(_) => fail(format!("the directory {} does not exist", dir.display())),
        Ok(m) if !m.is_dir() => fail(format!("{} is not a directory", dir.display())),
        Ok(_) if !writable(dir) => fail(format!("the directory {} is not writable", dir.display())),
        Ok(_) => Ok(()),
    }
}

fn writable(dir: &Path) -> bool {
    use std::os::unix::ffi::OsStrExt;
    let Ok(c) = std::ffi::CString::new(dir.as_os_str().as_bytes()) else {
        return false;
    };
    // SAFETY: `c` is a valid NUL-terminated path.
    unsafe { libc::access(c.as_ptr(), libc::W_OK) == 0 }
}

/// Checks, before any work, that an output file can be written at `path`
/// by the rule above: `-` and existing special files always; otherwise not
/// a directory, in a directory that exists and is writable.
pub fn check_writable(path: &Path) -> Result<()> {
    if is_special(path) {
        return Ok(());
    }
    let dir_name = path.as_os_str().as_encoded_bytes().ends_with(b"/");
    if dir_name || path.is_dir() {
        return Err(Error::Invalid(format!(
            "{}: is a directory; name a file to write",
            path.display()
        )));
    }
    check_parent(path)
}

/// True when `a` and `b` are the same file (device and inode; hard links too).
pub(crate) fn same_file(a: &Path, b: &Path) -> bool {
    match (std::fs::metadata(a), std::fs::metadata(b)) {
        (Ok(x), Ok(y)) => x.dev() == y.dev() && x.ino() == y.ino(),
        _ => false,
    }
}

enum Sink {
    Stdout(BufWriter<std::io::Stdout>),
    Direct(BufWriter<File>),
    Atomic { w: BufWriter<File>, tmp: PathBuf },
}

/// An output being written; [`commit`](OutFile::commit) completes it.
pub struct OutFile {
    sink: Option<Sink>,
    path: PathBuf,
    /// Bytes given to [`OutFile::write_all`], and how many of them the
    /// disk was asked to start writing ([`OutFile::start_writeback`]).
    written: u64,
    started: u64,
}

/// Bytes written between two requests to start writing back.
const WRITEBACK: u64 = 32 << 20;

/// True when `path` names stdout or an existing file that is not a plain
/// file (written directly, never replaced).
pub fn is_special(path: &Path) -> bool {
    path.as_os_str() == "-"
        || std::fs::metadata(path).is_ok_and(|m| {
            let t = m.file_type();
            t.is_fifo() || t.is_char_device() || t.is_socket() || t.is_block_device()
        })
}

impl OutFile {
    /// Starts writing `path` by the rule above.
    pub fn create(path: &Path) -> Result<OutFile> {
        let cap = 1 << 20;
        let sink = if path.as_os_str() == "-" {
            Sink::Stdout(BufWriter::with_capacity(cap, std::io::stdout()))
        } else if is_special(path) {
            let f = File::options().write(true).open(path).at(path)?;
            Sink::Direct(BufWriter::with_capacity(cap, f))
        } else {
            let name = path
                .file_name()
                .ok_or_else(|| Error::Invalid(format!("{}: not a file name", path.display())))?;
            let tmp = path.with_file_name(format!(
                ".{}.tmp-{}",
                name.to_string_lossy(),
                std::process::id()
            ));
            let f = File::create(&tmp).at(&tmp)?;
            Sink::Atomic {
                w: BufWriter::with_capacity(cap, f),
                tmp,
            }
        };
        Ok(OutFile {
            sink: Some(sink),
            path: path.to_path_buf(),
            written: 0,
            started: 0,
        })
    }

    /// The name errors should carry.
    pub fn target(&self) -> &Path {
        match &self.sink {
            Some(Sink::Stdout(_)) => Path::new("<stdout>"),
            Some(Sink::Atomic { tmp, .. }) => tmp,
            _ => &self.path,
        }
    }

    /// Writes `bytes`.
    pub fn write_all(&mut self, bytes: &[u8]) -> Result<()> {
        let target = self.target().to_path_buf();
        self.writer().write_all(bytes).at(target)?;
        self.written += bytes.len() as u64;
        if self.written - self.started >= WRITEBACK {
            self.start_writeback();
        }
        Ok(())
    }

    /// Asks the kernel to start writing the temporary's pages written so far
    /// (`sync_file_range(SYNC_FILE_RANGE_WRITE)`: it does not wait), so
    /// that the `fsync` of [`commit`](OutFile::commit) finds most of the
    /// file on disk already rather than writing it all then.
    fn start_writeback(&mut self) {
        use std::os::fd::AsRawFd;
        let Some(Sink::Atomic { w, .. }) = &self.sink else {
            return;
        };
        let end = self.written - w.buffer().len() as u64;
        if end > self.started {
            // SAFETY: a plain call on our open descriptor; a failure only
            // leaves the writing to the fsync.
            unsafe {
                libc::sync_file_range(
                    w.get_ref().as_raw_fd(),
                    self.started as libc::off64_t,
                    (end - self.started) as libc::off64_t,
                    libc::SYNC_FILE_RANGE_WRITE,
                )
            };
            self.started = end;
        }
    }

    /// The writer (for `write!`); map its errors with [`target`](OutFile::target).
    pub fn writer(&mut self) -> &mut dyn Write {
        match self.sink.as_mut().expect("not committed") {
            Sink::Stdout(w) => w,
            Sink::Direct(w) => w,
            Sink::Atomic { w, .. } => w,
        }
    }

    /// Flushes and, for a plain file, syncs and renames it into place.
    pub fn commit(mut self) -> Result<()> {
        let target = self.target().to_path_buf();
        match self.sink.take().expect("committed once") {
            Sink::Stdout(mut w) => w.flush().at(target),
            Sink::Direct(mut w) => w.flush().at(target),
            Sink::Atomic { w, tmp } => {
                let result = (|| {
                    let f = w
                        .into_inner()
                        .map_err(|e| Error::io(&tmp, e.into_error()))?;
                    f.sync_all().at(&tmp)?;
                    drop(f);
                    std::fs::rename(&tmp, &self.path).at(&self.path)
                })();
                if result.is_err() {
                    let _ = std::fs::remove_file(&tmp);
                }
                result
            }
        }
    }
}

impl Drop for OutFile {
    fn drop(&mut self) {
        if let Some(Sink::Atomic { tmp, .. }) = &self.sink {
            let _ = std::fs::remove_file(tmp);
        }
    }
}

/// Writes `bytes` to `path` by the rule above.
pub fn write(path: &Path, bytes: &[u8]) -> Result<()> {
    let mut f = OutFile::create(path)?;
    f.write_all(bytes)?;
    f.commit()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_files_are_replaced_whole_special_ones_written_directly() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("out.txt");
        std::fs::write(&p, "old\n").unwrap();
        let mut f = OutFile::create(&p).unwrap();
        f.write_all(b"new\n").unwrap();
        // Not yet committed: the old file stands, a temporary beside it.
        assert_eq!(std::fs::read_to_string(&p).unwrap(), "old\n");
        drop(f);
        assert_eq!(std::fs::read_to_string(&p).unwrap(), "old\n");
        assert_eq!(
            std::fs::read_dir(d.path()).unwrap().count(),
            1,
            "temporary removed"
        );
        write(&p, b"new\n").unwrap();
        assert_eq!(std::fs::read_to_string(&p).unwrap(), "new\n");
        assert_eq!(std::fs::read_dir(d.path()).unwrap().count(), 1);
        assert!(is_special(Path::new("/dev/null")) && is_special(Path::new("-")));
        assert!(!is_special(&p));
        write(Path::new("/dev/null"), b"x").unwrap();
        assert!(
            Path::new("/dev/null").exists(),
            "written directly, not replaced"
        );
    }

    #[test]
    fn outputs_are_checked() {
        let d = tempfile::tempdir().unwrap();
        let p = |n: &str| d.path().join(n);
        let err = |r: Result<()>| r.unwrap_err().to_string();
        assert!(check_writable(Path::new("-")).is_ok() && check_writable(&p("x.txt")).is_ok());
        assert!(err(check_writable(&p("no/x.txt"))).contains("does not exist"));
        assert!(err(check_writable(d.path())).contains("is a directory"));
        std::fs::write(p("e.txt"), "1 2\n").unwrap();
        assert!(err(check_writable(&p("e.txt/x"))).contains("is not a directory"));
    }
}
