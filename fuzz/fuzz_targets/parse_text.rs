//! Every text parser (snap, csv, tsv, mtx, ldbc) on arbitrary bytes, with
//! options from the first byte.

#![no_main]
use libfuzzer_sys::fuzz_target;
use outcore::ingest::parse::InputFormat;

mod common;

fuzz_target!(|data: &[u8]| {
    let Some((&ctl, body)) = data.split_first() else {
        return;
    };
    let opts = common::options(ctl);
    match ctl % 5 {
        0 => common::drain(&[("g.txt", body)], InputFormat::Snap, &opts),
        1 => common::drain(&[("g.csv", body)], InputFormat::Csv, &opts),
        2 => common::drain(&[("g.tsv", body)], InputFormat::Tsv, &opts),
        3 => common::drain(&[("g.mtx", body)], InputFormat::Mtx, &opts),
        _ => {
            // LDBC: a vertex file and an edge file, split at the first NUL.
            let cut = body.iter().position(|&b| b == 0).unwrap_or(body.len());
            let (v, e) = (&body[..cut], body.get(cut + 1..).unwrap_or_default());
            common::drain(&[("g.v", v), ("g.e", e)], InputFormat::Ldbc, &opts)
        }
    }
});
