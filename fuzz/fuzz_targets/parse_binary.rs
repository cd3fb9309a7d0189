//! bin32 and bin64 (weighted or not) on arbitrary bytes.

#![no_main]
use libfuzzer_sys::fuzz_target;
use outcore::ingest::parse::InputFormat;

mod common;

fuzz_target!(|data: &[u8]| {
    let Some((&ctl, body)) = data.split_first() else {
        return;
    };
    let mut opts = common::options(ctl);
    opts.ids = outcore::ingest::parse::IdKind::Int;
    match ctl & 1 {
        0 => common::drain(&[("g.bin32", body)], InputFormat::Bin32, &opts),
        _ => common::drain(&[("g.bin64", body)], InputFormat::Bin64, &opts),
    }
});
