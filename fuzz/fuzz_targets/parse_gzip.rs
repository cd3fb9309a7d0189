//! The gzip wrapper: arbitrary bytes as a `.gz` file (mostly corrupt
//! streams), and arbitrary text gzipped whole (the decompressed path).

#![no_main]
use libfuzzer_sys::fuzz_target;
use outcore::ingest::parse::InputFormat;

mod common;

fuzz_target!(|data: &[u8]| {
    let Some((&ctl, body)) = data.split_first() else {
        return;
    };
    let opts = common::options(ctl);
    let format = [InputFormat::Snap, InputFormat::Csv, InputFormat::Bin32][ctl as usize % 3];
    let name = ["g.txt.gz", "g.csv.gz", "g.bin32.gz"][ctl as usize % 3];
    if ctl & 4 == 0 {
        common::drain(&[(name, body)], format, &opts);
    } else {
        use std::io::Write;
        let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        enc.write_all(body).expect("gzip in memory");
        let gz = enc.finish().expect("gzip in memory");
        common::drain(&[(name, &gz)], format, &opts);
    }
});
