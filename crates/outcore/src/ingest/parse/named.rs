//! Text edge lists whose vertex ids are strings (`--ids string`): every id
//! field is a name, an arbitrary byte string ([`crate::ingest::names`]).
//!
//! SNAP/LDBC lines split at blanks (a name has no blanks); CSV/TSV fields
//! follow the quoting rules of RFC 4180 within a line: a field in double
//! quotes may hold the delimiter, and `""` inside it is one quote (a quoted
//! newline is not supported: lines are cut at every newline). Blanks around
//! a field are trimmed; an empty id is refused.
//!
//! Each block becomes one [`NamedBatch`]: its edges as fingerprints, and
//! each distinct name of the block once (so a hub named a million times in
//! a block reaches the name sorter once).

use super::lex::{is_blank, parse_weight, skip_blanks, token_end, Fault, LocalError};
use super::pipeline::{BlockParser, Stats};
use super::text::{
    for_each_line, line_start, separated, too_few_blank_columns, too_few_fields, Columns,
    DelimitedParser,
};
use crate::ingest::names::fingerprint;
use std::collections::HashMap;
use std::sync::Arc;

/// One edge between named vertices, as fingerprints.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct NamedEdge {
    pub src: u128,
    pub dst: u128,
    pub weight: f64,
}

/// The edges (or vertices) of one block, with the block's distinct names.
#[derive(Debug, Default)]
pub struct NamedBatch {
    pub edges: Vec<NamedEdge>,
    /// Vertices listed on their own (an LDBC `.v` file).
    pub vertices: Vec<u128>,
    /// (start, length) in `bytes` of each distinct name of the block.
    pub names: Vec<(u32, u32)>,
    pub bytes: Vec<u8>,
}

impl NamedBatch {
    /// The distinct names of the block.
    pub fn names(&self) -> impl Iterator<Item = &[u8]> {
        self.names
            .iter()
            .map(|&(s, l)| &self.bytes[s as usize..(s + l) as usize])
    }
}

/// Collects a block's names once each.
#[derive(Default)]
pub(crate) struct Namer {
    pub(crate) batch: NamedBatch,
    seen: HashMap<u128, u32>,
    scratch: Vec<u8>,
}

impl Namer {
    /// The fingerprint of `name`, remembering the name.
    pub(crate) fn name(&mut self, name: &[u8]) -> Result<u128, Fault> {
        if name.is_empty() {
            return Err(Fault::EmptyId);
        }
        let fp = fingerprint(name);
        let b = &mut self.batch;
        match self.seen.get(&fp) {
            Some(&i) => {
                let (s, l) = b.names[i as usize];
                if &b.bytes[s as usize..(s + l) as usize] != name {
                    return Err(Fault::Collision);
                }
            }
            None => {
                // Checked once per block and name: names are written as
                // UTF-8, and a NUL byte is no part of a name but of a
                // binary file.
                if name.contains(&0) || std::str::from_utf8(name).is_err() {
                    return Err(Fault::NotText);
                }
                if b.bytes.len() + name.len() > u32::MAX as usize {
                    return Err(Fault::Syntax);
                }
                self.seen.insert(fp, b.names.len() as u32);
                b.names.push((b.bytes.len() as u32, name.len() as u32));
                b.bytes.extend_from_slice(name);
            }
        }
        Ok(fp)
    }

    /// A CSV field's value: blanks trimmed, quotes removed, `""` unescaped.
    fn field(&mut self, f: &[u8]) -> Result<u128, Fault> {
        let f = trim(f);
        if f.len() >= 2 && f[0] == b'"' && f[f.len() - 1] == b'"' {
            let inner = &f[1..f.len() - 1];
            if !inner.contains(&b'"') {
                return self.name(inner);
            }
            let mut s = std::mem::take(&mut self.scratch);
            s.clear();
            let mut i = 0;
            while i < inner.len() {
                s.push(inner[i]);
                i += if inner[i] == b'"' && inner.get(i + 1) == Some(&b'"') {
                    2
                } else {
                    1
                };
            }
            let r = self.name(&s);
            self.scratch = s;
            return r;
        }
        self.name(f)
    }
}

fn trim(mut f: &[u8]) -> &[u8] {
    while let [first, rest @ ..] = f {
        if !is_blank(*first) {
            break;
        }
        f = rest;
    }
    while let [rest @ .., last] = f {
        if !is_blank(*last) {
            break;
        }
        f = rest;
    }
    f
}

/// How the lines of a named input are laid out.
pub(crate) enum Layout {
    /// `src dst [weight]` separated by blanks (SNAP, LDBC `.e`).
    Blanks { weighted: bool },
    /// CSV/TSV rows.
    Delimited(Arc<DelimitedParser>),
    /// One vertex per line (LDBC `.v`).
    Vertices,
}

/// The block parser of named inputs.
pub(crate) struct NamedParser(pub Layout);

impl NamedParser {
    fn expected(&self, cols: Option<&Columns>, fault: Fault) -> String {
        if fault == Fault::TooFewColumns {
            return match (&self.0, cols) {
                (Layout::Delimited(p), Some(c)) => too_few_fields(p.delim, c),
                (Layout::Blanks { weighted }, _) => too_few_blank_columns(*weighted).to_string(),
                _ => "expected one vertex id per line".to_string(),
            };
        }
        let what = match (&self.0, cols) {
            (Layout::Blanks { weighted: true }, _) => {
                "expected two vertex ids, then a weight (`src dst weight`, separated by spaces or tabs)".to_string()
            }
            (Layout::Blanks { .. }, _) => {
                "expected two vertex ids (`src dst`, separated by spaces or tabs)".to_string()
            }
            (Layout::Vertices, _) => "expected one vertex id per line".to_string(),
            (Layout::Delimited(p), Some(c)) => {
                let mut s = format!(
                    "expected {} rows with vertex ids in columns {} and {}",
                    separated(p.delim),
                    c.src,
                    c.dst
                );
                if let Some(w) = c.weight {
                    s += &format!(" and a weight in column {w}");
                }
                s + " (0-based)"
            }
            (Layout::Delimited(_), None) => unreachable!("delimited rows have columns"),
        };
        format!("{}{what}", fault.prefix())
    }

    fn blanks_line(
        namer: &mut Namer,
        weighted: bool,
        data: &[u8],
        p: &mut usize,
    ) -> Result<(), Fault> {
        let end = token_end(data, *p);
        let src = namer.name(&data[*p..end])?;
        *p = skip_blanks(data, end);
        let end = token_end(data, *p);
        if end == *p {
            return Err(Fault::TooFewColumns);
        }
        let dst = namer.name(&data[*p..end])?;
        *p = end;
        let weight = if weighted {
            *p = skip_blanks(data, *p);
            let end = token_end(data, *p);
            let w = parse_weight(&data[*p..end])?;
            *p = end;
            w
        } else {
            1.0
        };
        namer.batch.edges.push(NamedEdge { src, dst, weight });
        Ok(())
    }

    fn row(namer: &mut Namer, cols: &Columns, delim: u8, line: &[u8]) -> Result<(), Fault> {
        let (s, d, weight) = cols.pick(line, delim)?;
        let src = namer.field(s)?;
        let dst = namer.field(d)?;
        namer.batch.edges.push(NamedEdge { src, dst, weight });
        Ok(())
    }
}

impl BlockParser for NamedParser {
    type Item = NamedBatch;

    fn parse(
        &self,
        file: usize,
        data: &[u8],
        out: &mut Vec<NamedBatch>,
    ) -> Result<Stats, LocalError> {
        let mut namer = Namer::default();
        let lines = match &self.0 {
            Layout::Delimited(p) => {
                let cols = p.columns[file];
                let mut lines = 0;
                p.for_each_row(data, &mut lines, |start, n, line| {
                    Self::row(&mut namer, &cols, p.delim, line)
                        .map_err(|f| LocalError::at(data, start, n, self.expected(Some(&cols), f)))
                })?;
                lines
            }
            layout => for_each_line(data, |p, line| {
                let mut q = p;
                let r = match layout {
                    Layout::Blanks { weighted } => {
                        Self::blanks_line(&mut namer, *weighted, data, &mut q)
                    }
                    _ => {
                        let end = token_end(data, q);
                        let fp = namer.name(&data[q..end]);
                        q = end;
                        fp.map(|fp| namer.batch.vertices.push(fp))
                    }
                };
                match r {
                    Ok(()) => Ok(q),
                    Err(f) => Err(LocalError::at(
                        data,
                        line_start(data, p),
                        line,
                        self.expected(None, f),
                    )),
                }
            })?,
        };
        out.push(namer.batch);
        Ok(Stats { lines, records: 0 })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Edges as (name, name, weight), and the number of distinct names.
    type Parsed = Result<(Vec<(String, String, f64)>, usize), String>;

    fn parse(layout: Layout, text: &str) -> Parsed {
        let p = NamedParser(layout);
        let mut out = Vec::new();
        p.parse(0, text.as_bytes(), &mut out)
            .map_err(|e| format!("line {}: {}", e.line, e.expected))?;
        let b = &out[0];
        let names: HashMap<u128, String> = b
            .names()
            .map(|n| (fingerprint(n), String::from_utf8(n.to_vec()).unwrap()))
            .collect();
        let edges = b
            .edges
            .iter()
            .map(|e| (names[&e.src].clone(), names[&e.dst].clone(), e.weight))
            .collect();
        Ok((edges, b.names.len()))
    }

    fn csv(text: &str, weight: Option<usize>) -> Parsed {
        let cols = Columns {
            src: 0,
            dst: 1,
            weight,
        };
        let p = DelimitedParser {
            delim: b',',
            columns: vec![cols],
            ids_hint: "",
        };
        parse(Layout::Delimited(Arc::new(p)), text)
    }

    fn e(s: &str, d: &str, w: f64) -> (String, String, f64) {
        (s.into(), d.into(), w)
    }

    #[test]
    fn blank_separated_names() {
        let (edges, names) = parse(
            Layout::Blanks { weighted: false },
            "# c\nalice bob\n bob\t\"carol\"  \n\nalice bob\n",
        )
        .unwrap();
        assert_eq!(
            edges,
            [
                e("alice", "bob", 1.0),
                e("bob", "\"carol\"", 1.0),
                e("alice", "bob", 1.0)
            ]
        );
        assert_eq!(names, 3, "each distinct name once");
        let (edges, _) = parse(Layout::Blanks { weighted: true }, "a b 2.5\n").unwrap();
        assert_eq!(edges, [e("a", "b", 2.5)]);
        let err = parse(Layout::Blanks { weighted: false }, "a b\nlonely\n").unwrap_err();
        assert!(
            err.starts_with("line 2: a line needs at least two columns, source and target"),
            "{err}"
        );
    }

    #[test]
    fn csv_quoting_rules() {
        let (edges, names) = csv(
            "\"Smith, J.\",bob\n \"say \"\"hi\"\"\" , \"\"\"\"\nx,\"a\"\"\"\n12,007\n",
            None,
        )
        .unwrap();
        assert_eq!(
            edges,
            [
                e("Smith, J.", "bob", 1.0),
                e("say \"hi\"", "\"", 1.0),
                e("x", "a\"", 1.0),
                e("12", "007", 1.0),
            ]
        );
        assert_eq!(names, 8);
        let (edges, _) = csv("u1,u2,0.5\n", Some(2)).unwrap();
        assert_eq!(edges, [e("u1", "u2", 0.5)]);
        let err = csv("a,\"\"\n", None).unwrap_err();
        assert!(err.contains("empty vertex id"), "{err}");
        let err = csv("a,b\n", Some(2)).unwrap_err();
        assert!(err.contains("missing weight"), "{err}");
    }

    #[test]
    fn vertex_lines() {
        let p = NamedParser(Layout::Vertices);
        let mut out = Vec::new();
        p.parse(0, b"x\ny extra\nx\n", &mut out).unwrap();
        assert_eq!(out[0].vertices.len(), 3);
        assert_eq!(out[0].names.len(), 2);
    }
}
