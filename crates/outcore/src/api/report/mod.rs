//! The run report (issue 52): one self-contained HTML page drawn from the
//! stats JSON that `run` and `import` write (`--stats`), charts as inline
//! SVG; several stats files side by side on shared scales. Presentation
//! only: nothing below `api` imports this room.
//!
//! Every chart is an `<svg class="chart chart-KIND" id="KIND-I">` (I: the
//! file's place in the report), so a browser test can find each one.

mod html;
mod import;
mod result;
mod run;
mod svg;

pub use html::esc;

use crate::error::{Error, IoContext, Result};
use serde_json::Value;
use std::path::Path;

/// One stats file: its name in the report and its JSON.
#[derive(Clone, Debug)]
pub struct Doc {
    pub name: String,
    pub json: Value,
}

impl Doc {
    /// `command` of the stats: `run`, `import`, else what its fields say.
    fn command(&self) -> &str {
        match self.json.get("command").and_then(Value::as_str) {
            Some(c) => c,
            None if self.json.get("iterations").is_some_and(Value::is_array) => "run",
            None if self.json.get("phases").is_some() => "import",
            None => "unknown",
        }
    }
}

/// A number field (0 when absent or not a number).
pub(crate) fn f(v: &Value, key: &str) -> f64 {
    v.get(key).and_then(Value::as_f64).unwrap_or(0.0)
}

/// A text field ("" when absent).
pub(crate) fn s<'a>(v: &'a Value, key: &str) -> &'a str {
    v.get(key).and_then(Value::as_str).unwrap_or("")
}

/// Reads stats files: each must be a JSON object (the error names the
/// file and says what it expected).
pub fn load(paths: &[impl AsRef<Path>]) -> Result<Vec<Doc>> {
    let mut docs = Vec::new();
    for p in paths {
        let p = p.as_ref();
        let text = std::fs::read_to_string(p).at(p)?;
        let json: Value = serde_json::from_str(&text).map_err(|e| {
            Error::Invalid(format!(
                "{}:{}: not JSON ({e}); expected a stats file written by `outcore run --stats` or `outcore import --stats`",
                p.display(),
                e.line()
            ))
        })?;
        if !json.is_object() {
            return Err(Error::Invalid(format!(
                "{}: a JSON {}, not a stats object; expected a file written by `outcore run --stats` or `outcore import --stats`",
                p.display(),
                if json.is_array() { "array" } else { "value" }
            )));
        }
        let name = p.file_name().map_or_else(
            || p.display().to_string(),
            |n| n.to_string_lossy().into_owned(),
        );
        docs.push(Doc { name, json });
    }
    Ok(docs)
}

/// A section: a title, a line saying what it shows and one panel per doc.
fn section(id: &str, title: &str, what: &str, panels: &[String]) -> String {
    let mut s = format!(
        r#"<section id="sec-{}"><h2>{}</h2><p class="what">{}</p><div class="row" style="--n:{}">"#,
        esc(id),
        esc(title),
        esc(what),
        panels.len().clamp(1, 3)
    );
    for p in panels {
        s.push_str(p);
    }
    s.push_str("</div></section>");
    s
}

/// A panel: the doc's name and a line of context above the content.
fn panel(doc: &Doc, sub: &str, content: &str) -> String {
    format!(
        r#"<div class="panel"><h3>{}</h3><div class="sub">{}</div>{content}</div>"#,
        esc(&doc.name),
        esc(sub)
    )
}

/// A one-line description of a doc.
fn describe(d: &Doc) -> String {
    let j = &d.json;
    match d.command() {
        "run" => format!(
            "{} on {}, budget {}, {} engine",
            s(j, "algorithm"),
            s(j, "store"),
            html::bytes(f(j, "memory_budget")),
            s(j, "engine")
        ),
        "import" => format!(
            "import into {}, budget {}",
            s(j, "store"),
            html::bytes(f(j, "memory_budget"))
        ),
        c => format!("{c} stats"),
    }
}

/// The report page for `docs`.
pub fn page(docs: &[Doc]) -> String {
    let runs: Vec<(usize, &Doc)> = (docs.iter().enumerate())
        .filter(|(_, d)| d.command() == "run")
        .collect();
    let imports: Vec<(usize, &Doc)> = (docs.iter().enumerate())
        .filter(|(_, d)| d.command() == "import")
        .collect();
    let mut body = overview(docs);
    let other: Vec<&str> = (docs.iter())
        .filter(|d| !matches!(d.command(), "run" | "import"))
        .map(|d| d.name.as_str())
        .collect();
    if !other.is_empty() {
        body.push_str(&format!(
            r#"<p class="note">Not drawn (neither a run nor an import): {}</p>"#,
            esc(&other.join(", "))
        ));
    }
    body.push_str(&run::sections(&runs));
    body.push_str(&result::sections(&runs));
    body.push_str(&import::sections(&imports));
    let names: Vec<&str> = docs.iter().map(|d| d.name.as_str()).collect();
    let title = match docs {
        [one] => format!("outcore report: {}", describe(one)),
        _ => format!("outcore report: {} stats files compared", docs.len()),
    };
    html::page(&title, &names.join(" · "), &body)
}

/// Writes the page for `docs` to `path` (whole or not at all).
pub fn write(path: &Path, docs: &[Doc]) -> Result<()> {
    crate::outfile::write(path, page(docs).as_bytes())
}

/// The overview table: one column per doc.
fn overview(docs: &[Doc]) -> String {
    let mut head = vec![""];
    head.extend(docs.iter().map(|d| d.name.as_str()));
    let row = |label: &str, cell: &dyn Fn(&Doc) -> String| {
        let mut r = vec![label.to_string()];
        r.extend(docs.iter().map(cell));
        r
    };
    let secs = |k: &'static str| move |d: &Doc| format!("{:.3} s", f(&d.json, k));
    let by = |d: &Doc, run: &str, import: &str| {
        let k = if d.command() == "run" { run } else { import };
        d.json.get(k).map_or("—".into(), |v| match v {
            Value::String(t) => t.clone(),
            Value::Number(n) => n.to_string(),
            _ => v.to_string(),
        })
    };
    let rows = vec![
        row("what", &|d: &Doc| describe(d)),
        row("started", &|d: &Doc| s(&d.json, "started_at").to_string()),
        row("wall time", &|d: &Doc| {
            secs(if d.command() == "run" {
                "wall_seconds"
            } else {
                "seconds"
            })(d)
        }),
        row("iterations / phases", &|d: &Doc| {
            let k = if d.command() == "run" {
                "iterations"
            } else {
                "phases"
            };
            d.json
                .get(k)
                .and_then(Value::as_array)
                .map_or("—".into(), |a| a.len().to_string())
        }),
        row("bytes read / input", &|d: &Doc| {
            html::bytes(f(&d.json, "bytes_read").max(f(&d.json, "input_bytes")))
        }),
        row("I/O wait", &|d: &Doc| match d.command() {
            "run" => secs("io_wait_seconds")(d),
            _ => "—".into(),
        }),
        row("bytes spilled", &|d: &Doc| match d.command() {
            "import" => html::bytes(f(&d.json, "spilled_bytes")),
            _ => "—".into(),
        }),
        row("peak RSS / budget", &|d: &Doc| {
            format!(
                "{} / {}",
                html::bytes(f(&d.json, "peak_rss_bytes")),
                html::bytes(f(&d.json, "memory_budget"))
            )
        }),
        row("I/O backend", &|d: &Doc| by(d, "io_backend", "format")),
        row("threads", &|d: &Doc| by(d, "threads", "threads")),
        row("disk rate", &|d: &Doc| run::disk_rate(&d.json).1),
    ];
    format!(
        r#"<section id="sec-overview"><h2>Overview</h2><div class="panel scroll">{}</div></section>"#,
        html::table("overview", &head, &rows)
    )
}

#[cfg(test)]
mod tests;
