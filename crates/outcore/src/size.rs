//! Human-written byte sizes: `512MiB`, `4GiB`, `512M`, `4G`, `1.5G`, `4GB`, `65536`.

use crate::error::{Error, Result};

/// Parses a size. `KiB`/`MiB`/`GiB`/`TiB` and the bare letters K/M/G/T are
/// powers of 1024 (`--memory 4G` is 4 GiB, as with `java -Xmx` or `sort
/// -S`); `kB`/`MB`/`GB`/`TB` are powers of 1000 (SI, as disks are sold); a
/// bare number is bytes.
pub fn parse_size(text: &str) -> Result<u64> {
    let t = text.trim();
    let split = t
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(t.len());
    let (num, unit) = t.split_at(split);
    let bad = || {
        Error::Invalid(format!(
            "cannot read size `{text}`: expected a number with an optional unit, like 512MiB, 4GiB, 512M or 4G"
        ))
    };
    let value: f64 = num.parse().map_err(|_| bad())?;
    let mult: u64 = match unit.trim().to_ascii_lowercase().as_str() {
        "" | "b" => 1,
        "k" | "kib" => 1 << 10,
        "m" | "mib" => 1 << 20,
        "g" | "gib" => 1 << 30,
        "t" | "tib" => 1 << 40,
        "kb" => 1_000,
        "mb" => 1_000_000,
        "gb" => 1_000_000_000,
        "tb" => 1_000_000_000_000,
        _ => return Err(bad()),
    };
    let bytes = value * mult as f64;
    if !bytes.is_finite() || bytes < 0.0 || bytes > u64::MAX as f64 {
        return Err(bad());
    }
    Ok(bytes as u64)
}

/// Formats bytes for people: `1.50 GiB`.
pub fn format_size(bytes: u64) -> String {
    const UNITS: [&str; 5] = ["B", "KiB", "MiB", "GiB", "TiB"];
    let mut v = bytes as f64;
    let mut u = 0;
    while v >= 1024.0 && u + 1 < UNITS.len() {
        v /= 1024.0;
        u += 1;
    }
    if u == 0 {
        format!("{bytes} B")
    } else {
        format!("{v:.2} {}", UNITS[u])
    }
}

/// The largest size not above `bytes` that reads back as a `--memory`
/// value, to two decimals of its unit: `23.47GiB` for 23.475 GiB.
pub fn largest_size_arg(bytes: u64) -> String {
    const UNITS: [(&str, u64); 4] = [
        ("TiB", 1 << 40),
        ("GiB", 1 << 30),
        ("MiB", 1 << 20),
        ("KiB", 1 << 10),
    ];
    for (name, unit) in UNITS {
        if bytes >= unit {
            // Hundredths of the unit, rounded down.
            let h = (bytes as u128 * 100 / unit as u128) as u64;
            return format!("{}.{:02}{name}", h / 100, h % 100);
        }
    }
    bytes.to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes() {
        assert_eq!(parse_size("512MiB").unwrap(), 512 << 20);
        assert_eq!(parse_size("4GiB").unwrap(), 4 << 30);
        assert_eq!(parse_size("512M").unwrap(), 512 << 20);
        assert_eq!(parse_size("4G").unwrap(), 4 << 30);
        assert_eq!(parse_size("1.5G").unwrap(), 3 << 29);
        assert_eq!(parse_size("4096").unwrap(), 4096);
        assert_eq!(parse_size("64kb").unwrap(), 64_000);
        assert_eq!(parse_size("4GB").unwrap(), 4_000_000_000);
        assert_eq!(parse_size("4GiB").unwrap(), 4 << 30);
        assert_eq!(parse_size("1.5MB").unwrap(), 1_500_000);
        assert!(parse_size("lots").is_err());
        assert!(parse_size("12X").is_err());
        assert!(parse_size("").is_err());
        assert_eq!(format_size(3 << 29), "1.50 GiB");
        assert_eq!(format_size(12), "12 B");
        for b in [
            12,
            4095,
            1 << 30,
            (23 << 30) + (1 << 29) - 1,
            25_199_898_624,
            u64::MAX,
        ] {
            let arg = largest_size_arg(b);
            let back = parse_size(&arg).unwrap();
            assert!(
                back <= b && back as f64 >= b as f64 * 0.99,
                "{b}: {arg} = {back}"
            );
        }
        assert_eq!(largest_size_arg(3 << 29), "1.50GiB");
    }
}
