/// A text cut into lines for a line-wise merge (`TextMerge`): its byte-order mark, its lines and
/// the line-ending style they use.
///
/// A line ends just after a line feed (`"\n"`), so a `"\r\n"` stays with its line and a lone
/// `"\r"` is ordinary content. Every line keeps its terminator; the last line has none when the
/// text does not end with `"\n"`. Concatenating the byte-order mark (when present) and the lines
/// gives back the text exactly. The lines are those of the text after its byte-order mark.
struct TextLines {
    /// The UTF-8 byte-order mark, EF BB BF.
    static let byteOrderMark: [UInt8] = [0xEF, 0xBB, 0xBF]

    /// Which line terminators a text uses.
    enum LineEndings: Hashable, Sendable {
        /// No line is terminated (an empty text, or one line without a final newline):
        /// the text has no style of its own yet.
        case none
        /// Every terminated line ends with `"\n"` alone.
        case lf
        /// Every terminated line ends with `"\r\n"`.
        case crlf
        /// Some lines end with `"\n"` alone, others with `"\r\n"`.
        case mixed

        /// True when going from `self` to `other` changes the style. A text without a terminated
        /// line has no style yet, so going to or from `.none` is no change.
        func isChanged(to other: LineEndings) -> Bool {
            self != other && self != .none && other != .none
        }
    }

    /// The whole text, byte-order mark included.
    let bytes: [UInt8]
    /// True when the text starts with the UTF-8 byte-order mark.
    let hasByteOrderMark: Bool
    /// Line `i` is `bytes[bounds[i]..<bounds[i + 1]]`; `bounds.count == count + 1`.
    private let bounds: [Int]
    /// The line-ending style of the lines.
    let lineEndings: LineEndings

    /// The number of lines (0 for an empty text or one holding only a byte-order mark).
    var count: Int { bounds.count - 1 }

    init(_ bytes: [UInt8]) {
        self.bytes = bytes
        hasByteOrderMark = bytes.starts(with: Self.byteOrderMark)
        let start = hasByteOrderMark ? Self.byteOrderMark.count : 0
        var bounds = [start]
        var lf = false
        var crlf = false
        bytes.withUnsafeBufferPointer { buffer in
            var index = start
            while index < buffer.count {
                if buffer[index] == 0x0A {
                    if index > start && buffer[index - 1] == 0x0D { crlf = true } else { lf = true }
                    bounds.append(index + 1)
                }
                index += 1
            }
        }
        if let last = bounds.last, last < bytes.count { bounds.append(bytes.count) }
        self.bounds = bounds
        switch (lf, crlf) {
        case (false, false): lineEndings = .none
        case (true, false): lineEndings = .lf
        case (false, true): lineEndings = .crlf
        case (true, true): lineEndings = .mixed
        }
    }

    /// The bytes of line `index`, its terminator included.
    func line(_ index: Int) -> ArraySlice<UInt8> {
        bytes[bounds[index]..<bounds[index + 1]]
    }

    /// The bytes of the lines in `range`, terminators included.
    func lines(_ range: Range<Int>) -> ArraySlice<UInt8> {
        bytes[bounds[range.lowerBound]..<bounds[range.upperBound]]
    }

    /// True when `bytes` is well-formed UTF-8 (no overlong forms, surrogates or truncated
    /// sequences).
    static func isValidUTF8(_ bytes: [UInt8]) -> Bool {
        String(validating: bytes, as: UTF8.self) != nil
    }
}

/// Gives every distinct line a small integer id, so that lines are compared as integers.
///
/// Two lines get the same id exactly when their bytes (terminator included) are the same; ids
/// are dense, counting from 0 in the order lines are first seen. One interner must serve all the
/// texts whose ids are compared with one another.
struct LineInterner {
    private var table: [Key: Int] = [:]

    /// A line as a dictionary key: its bytes, hashed once.
    private struct Key: Hashable {
        let hash: Int
        let bytes: ArraySlice<UInt8>

        init(_ bytes: ArraySlice<UInt8>) {
            var hasher = Hasher()
            bytes.withUnsafeBytes { hasher.combine(bytes: $0) }
            hash = hasher.finalize()
            self.bytes = bytes
        }

        func hash(into hasher: inout Hasher) { hasher.combine(hash) }

        static func == (lhs: Key, rhs: Key) -> Bool {
            lhs.hash == rhs.hash && lhs.bytes.count == rhs.bytes.count
                && lhs.bytes.withUnsafeBytes { left in rhs.bytes.withUnsafeBytes { right in left.elementsEqual(right) } }
        }
    }

    /// The id of every line of `text`, in order.
    mutating func ids(of text: TextLines) -> [Int] {
        var ids: [Int] = []
        ids.reserveCapacity(text.count)
        for index in 0..<text.count {
            let key = Key(text.line(index))
            if let id = table[key] {
                ids.append(id)
            } else {
                let id = table.count
                table[key] = id
                ids.append(id)
            }
        }
        return ids
    }
}
