/// Why a predicate was refused: what is wrong, and where.
///
/// `position` is the 1-based position, in characters, of the problem in the predicate's
/// text (one past its last token when something is missing at the end); `message` says what
/// was found and what was expected there, naming the attribute concerned. `description` is
/// the two together: `position 8: expected a value after '==' for attribute 'size' (a
/// number or size like 10MB)`. Parsing never traps, whatever the text.
public struct MetadataPredicateError: Error, Hashable, Sendable, CustomStringConvertible {
    public enum Kind: String, Hashable, Sendable, Codable {
        /// The text does not follow the grammar (a missing value, operator or parenthesis).
        case syntax
        /// A name that is not an attribute.
        case unknownAttribute
        /// An operator, modifier or value that does not fit the attribute's type.
        case typeMismatch
        /// A malformed literal: string, number, size or date.
        case invalidLiteral
        /// A `LIKE` or `MATCHES` pattern that cannot be used.
        case invalidPattern
        /// Nested too deeply, or too many values, to be run safely.
        case tooComplex
    }

    public let kind: Kind
    public let position: Int
    public let message: String

    public init(_ kind: Kind, position: Int, _ message: String) {
        self.kind = kind
        self.position = position
        self.message = message
    }

    public var description: String { "position \(position): \(message)" }
}
