import Synchronization

/// The SQL functions `PredicateSQL` calls, implemented in Swift so that they are exactly the
/// evaluator's: a database layer registers each under `name` with `argumentCount` arguments
/// and forwards its calls to `call(_:)`. All are deterministic.
///
/// - `docsync_fold(text, flags)`: `TextFolding.fold(text, ComparisonOptions(flags:))`.
/// - `docsync_like(text, pattern, flags)`: 1 when `LikePattern(pattern, options:)` matches
///   `text`, else 0.
/// - `docsync_matches(text, pattern, flags)`: 1 when `RegexPattern(pattern, options:)`
///   matches `text`, else 0.
///
/// `flags` is `""`, `"c"`, `"d"` or `"cd"`. A NULL `text` gives NULL. Patterns are compiled
/// once and cached (keyed by their exact scalars), so a query over many rows compiles its
/// pattern once.
public enum PredicateSQLFunction: String, CaseIterable, Sendable {
    case fold = "docsync_fold"
    case like = "docsync_like"
    case matches = "docsync_matches"

    /// A call with arguments `PredicateSQL` never makes: wrong count or types, unknown flags,
    /// or a pattern that does not compile.
    public struct Misuse: Error, Hashable, Sendable, CustomStringConvertible {
        public let description: String
    }

    public var name: String { rawValue }

    public var argumentCount: Int { self == .fold ? 2 : 3 }

    /// The function's result for `arguments`.
    public func call(_ arguments: [SQLArgument]) throws(Misuse) -> SQLArgument {
        guard arguments.count == argumentCount else {
            throw Misuse(description: "\(name) takes \(argumentCount) arguments, not \(arguments.count)")
        }
        if arguments[0] == .null { return .null }
        let texts = try arguments.map { argument throws(Misuse) -> String in
            guard case .text(let text) = argument else { throw Misuse(description: "\(name) takes text arguments") }
            return text
        }
        switch self {
        case .fold: return .text(try Self.fold(texts[0], flags: texts[1]))
        case .like: return .integer(try Self.like(texts[0], pattern: texts[1], flags: texts[2]) ? 1 : 0)
        case .matches: return .integer(try Self.matches(texts[0], pattern: texts[1], flags: texts[2]) ? 1 : 0)
        }
    }

    public static func fold(_ text: String, flags: String) throws(Misuse) -> String {
        TextFolding.fold(text, try options(flags))
    }

    public static func like(_ text: String, pattern: String, flags: String) throws(Misuse) -> Bool {
        let options = try options(flags)
        let key = CacheKey(pattern: Array(pattern.utf8), options: options)
        if let cached = likeCache.withLock({ $0[key] }) { return cached.matches(text) }
        guard let compiled = try? LikePattern(pattern, options: options) else {
            throw Misuse(description: "\(PredicateLiteral.quoted(pattern)) is not a LIKE pattern")
        }
        likeCache.withLock { cache in
            if cache.count >= cacheLimit { cache.removeAll() }
            cache[key] = compiled
        }
        return compiled.matches(text)
    }

    public static func matches(_ text: String, pattern: String, flags: String) throws(Misuse) -> Bool {
        let options = try options(flags)
        let key = CacheKey(pattern: Array(pattern.utf8), options: options)
        if let cached = regexCache.withLock({ $0[key] }) { return cached.matches(text) }
        let compiled: RegexPattern
        do {
            compiled = try RegexPattern(pattern, options: options)
        } catch {
            throw Misuse(description: "\(PredicateLiteral.quoted(pattern)) cannot be used: \(error.reason)")
        }
        regexCache.withLock { cache in
            if cache.count >= cacheLimit { cache.removeAll() }
            cache[key] = compiled
        }
        return compiled.matches(text)
    }

    private static func options(_ flags: String) throws(Misuse) -> ComparisonOptions {
        guard let options = ComparisonOptions(flags: flags) else {
            throw Misuse(description: "unknown flags \(PredicateLiteral.quoted(flags)) (expected '', 'c', 'd' or 'cd')")
        }
        return options
    }

    private struct CacheKey: Hashable {
        let pattern: [UInt8]
        let options: ComparisonOptions
    }

    private static let cacheLimit = 256
    private static let likeCache = Mutex<[CacheKey: LikePattern]>([:])
    private static let regexCache = Mutex<[CacheKey: RegexPattern]>([:])
}
