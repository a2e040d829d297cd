/// Finds the line each key of a TOML document is written on, by scanning the source text.
///
/// TOMLKit reports no positions for parsed values, so this reads the text the way a TOML
/// parser does, just far enough to know where keys are: table headers (`[a.b]`), arrays of
/// tables (`[[folders]]`, numbered from 0), keys (bare, quoted, dotted), and values skipped
/// whole, including multi-line strings and arrays. Keys inside inline tables and arrays are
/// not recorded; `line(of:)` then answers with the line of the nearest enclosing key.
/// Meant for documents TOMLKit has already accepted.
struct TOMLKeyLocator {
    private var lines: [TOMLKeyPath: Int] = [:]

    init(source: String) {
        var scanner = Scanner(bytes: Array(source.utf8))
        scanner.run()
        lines = scanner.lines
    }

    /// The 1-based line of `path`, or of its nearest enclosing key or table written in the
    /// text; `nil` when none is (for example a key of a table that is absent).
    func line(of path: TOMLKeyPath) -> Int? {
        var path = path
        while !path.components.isEmpty {
            if let line = lines[path] { return line }
            path = path.parent
        }
        return nil
    }

    private struct Scanner {
        let bytes: [UInt8]
        var position = 0
        var line = 1
        var lines: [TOMLKeyPath: Int] = [:]
        /// The table that key/value lines currently belong to.
        var table = TOMLKeyPath.root
        /// For each array of tables seen: the index of its latest element.
        var arrayIndices: [TOMLKeyPath: Int] = [:]

        init(bytes: [UInt8]) {
            self.bytes = bytes
        }

        var current: UInt8? { position < bytes.count ? bytes[position] : nil }

        func peek(_ offset: Int) -> UInt8? {
            position + offset < bytes.count ? bytes[position + offset] : nil
        }

        mutating func run() {
            while let byte = current {
                switch byte {
                case UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: "\r"):
                    position += 1
                case UInt8(ascii: "\n"):
                    line += 1
                    position += 1
                case UInt8(ascii: "#"):
                    skipComment()
                case UInt8(ascii: "["):
                    header()
                default:
                    keyValue()
                }
            }
        }

        mutating func record(_ path: TOMLKeyPath) {
            if lines[path] == nil { lines[path] = line }
        }

        /// `[a.b]` or `[[a.b]]`.
        mutating func header() {
            let isArray = peek(1) == UInt8(ascii: "[")
            position += isArray ? 2 : 1
            let keys = readKeys()
            skipLine()
            var path = TOMLKeyPath.root
            for (offset, key) in keys.enumerated() {
                path = path.appending(key)
                let isLast = offset == keys.count - 1
                if isArray && isLast {
                    let index = (arrayIndices[path] ?? -1) + 1
                    arrayIndices[path] = index
                    record(path)
                    path = path.appending(index: index)
                } else if let index = arrayIndices[path] {
                    path = path.appending(index: index)
                }
            }
            table = path
            record(path)
        }

        /// `key = value`, the key possibly dotted.
        mutating func keyValue() {
            let keys = readKeys()
            guard !keys.isEmpty else {
                skipLine()  // not a key: the parser would have refused; move on
                return
            }
            var path = table
            for key in keys {
                path = path.appending(key)
                record(path)
            }
            skipSpaces()
            if current == UInt8(ascii: "=") { position += 1 }
            skipValue()
        }

        /// Dot-separated simple keys; stops before `=`, `]` or the end of the line.
        mutating func readKeys() -> [String] {
            var keys: [String] = []
            while true {
                skipSpaces()
                guard let byte = current else { return keys }
                switch byte {
                case UInt8(ascii: "\""), UInt8(ascii: "'"):
                    keys.append(readQuotedKey(quote: byte))
                default:
                    let start = position
                    while let byte = current, isBareKeyByte(byte) { position += 1 }
                    guard position > start else { return keys }
                    keys.append(String(decoding: bytes[start..<position], as: UTF8.self))
                }
                skipSpaces()
                guard current == UInt8(ascii: ".") else { return keys }
                position += 1
            }
        }

        mutating func readQuotedKey(quote: UInt8) -> String {
            position += 1
            var key: [UInt8] = []
            while let byte = current, byte != quote, byte != UInt8(ascii: "\n") {
                if quote == UInt8(ascii: "\""), byte == UInt8(ascii: "\\"), let next = peek(1) {
                    key.append(next)  // enough for \" and \\; other escapes are rare in keys
                    position += 2
                    continue
                }
                key.append(byte)
                position += 1
            }
            if current == quote { position += 1 }
            return String(decoding: key, as: UTF8.self)
        }

        /// Skips one value (strings, arrays and inline tables may span lines), up to the end of its line.
        mutating func skipValue() {
            var depth = 0
            while let byte = current {
                switch byte {
                case UInt8(ascii: "\n"):
                    if depth == 0 { return }
                    line += 1
                    position += 1
                case UInt8(ascii: "#"):
                    skipComment()
                case UInt8(ascii: "\""), UInt8(ascii: "'"):
                    skipString(quote: byte)
                case UInt8(ascii: "["), UInt8(ascii: "{"):
                    depth += 1
                    position += 1
                case UInt8(ascii: "]"), UInt8(ascii: "}"):
                    depth = max(0, depth - 1)
                    position += 1
                default:
                    position += 1
                }
            }
        }

        mutating func skipString(quote: UInt8) {
            let escapes = quote == UInt8(ascii: "\"")
            let multiline = peek(1) == quote && peek(2) == quote
            position += multiline ? 3 : 1
            while let byte = current {
                if escapes, byte == UInt8(ascii: "\\") {
                    if peek(1) == UInt8(ascii: "\n") { line += 1 }
                    position += 2
                    continue
                }
                if byte == UInt8(ascii: "\n") {
                    guard multiline else { return }  // unterminated: the parser refuses it
                    line += 1
                } else if byte == quote {
                    if !multiline {
                        position += 1
                        return
                    }
                    if peek(1) == quote && peek(2) == quote {
                        position += 3
                        while current == quote { position += 1 }  // up to two quotes may end the content
                        return
                    }
                }
                position += 1
            }
        }

        mutating func skipComment() {
            while let byte = current, byte != UInt8(ascii: "\n") { position += 1 }
        }

        /// Skips the rest of the line (a header's closing brackets and comment), not its newline.
        mutating func skipLine() {
            while let byte = current, byte != UInt8(ascii: "\n") {
                if byte == UInt8(ascii: "#") { return skipComment() }
                position += 1
            }
        }

        mutating func skipSpaces() {
            while let byte = current, byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") { position += 1 }
        }

        func isBareKeyByte(_ byte: UInt8) -> Bool {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                 UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "_"), UInt8(ascii: "-"):
                true
            default:
                false
            }
        }
    }
}
