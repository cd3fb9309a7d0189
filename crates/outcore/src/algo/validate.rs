//! Graphalytics validation of an output file against an expected one.
//!
//! Both files hold one `id value` line per vertex (blank lines are skipped,
//! fields are separated by whitespace). They must have the same vertex count
//! and the same id set; then every vertex's value is compared by a [`Rule`].

use crate::error::{Error, IoContext, Result};
use std::collections::{BTreeMap, HashMap};
use std::fmt::Write as _;
use std::path::Path;

/// How values are compared (Graphalytics validation rules).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Rule {
    /// The same value (BFS, CDLP). Integers compare as integers, anything
    /// else as a float if both parse as one, else as text.
    Exact,
    /// The same partition: a one-to-one mapping between the got and the
    /// expected labels (WCC).
    Equivalence,
    /// `|got - expected| <= 1e-4 * |expected|` (PR, LCC, SSSP): an expected 0
    /// needs exactly 0, an infinity only matches the same infinity, NaN
    /// matches nothing.
    Epsilon,
}

/// The relative tolerance of [`Rule::Epsilon`].
pub const EPSILON: f64 = 1e-4;

/// How many mismatches an error lists.
const SHOW: usize = 10;

/// The rule of a Graphalytics algorithm: "bfs", "cdlp", "wcc", "pr", "lcc", "sssp" (any case).
pub fn rule_for(algorithm: &str) -> Option<Rule> {
    match algorithm.to_ascii_lowercase().as_str() {
        "bfs" | "cdlp" => Some(Rule::Exact),
        "wcc" => Some(Rule::Equivalence),
        "pr" | "lcc" | "sssp" => Some(Rule::Epsilon),
        _ => None,
    }
}

/// Returns Ok(()) or Err(Error::Invalid) describing the first mismatches (vertex id, got, expected), the vertex-count / id-set difference, etc.
/// A malformed line is an [`Error::Parse`] naming the file and line.
pub fn validate(got: &Path, expected: &Path, rule: Rule) -> Result<()> {
    let g = std::fs::read_to_string(got).at(got)?;
    let e = std::fs::read_to_string(expected).at(expected)?;
    check(&g, got, &e, expected, rule)
}

/// [`validate`] on texts (parse errors name `<got>` / `<expected>`).
pub fn validate_text(got: &str, expected: &str, rule: Rule) -> Result<()> {
    check(
        got,
        Path::new("<got>"),
        expected,
        Path::new("<expected>"),
        rule,
    )
}

/// Parses `id value` lines into a map; duplicate ids are errors.
fn parse<'a>(text: &'a str, path: &Path) -> Result<BTreeMap<u64, &'a str>> {
    let mut map = BTreeMap::new();
    for (i, line) in text.lines().enumerate() {
        let lineno = i as u64 + 1;
        let mut fields = line.split_whitespace();
        let Some(id) = fields.next() else { continue };
        let (Some(value), None) = (fields.next(), fields.next()) else {
            return Err(Error::parse(
                path,
                lineno,
                line.as_bytes(),
                "`id value` (two fields)",
            ));
        };
        let id: u64 = id.parse().map_err(|_| {
            Error::parse(
                path,
                lineno,
                line.as_bytes(),
                "an unsigned 64-bit vertex id",
            )
        })?;
        if map.insert(id, value).is_some() {
            return Err(Error::parse(
                path,
                lineno,
                line.as_bytes(),
                format!("each vertex once (vertex {id} appears again)"),
            ));
        }
    }
    Ok(map)
}

fn parse_float(s: &str, path: &Path, id: u64) -> Result<f64> {
    s.parse::<f64>().map_err(|_| {
        Error::Invalid(format!(
            "{}: vertex {id}: `{s}` is not a number",
            path.display()
        ))
    })
}

fn exact_eq(a: &str, b: &str) -> bool {
    if a == b {
        return true;
    }
    if let (Ok(x), Ok(y)) = (a.parse::<i128>(), b.parse::<i128>()) {
        return x == y;
    }
    if let (Ok(x), Ok(y)) = (a.parse::<f64>(), b.parse::<f64>()) {
        return x == y;
    }
    false
}

fn epsilon_eq(got: f64, expected: f64) -> bool {
    if got.is_nan() || expected.is_nan() {
        return false;
    }
    if got.is_infinite() || expected.is_infinite() {
        return got == expected;
    }
    (got - expected).abs() <= EPSILON * expected.abs()
}

fn list(ids: &[u64]) -> String {
    let mut s = ids
        .iter()
        .take(SHOW)
        .map(|i| i.to_string())
        .collect::<Vec<_>>()
        .join(", ");
    if ids.len() > SHOW {
        s.push_str(", ...");
    }
    s
}

fn check(got: &str, got_path: &Path, expected: &str, exp_path: &Path, rule: Rule) -> Result<()> {
    let g = parse(got, got_path)?;
    let e = parse(expected, exp_path)?;
    let mut problems: Vec<String> = Vec::new();
    if g.len() != e.len() {
        problems.push(format!("{} vertices, expected {}", g.len(), e.len()));
    }
    let missing: Vec<u64> = e.keys().filter(|id| !g.contains_key(id)).copied().collect();
    let extra: Vec<u64> = g.keys().filter(|id| !e.contains_key(id)).copied().collect();
    if !missing.is_empty() {
        problems.push(format!(
            "{} expected vertices missing ({})",
            missing.len(),
            list(&missing)
        ));
    }
    if !extra.is_empty() {
        problems.push(format!(
            "{} vertices not expected ({})",
            extra.len(),
            list(&extra)
        ));
    }

    let mut wrong = 0u64;
    let mut shown = String::new();
    let mut note = |id: u64, gv: &str, ev: &str, why: &str| {
        wrong += 1;
        if wrong as usize <= SHOW {
            let _ = write!(shown, "\n  vertex {id}: got {gv}, expected {ev}{why}");
        }
    };
    // Equivalence: label maps in both directions, built in id order.
    let mut g2e: HashMap<&str, (&str, u64)> = HashMap::new();
    let mut e2g: HashMap<&str, (&str, u64)> = HashMap::new();
    for (&id, &ev) in &e {
        let Some(&gv) = g.get(&id) else { continue };
        match rule {
            Rule::Exact => {
                if !exact_eq(gv, ev) {
                    note(id, gv, ev, "");
                }
            }
            Rule::Epsilon => {
                let (x, y) = (
                    parse_float(gv, got_path, id)?,
                    parse_float(ev, exp_path, id)?,
                );
                if !epsilon_eq(x, y) {
                    let why = if y.is_finite() && x.is_finite() {
                        format!(" (|diff| {:e} > {EPSILON:e} * |expected|)", (x - y).abs())
                    } else {
                        String::new()
                    };
                    note(id, gv, ev, &why);
                }
            }
            Rule::Equivalence => {
                let (ge, ge_id) = *g2e.entry(gv).or_insert((ev, id));
                let (eg, eg_id) = *e2g.entry(ev).or_insert((gv, id));
                if ge != ev {
                    note(
                        id,
                        gv,
                        ev,
                        &format!(
                            " (but vertex {ge_id} also has got label {gv} with expected label {ge}: \
                             got merges two expected components)"
                        ),
                    );
                } else if eg != gv {
                    note(
                        id,
                        gv,
                        ev,
                        &format!(
                            " (but vertex {eg_id} has expected label {ev} with got label {eg}: \
                             got splits an expected component)"
                        ),
                    );
                }
            }
        }
    }
    if wrong > 0 {
        let what = match rule {
            Rule::Exact => "values differ",
            Rule::Epsilon => "values differ by more than the relative tolerance 1e-4",
            Rule::Equivalence => "vertices are not in the expected partition",
        };
        let more = if wrong as usize > SHOW {
            format!("\n  ... and {} more", wrong as usize - SHOW)
        } else {
            String::new()
        };
        problems.push(format!("{wrong} {what}:{shown}{more}"));
    }
    if problems.is_empty() {
        Ok(())
    } else {
        Err(Error::Invalid(format!(
            "validation failed ({rule:?} rule): {}",
            problems.join("; ")
        )))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn msg(r: Result<()>) -> String {
        match r {
            Err(Error::Invalid(m)) => m,
            other => panic!("expected Error::Invalid, got {other:?}"),
        }
    }

    #[test]
    fn rules() {
        assert_eq!(rule_for("bfs"), Some(Rule::Exact));
        assert_eq!(rule_for("CDLP"), Some(Rule::Exact));
        assert_eq!(rule_for("wcc"), Some(Rule::Equivalence));
        for a in ["pr", "lcc", "sssp", "PR"] {
            assert_eq!(rule_for(a), Some(Rule::Epsilon));
        }
        assert_eq!(rule_for("kcore"), None);
    }

    const EXPECTED: &str = "1 0\n2 9223372036854775807\n3 1\n";

    #[test]
    fn exact() {
        validate_text(EXPECTED, EXPECTED, Rule::Exact).unwrap();
        // Line order and spacing do not matter.
        validate_text("3\t1\n\n1  0\n2 9223372036854775807", EXPECTED, Rule::Exact).unwrap();
        let m = msg(validate_text(
            "1 0\n2 9223372036854775806\n3 1\n",
            EXPECTED,
            Rule::Exact,
        ));
        assert!(
            m.contains("vertex 2: got 9223372036854775806, expected 9223372036854775807"),
            "{m}"
        );
    }

    #[test]
    fn missing_extra_and_duplicate_vertices() {
        let m = msg(validate_text("1 0\n3 1\n", EXPECTED, Rule::Exact));
        assert!(
            m.contains("2 vertices, expected 3") && m.contains("missing (2)"),
            "{m}"
        );
        let m = msg(validate_text(
            "1 0\n2 9223372036854775807\n3 1\n4 2\n",
            EXPECTED,
            Rule::Exact,
        ));
        assert!(
            m.contains("4 vertices, expected 3") && m.contains("not expected (4)"),
            "{m}"
        );
        // Same count, different ids.
        let m = msg(validate_text(
            "1 0\n2 9223372036854775807\n5 1\n",
            EXPECTED,
            Rule::Exact,
        ));
        assert!(
            m.contains("missing (3)") && m.contains("not expected (5)"),
            "{m}"
        );
        assert!(!m.contains("vertices, expected"), "{m}");
        match validate_text("1 0\n1 0\n3 1\n", EXPECTED, Rule::Exact) {
            Err(Error::Parse { line: 2, .. }) => {}
            other => panic!("{other:?}"),
        }
        match validate_text("1 0\n2\n3 1\n", EXPECTED, Rule::Exact) {
            Err(Error::Parse { line: 2, .. }) => {}
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn epsilon() {
        let e = "1 1.000000000000000e+00\n2 0.000000000000000e+00\n3 infinity\n";
        validate_text(e, e, Rule::Epsilon).unwrap();
        validate_text("1 1.00009\n2 0\n3 inf\n", e, Rule::Epsilon).unwrap();
        validate_text("1 0.99991\n2 -0.0\n3 Infinity\n", e, Rule::Epsilon).unwrap();
        let m = msg(validate_text(
            "1 1.0002\n2 0\n3 infinity\n",
            e,
            Rule::Epsilon,
        ));
        assert!(m.contains("vertex 1: got 1.0002"), "{m}");
        let m = msg(validate_text(
            "1 1\n2 1e-300\n3 infinity\n",
            e,
            Rule::Epsilon,
        ));
        assert!(m.contains("vertex 2"), "{m}");
        let m = msg(validate_text("1 1\n2 0\n3 1e308\n", e, Rule::Epsilon));
        assert!(m.contains("vertex 3"), "{m}");
        let m = msg(validate_text(
            "1 infinity\n2 0\n3 infinity\n",
            e,
            Rule::Epsilon,
        ));
        assert!(m.contains("vertex 1"), "{m}");
        let m = msg(validate_text("1 nan\n2 0\n3 infinity\n", e, Rule::Epsilon));
        assert!(m.contains("vertex 1"), "{m}");
        let m = msg(validate_text("1 one\n2 0\n3 infinity\n", e, Rule::Epsilon));
        assert!(m.contains("`one` is not a number"), "{m}");
    }

    #[test]
    fn equivalence() {
        let e = "1 1\n2 1\n3 3\n4 3\n5 5\n";
        validate_text(e, e, Rule::Equivalence).unwrap();
        // Relabelled: the same partition.
        validate_text("1 9\n2 9\n3 1\n4 1\n5 3\n", e, Rule::Equivalence).unwrap();
        // Merges two components.
        let m = msg(validate_text(
            "1 1\n2 1\n3 1\n4 1\n5 5\n",
            e,
            Rule::Equivalence,
        ));
        assert!(m.contains("merges"), "{m}");
        // Splits one.
        let m = msg(validate_text(
            "1 1\n2 2\n3 3\n4 3\n5 5\n",
            e,
            Rule::Equivalence,
        ));
        assert!(m.contains("vertex 2") && m.contains("splits"), "{m}");
        // Exact would reject the relabelling.
        assert!(validate_text("1 9\n2 9\n3 1\n4 1\n5 3\n", e, Rule::Exact).is_err());
    }

    #[test]
    fn many_mismatches_are_summarised() {
        let e: String = (0..100).map(|i| format!("{i} {i}\n")).collect();
        let g: String = (0..100).map(|i| format!("{i} {}\n", i + 1)).collect();
        let m = msg(validate_text(&g, &e, Rule::Exact));
        assert!(
            m.contains("100 values differ") && m.contains("and 90 more"),
            "{m}"
        );
        assert_eq!(m.matches("\n  vertex").count(), SHOW);
    }

    #[test]
    fn files() {
        let tmp = tempfile::tempdir().unwrap();
        let (g, e) = (tmp.path().join("got"), tmp.path().join("exp"));
        std::fs::write(&e, "1 1\n2 1\n").unwrap();
        std::fs::write(&g, "2 7\n1 7\n").unwrap();
        validate(&g, &e, Rule::Equivalence).unwrap();
        assert!(validate(&g, &e, Rule::Exact).is_err());
        std::fs::write(&g, "1 x y\n").unwrap();
        match validate(&g, &e, Rule::Exact) {
            Err(Error::Parse { path, line: 1, .. }) => assert_eq!(path, g),
            other => panic!("{other:?}"),
        }
        assert!(matches!(
            validate(&tmp.path().join("none"), &e, Rule::Exact),
            Err(Error::Io { .. })
        ));
    }
}
