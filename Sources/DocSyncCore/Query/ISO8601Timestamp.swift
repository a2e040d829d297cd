/// The ISO 8601 dates of the predicate language, read and written exactly (nanoseconds),
/// without a date formatter.
///
/// Accepted: `2026-01-01` (midnight UTC), `2026-01-01T12:30`, `2026-01-01T12:30:00`,
/// `2026-01-01T12:30:00.123456789` (1–9 fraction digits), each time optionally followed by
/// `Z`, `+02:00`, `-0530` or `+02`; a time without a zone is UTC. `T` and `Z` may be lower
/// case. Dates must lie within what `Timestamp` holds (1677-09-21 to 2262-04-11).
public enum ISO8601Timestamp {
    /// Why a text is not a date, as a phrase for an error message.
    public struct Invalid: Error, Hashable, Sendable {
        public let reason: String
    }

    public static func parse(_ text: String) throws(Invalid) -> Timestamp {
        var reader = Reader(Array(text.utf8))
        let year = try reader.digits(4, "the year must have four digits")
        try reader.expect(UInt8(ascii: "-"), "expected '-' after the year")
        let month = try reader.digits(2, "the month must have two digits")
        try reader.expect(UInt8(ascii: "-"), "expected '-' after the month")
        let day = try reader.digits(2, "the day must have two digits")
        guard (1...12).contains(month) else { throw Invalid(reason: "month \(month) is not 01–12") }
        guard (1...daysIn(month: month, year: year)).contains(day) else {
            throw Invalid(reason: "day \(day) is not in month \(month) of \(year)")
        }
        var seconds = daysFromCivil(year: year, month: month, day: day) * 86_400
        var nanoseconds: Int64 = 0
        if reader.atEnd { return try timestamp(seconds, nanoseconds) }
        guard reader.take(UInt8(ascii: "T")) || reader.take(UInt8(ascii: "t")) else {
            throw Invalid(reason: "expected 'T' and a time after the date")
        }
        let hour = try reader.digits(2, "the hour must have two digits")
        try reader.expect(UInt8(ascii: ":"), "expected ':' after the hour")
        let minute = try reader.digits(2, "the minute must have two digits")
        var second: Int64 = 0
        if reader.take(UInt8(ascii: ":")) {
            second = try reader.digits(2, "the second must have two digits")
            if reader.take(UInt8(ascii: ".")) {
                var count = 0
                while let digit = reader.digit() {
                    count += 1
                    guard count <= 9 else { throw Invalid(reason: "at most 9 digits of a second (nanoseconds)") }
                    nanoseconds = nanoseconds * 10 + digit
                }
                guard count > 0 else { throw Invalid(reason: "expected digits after '.'") }
                for _ in count..<9 { nanoseconds *= 10 }
            }
        }
        guard hour <= 23 else { throw Invalid(reason: "hour \(hour) is not 00–23") }
        guard minute <= 59 else { throw Invalid(reason: "minute \(minute) is not 00–59") }
        guard second <= 59 else { throw Invalid(reason: "second \(second) is not 00–59") }
        seconds += hour * 3_600 + minute * 60 + second
        if reader.take(UInt8(ascii: "Z")) || reader.take(UInt8(ascii: "z")) {
            // UTC
        } else if let sign = reader.sign() {
            let offsetHours = try reader.digits(2, "the zone offset's hours must have two digits")
            var offsetMinutes: Int64 = 0
            if reader.take(UInt8(ascii: ":")) {
                offsetMinutes = try reader.digits(2, "the zone offset's minutes must have two digits")
            } else if !reader.atEnd {
                offsetMinutes = try reader.digits(2, "the zone offset's minutes must have two digits")
            }
            guard offsetHours <= 23, offsetMinutes <= 59 else { throw Invalid(reason: "zone offset out of range") }
            seconds -= sign * (offsetHours * 3_600 + offsetMinutes * 60)
        }
        guard reader.atEnd else { throw Invalid(reason: "unexpected text after the time") }
        return try timestamp(seconds, nanoseconds)
    }

    /// `timestamp` in UTC: `2026-01-01T12:30:00Z`, with a fraction of a second (trailing
    /// zeros removed) when it has one. `parse` reads it back to the same timestamp.
    public static func format(_ timestamp: Timestamp) -> String {
        // (`Timestamp.secondsAndNanoseconds` overflows at the earliest instant; this does not.)
        var seconds = timestamp.nanosecondsSince1970 / 1_000_000_000
        var nanoseconds = timestamp.nanosecondsSince1970 % 1_000_000_000
        if nanoseconds < 0 {
            seconds -= 1
            nanoseconds += 1_000_000_000
        }
        let days = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
        let secondOfDay = seconds - days * 86_400
        let (year, month, day) = civilFromDays(days)
        var text = "\(pad(year, 4))-\(pad(month, 2))-\(pad(day, 2))T\(pad(secondOfDay / 3_600, 2)):"
            + "\(pad(secondOfDay / 60 % 60, 2)):\(pad(secondOfDay % 60, 2))"
        if nanoseconds != 0 {
            var fraction = pad(nanoseconds, 9)
            while fraction.hasSuffix("0") { fraction.removeLast() }
            text += "." + fraction
        }
        return text + "Z"
    }

    private static func pad(_ value: Int64, _ width: Int) -> String {
        let digits = String(value)
        return String(repeating: "0", count: max(0, width - digits.count)) + digits
    }

    private static func timestamp(_ seconds: Int64, _ nanoseconds: Int64) throws(Invalid) -> Timestamp {
        // Before 1970 with a fraction, count from the next second down, so that the earliest
        // representable instant does not overflow on the way.
        let (whole, fraction) = seconds < 0 && nanoseconds > 0 ? (seconds + 1, nanoseconds - 1_000_000_000) : (seconds, nanoseconds)
        let (scaled, overflow) = whole.multipliedReportingOverflow(by: 1_000_000_000)
        let (total, overflow2) = scaled.addingReportingOverflow(fraction)
        guard !overflow, !overflow2 else {
            throw Invalid(reason: "out of range (dates run from 1677-09-21 to 2262-04-11)")
        }
        return Timestamp(nanosecondsSince1970: total)
    }

    private static func isLeap(_ year: Int64) -> Bool { year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) }

    private static func daysIn(month: Int64, year: Int64) -> Int64 {
        switch month {
        case 2: isLeap(year) ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    /// Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's algorithm).
    static func daysFromCivil(year: Int64, month: Int64, day: Int64) -> Int64 {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// The proleptic Gregorian date `days` after 1970-01-01.
    static func civilFromDays(_ days: Int64) -> (year: Int64, month: Int64, day: Int64) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1_460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let mp = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }

    private struct Reader {
        let bytes: [UInt8]
        var index = 0
        init(_ bytes: [UInt8]) { self.bytes = bytes }

        var atEnd: Bool { index >= bytes.count }

        mutating func take(_ byte: UInt8) -> Bool {
            guard index < bytes.count, bytes[index] == byte else { return false }
            index += 1
            return true
        }

        mutating func expect(_ byte: UInt8, _ reason: String) throws(Invalid) {
            guard take(byte) else { throw Invalid(reason: reason) }
        }

        mutating func digit() -> Int64? {
            guard index < bytes.count, bytes[index] >= 0x30, bytes[index] <= 0x39 else { return nil }
            index += 1
            return Int64(bytes[index - 1] - 0x30)
        }

        mutating func digits(_ count: Int, _ reason: String) throws(Invalid) -> Int64 {
            var value: Int64 = 0
            for _ in 0..<count {
                guard let digit = digit() else { throw Invalid(reason: reason) }
                value = value * 10 + digit
            }
            return value
        }

        mutating func sign() -> Int64? {
            if take(UInt8(ascii: "+")) { return 1 }
            if take(UInt8(ascii: "-")) { return -1 }
            return nil
        }
    }
}
