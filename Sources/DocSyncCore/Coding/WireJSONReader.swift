import Foundation

/// Reads JSON in the shape `WireJSONWriter` writes, for the types that know their own keys
/// (`WireJSONCodable`), without the cost of `Decodable`.
///
/// It accepts any spacing, keys in any order, `null` for an absent optional, and every
/// string escape, but nothing else it was not built for: an unknown or repeated key, a
/// number with a fraction or an exponent, invalid UTF-8, a lone surrogate… throw
/// `Unexpected`, and the caller decodes the whole text again with `JSONDecoder`
/// (`WireCoding.decode` does this), which either reads it or says precisely what is wrong.
/// So what this reader accepts, it reads as `JSONDecoder` would.
///
/// The bytes are borrowed: use the reader only while they are valid.
public struct WireJSONReader {
    /// Something this reader does not read; `JSONDecoder` should have the text.
    public struct Unexpected: Error, Sendable {
        /// The byte offset where reading stopped.
        public let position: Int
    }

    /// An object's key, borrowed from the text (it holds no escape).
    public struct Key {
        fileprivate let bytes: UnsafeRawBufferPointer

        /// The key as a string; `nil` when it is not valid UTF-8.
        public var string: String? { String(validating: bytes, as: UTF8.self) }

        /// Whether the key is exactly these bytes.
        public func hasBytes(_ utf8: UnsafeBufferPointer<UInt8>) -> Bool {
            utf8.count == bytes.count && (utf8.isEmpty || memcmp(utf8.baseAddress!, bytes.baseAddress!, bytes.count) == 0)
        }

        /// Lets a `switch` over a key name its cases with string literals.
        public static func ~= (name: StaticString, key: Key) -> Bool {
            name.utf8CodeUnitCount == key.bytes.count
                && name.withUTF8Buffer { memcmp($0.baseAddress!, key.bytes.baseAddress!, key.bytes.count) == 0 }
        }
    }

    private let text: UnsafeRawBufferPointer
    public private(set) var position = 0
    /// The container just begun has had no field or element yet.
    private var atStart = false

    public init(_ text: UnsafeRawBufferPointer) {
        self.text = text
    }

    public func unexpected() -> Unexpected { Unexpected(position: position) }

    public mutating func beginObject() throws(Unexpected) {
        try consume(UInt8(ascii: "{"))
        atStart = true
    }

    /// The next key of the object being read (its colon consumed), or `nil` after its
    /// closing brace.
    public mutating func nextKey() throws(Unexpected) -> Key? {
        guard try nextMember(closedBy: UInt8(ascii: "}")) else { return nil }
        skipSpace()
        try consume(UInt8(ascii: "\""))
        let start = position
        while position < text.count, text[position] != UInt8(ascii: "\"") {
            guard text[position] != UInt8(ascii: "\\"), text[position] >= 0x20 else { throw unexpected() }
            position += 1
        }
        guard position < text.count else { throw unexpected() }
        let key = Key(bytes: UnsafeRawBufferPointer(rebasing: text[start..<position]))
        position += 1
        try consume(UInt8(ascii: ":"))
        return key
    }

    public mutating func beginArray() throws(Unexpected) {
        try consume(UInt8(ascii: "["))
        atStart = true
    }

    /// Whether another element of the array being read follows; `false` after its closing bracket.
    public mutating func nextElement() throws(Unexpected) -> Bool {
        try nextMember(closedBy: UInt8(ascii: "]"))
    }

    /// Consumes `null` and answers `true` when it is next; otherwise leaves the text alone.
    public mutating func null() -> Bool {
        skipSpace()
        guard text.count - position >= 4, text[position] == UInt8(ascii: "n"), text[position + 1] == UInt8(ascii: "u"),
              text[position + 2] == UInt8(ascii: "l"), text[position + 3] == UInt8(ascii: "l") else { return false }
        position += 4
        return true
    }

    public mutating func bool() throws(Unexpected) -> Bool {
        skipSpace()
        if matches("true") { position += 4; return true }
        if matches("false") { position += 5; return false }
        throw unexpected()
    }

    /// An integer written plainly (`-` and digits, no leading zero, no fraction or exponent).
    public mutating func integer() throws(Unexpected) -> Int64 {
        skipSpace()
        let negative = position < text.count && text[position] == UInt8(ascii: "-")
        if negative { position += 1 }
        let start = position
        var magnitude: UInt64 = 0
        while position < text.count, case let digit = text[position] &- UInt8(ascii: "0"), digit < 10 {
            let (times10, overflow1) = magnitude.multipliedReportingOverflow(by: 10)
            let (sum, overflow2) = times10.addingReportingOverflow(UInt64(digit))
            guard !overflow1, !overflow2 else { throw unexpected() }
            magnitude = sum
            position += 1
        }
        let count = position - start
        guard count > 0, count == 1 || text[start] != UInt8(ascii: "0") else { throw unexpected() }
        if position < text.count {
            switch text[position] {
            case UInt8(ascii: "."), UInt8(ascii: "e"), UInt8(ascii: "E"): throw unexpected()  // a fraction or an exponent
            default: break
            }
        }
        if negative {
            guard magnitude <= UInt64(Int64.max) + 1 else { throw unexpected() }
            return magnitude == UInt64(Int64.max) + 1 ? Int64.min : -Int64(magnitude)
        }
        guard magnitude <= UInt64(Int64.max) else { throw unexpected() }
        return Int64(magnitude)
    }

    public mutating func string() throws(Unexpected) -> String {
        skipSpace()
        try consume(UInt8(ascii: "\""))
        let start = position
        while position < text.count {
            let byte = text[position]
            if byte == UInt8(ascii: "\"") {
                guard let string = String(validating: UnsafeRawBufferPointer(rebasing: text[start..<position]), as: UTF8.self) else {
                    throw unexpected()
                }
                position += 1
                return string
            }
            if byte == UInt8(ascii: "\\") { return try escapedString(from: start) }
            guard byte >= 0x20 else { throw unexpected() }
            position += 1
        }
        throw unexpected()
    }

    /// A string of 64 hex digits (either case) as a digest.
    public mutating func digest() throws(Unexpected) -> SHA256Digest {
        skipSpace()
        guard text.count - position >= 66, text[position] == UInt8(ascii: "\""), text[position + 65] == UInt8(ascii: "\"") else {
            throw unexpected()
        }
        var words: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)
        for word in 0..<4 {
            var value: UInt64 = 0
            for index in 0..<16 {
                guard let nibble = SHA256Digest.hexValue(of: text[position + 1 + word * 16 + index]) else { throw unexpected() }
                value = value << 4 | UInt64(nibble)
            }
            switch word {
            case 0: words.0 = value
            case 1: words.1 = value
            case 2: words.2 = value
            default: words.3 = value
            }
        }
        position += 66
        return SHA256Digest(w0: words.0, w1: words.1, w2: words.2, w3: words.3)
    }

    /// The value of an object that has the one field `name`, read by `read`.
    public mutating func onlyField<Value>(_ name: StaticString, _ read: (inout WireJSONReader) throws(Unexpected) -> Value) throws(Unexpected) -> Value {
        try beginObject()
        guard let key = try nextKey(), name ~= key else { throw unexpected() }
        let value = try read(&self)
        guard try nextKey() == nil else { throw unexpected() }
        return value
    }

    /// Only spaces may follow.
    public mutating func end() throws(Unexpected) {
        skipSpace()
        guard position == text.count else { throw unexpected() }
    }

    // MARK: - Pieces

    private mutating func nextMember(closedBy close: UInt8) throws(Unexpected) -> Bool {
        skipSpace()
        guard position < text.count else { throw unexpected() }
        if text[position] == close {
            position += 1
            atStart = false
            return false
        }
        if atStart {
            atStart = false
        } else {
            try consume(UInt8(ascii: ","))
        }
        return true
    }

    private mutating func consume(_ byte: UInt8) throws(Unexpected) {
        skipSpace()
        guard position < text.count, text[position] == byte else { throw unexpected() }
        position += 1
    }

    private mutating func skipSpace() {
        while position < text.count {
            switch text[position] {
            case UInt8(ascii: " "), UInt8(ascii: "\n"), UInt8(ascii: "\r"), UInt8(ascii: "\t"): position += 1
            default: return
            }
        }
    }

    private func matches(_ word: StaticString) -> Bool {
        let count = word.utf8CodeUnitCount
        return text.count - position >= count
            && word.withUTF8Buffer { memcmp($0.baseAddress!, text.baseAddress! + position, count) == 0 }
    }

    /// The rest of a string that holds an escape; `position` is at its first backslash.
    private mutating func escapedString(from start: Int) throws(Unexpected) -> String {
        var utf8 = Array(text[start..<position])
        while position < text.count {
            let byte = text[position]
            switch byte {
            case UInt8(ascii: "\""):
                position += 1
                guard let string = String(validating: utf8, as: UTF8.self) else { throw unexpected() }
                return string
            case UInt8(ascii: "\\"):
                guard position + 1 < text.count else { throw unexpected() }
                let escaped = text[position + 1]
                position += 2
                switch escaped {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): utf8.append(escaped)
                case UInt8(ascii: "b"): utf8.append(0x08)
                case UInt8(ascii: "f"): utf8.append(0x0c)
                case UInt8(ascii: "n"): utf8.append(0x0a)
                case UInt8(ascii: "r"): utf8.append(0x0d)
                case UInt8(ascii: "t"): utf8.append(0x09)
                case UInt8(ascii: "u"):
                    var scalar = try hexQuad()
                    if (0xD800..<0xDC00).contains(scalar) {
                        guard matches("\\u") else { throw unexpected() }
                        position += 2
                        let low = try hexQuad()
                        guard (0xDC00..<0xE000).contains(low) else { throw unexpected() }
                        scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                    }
                    guard let value = Unicode.Scalar(scalar) else { throw unexpected() }
                    utf8.append(contentsOf: Unicode.UTF8.encode(value)!)
                default: throw unexpected()
                }
            default:
                guard byte >= 0x20 else { throw unexpected() }
                utf8.append(byte)
                position += 1
            }
        }
        throw unexpected()
    }

    private mutating func hexQuad() throws(Unexpected) -> UInt32 {
        guard text.count - position >= 4 else { throw unexpected() }
        var value: UInt32 = 0
        for _ in 0..<4 {
            guard let nibble = SHA256Digest.hexValue(of: text[position]) else { throw unexpected() }
            value = value << 4 | UInt32(nibble)
            position += 1
        }
        return value
    }
}
