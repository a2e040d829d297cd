/// Sizes as docsync.toml writes them: `"50MB"`, `"512KiB"`, `"1.5 GB"`, or a number of bytes.
///
/// Units: `B`; `KB`, `MB`, `GB`, `TB` are powers of 1000; `KiB`, `MiB`, `GiB`, `TiB` powers of
/// 1024. Unit letters may be in any case (`mb` is MB, `mib` is MiB); a space between number
/// and unit is allowed. A fraction must come to a whole number of bytes.
public enum ByteSize {
    /// The units and their multipliers, in the order messages list them.
    public static let units: [(name: String, bytes: Int64)] = [
        ("B", 1),
        ("KB", 1_000), ("MB", 1_000_000), ("GB", 1_000_000_000), ("TB", 1_000_000_000_000),
        ("KiB", 1 << 10), ("MiB", 1 << 20), ("GiB", 1 << 30), ("TiB", 1 << 40),
    ]

    /// The number of bytes `text` stands for, or `nil` when it is not a size (unknown unit,
    /// not a number, not a whole number of bytes, too large). May be 0; never negative.
    public static func parse(_ text: String) -> Int64? {
        let trimmed = text.trimmingWhitespace()
        let unitStart = trimmed.firstIndex { !($0.isASCII && ($0.isNumber || $0 == ".")) } ?? trimmed.endIndex
        let number = String(trimmed[..<unitStart])
        let unitName = String(trimmed[unitStart...]).trimmingWhitespace()
        let multiplier: Int64
        if unitName.isEmpty {
            multiplier = 1
        } else if let unit = units.first(where: { $0.name.lowercased() == unitName.lowercased() }) {
            multiplier = unit.bytes
        } else {
            return nil
        }
        let parts = number.split(separator: ".", omittingEmptySubsequences: false)
        guard (1...2).contains(parts.count), let whole = Int64(parts[0]) else { return nil }
        var (bytes, overflow) = whole.multipliedReportingOverflow(by: multiplier)
        guard !overflow else { return nil }
        if parts.count == 2 {
            // fraction × multiplier must be whole: digits d over 10^k.
            let digits = parts[1]
            guard !digits.isEmpty, digits.count <= 18, let numerator = Int64(digits) else { return nil }
            var denominator: Int64 = 1
            for _ in digits { denominator *= 10 }
            let (scaled, overflowed) = numerator.multipliedReportingOverflow(by: multiplier)
            guard !overflowed, scaled % denominator == 0 else { return nil }
            (bytes, overflow) = bytes.addingReportingOverflow(scaled / denominator)
            guard !overflow else { return nil }
        }
        return bytes
    }
}

extension String {
    func trimmingWhitespace() -> String {
        String(drop(while: \.isWhitespace).reversed().drop(while: \.isWhitespace).reversed())
    }
}
