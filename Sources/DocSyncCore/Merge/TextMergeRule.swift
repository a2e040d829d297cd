/// Which files a folder merges line-wise when both sides edited them (SPEC §4, "Merge before
/// duplicating"): the folder's `merge` globs and `merge_max_size`.
///
/// A pattern without `/` is matched against the file's name, one with `/` against its path
/// from the folder's root; letters match regardless of case (`*.md` takes `README.MD`). Only
/// documents are merged, and only when the common ancestor and both sides are at most
/// `maxSize` bytes. Whether the bytes are text (valid UTF-8) is `TextMerge`'s question.
public struct TextMergeRule: Sendable, Hashable {
    /// The default `merge` globs: plain-text formats people edit by hand.
    public static let defaultPatterns = ["*.txt", "*.md", "*.markdown", "*.org", "*.tex", "*.csv", "*.json",
                                         "*.yaml", "*.yml", "*.toml", "*.ini", "*.conf"]
    /// The default `merge_max_size`: 1 MB.
    public static let defaultMaxSize: Int64 = 1_000_000

    public let patterns: [GlobPattern]
    public let maxSize: Int64

    /// Throws `invalidArguments` naming a pattern that is not a valid glob.
    public init(patterns: [String] = TextMergeRule.defaultPatterns, maxSize: Int64 = TextMergeRule.defaultMaxSize) throws(SyncError) {
        var compiled: [GlobPattern] = []
        for pattern in patterns {
            do { compiled.append(try GlobPattern(pattern, caseInsensitive: true)) } catch {
                throw SyncError(.invalidArguments, "merge pattern '\(pattern)': \(error.message)")
            }
        }
        self.patterns = compiled
        self.maxSize = maxSize
    }

    /// The default rule (the default globs, 1 MB).
    public static let standard: TextMergeRule = {
        do { return try TextMergeRule() } catch { preconditionFailure("the default merge patterns are valid globs: \(error)") }
    }()

    /// True when a file at `path` is one this folder merges (by its globs alone).
    public func matches(_ path: RelativePath) -> Bool {
        patterns.contains { pattern in
            pattern.pattern.contains("/") ? pattern.matches(path.string) : pattern.matches(path.name)
        }
    }

    /// True when a content conflict between `local` and `server` over their common `ancestor`
    /// is to be merged line-wise: all three are documents with content, within `maxSize`, and
    /// the merged item's path (`path`) or the local one matches the globs.
    public func admits(ancestor: Record, local: Record, server: Record, at path: RelativePath) -> Bool {
        let sides = [ancestor, local, server]
        guard sides.allSatisfy({ $0.type == .document && $0.size <= maxSize }),
              ancestor.asset != nil, server.asset != nil, local.contentDigest != nil
        else { return false }
        return matches(path) || matches(local.path)
    }
}
