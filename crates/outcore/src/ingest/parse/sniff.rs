//! What a file is, from its first bytes: [`sniff`] names the formats that
//! are not text edge lists (compressed, columnar, archives, executables,
//! documents, databases, an outcore store's manifest), so they are refused
//! with the format's name instead of being read as lines of garbage, and
//! gzip is decompressed whatever the file is called. Parquet and Arrow IPC
//! are routed to their own reader ([`super::columnar`]) by the same bytes.

/// Bytes [`sniff`] looks at: a tar header's magic is at 257; NUL bytes are
/// looked for in the first 8000, as git does.
pub(crate) const HEAD: usize = 8000;

/// What the first bytes of a file say it is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kind {
    /// Nothing recognised, no NUL byte: read as text.
    Text,
    /// gzip (decompressed on the fly).
    Gzip,
    Bzip2,
    Xz,
    Zstd,
    Lz4,
    SevenZip,
    Zip,
    Tar,
    Parquet,
    ArrowIpc,
    Orc,
    Avro,
    Hdf5,
    Numpy,
    Sqlite,
    Pdf,
    Png,
    Jpeg,
    Gif,
    Elf,
    MachO,
    /// Text in UTF-16 (a byte-order mark, or NULs between ASCII bytes).
    Utf16,
    /// An outcore store's `manifest.json`.
    OutcoreManifest,
    /// Something else with a NUL byte in its first [`HEAD`] bytes.
    Binary,
}

impl Kind {
    /// The format's name for messages ("a Parquet file").
    pub(crate) fn name(self) -> &'static str {
        match self {
            Kind::Text => "text",
            Kind::Gzip => "gzip-compressed data",
            Kind::Bzip2 => "bzip2-compressed data",
            Kind::Xz => "xz-compressed data",
            Kind::Zstd => "zstd-compressed data",
            Kind::Lz4 => "lz4-compressed data",
            Kind::SevenZip => "a 7-Zip archive",
            Kind::Zip => "a zip archive",
            Kind::Tar => "a tar archive",
            Kind::Parquet => "a Parquet file",
            Kind::ArrowIpc => "an Arrow IPC (Feather v2) file",
            Kind::Orc => "an ORC file",
            Kind::Avro => "an Avro file",
            Kind::Hdf5 => "an HDF5 file",
            Kind::Numpy => "a NumPy .npy array",
            Kind::Sqlite => "an SQLite database",
            Kind::Pdf => "a PDF document",
            Kind::Png => "a PNG image",
            Kind::Jpeg => "a JPEG image",
            Kind::Gif => "a GIF image",
            Kind::Elf => "an ELF executable or library",
            Kind::MachO => "a Mach-O executable or library",
            Kind::Utf16 => "UTF-16 text",
            Kind::OutcoreManifest => "an outcore store's manifest",
            Kind::Binary => "binary data",
        }
    }

    /// What to do instead of reading it as a text edge list.
    pub(crate) fn hint(self) -> &'static str {
        match self {
            Kind::Text | Kind::Gzip => "",
            Kind::Bzip2 => "decompress it first (`bzcat FILE | outcore import - ...`)",
            Kind::Xz => "decompress it first (`xzcat FILE | outcore import - ...`)",
            Kind::Zstd => "decompress it first (`zstdcat FILE | outcore import - ...`)",
            Kind::Lz4 => "decompress it first (`lz4cat FILE | outcore import - ...`)",
            Kind::SevenZip | Kind::Zip | Kind::Tar => {
                "extract the edge list from the archive and import that file"
            }
            Kind::Parquet => "Parquet is read with --format parquet, or without --format",
            Kind::ArrowIpc => "Arrow IPC is read with --format arrow, or without --format",
            Kind::Orc | Kind::Avro | Kind::Hdf5 | Kind::Numpy => {
                "write its source and target columns as csv (e.g. with pandas) and import that"
            }
            Kind::Sqlite => {
                "export the edge table as csv (`sqlite3 -csv DB 'SELECT src, dst FROM edges'`)"
            }
            Kind::Utf16 => "convert it to UTF-8 (`iconv -f UTF-16 -t UTF-8 FILE`)",
            Kind::OutcoreManifest => {
                "it is part of a store, which `outcore run` reads directly; \
                 `outcore export STORE` writes its edges as text"
            }
            Kind::Pdf
            | Kind::Png
            | Kind::Jpeg
            | Kind::Gif
            | Kind::Elf
            | Kind::MachO
            | Kind::Binary => "is this the file you meant? bin32/bin64 edge lists need --format",
        }
    }
}

/// What `head` (a file's first up to [`HEAD`] bytes) says the file is.
pub(crate) fn sniff(head: &[u8]) -> Kind {
    let starts = |m: &[u8]| head.starts_with(m);
    let magic: &[(&[u8], Kind)] = &[
        (b"\x1f\x8b", Kind::Gzip),
        (b"BZh", Kind::Bzip2),
        (b"\xfd7zXZ\x00", Kind::Xz),
        (b"\x28\xb5\x2f\xfd", Kind::Zstd),
        (b"\x04\x22\x4d\x18", Kind::Lz4),
        (b"7z\xbc\xaf\x27\x1c", Kind::SevenZip),
        (b"PK\x03\x04", Kind::Zip),
        (b"PK\x05\x06", Kind::Zip),
        (b"PAR1", Kind::Parquet),
        (b"ARROW1", Kind::ArrowIpc),
        (b"ORC", Kind::Orc),
        (b"Obj\x01", Kind::Avro),
        (b"\x89HDF\r\n\x1a\n", Kind::Hdf5),
        (b"\x93NUMPY", Kind::Numpy),
        (b"SQLite format 3\x00", Kind::Sqlite),
        (b"%PDF-", Kind::Pdf),
        (b"\x89PNG\r\n\x1a\n", Kind::Png),
        (b"\xff\xd8\xff", Kind::Jpeg),
        (b"GIF87a", Kind::Gif),
        (b"GIF89a", Kind::Gif),
        (b"\x7fELF", Kind::Elf),
        (b"\xfe\xed\xfa\xce", Kind::MachO),
        (b"\xfe\xed\xfa\xcf", Kind::MachO),
        (b"\xce\xfa\xed\xfe", Kind::MachO),
        (b"\xcf\xfa\xed\xfe", Kind::MachO),
        (b"\xff\xfe", Kind::Utf16),
        (b"\xfe\xff", Kind::Utf16),
    ];
    // A magic number of printable characters could begin a line of text
    // (a vertex named PAR1): it counts only before bytes that are not text
    // (a PDF's `%PDF-` would be a comment line: it always counts).
    let found = magic.iter().find(|(m, kind)| {
        starts(m) && (!m.iter().all(u8::is_ascii_graphic) || *kind == Kind::Pdf || !is_text(head))
    });
    if let Some(&(_, kind)) = found {
        return kind;
    }
    if head.get(257..262) == Some(b"ustar") {
        return Kind::Tar;
    }
    let text = head.trim_ascii_start();
    if text.starts_with(b"{") && contains(text, b"\"outcore-store\"") {
        return Kind::OutcoreManifest;
    }
    let head = &head[..head.len().min(HEAD)];
    if head.contains(&0) {
        // Mostly ASCII with a NUL beside each byte: UTF-16 without a
        // byte-order mark.
        let pairs = head.len() / 2;
        let nul_even = head.iter().step_by(2).filter(|&&b| b == 0).count();
        let nul_odd = head.iter().skip(1).step_by(2).filter(|&&b| b == 0).count();
        let utf16 = |nul: usize, other: usize| nul * 10 >= pairs * 9 && other * 10 <= pairs;
        if pairs >= 2 && (utf16(nul_even, nul_odd) || utf16(nul_odd, nul_even)) {
            return Kind::Utf16;
        }
        return Kind::Binary;
    }
    Kind::Text
}

/// Whether `head` is UTF-8 (a character cut at its end allowed) without
/// control characters other than tab, newline, carriage return and form feed.
fn is_text(head: &[u8]) -> bool {
    let valid = match std::str::from_utf8(head) {
        Ok(_) => true,
        Err(e) => e.error_len().is_none(),
    };
    valid
        && !head
            .iter()
            .any(|&b| (b < 0x20 && !matches!(b, b'\t' | b'\n' | b'\r' | 0x0c)) || b == 0x7f)
}

fn contains(hay: &[u8], needle: &[u8]) -> bool {
    hay.windows(needle.len()).any(|w| w == needle)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_by_their_first_bytes() {
        let cases: &[(&[u8], Kind)] = &[
            (b"1 2\n2 3\n", Kind::Text),
            (b"", Kind::Text),
            (b"# comment\n\xe9t\xe9 1\n", Kind::Text),
            (b"\x1f\x8b\x08\x00", Kind::Gzip),
            (b"BZh91AY&SY\x8a\x02", Kind::Bzip2),
            (b"\xfd7zXZ\x00\x00", Kind::Xz),
            (b"\x28\xb5\x2f\xfd\x04", Kind::Zstd),
            (b"7z\xbc\xaf\x27\x1c\x00\x04", Kind::SevenZip),
            (b"PK\x03\x04\x14\x00", Kind::Zip),
            (b"PAR1\x15\x04", Kind::Parquet),
            (b"PAR1 PAR2\nORC BZh\n", Kind::Text),
            (b"ORC\x11\x00", Kind::Orc),
            (b"ARROW1\x00\x00\xff\xff", Kind::ArrowIpc),
            (b"SQLite format 3\x00\x10\x00", Kind::Sqlite),
            (b"%PDF-1.7\n%\xe2\xe3", Kind::Pdf),
            (b"\x89PNG\r\n\x1a\n\x00\x00", Kind::Png),
            (b"\x7fELF\x02\x01\x01", Kind::Elf),
            (b"\xff\xfe1\x002\x00", Kind::Utf16),
            (b"1\x00 \x002\x00\n\x00", Kind::Utf16),
            (
                b"{\n  \"format\": \"outcore-store\",\n",
                Kind::OutcoreManifest,
            ),
            (b"1 2\n\x00\x01\x02\x03\x04", Kind::Binary),
            (&[0u8; 16], Kind::Binary),
        ];
        for (head, want) in cases {
            assert_eq!(sniff(head), *want, "{head:?}");
        }
        let mut tar = vec![b'a'; 512];
        tar[257..262].copy_from_slice(b"ustar");
        tar[100] = 0;
        assert_eq!(sniff(&tar), Kind::Tar);
    }
}
