/// One element of a small XML document: its local name (any `prefix:` dropped), its child
/// elements in order and its own text (entities decoded, CDATA included, the text of children
/// not included). Enough for the documents S3 answers; attributes are skipped.
struct XMLTree: Sendable, Equatable {
    var name: String
    var children: [XMLTree] = []
    var text: String = ""

    /// The first child named `name`.
    func child(_ name: String) -> XMLTree? {
        children.first { $0.name == name }
    }

    /// Every child named `name`, in document order.
    func children(_ name: String) -> [XMLTree] {
        children.filter { $0.name == name }
    }

    /// The text of the first child named `name`.
    func string(_ name: String) -> String? {
        child(name)?.text
    }
}

/// Why a document could not be read.
struct XMLTreeError: Error, Sendable, Equatable, CustomStringConvertible {
    var offset: Int
    var reason: String
    var description: String { "\(reason) at byte \(offset)" }
}

/// A careful, small, non-validating XML parser for S3's answers: the declaration,
/// comments and processing instructions are skipped, a document type declaration is refused
/// (no entity expansion beyond the five predefined ones and character references), tags
/// must nest and close by name, and there must be one root element.
enum XMLTreeParser {
    static func parse(_ input: some Collection<UInt8>) throws(XMLTreeError) -> XMLTree {
        var reader = Reader(bytes: Array(input))
        return try reader.document()
    }

    private struct Reader {
        let bytes: [UInt8]
        var index = 0
        /// Open elements with their raw (prefixed) names.
        var stack: [(raw: String, node: XMLTree)] = []
        var root: XMLTree?

        init(bytes: [UInt8]) {
            self.bytes = bytes
            if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { index = 3 }
        }

        mutating func document() throws(XMLTreeError) -> XMLTree {
            while index < bytes.count {
                if bytes[index] == UInt8(ascii: "<") {
                    if starts(with: "<?") {
                        try skip(past: "?>")
                    } else if starts(with: "<!--") {
                        try skip(past: "-->")
                    } else if starts(with: "<![CDATA[") {
                        index += 9
                        let start = index
                        try skip(past: "]]>")
                        try appendText(String(decoding: bytes[start..<(index - 3)], as: UTF8.self), at: start)
                    } else if starts(with: "<!") {
                        throw XMLTreeError(offset: index, reason: "a document type declaration is not accepted")
                    } else if starts(with: "</") {
                        try closeTag()
                    } else {
                        try openTag()
                    }
                } else {
                    let start = index
                    while index < bytes.count, bytes[index] != UInt8(ascii: "<") { index += 1 }
                    try appendText(try decodeText(start..<index), at: start)
                }
            }
            guard stack.isEmpty else {
                throw XMLTreeError(offset: index, reason: "the document ends inside <\(stack.last!.raw)>")
            }
            guard let root else { throw XMLTreeError(offset: index, reason: "the document has no element") }
            return root
        }

        private func starts(with prefix: String) -> Bool {
            bytes[index...].starts(with: prefix.utf8)
        }

        private mutating func skip(past terminator: String) throws(XMLTreeError) {
            let end = Array(terminator.utf8)
            let start = index
            while index < bytes.count {
                if bytes[index...].starts(with: end) {
                    index += end.count
                    return
                }
                index += 1
            }
            throw XMLTreeError(offset: start, reason: "\(terminator) is missing")
        }

        private mutating func appendText(_ text: String, at offset: Int) throws(XMLTreeError) {
            guard !stack.isEmpty else {
                guard text.allSatisfy({ $0 == " " || $0 == "\n" || $0 == "\t" || $0 == "\r" || $0 == "\r\n" }) else {
                    throw XMLTreeError(offset: offset, reason: "text outside the root element")
                }
                return
            }
            stack[stack.count - 1].node.text += text
        }

        private static func isNameEnd(_ byte: UInt8) -> Bool {
            byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") || byte == UInt8(ascii: "\n")
                || byte == UInt8(ascii: "\r") || byte == UInt8(ascii: "/") || byte == UInt8(ascii: ">")
        }

        private mutating func name() throws(XMLTreeError) -> String {
            let start = index
            while index < bytes.count, !Self.isNameEnd(bytes[index]) { index += 1 }
            guard index > start else { throw XMLTreeError(offset: start, reason: "a tag without a name") }
            return String(decoding: bytes[start..<index], as: UTF8.self)
        }

        private static func localName(_ raw: String) -> String {
            guard let colon = raw.lastIndex(of: ":") else { return raw }
            return String(raw[raw.index(after: colon)...])
        }

        private mutating func openTag() throws(XMLTreeError) {
            let start = index
            index += 1
            let raw = try name()
            // Attributes: skipped, minding quoted values (which may hold '>' or '/').
            var quote: UInt8?
            while index < bytes.count {
                let byte = bytes[index]
                if let open = quote {
                    if byte == open { quote = nil }
                } else if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "'") {
                    quote = byte
                } else if byte == UInt8(ascii: ">") {
                    let selfClosing = bytes[index - 1] == UInt8(ascii: "/")
                    index += 1
                    guard root == nil else {
                        throw XMLTreeError(offset: start, reason: "a second root element <\(raw)>")
                    }
                    stack.append((raw, XMLTree(name: Self.localName(raw))))
                    if selfClosing { finishElement() }
                    return
                }
                index += 1
            }
            throw XMLTreeError(offset: start, reason: "<\(raw) is not closed with >")
        }

        private mutating func closeTag() throws(XMLTreeError) {
            let start = index
            index += 2
            let raw = try name()
            while index < bytes.count, bytes[index] != UInt8(ascii: ">") {
                guard Self.isNameEnd(bytes[index]), bytes[index] != UInt8(ascii: "/") else {
                    throw XMLTreeError(offset: start, reason: "</\(raw) is not closed with >")
                }
                index += 1
            }
            guard index < bytes.count else { throw XMLTreeError(offset: start, reason: "</\(raw) is not closed with >") }
            index += 1
            guard let open = stack.last else {
                throw XMLTreeError(offset: start, reason: "</\(raw)> closes nothing")
            }
            guard open.raw == raw else {
                throw XMLTreeError(offset: start, reason: "</\(raw)> closes <\(open.raw)>")
            }
            finishElement()
        }

        private mutating func finishElement() {
            let node = stack.removeLast().node
            if stack.isEmpty {
                root = node
            } else {
                stack[stack.count - 1].node.children.append(node)
            }
        }

        /// Text with line ends normalized to `\n` and references decoded.
        private func decodeText(_ range: Range<Int>) throws(XMLTreeError) -> String {
            var out: [UInt8] = []
            out.reserveCapacity(range.count)
            var position = range.lowerBound
            while position < range.upperBound {
                let byte = bytes[position]
                if byte == UInt8(ascii: "\r") {
                    out.append(UInt8(ascii: "\n"))
                    position += 1
                    if position < range.upperBound, bytes[position] == UInt8(ascii: "\n") { position += 1 }
                } else if byte == UInt8(ascii: "&") {
                    guard let semicolon = bytes[position..<range.upperBound].firstIndex(of: UInt8(ascii: ";")),
                          semicolon - position <= 12
                    else { throw XMLTreeError(offset: position, reason: "an unterminated reference") }
                    let entity = String(decoding: bytes[(position + 1)..<semicolon], as: UTF8.self)
                    guard let decoded = Self.reference(entity) else {
                        throw XMLTreeError(offset: position, reason: "an unknown reference &\(entity);")
                    }
                    out.append(contentsOf: decoded.utf8)
                    position = semicolon + 1
                } else {
                    out.append(byte)
                    position += 1
                }
            }
            return String(decoding: out, as: UTF8.self)
        }

        private static func reference(_ entity: String) -> String? {
            switch entity {
            case "lt": return "<"
            case "gt": return ">"
            case "amp": return "&"
            case "quot": return "\""
            case "apos": return "'"
            default:
                guard entity.hasPrefix("#") else { return nil }
                let digits = entity.dropFirst()
                let value = digits.hasPrefix("x") || digits.hasPrefix("X")
                    ? UInt32(digits.dropFirst(), radix: 16) : UInt32(digits, radix: 10)
                return value.flatMap(Unicode.Scalar.init).map { String(Character($0)) }
            }
        }
    }
}

/// Text escaped for an XML element's content or attribute value.
func xmlEscaped(_ text: String) -> String {
    var out = ""
    out.reserveCapacity(text.utf8.count)
    for character in text.unicodeScalars {
        switch character {
        case "&": out += "&amp;"
        case "<": out += "&lt;"
        case ">": out += "&gt;"
        case "\"": out += "&quot;"
        case "'": out += "&apos;"
        case "\r": out += "&#13;"
        default: out.unicodeScalars.append(character)
        }
    }
    return out
}

/// True when every character of `text` may appear in an XML 1.0 document (so a key can be
/// sent in a multi-object delete); false for other control characters and U+FFFE/U+FFFF.
func isXMLRepresentable(_ text: String) -> Bool {
    text.unicodeScalars.allSatisfy { scalar in
        switch scalar.value {
        case 0x9, 0xA, 0xD: true
        case 0x20...0xD7FF, 0xE000...0xFFFD, 0x10000...0x10FFFF: true
        default: false
        }
    }
}
