/// A shell-style glob, anchored at both ends, matched character by character.
///
/// `*` matches any run of characters (including none, and including `/`), `?` exactly one
/// character, `[abc]` / `[a-z]` / `[!a]` (or `[^a]`) one character of a class, and `\` makes
/// the next character literal (inside a class too). A `]` right after `[` or `[!` is a member
/// of the class. Characters are Swift `Character`s (extended grapheme clusters), compared by
/// their Unicode scalars exactly, never by canonical equivalence: names are bytes (SPEC §4a),
/// so `café` written in NFC does not match the name in NFD (a `?` matches either). Matching
/// takes time proportional to pattern × string length at worst — never exponential, however
/// many `*` the pattern has.
public struct GlobPattern: Sendable, Hashable, CustomStringConvertible {
    /// The pattern as written.
    public let pattern: String
    /// Whether letters match regardless of case.
    public let caseInsensitive: Bool
    /// What matching needs, made once and shared by copies (copying a pattern, as a loop
    /// over rules does, then costs one reference).
    private let compiled: Compiled

    private final class Compiled: Sendable {
        let tokens: [Token]
        /// The literal text every match starts with and ends with (empty when the pattern
        /// starts or ends with a wildcard, or ignores case): a quick rejection before matching.
        let requiredPrefix: String
        let requiredSuffix: String
        /// The tokens as bytes when every one is ASCII and letters keep their case (nil
        /// otherwise): a name of plain ASCII is then matched byte by byte (see `matchPlain`).
        let byteTokens: [ByteToken]?

        init(tokens: [Token], requiredPrefix: String, requiredSuffix: String, byteTokens: [ByteToken]?) {
            self.tokens = tokens
            self.requiredPrefix = requiredPrefix
            self.requiredSuffix = requiredSuffix
            self.byteTokens = byteTokens
        }
    }

    private var tokens: [Token] { compiled.tokens }

    /// A token of a pattern that is all ASCII.
    enum ByteToken: Sendable, Hashable {
        case byte(UInt8)
        case anyByte
        case anyRun
        case byteClass(negated: Bool, members: [ClosedRange<UInt8>])
    }

    /// Patterns are equal when written alike with the same case rule (they then match alike).
    public static func == (lhs: GlobPattern, rhs: GlobPattern) -> Bool {
        lhs.pattern.bytesEqual(rhs.pattern) && lhs.caseInsensitive == rhs.caseInsensitive
    }

    public func hash(into hasher: inout Hasher) {
        pattern.hashBytes(into: &hasher)
        hasher.combine(caseInsensitive)
    }

    enum Token: Sendable, Hashable {
        /// One literal character (case-folded when the pattern is case-insensitive).
        case literal(String)
        /// `?`
        case anyCharacter
        /// `*` (runs of stars are one token)
        case anyRun
        /// `[…]`
        case characterClass(CharacterClass)
    }

    struct CharacterClass: Sendable, Hashable {
        var negated: Bool
        var members: [ClassMember]

        func contains(_ character: Character, caseInsensitive: Bool) -> Bool {
            var candidates = [character]
            if caseInsensitive {
                for folded in [character.lowercased(), character.uppercased()] where folded.count == 1 {
                    candidates.append(Character(folded))
                }
            }
            let found = candidates.contains { candidate in members.contains { $0.contains(candidate) } }
            return found != negated
        }
    }

    enum ClassMember: Sendable, Hashable {
        case character(Character)
        case range(Character, Character)

        func contains(_ character: Character) -> Bool {
            switch self {
            case .character(let member): member.isExactly(character)
            case .range(let low, let high): !character.scalarsPrecede(low) && !high.scalarsPrecede(character)
            }
        }
    }

    /// Parses `pattern`. Throws `SyncError(.invalidArguments, …)` naming the (1-based) character
    /// position of the problem: an unterminated class, a reversed range such as `[z-a]`, or a
    /// `\` with nothing after it.
    public init(_ pattern: String, caseInsensitive: Bool = false) throws(SyncError) {
        self.pattern = pattern
        self.caseInsensitive = caseInsensitive
        let characters = Array(pattern)
        func fail(_ position: Int, _ problem: String) -> SyncError {
            SyncError(.invalidArguments, "glob \(pattern.debugDescription): \(problem) at position \(position + 1)")
        }
        func literal(_ character: Character) -> Token {
            .literal(caseInsensitive ? character.lowercased() : String(character))
        }
        var tokens: [Token] = []
        var index = 0
        while index < characters.count {
            let character = characters[index]
            switch character {
            case "*":
                if tokens.last != .anyRun { tokens.append(.anyRun) }
                index += 1
            case "?":
                tokens.append(.anyCharacter)
                index += 1
            case "\\":
                guard index + 1 < characters.count else { throw fail(index, "'\\' with nothing after it") }
                tokens.append(literal(characters[index + 1]))
                index += 2
            case "[":
                let start = index
                index += 1
                var negated = false
                if index < characters.count, characters[index] == "!" || characters[index] == "^" {
                    negated = true
                    index += 1
                }
                var members: [ClassMember] = []
                var first = true
                var closed = false
                while index < characters.count {
                    var member = characters[index]
                    if member == "]" && !first {
                        closed = true
                        index += 1
                        break
                    }
                    first = false
                    if member == "\\" {
                        guard index + 1 < characters.count else { throw fail(index, "'\\' with nothing after it") }
                        index += 1
                        member = characters[index]
                    }
                    index += 1
                    // A range `a-z`, unless the `-` is the class's last character.
                    if index + 1 < characters.count, characters[index] == "-", characters[index + 1] != "]" {
                        var high = characters[index + 1]
                        let highPosition = index + 1
                        index += 2
                        if high == "\\" {
                            guard index < characters.count else { throw fail(highPosition, "'\\' with nothing after it") }
                            high = characters[index]
                            index += 1
                        }
                        guard !high.scalarsPrecede(member) else {
                            throw fail(highPosition, "reversed range '\(member)-\(high)'")
                        }
                        members.append(.range(member, high))
                    } else {
                        members.append(.character(member))
                    }
                }
                guard closed else { throw fail(start, "unterminated character class '['") }
                tokens.append(.characterClass(CharacterClass(negated: negated, members: members)))
            default:
                tokens.append(literal(character))
                index += 1
            }
        }
        var prefix = "", suffix = ""
        if !caseInsensitive {
            for token in tokens {
                guard case .literal(let text) = token else { break }
                prefix += text
            }
            for token in tokens.reversed() {
                guard case .literal(let text) = token else { break }
                suffix = text + suffix
            }
        }
        compiled = Compiled(tokens: tokens, requiredPrefix: prefix, requiredSuffix: suffix,
                            byteTokens: caseInsensitive ? nil : Self.byteTokens(of: tokens))
    }

    /// `tokens` as bytes, or nil when some literal or class member is not ASCII.
    private static func byteTokens(of tokens: [Token]) -> [ByteToken]? {
        func ascii(_ character: Character) -> UInt8? {
            guard let value = character.asciiValue, character.unicodeScalars.count == 1 else { return nil }
            return value
        }
        var bytes: [ByteToken] = []
        for token in tokens {
            switch token {
            case .literal(let text):
                guard let character = text.first, text.count == 1, let byte = ascii(character) else { return nil }
                bytes.append(.byte(byte))
            case .anyCharacter: bytes.append(.anyByte)
            case .anyRun: bytes.append(.anyRun)
            case .characterClass(let characterClass):
                var members: [ClosedRange<UInt8>] = []
                for member in characterClass.members {
                    switch member {
                    case .character(let character):
                        guard let byte = ascii(character) else { return nil }
                        members.append(byte...byte)
                    case .range(let low, let high):
                        guard let low = ascii(low), let high = ascii(high) else { return nil }
                        members.append(low...high)
                    }
                }
                bytes.append(.byteClass(negated: characterClass.negated, members: members))
            }
        }
        return bytes
    }

    /// True when the whole of `string` matches the pattern.
    public func matches(_ string: String) -> Bool {
        if let byteTokens = compiled.byteTokens {
            var string = string
            if let answer = string.withUTF8({ Self.matchPlain(byteTokens, $0) }) { return answer }
        }
        // Most names fail on a literal end ("*.swp"): say so without splitting them into characters.
        if !compiled.requiredPrefix.isEmpty && !string.hasBytePrefix(compiled.requiredPrefix) { return false }
        if !compiled.requiredSuffix.isEmpty && !string.hasByteSuffix(compiled.requiredSuffix) { return false }
        return matches(Array(string))
    }

    /// True when the whole of `string` matches the pattern (a path component, say).
    public func matches(_ string: Substring) -> Bool {
        if let byteTokens = compiled.byteTokens {
            var string = string
            if let answer = string.withUTF8({ Self.matchPlain(byteTokens, $0) }) { return answer }
        }
        return matches(String(string))
    }

    /// True when the whole of `characters` matches the pattern.
    func matches(_ characters: [Character]) -> Bool {
        WildcardMatch.matches(tokens, characters, isRun: { $0 == .anyRun }, matchesOne: matchesOne)
    }

    /// The byte match of `bytes` when they are plain ASCII: no byte over 127 and no carriage
    /// return (a CR LF pair is one character). Each byte is then one character, so matching
    /// bytes answers as matching characters does. Nil otherwise.
    private static func matchPlain(_ tokens: [ByteToken], _ bytes: UnsafeBufferPointer<UInt8>) -> Bool? {
        for byte in bytes where byte >= 0x80 || byte == 0x0D { return nil }
        return matches(tokens, bytes)
    }

    /// The match of `matches(_ characters:)`, over bytes.
    private static func matches(_ tokens: [ByteToken], _ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        WildcardMatch.matches(tokens, bytes, isRun: { $0 == .anyRun }, matchesOne: matchesOne)
    }

    private static func matchesOne(_ token: ByteToken, _ byte: UInt8) -> Bool {
        switch token {
        case .byte(let literal): literal == byte
        case .anyByte: true
        case .anyRun: false
        case .byteClass(let negated, let members): members.contains { $0.contains(byte) } != negated
        }
    }

    private func matchesOne(_ token: Token, _ character: Character) -> Bool {
        switch token {
        case .literal(let literal): (caseInsensitive ? character.lowercased() : String(character)).bytesEqual(literal)
        case .anyCharacter: true
        case .anyRun: false
        case .characterClass(let characterClass): characterClass.contains(character, caseInsensitive: caseInsensitive)
        }
    }

    /// True when the pattern is a single `*` run or `**`-style: it matches every string.
    var matchesEverything: Bool { tokens == [.anyRun] }

    public var description: String { pattern }
}

extension Character {
    /// The same Unicode scalars, in the same order (not merely canonically equivalent).
    func isExactly(_ other: Character) -> Bool { unicodeScalars.elementsEqual(other.unicodeScalars) }

    /// Before `other` in the order of their scalars' values (a class's range is a range of them).
    func scalarsPrecede(_ other: Character) -> Bool {
        unicodeScalars.lexicographicallyPrecedes(other.unicodeScalars) { $0.value < $1.value }
    }
}
