//! `import -`: standard input, spooled to a temporary file beside the store
//! (the parser reads its inputs as files, in parallel blocks), removed when
//! the import ends, by success or error. A gzip stream stays compressed.

use anyhow::{bail, Context, Result};
use std::io::{BufRead, Write};
use std::path::{Path, PathBuf};

/// The spooled copy of standard input, removed on drop.
pub struct Spool(Option<PathBuf>);

impl Drop for Spool {
    fn drop(&mut self) {
        if let Some(p) = &self.0 {
            let _ = std::fs::remove_file(p);
        }
    }
}

/// Replaces a `-` among `inputs` by a spooled copy of standard input.
pub fn spool(inputs: &mut [PathBuf], out: &Path) -> Result<Spool> {
    let dash = |p: &PathBuf| p.as_os_str() == "-";
    let Some(i) = inputs.iter().position(dash) else {
        return Ok(Spool(None));
    };
    if inputs.iter().filter(|p| dash(p)).count() > 1 {
        bail!("standard input (`-`) can be named once among the inputs");
    }
    let parent = match out.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let name = out
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "store".into());
    outcore::stale::clean(&parent, &name, "outcore-stdin");
    let stdin = std::io::stdin();
    let mut r = stdin.lock();
    let gz = r
        .fill_buf()
        .context("reading standard input")?
        .starts_with(&[0x1f, 0x8b]);
    let path = parent.join(format!(
        ".{name}.outcore-stdin-{}{}",
        std::process::id(),
        if gz { ".gz" } else { "" }
    ));
    let spool = Spool(Some(path.clone()));
    let f = std::fs::File::create(&path).with_context(|| format!("creating {}", path.display()))?;
    let mut w = std::io::BufWriter::with_capacity(1 << 20, f);
    std::io::copy(&mut r, &mut w)
        .and_then(|_| w.flush())
        .with_context(|| format!("copying standard input to {}", path.display()))?;
    inputs[i] = path;
    Ok(spool)
}
