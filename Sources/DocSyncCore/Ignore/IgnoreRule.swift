/// One line of ignore rules, parsed: a glob for a name at any depth, or for a path from the
/// folder root, optionally for directories only.
struct IgnoreRule: Sendable {
    enum Segment: Sendable {
        /// One path component.
        case glob(GlobPattern)
        /// `**`: any number of components, none included.
        case anyDepth
    }

    enum Matcher: Sendable {
        /// A pattern without `/`: matched against the item's own name, at any depth.
        case name(GlobPattern)
        /// A pattern with `/`: matched component by component against the path from the root.
        case path([Segment])
    }

    var matcher: Matcher
    var directoryOnly: Bool

    /// Parses one pattern (already trimmed, not blank, not a comment). Throws a person-readable
    /// message for a pattern that could never be meant: empty after its slashes, with an empty
    /// component, a `.`/`..` component, or a bad glob.
    init(parsing line: String) throws(SyncError) {
        var text = Substring(line)
        directoryOnly = false
        if text.hasSuffix("/") {
            directoryOnly = true
            text = text.dropLast()
        }
        var anchored = false
        if text.hasPrefix("/") {
            anchored = true
            text = text.dropFirst()
        }
        guard !text.isEmpty else { throw SyncError(.invalidArguments, "pattern is empty once its slashes are removed") }
        let components = text.split(separator: "/", omittingEmptySubsequences: false)
        if !anchored && components.count == 1 {
            matcher = .name(try GlobPattern(String(text)))
            return
        }
        var segments: [Segment] = []
        for component in components {
            if component.isEmpty { throw SyncError(.invalidArguments, "pattern has an empty component ('//')") }
            if component == "." || component == ".." {
                throw SyncError(.invalidArguments, "pattern has a '\(component)' component, which never matches")
            }
            if component == "**" {
                if case .anyDepth? = segments.last { continue }
                segments.append(.anyDepth)
            } else {
                segments.append(.glob(try GlobPattern(String(component))))
            }
        }
        matcher = .path(segments)
    }

    /// True when the item at `components` (the full path from the root) matches this rule itself
    /// (its ancestors are the caller's business).
    func matches(_ components: ArraySlice<Substring>, isDirectory: Bool) -> Bool {
        if directoryOnly && !isDirectory { return false }
        switch matcher {
        case .name(let glob): return components.last.map(glob.matches) ?? false
        case .path(let segments): return Self.match(segments[...], components)
        }
    }

    /// Segments against components, `**` taking any number of components. Memoised over
    /// (segment, component) positions, so quadratic at worst.
    private static func match(_ segments: ArraySlice<Segment>, _ components: ArraySlice<Substring>) -> Bool {
        // reachable[j]: the segments so far can consume exactly the first j components.
        var reachable = [Bool](repeating: false, count: components.count + 1)
        reachable[0] = true
        let first = components.startIndex
        for segment in segments {
            var next = [Bool](repeating: false, count: components.count + 1)
            switch segment {
            case .anyDepth:
                var any = false
                for j in 0...components.count {
                    any = any || reachable[j]
                    next[j] = any
                }
            case .glob(let glob):
                for j in 0..<components.count where reachable[j] && glob.matches(components[first + j]) {
                    next[j + 1] = true
                }
            }
            reachable = next
        }
        return reachable[components.count]
    }
}
