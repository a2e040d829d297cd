@testable import DocSyncCore
import Testing

/// Seeded property tests of the line-wise merge and its line diff. Every failure names its
/// seed; `TextMergeScenario.separated(seed:)`, `TextMergeScenario.random(seed:)` or `diffCase(seed:)` with that
/// seed rebuilds the inputs.
@Suite struct TextMergePropertyTests {
    static let seeds: Range<UInt64> = 0..<1_000

    // MARK: - (1) An unchanged side gives the other side

    @Test func anUnchangedSideGivesTheOtherSide() {
        for seed in Self.seeds {
            let scenario = TextMergeScenario.random(seed: seed)
            let ancestor = scenario.ancestor, changed = scenario.local
            // Through the public entry point and through the line merge itself, past the
            // entry point's shortcut for this case.
            #expect(TextMerge.merge(ancestor: ancestor, local: ancestor, remote: changed) == .merged(changed), "seed \(seed)")
            #expect(TextMerge.merge(ancestor: ancestor, local: changed, remote: ancestor) == .merged(changed), "seed \(seed)")
            let lines = (TextLines(ancestor), TextLines(changed))
            #expect(TextMerge.mergeLines(ancestor: lines.0, local: lines.0, remote: lines.1) == .merged(changed),
                    "seed \(seed): \(scenario)")
            #expect(TextMerge.mergeLines(ancestor: lines.0, local: lines.1, remote: lines.0) == .merged(changed),
                    "seed \(seed): \(scenario)")
        }
    }

    // MARK: - (2) Edits separated by an unchanged line always merge

    @Test func editsSeparatedByAnUnchangedLineAlwaysMerge() {
        var clean = 0
        var bothSidesEdited = 0
        for seed in Self.seeds {
            let scenario = TextMergeScenario.separated(seed: seed)
            if scenario.local != scenario.ancestor && scenario.remote != scenario.ancestor { bothSidesEdited += 1 }
            let result = TextMerge.merge(ancestor: scenario.ancestor, local: scenario.local, remote: scenario.remote)
            if case .merged = result { clean += 1 } else { Issue.record("seed \(seed): \(result) for \(scenario)") }
        }
        #expect(clean == Self.seeds.count)
        // The generator must mostly produce real two-sided merges for this to mean anything.
        #expect(bothSidesEdited >= Self.seeds.count * 3 / 4, "only \(bothSidesEdited) scenarios edited both sides")
    }

    // MARK: - (3) The result is the ancestor with both sides' edits applied

    @Test func theResultAppliesBothSidesEditsInPlace() {
        for seed in UInt64(1_000)..<UInt64(2_000) {
            let scenario = TextMergeScenario.separated(seed: seed)
            let result = TextMerge.merge(ancestor: scenario.ancestor, local: scenario.local, remote: scenario.remote)
            #expect(result == .merged(scenario.expected), "seed \(seed): \(scenario)")
        }
    }

    @Test(arguments: [UInt64(7), 8, 9])
    func aLargeTextWithAHundredEditsPerSideMerges(seed: UInt64) {
        let scenario = TextMergeScenario.scattered(seed: seed, lines: 20_000, editsPerSide: 100)
        #expect(scenario.ancestor.count > 900_000)
        let result = TextMerge.merge(ancestor: scenario.ancestor, local: scenario.local, remote: scenario.remote)
        #expect(result == .merged(scenario.expected), "seed \(seed)")
    }

    // MARK: - (4) Symmetry

    @Test func swappingTheSidesGivesTheSameResult() {
        var merged = 0
        var conflicts = 0
        for seed in Self.seeds {
            let scenario = TextMergeScenario.random(seed: seed)
            let forward = TextMerge.merge(ancestor: scenario.ancestor, local: scenario.local, remote: scenario.remote)
            let backward = TextMerge.merge(ancestor: scenario.ancestor, local: scenario.remote, remote: scenario.local)
            #expect(forward == backward, "seed \(seed): \(forward) against \(backward) for \(scenario)")
            if case .merged = forward { merged += 1 } else { conflicts += 1 }
        }
        // Both outcomes must be common, or the property says little.
        #expect(merged >= 100 && conflicts >= 100, "\(merged) merged, \(conflicts) conflicts")
    }

    // MARK: - The line diff

    @Test func theDiffIsExactMaximalAndShortest() {
        for seed in Self.seeds {
            let (old, new) = Self.diffCase(seed: seed)
            let hunks = LineDiff.hunks(from: old, to: new)
            #expect(Self.apply(hunks, old, new) == new, "seed \(seed): \(old) → \(new): \(hunks)")
            #expect(Self.areSeparated(hunks), "seed \(seed): \(hunks)")
            let kept = old.count - hunks.reduce(0) { $0 + $1.old.count }
            #expect(kept == Self.longestCommonSubsequence(old, new), "seed \(seed): \(old) → \(new): \(hunks)")
        }
    }

    @Test(arguments: [0, 1, 5, 40])
    func aDiffOutOfBudgetIsStillExact(budget: Int) {
        var coarser = 0
        for seed in Self.seeds {
            let (old, new) = Self.diffCase(seed: seed)
            let hunks = LineDiff.hunks(from: old, to: new, budget: budget)
            #expect(Self.apply(hunks, old, new) == new, "seed \(seed), budget \(budget): \(hunks)")
            #expect(Self.areSeparated(hunks), "seed \(seed), budget \(budget): \(hunks)")
            let kept = old.count - hunks.reduce(0) { $0 + $1.old.count }
            if kept < Self.longestCommonSubsequence(old, new) { coarser += 1 }
        }
        if budget == 0 { #expect(coarser > 0, "a budget of 0 must cut some searches short") }
    }

    /// Two short sequences over a small alphabet (many repeats), from `seed`.
    static func diffCase(seed: UInt64) -> (old: [Int], new: [Int]) {
        var random = SplitMix64(seed: seed)
        let alphabet = 2 + random.below(5)
        let old = (0..<random.below(16)).map { _ in random.below(alphabet) }
        var new = old
        for _ in 0..<random.below(6) {
            let position = random.below(new.count + 1)
            switch random.below(3) {
            case 0: new.insert(random.below(alphabet), at: position)
            case 1 where position < new.count: new.remove(at: position)
            default: if position < new.count { new[position] = random.below(alphabet) }
            }
        }
        return (old, new)
    }

    /// `old` with every hunk replaced by its lines of `new`.
    static func apply(_ hunks: [LineDiff.Hunk], _ old: [Int], _ new: [Int]) -> [Int] {
        var result: [Int] = []
        var next = 0
        for hunk in hunks {
            result += old[next..<hunk.old.lowerBound]
            result += new[hunk.new]
            next = hunk.old.upperBound
        }
        return result + old[next...]
    }

    /// True when the hunks are in order, each changes something, and each is followed by at
    /// least one kept line before the next, the same number on both sides.
    static func areSeparated(_ hunks: [LineDiff.Hunk]) -> Bool {
        zip(hunks, hunks.dropFirst()).allSatisfy { first, second in
            second.old.lowerBound > first.old.upperBound
                && second.old.lowerBound - first.old.upperBound == second.new.lowerBound - first.new.upperBound
        } && hunks.allSatisfy { !$0.old.isEmpty || !$0.new.isEmpty }
    }

    /// The length of a longest common subsequence, by dynamic programming.
    static func longestCommonSubsequence(_ a: [Int], _ b: [Int]) -> Int {
        var row = [Int](repeating: 0, count: b.count + 1)
        for x in a {
            var diagonal = 0
            for j in 0..<b.count {
                let above = row[j + 1]
                row[j + 1] = x == b[j] ? diagonal + 1 : max(row[j + 1], row[j])
                diagonal = above
            }
        }
        return row[b.count]
    }
}

/// Three texts for one merge, and what a clean merge of them must give.
private struct TextMergeScenario: CustomStringConvertible {
    var ancestor: [UInt8]
    var local: [UInt8]
    var remote: [UInt8]
    /// The ancestor with both sides' edits applied (meaningful for separated edits only).
    var expected: [UInt8]

    var description: String {
        func show(_ bytes: [UInt8]) -> String { String(decoding: bytes, as: UTF8.self).debugDescription }
        return "ancestor \(show(ancestor)), local \(show(local)), remote \(show(remote))"
    }

    /// One side's change to the ancestor: lines `range` replaced by `lines`.
    struct Edit {
        var range: Range<Int>
        var lines: [String]
        var local: Bool
    }

    /// Random edits by both sides of a text of unique lines, every local edit separated from
    /// every remote one by at least one unchanged ancestor line. The line ending (LF or CRLF)
    /// and a byte-order mark are drawn once for all three texts.
    static func separated(seed: UInt64) -> TextMergeScenario {
        var random = SplitMix64(seed: seed)
        let count = random.below(41)
        let ending = random.below(2) == 0 ? "\n" : "\r\n"
        let mark = random.below(4) == 0
        let ancestor = (0..<count).map { "line \($0)\(String(repeating: "·", count: random.below(3)))\(ending)" }
        var edits: [Edit] = []
        var position = 0
        var lastEnd = (local: -1, remote: -1)
        while true {
            let local = random.below(2) == 0
            let other = local ? lastEnd.remote : lastEnd.local
            let start = max(position, other + 1) + (random.below(3) == 0 ? random.below(5) : 0)
            if start > count || edits.count > 12 { break }
            let removed = random.below(min(3, count - start) + 1)
            var added = random.below(4)
            if removed == 0 && added == 0 { added = 1 }
            let lines = (0..<added).map { "\(local ? "ł" : "r") \(seed).\(edits.count).\($0)\(ending)" }
            edits.append(Edit(range: start..<(start + removed), lines: lines, local: local))
            position = start + removed
            if local { lastEnd.local = position } else { lastEnd.remote = position }
        }
        return TextMergeScenario(ancestor: ancestor, edits: edits, mark: mark)
    }

    /// A text of `lines` unique lines of about 50 bytes, cut into 2 × `editsPerSide` equal
    /// stretches; each stretch gets one edit, inside it with a line to spare at each end, by a
    /// side drawn so that each side has `editsPerSide`.
    static func scattered(seed: UInt64, lines: Int, editsPerSide: Int) -> TextMergeScenario {
        var random = SplitMix64(seed: seed)
        let ancestor = (0..<lines).map { index in
            "\(index): " + String(repeating: "lorem ipsum ", count: 3) + String(random.next() % 1_000_000) + "\n"
        }
        var sides = Array(repeating: true, count: editsPerSide) + Array(repeating: false, count: editsPerSide)
        sides.shuffle(using: &random)
        let stretch = lines / sides.count
        let edits = sides.enumerated().map { index, local in
            let start = index * stretch + 1 + random.below(stretch - 5)
            let removed = random.below(4)
            let added = removed == 0 ? 1 + random.below(3) : random.below(4)
            return Edit(range: start..<(start + removed),
                        lines: (0..<added).map { "\(local ? "local" : "remote") edit \(index).\($0)\n" }, local: local)
        }
        return TextMergeScenario(ancestor: ancestor, edits: edits, mark: false)
    }

    init(ancestor: [String], edits: [Edit], mark: Bool) {
        func text(_ edits: [Edit]) -> [UInt8] {
            var lines: [String] = []
            var next = 0
            for edit in edits {
                lines += ancestor[next..<edit.range.lowerBound]
                lines += edit.lines
                next = edit.range.upperBound
            }
            lines += ancestor[next...]
            return (mark ? TextLines.byteOrderMark : []) + Array(lines.joined().utf8)
        }
        self.ancestor = text([])
        local = text(edits.filter(\.local))
        remote = text(edits.filter { !$0.local })
        expected = text(edits)
    }

    init(ancestor: [UInt8], local: [UInt8], remote: [UInt8]) {
        self.ancestor = ancestor
        self.local = local
        self.remote = remote
        expected = []
    }

    /// An ancestor of lines over a small alphabet (so lines repeat) and two sides each changed
    /// at random: lines replaced, inserted or deleted, and now and then the byte-order mark
    /// toggled, the line endings converted or the final newline dropped.
    static func random(seed: UInt64) -> TextMergeScenario {
        var random = SplitMix64(seed: seed)
        let words = ["a", "b", "c", "ü", "", "日本"]
        let ending = random.below(2) == 0 ? "\n" : "\r\n"
        let ancestor = (0..<random.below(12)).map { _ in words[random.below(words.count)] + ending }
        let mark = random.below(5) == 0

        func side() -> [UInt8] {
            var lines = ancestor
            for _ in 0..<(1 + random.below(3)) {
                let position = random.below(lines.count + 1)
                let line = words[random.below(words.count)] + ending
                switch random.below(3) {
                case 0: lines.insert(line, at: position)
                case 1 where position < lines.count: lines.remove(at: position)
                default: if position < lines.count { lines[position] = line } else { lines.append(line) }
                }
            }
            var text = lines.joined()
            switch random.below(12) {
            case 0: text = text.replacingAll("\r\n", with: "\n")
            case 1: text = text.replacingAll("\r\n", with: "\n").replacingAll("\n", with: "\r\n")
            case 2: if text.hasSuffix("\n") { text = String(text.utf8.dropLast(ending.utf8.count)) ?? text }
            default: break
            }
            let sideMark = random.below(10) == 0 ? !mark : mark
            return (sideMark ? TextLines.byteOrderMark : []) + Array(text.utf8)
        }
        let ancestorText = (mark ? TextLines.byteOrderMark : []) + Array(ancestor.joined().utf8)
        return TextMergeScenario(ancestor: ancestorText, local: side(), remote: side())
    }
}

private extension String {
    /// `self` with every occurrence of `target` replaced (no Foundation needed).
    func replacingAll(_ target: String, with replacement: String) -> String {
        split(separator: target, omittingEmptySubsequences: false).joined(separator: replacement)
    }
}

private extension SplitMix64 {
    /// A number in `0..<bound` (bound > 0); the same for a seed on every machine and release.
    mutating func below(_ bound: Int) -> Int { Int(next() % UInt64(bound)) }
}
