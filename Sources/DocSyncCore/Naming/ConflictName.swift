import Foundation

/// Names of conflict copies (SPEC §4): `<stem> (conflict <device> <YYYY-MM-DD HH.MM.SS>)<.ext>`.
///
/// Pure: the time and the "is this name taken?" question are passed in. Every name made here
/// is a valid `RelativePath` component (1–255 bytes, no `/`, no NUL, never `.` or `..`), and
/// `isConflictCopy`/`originalName` recognise every name `copyPath` makes (except in the
/// degenerate case of a parent path so long that the conflict label itself does not fit).
public enum ConflictName {
    /// The most bytes of the device name used in a copy's name; longer names are shortened
    /// (on a character boundary) so the file's own name keeps most of the 255 bytes.
    public static let maximumDeviceBytes = 64

    /// The path of a conflict copy of `path`, in the same parent directory.
    ///
    /// The name is `<stem> (conflict <device> <YYYY-MM-DD HH.MM.SS>)<.ext>` with `stem` and `ext`
    /// from `split(_:)`, the time (whole seconds, rounded down) in `timeZone`. While `isTaken`
    /// says a candidate is taken, the next one numbers the copy inside the parentheses:
    /// `report (conflict laptop 2026-11-22 10.04.05 2).pdf`, then ` 3`, and so on; `isTaken`
    /// must eventually answer `false`. `device` is made safe (see `safeDevice(_:)`). The name is
    /// kept within 255 bytes, and the whole path within 4,096, by shortening the stem on a
    /// character boundary; the extension is kept unless even a one-character stem would not fit.
    public static func copyPath(
        for path: RelativePath, device: String, time: Timestamp, timeZone: TimeZone = .current,
        isTaken: (RelativePath) -> Bool
    ) -> RelativePath {
        let parent = path.parent
        let parentBytes = parent.map { $0.string.utf8.count + 1 } ?? 0
        let budget = min(255, 4096 - parentBytes)
        let (stem, ext) = split(path.name)
        let head = " (conflict \(safeDevice(device)) \(format(time, in: timeZone))"
        var number = 1
        while true {
            let tail = number == 1 ? ")" : " \(number))"
            let name = compose(stem: stem, ext: ext, head: head, tail: tail, budget: budget)
            let candidate = parent.map { RelativePath($0.string + "/" + name) } ?? RelativePath(name)
            if !isTaken(candidate) { return candidate }
            number += 1
        }
    }

    /// True when `name` has the form of a conflict copy, as `copyPath` makes them.
    public static func isConflictCopy(_ name: String) -> Bool { originalName(of: name) != nil }

    /// The original name a conflict copy was made from, or `nil` when `name` is not a conflict copy.
    ///
    /// For a copy of a copy, the name of the copy it was made from (one level is removed).
    /// For a copy whose stem was shortened, the shortened name.
    public static func originalName(of name: String) -> String? { parseCopy(name)?.original }

    /// The device a conflict copy's name carries (as `safeDevice` wrote it), or `nil` when
    /// `name` is not a conflict copy. For a copy of a copy, the device that made the last one
    /// (the label `originalName(of:)` removes).
    public static func device(of name: String) -> String? { parseCopy(name)?.device }

    /// A conflict copy's name read back: the original name and the device in its label.
    private static func parseCopy(_ name: String) -> (original: String, device: String)? {
        let marker = " (conflict "
        var searchEnd = name.endIndex
        // The last marker first: a copy of a copy names the copy it was made from.
        while let markerRange = name.range(of: marker, options: .backwards, range: name.startIndex..<searchEnd) {
            // Next, markers starting earlier — including one overlapping this one (a device
            // name may itself start with "(conflict ").
            searchEnd = name.index(before: markerRange.upperBound)
            let afterMarker = name[markerRange.upperBound...]
            // The device may itself contain ')', so try every closing parenthesis.
            var closeSearch = afterMarker.startIndex
            while let close = afterMarker[closeSearch...].firstIndex(of: ")") {
                closeSearch = afterMarker.index(after: close)
                let rest = afterMarker[closeSearch...]
                guard rest.isEmpty || isExtension(rest), let device = device(inLabel: afterMarker[..<close]) else { continue }
                let original = String(name[..<markerRange.lowerBound]) + rest
                if original.isEmpty || original == "." || original == ".." { continue }
                return (original, device)
            }
        }
        return nil
    }

    /// Splits a file name into stem and extension at its last `.`, when that dot is neither the
    /// first nor the last character: `"a.tar.gz"` → `("a.tar", ".gz")`, `".bashrc"` →
    /// `(".bashrc", "")`, `"Makefile"` → `("Makefile", "")`, `"x."` → `("x.", "")`,
    /// `"report.final.pdf"` → `("report.final", ".pdf")`. `stem + ext == name` always.
    public static func split(_ name: String) -> (stem: String, ext: String) {
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex, name.index(after: dot) != name.endIndex else {
            return (name, "")
        }
        return (String(name[..<dot]), String(name[dot...]))
    }

    /// `device` as it appears in a copy's name: `/`, `\` and control characters (including
    /// newlines and NUL) become `-`, an empty name becomes `unknown`, and a name longer than
    /// `maximumDeviceBytes` is shortened on a character boundary.
    public static func safeDevice(_ device: String) -> String {
        var safe = ""
        for character in device {
            let unsafe = character == "/" || character == "\\"
                || character.unicodeScalars.contains { $0.properties.generalCategory == .control }
            safe.append(unsafe ? "-" : character)
        }
        if safe.isEmpty { return "unknown" }
        return truncated(safe, toBytes: maximumDeviceBytes)
    }

    /// `YYYY-MM-DD HH.MM.SS` for `time` (rounded down to the second) in `timeZone`.
    public static func format(_ time: Timestamp, in timeZone: TimeZone) -> String {
        let seconds = time.secondsAndNanoseconds.seconds
        let offset = Int64(timeZone.secondsFromGMT(for: Date(timeIntervalSince1970: TimeInterval(seconds))))
        let local = seconds + offset
        let days = floorDivide(local, 86_400)
        let secondOfDay = local - days * 86_400
        let (year, month, day) = civilDate(daysSince1970: days)
        func two(_ value: Int64) -> String { value < 10 ? "0\(value)" : "\(value)" }
        let yearText = year >= 0 && year < 1000 ? String(repeating: "0", count: 4 - "\(year)".count) + "\(year)" : "\(year)"
        return "\(yearText)-\(two(month))-\(two(day)) \(two(secondOfDay / 3600)).\(two(secondOfDay / 60 % 60)).\(two(secondOfDay % 60))"
    }

    // MARK: - Private

    /// stem + head + tail + ext within `budget` bytes, shortening the stem first, then (when
    /// not even one character of stem fits) folding the extension into the stem.
    private static func compose(stem: String, ext: String, head: String, tail: String, budget: Int) -> String {
        let label = head + tail
        if stem.utf8.count + label.utf8.count + ext.utf8.count <= budget { return stem + label + ext }
        let room = budget - label.utf8.count - ext.utf8.count
        if room > 0, case let short = truncated(stem, toBytes: room), !short.isEmpty { return short + label + ext }
        let whole = stem + ext
        let roomWithoutExt = budget - label.utf8.count
        if roomWithoutExt > 0, case let short = truncated(whole, toBytes: roomWithoutExt), !short.isEmpty {
            return short + label
        }
        // Degenerate: a parent path so long that not even the label fits. Keep the number (so
        // candidates stay distinct) and as much of the rest as fits.
        let kept = truncated(whole + head, toBytes: max(0, budget - tail.utf8.count))
        let name = truncated(kept + tail, toBytes: budget)
        return name == "." || name == ".." || name.isEmpty ? "_" : name
    }

    /// The longest prefix of `string` of at most `limit` UTF-8 bytes ending on a character
    /// (grapheme) boundary, or on a Unicode scalar boundary when not even one character fits.
    static func truncated(_ string: String, toBytes limit: Int) -> String {
        if string.utf8.count <= limit { return string }
        var bytes = 0
        var end = string.startIndex
        for index in string.indices {
            let next = string.index(after: index)
            let size = string.utf8.distance(from: index, to: next)
            if bytes + size > limit { break }
            bytes += size
            end = next
        }
        if end != string.startIndex { return String(string[..<end]) }
        var scalars = String.UnicodeScalarView()
        bytes = 0
        for scalar in string.unicodeScalars {
            let size = String(scalar).utf8.count
            if bytes + size > limit { break }
            bytes += size
            scalars.append(scalar)
        }
        return String(scalars)
    }

    /// The device of a copy's label, `<device> <YYYY-MM-DD HH.MM.SS>` with an optional
    /// ` <number>`, or nil when `label` is not one.
    private static func device(inLabel label: Substring) -> String? {
        if let device = deviceBeforeTime(label) { return device }
        guard let space = label.lastIndex(of: " ") else { return nil }
        let digits = label[label.index(after: space)...]
        guard !digits.isEmpty, digits.allSatisfy(\.isASCIIDigit) else { return nil }
        return deviceBeforeTime(label[..<space])
    }

    /// `text` without its trailing ` YYYY-MM-DD HH.MM.SS`, when it has one and something before it.
    private static func deviceBeforeTime(_ text: Substring) -> String? {
        let shape = Array(" dddd-dd-dd dd.dd.dd")
        let characters = Array(text)
        guard characters.count > shape.count else { return nil }
        let stamp = characters[(characters.count - shape.count)...]
        for (expected, actual) in zip(shape, stamp) {
            if expected == "d" ? !actual.isASCIIDigit : expected != actual { return nil }
        }
        return String(characters[..<(characters.count - shape.count)])
    }

    private static func isExtension(_ text: Substring) -> Bool {
        text.count >= 2 && text.first == "." && !text.dropFirst().contains(".")
    }

    private static func floorDivide(_ value: Int64, _ divisor: Int64) -> Int64 {
        let quotient = value / divisor
        return value % divisor < 0 ? quotient - 1 : quotient
    }

    /// Proleptic Gregorian (year, month, day) of a day count since 1970-01-01 (Hinnant's algorithm).
    private static func civilDate(daysSince1970 days: Int64) -> (Int64, Int64, Int64) {
        let z = days + 719_468
        let era = floorDivide(z, 146_097)
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let mp = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }
}

extension Character {
    fileprivate var isASCIIDigit: Bool { isASCII && isNumber }
}
