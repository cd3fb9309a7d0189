//! Arrow columns into edges: integer ids of any width (negative ones
//! refused), string, binary and dictionary ids as names, integer or float
//! weights; a null anywhere is refused. A fault names its row in the batch;
//! the caller adds the file and group.

use std::borrow::Cow;

use arrow_array::cast::AsArray;
use arrow_array::types::*;
use arrow_array::{Array, ArrowPrimitiveType};
use arrow_schema::DataType;

use super::super::lex::Fault;
use super::super::named::{NamedEdge, Namer};
use crate::ingest::RawEdge;

/// What is wrong at a row of a batch.
pub(crate) struct RowFault {
    pub row: usize,
    pub what: String,
    /// In which column: 0 source, 1 target, 2 weight, when known.
    pub arg: Option<usize>,
}

fn fault(row: usize, what: impl Into<String>) -> RowFault {
    RowFault {
        row,
        what: what.into(),
        arg: None,
    }
}

impl RowFault {
    /// The fault, said to be in column `arg` (0 source, 1 target, 2 weight).
    fn arg(mut self, arg: usize) -> RowFault {
        self.arg = Some(arg);
        self
    }
}

/// Whether a column of type `t` can hold integer ids.
pub(crate) fn is_int(t: &DataType) -> bool {
    match t {
        DataType::Dictionary(_, v) => is_int(v),
        t => t.is_integer(),
    }
}

/// Whether a column of type `t` can hold string ids.
pub(crate) fn is_name(t: &DataType) -> bool {
    match t {
        DataType::Dictionary(_, v) => is_name(v),
        DataType::Utf8
        | DataType::LargeUtf8
        | DataType::Utf8View
        | DataType::Binary
        | DataType::LargeBinary
        | DataType::BinaryView
        | DataType::FixedSizeBinary(_) => true,
        _ => false,
    }
}

/// Whether a column of type `t` can hold weights.
pub(crate) fn is_weight(t: &DataType) -> bool {
    t.is_integer() || t.is_floating()
}

fn first_null(a: &dyn Array) -> Option<usize> {
    (a.null_count() > 0).then(|| (0..a.len()).find(|&i| a.is_null(i)).unwrap_or(0))
}

fn null_fault(a: &dyn Array, what: &str) -> Result<(), RowFault> {
    match first_null(a) {
        Some(row) => Err(fault(row, format!("null {what}"))),
        None => Ok(()),
    }
}

fn prim<T: ArrowPrimitiveType>(a: &dyn Array) -> &[T::Native] {
    a.as_primitive::<T>().values()
}

fn signed<T: Copy + Into<i64>>(vals: &[T], out: &mut Vec<u64>) -> Result<(), RowFault> {
    out.reserve(vals.len());
    for (i, &v) in vals.iter().enumerate() {
        let v: i64 = v.into();
        if v < 0 {
            return Err(fault(i, format!("negative vertex id {v}")));
        }
        out.push(v as u64);
    }
    Ok(())
}

/// The integer ids of column `a`, appended to `out`.
pub(crate) fn int_ids(a: &dyn Array, out: &mut Vec<u64>) -> Result<(), RowFault> {
    null_fault(a, "vertex id")?;
    let n = a.len();
    match a.data_type() {
        DataType::UInt8 => out.extend(prim::<UInt8Type>(a).iter().map(|&v| v as u64)),
        DataType::UInt16 => out.extend(prim::<UInt16Type>(a).iter().map(|&v| v as u64)),
        DataType::UInt32 => out.extend(prim::<UInt32Type>(a).iter().map(|&v| v as u64)),
        DataType::UInt64 => out.extend_from_slice(prim::<UInt64Type>(a)),
        DataType::Int8 => signed(prim::<Int8Type>(a), out)?,
        DataType::Int16 => signed(prim::<Int16Type>(a), out)?,
        DataType::Int32 => signed(prim::<Int32Type>(a), out)?,
        DataType::Int64 => signed(prim::<Int64Type>(a), out)?,
        DataType::Dictionary(_, _) => {
            let d = a.as_any_dictionary();
            let mut values = Vec::new();
            int_ids(d.values().as_ref(), &mut values)?;
            out.extend(d.normalized_keys().iter().map(|&k| values[k]));
        }
        t => return Err(fault(0, format!("vertex ids of type {t} are not integers"))),
    }
    debug_assert!(out.len() >= n);
    Ok(())
}

/// The weights of column `a`, appended to `out`.
pub(crate) fn weights(a: &dyn Array, out: &mut Vec<f64>) -> Result<(), RowFault> {
    null_fault(a, "weight")?;
    let start = out.len();
    macro_rules! widen {
        ($($dt:ident => $t:ty),*) => {
            match a.data_type() {
                $(DataType::$dt => out.extend(prim::<$t>(a).iter().map(|&v| v as f64)),)*
                DataType::Float16 => out.extend(prim::<Float16Type>(a).iter().map(|v| v.to_f64())),
                t => return Err(fault(0, format!("weights of type {t} are not numbers"))),
            }
        };
    }
    widen!(UInt8 => UInt8Type, UInt16 => UInt16Type, UInt32 => UInt32Type, UInt64 => UInt64Type,
           Int8 => Int8Type, Int16 => Int16Type, Int32 => Int32Type, Int64 => Int64Type,
           Float32 => Float32Type, Float64 => Float64Type);
    if let Some(i) = out[start..].iter().position(|w| !w.is_finite()) {
        return Err(fault(
            i,
            Fault::NonFiniteWeight.prefix().trim_end_matches("; "),
        ));
    }
    Ok(())
}

/// Row `i` of a column of names.
pub(crate) enum Names<'a> {
    Bytes(Box<dyn Fn(usize) -> &'a [u8] + 'a>),
    /// Integer ids read as names (`--ids string`): their decimal digits.
    Ints(Vec<u64>),
    Dict(Vec<usize>, Box<Names<'a>>),
}

impl<'a> Names<'a> {
    /// A column of names (or integers, named by their digits).
    pub(crate) fn of(a: &'a dyn Array) -> Result<Names<'a>, RowFault> {
        null_fault(a, "vertex id")?;
        Ok(match a.data_type() {
            DataType::Utf8 => {
                let s = a.as_string::<i32>();
                Names::Bytes(Box::new(move |i| s.value(i).as_bytes()))
            }
            DataType::LargeUtf8 => {
                let s = a.as_string::<i64>();
                Names::Bytes(Box::new(move |i| s.value(i).as_bytes()))
            }
            DataType::Utf8View => {
                let s = a.as_string_view();
                Names::Bytes(Box::new(move |i| s.value(i).as_bytes()))
            }
            DataType::Binary => {
                let s = a.as_binary::<i32>();
                Names::Bytes(Box::new(move |i| s.value(i)))
            }
            DataType::LargeBinary => {
                let s = a.as_binary::<i64>();
                Names::Bytes(Box::new(move |i| s.value(i)))
            }
            DataType::BinaryView => {
                let s = a.as_binary_view();
                Names::Bytes(Box::new(move |i| s.value(i)))
            }
            DataType::FixedSizeBinary(_) => {
                let s = a.as_fixed_size_binary();
                Names::Bytes(Box::new(move |i| s.value(i)))
            }
            DataType::Dictionary(_, _) => {
                let d = a.as_any_dictionary();
                Names::Dict(
                    d.normalized_keys(),
                    Box::new(Names::of(d.values().as_ref())?),
                )
            }
            _ => {
                let mut v = Vec::new();
                int_ids(a, &mut v)?;
                Names::Ints(v)
            }
        })
    }

    pub(crate) fn get(&self, i: usize) -> Cow<'_, [u8]> {
        match self {
            Names::Bytes(f) => Cow::Borrowed(f(i)),
            Names::Ints(v) => Cow::Owned(v[i].to_string().into_bytes()),
            Names::Dict(keys, values) => values.get(keys[i]),
        }
    }
}

/// Edges of a batch with integer ids (`w`: the weights, else 1.0).
pub(crate) fn edges(
    src: &dyn Array,
    dst: &dyn Array,
    w: Option<&dyn Array>,
) -> Result<Vec<RawEdge>, RowFault> {
    let (mut s, mut d, mut ws) = (Vec::new(), Vec::new(), Vec::new());
    int_ids(src, &mut s).map_err(|f| f.arg(0))?;
    int_ids(dst, &mut d).map_err(|f| f.arg(1))?;
    if let Some(w) = w {
        weights(w, &mut ws).map_err(|f| f.arg(2))?;
    }
    Ok((0..s.len())
        .map(|i| RawEdge {
            src: s[i],
            dst: d[i],
            weight: ws.get(i).copied().unwrap_or(1.0),
        })
        .collect())
}

/// Edges of a batch with string ids, as fingerprints, into `namer`.
pub(crate) fn named_edges(
    namer: &mut Namer,
    src: &dyn Array,
    dst: &dyn Array,
    w: Option<&dyn Array>,
) -> Result<(), RowFault> {
    let s = Names::of(src).map_err(|f| f.arg(0))?;
    let d = Names::of(dst).map_err(|f| f.arg(1))?;
    let mut ws = Vec::new();
    if let Some(w) = w {
        weights(w, &mut ws).map_err(|f| f.arg(2))?;
    }
    let name = |namer: &mut Namer, n: &[u8], i: usize, arg: usize| {
        namer
            .name(n)
            .map_err(|f| fault(i, f.prefix().trim_end_matches("; ")).arg(arg))
    };
    namer.batch.edges.reserve(src.len());
    for i in 0..src.len() {
        let src = name(namer, &s.get(i), i, 0)?;
        let dst = name(namer, &d.get(i), i, 1)?;
        let weight = ws.get(i).copied().unwrap_or(1.0);
        namer.batch.edges.push(NamedEdge { src, dst, weight });
    }
    Ok(())
}
