//! HTML pieces of the report: escaping, numbers for people, tables and
//! the page around the charts (its style inline: the page needs nothing
//! from the network).

use std::fmt::Write;

/// `text` made safe inside HTML and SVG, in elements and in quoted
/// attributes.
pub fn esc(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            _ => out.push(c),
        }
    }
    out
}

/// A number for an axis or a table: at most three significant digits,
/// with k, M, G for thousands and up (`0.25`, `12.5`, `3.2k`, `1.05M`).
pub fn num(v: f64) -> String {
    if !v.is_finite() {
        return format!("{v}");
    }
    let a = v.abs();
    let (x, unit) = match a {
        _ if a >= 1e12 => (v / 1e12, "T"),
        _ if a >= 1e9 => (v / 1e9, "G"),
        _ if a >= 1e6 => (v / 1e6, "M"),
        _ if a >= 1e4 => (v / 1e3, "k"),
        _ => (v, ""),
    };
    // Three significant digits, trailing zeros dropped.
    let s = if x == 0.0 {
        "0".to_string()
    } else if x.abs() < 1e-3 {
        format!("{x:.1e}")
    } else {
        let digits = (2 - x.abs().log10().floor() as i32).max(0) as usize;
        format!("{x:.digits$}")
    };
    let s = if s.contains('.') && !s.contains('e') {
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        s
    };
    s + unit
}

/// Bytes for people: `512 B`, `3.5 MiB`.
pub fn bytes(b: f64) -> String {
    crate::size::format_size(b.max(0.0) as u64)
}

/// A table: `head` cells, then rows; every cell escaped. `class` styles it.
pub fn table(class: &str, head: &[&str], rows: &[Vec<String>]) -> String {
    let mut s = format!(r#"<table class="{}"><thead><tr>"#, esc(class));
    for h in head {
        let _ = write!(s, "<th>{}</th>", esc(h));
    }
    s.push_str("</tr></thead><tbody>");
    for r in rows {
        s.push_str("<tr>");
        for c in r {
            let _ = write!(s, "<td>{}</td>", esc(c));
        }
        s.push_str("</tr>");
    }
    s.push_str("</tbody></table>");
    s
}

/// Colours of the series (colour-blind safe, Okabe-Ito).
pub const IO: &str = "#e69f00";
pub const COMPUTE: &str = "#0072b2";
pub const OTHER: &str = "#999999";
pub const READ: &str = "#009e73";
pub const LIMIT: &str = "#c0392b";
pub const ACCENT: &str = "#cc79a7";

/// The colour of an engine's band and estimate line.
pub fn engine_color(engine: &str) -> &'static str {
    match engine {
        "stream" => "#0072b2",
        "select" => "#e69f00",
        "external" => "#009e73",
        "grid" | "external-grid" => "#cc79a7",
        _ => "#999999",
    }
}

const STYLE: &str = r#"
body{font-family:system-ui,-apple-system,"Segoe UI",Roboto,Helvetica,Arial,sans-serif;margin:0;color:#1d2733;background:#f4f6f9}
header{background:#1d2733;color:#fff;padding:18px 28px}
header h1{margin:0;font-size:22px;font-weight:600}
header p{margin:4px 0 0;color:#c5cfdb;font-size:13px}
main{padding:8px 28px 40px}
h2{font-size:18px;margin:28px 0 6px;border-bottom:1px solid #d5dbe3;padding-bottom:4px}
p.what{margin:0 0 10px;color:#4a5868;font-size:13px}
.row{display:grid;grid-template-columns:repeat(var(--n),minmax(360px,1fr));gap:16px}
.panel{background:#fff;border:1px solid #dde3ea;border-radius:8px;padding:10px 12px;min-width:0}
.panel h3{margin:0 0 4px;font-size:14px;font-weight:600;overflow-wrap:anywhere}
.panel .sub{font-size:12px;color:#5b6878;margin-bottom:6px}
svg.chart{width:100%;height:auto;display:block}
svg .grid{stroke:#e6eaef}
svg .axis{stroke:#5b6878}
svg text{font-size:11px;fill:#34404d}
svg .axistitle{font-size:12px;fill:#1d2733;font-weight:600}
svg .legend text{font-size:11.5px}
svg .reflabel{font-size:11px;font-weight:600}
svg .value{font-size:10.5px;fill:#34404d}
table{border-collapse:collapse;font-size:12.5px;width:100%}
th,td{border-bottom:1px solid #e6eaef;padding:3px 8px;text-align:right;white-space:nowrap}
table.overview td{white-space:normal}
th:first-child,td:first-child{text-align:left}
thead th{background:#eef1f5;font-weight:600}
table.overview td:first-child{font-weight:600;color:#34404d}
details{margin-top:6px;font-size:12.5px}
.note{font-size:12px;color:#8a4b08;background:#fff6e5;border-radius:4px;padding:4px 8px;margin:4px 0}
.scroll{max-height:340px;overflow:auto}
footer{color:#6b7785;font-size:12px;padding:0 28px 24px}
"#;

/// The whole page: `title`, a line under it and the body.
pub fn page(title: &str, subtitle: &str, body: &str) -> String {
    format!(
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"><title>{}</title><style>{STYLE}</style></head><body><header><h1>{}</h1><p>{}</p></header><main>{body}</main><footer>Written by outcore {}. Charts are inline SVG: hover a bar or point for its value.</footer></body></html>\n",
        esc(title),
        esc(title),
        esc(subtitle),
        env!("CARGO_PKG_VERSION")
    )
}
