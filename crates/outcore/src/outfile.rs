//! One rule for output files (`--out`, `--stats`, `export --out`): `-` is
//! standard output; a special file that exists (`/dev/stdout`, a FIFO, a
//! character device) is written directly; a plain file is written to a
//! temporary beside it (`.NAME.tmp-PID`), fsynced and renamed over it when
//! complete, so a reader never sees half a file and an error or Ctrl-C
//! leaves the old file (the temporary is removed). Stores are different:
//! they are never replaced without `--force`.

use crate::error::{Error, IoContext, Result};
use std::fs::File;
use std::io::{BufWriter, Write};
use std::os::unix::fs::FileTypeExt;
use std::path::{Path, PathBuf};

enum Sink {
    Stdout(BufWriter<std::io::StdoutLock<'static>>),
    Direct(BufWriter<File>),
    Atomic { w: BufWriter<File>, tmp: PathBuf },
}

/// An output being written; [`commit`](OutFile::commit) completes it.
pub struct OutFile {
    sink: Option<Sink>,
    path: PathBuf,
}

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
            Sink::Stdout(BufWriter::with_capacity(cap, std::io::stdout().lock()))
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
        self.writer().write_all(bytes).at(target)
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
}
