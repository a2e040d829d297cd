#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation

/// ANSI colours, used only when stdout is a terminal and `NO_COLOR` is not set.
enum Color: String, Sendable {
    case red = "31", green = "32", yellow = "33", blue = "34", cyan = "36", dim = "2", bold = "1"

    /// Whether this run colours its output: stdout is a terminal and `NO_COLOR` is unset.
    static let enabled: Bool = isatty(STDOUT_FILENO) != 0 && ProcessInfo.processInfo.environment["NO_COLOR"] == nil

    /// `text` in this colour when colours are on, else `text` itself.
    func paint(_ text: String) -> String {
        Color.enabled && !text.isEmpty ? "\u{1B}[\(rawValue)m\(text)\u{1B}[0m" : text
    }
}

/// One table cell: its text and, on a terminal, its colour.
struct Cell: ExpressibleByStringLiteral, ExpressibleByStringInterpolation {
    var text: String
    var color: Color?

    init(_ text: String, color: Color? = nil) {
        self.text = text
        self.color = color
    }

    init(stringLiteral value: String) { self.init(value) }
}

/// Aligned text tables: columns padded to their widest cell, two spaces apart, no trailing
/// spaces. Widths count characters of the plain text; colour codes are added after padding.
enum Table {
    static func render(header: [String], rows: [[Cell]], rightAligned: Set<Int> = []) -> [String] {
        let all = [header.map { Cell($0, color: .bold) }] + rows
        let columns = all.map(\.count).max() ?? 0
        let widths = (0..<columns).map { column in
            all.map { column < $0.count ? $0[column].text.count : 0 }.max() ?? 0
        }
        return all.map { row in
            let cells = row.enumerated().map { column, cell in
                let padding = String(repeating: " ", count: widths[column] - cell.text.count)
                let text = cell.color?.paint(cell.text) ?? cell.text
                return rightAligned.contains(column) ? padding + text : text + padding
            }
            var line = cells.joined(separator: "  ")
            while line.hasSuffix(" ") { line.removeLast() }
            return line
        }
    }
}

/// How `docs-status` writes sizes, dates and progress for a person.
enum Format {
    /// Decimal units, one decimal: "512 B", "1.2 MB".
    static func bytes(_ bytes: Int64) -> String {
        for (name, size) in [("TB", 1e12), ("GB", 1e9), ("MB", 1e6), ("KB", 1e3)] where Double(bytes) >= size {
            let value = (Double(bytes) / size * 10).rounded() / 10
            return value == value.rounded() ? "\(Int64(value)) \(name)" : "\(value) \(name)"
        }
        return "\(bytes) B"
    }

    /// "2026-09-21 14:13:20", local time.
    static func dateTime(_ date: Date) -> String { format(date, "yyyy-MM-dd HH:mm:ss") }

    /// "2026-09-21 14:13", local time.
    static func minute(_ date: Date) -> String { format(date, "yyyy-MM-dd HH:mm") }

    private static func format(_ date: Date, _ pattern: String) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.dateFormat = pattern
        return formatter.string(from: date)
    }

    /// A whole percentage, rounded down (a transfer shows 100% only when it is done): "42%".
    static func percent(_ value: Double) -> String {
        "\(Int(min(100, max(0, value.isFinite ? value : 0)).rounded(.down)))%"
    }

    /// "[#######-------------]": `percent` of `width` cells filled.
    static func bar(_ percent: Double, width: Int = 20) -> String {
        let clamped = min(100, max(0, percent.isFinite ? percent : 0))
        let filled = Int((clamped / 100 * Double(width)).rounded(.down))
        return "[" + String(repeating: "#", count: filled) + String(repeating: "-", count: width - filled) + "]"
    }

    /// "1 file", "3 files".
    static func count(_ count: Int, _ noun: String) -> String {
        count == 1 ? "1 \(noun)" : "\(count) \(noun)s"
    }

    /// `path` inside the folder at `folder` ("." is the folder itself).
    static func join(_ folder: String, _ path: String) -> String {
        if path == "." || path.isEmpty { return folder }
        return folder.hasSuffix("/") ? folder + path : folder + "/" + path
    }
}
