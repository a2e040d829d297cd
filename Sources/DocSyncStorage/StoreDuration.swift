import Foundation

/// Durations as the store's settings write them: a number and a unit — `"30d"`, `"12h"`,
/// `"90m"`, `"45s"`, `"2w"`, `"1.5h"` — or a bare number of seconds (`"3600"`, `0`).
public enum StoreDuration {
    /// The units and their seconds, in the order messages list them.
    public static let units: [(suffix: Character, seconds: Double)] = [("s", 1), ("m", 60), ("h", 3600), ("d", 86_400), ("w", 604_800)]

    /// The seconds `text` stands for, or `nil` when it is not a duration (a negative, a
    /// number that is not finite, an unknown unit).
    public static func parse(_ text: String) -> TimeInterval? {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        guard let last = trimmed.last else { return nil }
        var number = Substring(trimmed)
        var multiplier = 1.0
        if let unit = units.first(where: { $0.suffix == Character(last.lowercased()) }) {
            number = number.dropLast()
            multiplier = unit.seconds
        }
        guard !number.isEmpty, number.allSatisfy({ $0.isASCII && ($0.isNumber || $0 == ".") }),
              let value = Double(number), value.isFinite, value >= 0
        else { return nil }
        return value * multiplier
    }

    /// `seconds` in the largest unit that writes it whole (`2592000` → `"30d"`), for messages
    /// and listings.
    public static func describe(_ seconds: TimeInterval) -> String {
        for unit in units.reversed() where seconds >= unit.seconds && seconds.truncatingRemainder(dividingBy: unit.seconds) == 0 {
            return "\(Int64(seconds / unit.seconds))\(unit.suffix)"
        }
        return seconds == seconds.rounded() ? "\(Int64(seconds))s" : "\(seconds)s"
    }
}
