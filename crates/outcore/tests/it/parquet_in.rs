//! Parquet and Arrow IPC inputs: every id and weight type builds, byte for
//! byte, the store the same edges build as text (every file but the
//! manifest's timings and input description), from one file, a directory
//! of files (a dataset) or an Arrow IPC file, whatever their names; nulls,
//! negative ids and corrupt files are errors that name the place and leave
//! no store behind.

use crate::common::{hub_edges, store_files};
use arrow_array::{
    ArrayRef, DictionaryArray, Float64Array, Int32Array, Int64Array, RecordBatch, StringArray,
    UInt32Array, UInt64Array,
};
use arrow_schema::{DataType, Field, Schema};
use outcore::api;
use outcore::ingest::build::BuildOptions;
use outcore::ingest::parse::{IdKind, ParseOptions};
use parquet::arrow::ArrowWriter;
use parquet::basic::Compression;
use parquet::file::properties::WriterProperties;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Writes `cols` as a Parquet file of row groups of `group` rows
/// (snappy), in batches of 700 rows.
fn write_parquet(path: &Path, cols: Vec<(&str, ArrayRef)>, group: usize) {
    let schema = Arc::new(Schema::new(
        cols.iter()
            .map(|(n, a)| Field::new(*n, a.data_type().clone(), true))
            .collect::<Vec<_>>(),
    ));
    let batch =
        RecordBatch::try_new(schema.clone(), cols.into_iter().map(|c| c.1).collect()).unwrap();
    let props = WriterProperties::builder()
        .set_max_row_group_row_count(Some(group))
        .set_compression(Compression::SNAPPY)
        .build();
    let mut w =
        ArrowWriter::try_new(std::fs::File::create(path).unwrap(), schema, Some(props)).unwrap();
    let mut at = 0;
    while at < batch.num_rows() {
        let n = 700.min(batch.num_rows() - at);
        w.write(&batch.slice(at, n)).unwrap();
        at += n;
    }
    w.close().unwrap();
}

/// The store files of an import of `inputs`, the manifest's input
/// description and format left out.
fn import(
    inputs: &[PathBuf],
    dir: &Path,
    name: &str,
    popts: &ParseOptions,
) -> BTreeMap<String, Vec<u8>> {
    let out = dir.join(name);
    let opts = BuildOptions {
        memory: 128 << 20,
        ..Default::default()
    };
    api::import(inputs, &out, None, popts, &opts).unwrap();
    let mut files = store_files(&out);
    let m = files.get_mut("manifest.json").unwrap();
    let mut j: serde_json::Value = serde_json::from_slice(m).unwrap();
    j["build"]["source"] = "".into();
    j["build"]["format"] = "".into();
    *m = j.to_string().into_bytes();
    files
}

fn text(edges: &[(u64, u64, f64)], weighted: bool) -> String {
    edges
        .iter()
        .map(|(s, d, w)| match weighted {
            true => format!("{s} {d} {w}\n"),
            false => format!("{s} {d}\n"),
        })
        .collect()
}

fn popts(weighted: bool) -> ParseOptions {
    ParseOptions {
        weighted,
        ids: IdKind::Auto,
        ..Default::default()
    }
}

fn assert_same(a: &BTreeMap<String, Vec<u8>>, b: &BTreeMap<String, Vec<u8>>, what: &str) {
    assert_eq!(
        a.keys().collect::<Vec<_>>(),
        b.keys().collect::<Vec<_>>(),
        "{what}"
    );
    for (k, v) in a {
        assert!(v == &b[k], "{what}: {k} differs");
    }
}

#[test]
fn every_id_and_weight_type_builds_the_store_text_builds() {
    let d = tempfile::tempdir().unwrap();
    let p = d.path();
    let edges: Vec<(u64, u64, f64)> = hub_edges(3000, 20_000, 7)
        .into_iter()
        .enumerate()
        .map(|(i, (s, t, _))| (s, t, (i % 13) as f64))
        .collect();
    let srcs: Vec<u64> = edges.iter().map(|e| e.0).collect();
    let dsts: Vec<u64> = edges.iter().map(|e| e.1).collect();
    let ws: Vec<f64> = edges.iter().map(|e| e.2).collect();
    type Ids = fn(&[u64]) -> ArrayRef;
    let id_types: [(&str, Ids); 3] = [
        ("u32", |v| {
            Arc::new(UInt32Array::from_iter_values(v.iter().map(|&x| x as u32)))
        }),
        ("u64", |v| {
            Arc::new(UInt64Array::from_iter_values(v.iter().copied()))
        }),
        ("i64", |v| {
            Arc::new(Int64Array::from_iter_values(v.iter().map(|&x| x as i64)))
        }),
    ];
    type Ws = fn(&[f64]) -> ArrayRef;
    let weight_types: [(&str, Ws); 2] = [
        ("f64", |v| {
            Arc::new(Float64Array::from_iter_values(v.iter().copied()))
        }),
        ("i32", |v| {
            Arc::new(Int32Array::from_iter_values(v.iter().map(|&x| x as i32)))
        }),
    ];
    for weighted in [false, true] {
        std::fs::write(p.join("g.txt"), text(&edges, weighted)).unwrap();
        let want = import(
            &[p.join("g.txt")],
            p,
            &format!("t{weighted}.oc"),
            &popts(weighted),
        );
        for (iname, ids) in &id_types {
            for (wname, w) in &weight_types {
                // A name that says nothing: found by its first bytes.
                let f = p.join(format!("{iname}-{wname}.dat"));
                write_parquet(
                    &f,
                    vec![("src", ids(&srcs)), ("dst", ids(&dsts)), ("weight", w(&ws))],
                    3000,
                );
                let got = import(
                    &[f],
                    p,
                    &format!("{iname}-{wname}-{weighted}.oc"),
                    &popts(weighted),
                );
                assert_same(
                    &got,
                    &want,
                    &format!("{iname} ids, {wname} weights, weighted {weighted}"),
                );
            }
        }
    }
}

#[test]
fn string_and_dictionary_ids_build_the_store_text_builds() {
    let d = tempfile::tempdir().unwrap();
    let p = d.path();
    let edges = hub_edges(500, 5000, 3);
    let name = |v: u64| format!("user-{v:x}");
    let lines: String = edges
        .iter()
        .map(|(s, t, _)| format!("{} {}\n", name(*s), name(*t)))
        .collect();
    std::fs::write(p.join("g.txt"), lines).unwrap();
    let want = import(&[p.join("g.txt")], p, "t.oc", &popts(false));
    let srcs: Vec<String> = edges.iter().map(|e| name(e.0)).collect();
    let dsts: Vec<String> = edges.iter().map(|e| name(e.1)).collect();
    let plain = p.join("plain.parquet");
    write_parquet(
        &plain,
        vec![
            ("a", Arc::new(StringArray::from(srcs.clone())) as ArrayRef),
            ("b", Arc::new(StringArray::from(dsts.clone()))),
        ],
        1000,
    );
    assert_same(
        &import(&[plain], p, "s.oc", &popts(false)),
        &want,
        "utf8 ids",
    );
    let dict = p.join("dict.parquet");
    let dict_col = |v: &[String]| -> ArrayRef {
        Arc::new(
            v.iter()
                .map(String::as_str)
                .collect::<DictionaryArray<arrow_array::types::Int32Type>>(),
        )
    };
    write_parquet(
        &dict,
        vec![("a", dict_col(&srcs)), ("b", dict_col(&dsts))],
        1000,
    );
    assert_same(
        &import(&[dict], p, "d.oc", &popts(false)),
        &want,
        "dictionary ids",
    );
}

#[test]
fn a_directory_of_parquet_files_is_one_input_in_path_order() {
    let d = tempfile::tempdir().unwrap();
    let p = d.path();
    let edges = hub_edges(2000, 9000, 5);
    std::fs::write(p.join("g.txt"), text(&edges, false)).unwrap();
    let want = import(&[p.join("g.txt")], p, "t.oc", &popts(false));
    // Hive-style partitions, a Spark marker file and a hidden file.
    let ds = p.join("ds");
    for (i, part) in edges.chunks(3000).enumerate() {
        let dir = ds.join(format!("day={i}"));
        std::fs::create_dir_all(&dir).unwrap();
        let ids = |f: fn(&(u64, u64, f64)) -> u64| -> ArrayRef {
            Arc::new(UInt64Array::from_iter_values(part.iter().map(f)))
        };
        write_parquet(
            &dir.join("part-0.parquet"),
            vec![("s", ids(|e| e.0)), ("t", ids(|e| e.1))],
            1000,
        );
    }
    std::fs::write(ds.join("_SUCCESS"), "").unwrap();
    std::fs::write(ds.join(".crc"), "junk").unwrap();
    assert_same(&import(&[ds], p, "ds.oc", &popts(false)), &want, "dataset");
}

#[test]
fn an_arrow_ipc_file_builds_the_store_text_builds() {
    let d = tempfile::tempdir().unwrap();
    let p = d.path();
    let edges = hub_edges(2000, 9000, 9);
    std::fs::write(p.join("g.txt"), text(&edges, true)).unwrap();
    let want = import(&[p.join("g.txt")], p, "t.oc", &popts(true));
    let schema = Arc::new(Schema::new(vec![
        Field::new("src", DataType::Int32, false),
        Field::new("dst", DataType::Int32, false),
        Field::new("w", DataType::Float64, false),
    ]));
    let f = p.join("edges.arrow");
    let mut w = arrow_ipc::writer::FileWriter::try_new(std::fs::File::create(&f).unwrap(), &schema)
        .unwrap();
    for part in edges.chunks(1234) {
        let col = |g: fn(&(u64, u64, f64)) -> u64| -> ArrayRef {
            Arc::new(Int32Array::from_iter_values(
                part.iter().map(|e| g(e) as i32),
            ))
        };
        let b = RecordBatch::try_new(
            schema.clone(),
            vec![
                col(|e| e.0),
                col(|e| e.1),
                Arc::new(Float64Array::from_iter_values(part.iter().map(|e| e.2))),
            ],
        )
        .unwrap();
        w.write(&b).unwrap();
    }
    w.finish().unwrap();
    assert_same(&import(&[f], p, "a.oc", &popts(true)), &want, "arrow ipc");
}

/// The error of importing `f`, and that no store was left behind.
fn import_error(f: &Path, weighted: bool) -> String {
    let out = f.with_extension("oc");
    let opts = BuildOptions {
        memory: 128 << 20,
        ..Default::default()
    };
    let e = match api::import(&[f.to_path_buf()], &out, None, &popts(weighted), &opts) {
        Ok(_) => panic!("importing {} should fail", f.display()),
        Err(e) => e.to_string(),
    };
    assert!(!out.exists(), "a store was left behind: {e}");
    e
}

#[test]
fn nulls_and_negative_ids_name_the_file_row_group_and_row() {
    let d = tempfile::tempdir().unwrap();
    let p = d.path();
    let n = 2500u64;
    let mut src: Vec<Option<u64>> = (0..n).map(Some).collect();
    src[2345] = None;
    let dst: ArrayRef = Arc::new(UInt64Array::from_iter_values((0..n).map(|i| (i * 7) % n)));
    let f = p.join("nulls.parquet");
    write_parquet(
        &f,
        vec![
            ("s", Arc::new(UInt64Array::from(src)) as ArrayRef),
            ("t", dst.clone()),
        ],
        1000,
    );
    let e = import_error(&f, false);
    assert!(e.contains("nulls.parquet: row group 2, row 345"), "{e}");
    assert!(e.contains("null vertex id"), "{e}");

    let neg: ArrayRef = Arc::new(Int64Array::from_iter_values((0..n as i64).map(|i| {
        if i == 1500 {
            -3
        } else {
            i
        }
    })));
    let f = p.join("neg.parquet");
    write_parquet(&f, vec![("s", dst.clone()), ("t", neg)], 1000);
    let e = import_error(&f, false);
    assert!(e.contains("neg.parquet: row group 1, row 500"), "{e}");
    assert!(e.contains("negative vertex id -3"), "{e}");

    let mut w: Vec<Option<f64>> = (0..n).map(|i| Some(i as f64)).collect();
    w[7] = None;
    let f = p.join("nullw.parquet");
    write_parquet(
        &f,
        vec![
            ("s", dst.clone()),
            ("t", dst),
            ("w", Arc::new(Float64Array::from(w))),
        ],
        1000,
    );
    let e = import_error(&f, true);
    assert!(
        e.contains("nullw.parquet: row group 0, row 7") && e.contains("null weight"),
        "{e}"
    );
}

#[test]
fn a_corrupt_parquet_file_is_an_error_and_leaves_no_store() {
    let d = tempfile::tempdir().unwrap();
    let p = d.path();
    let n = 200_000u64;
    let ids = |m: u64| -> ArrayRef {
        Arc::new(UInt64Array::from_iter_values(
            (0..n).map(|i| (i * m) % 100_003),
        ))
    };
    let f = p.join("good.parquet");
    write_parquet(&f, vec![("s", ids(3)), ("t", ids(11))], 50_000);
    let bytes = std::fs::read(&f).unwrap();
    // Cut short: the footer is gone.
    let cut = p.join("cut.parquet");
    std::fs::write(&cut, &bytes[..bytes.len() / 2]).unwrap();
    let e = import_error(&cut, false);
    assert!(
        e.contains("cut.parquet") && e.contains("corrupt or truncated"),
        "{e}"
    );
    // Garbage in the middle of the data pages: found while streaming.
    let mut bad = bytes.clone();
    let mid = bytes.len() / 2;
    for b in &mut bad[mid..mid + 4096] {
        *b = 0xA5;
    }
    let bad_path = p.join("bad.parquet");
    std::fs::write(&bad_path, &bad).unwrap();
    let e = import_error(&bad_path, false);
    assert!(
        e.contains("bad.parquet: row group") && e.contains("corrupt or truncated"),
        "{e}"
    );
}
