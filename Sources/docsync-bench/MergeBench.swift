import DocSyncCore
import Foundation

extension BenchCommand {
    /// `--only merge`: the line-wise text merge (`TextMerge`, SPEC §4 "Merge before
    /// duplicating") on a 1 MB text with 100 scattered edits per side (median of `rounds`
    /// runs), on 1,000 seeded random pairs of edits separated by unchanged lines, and on the
    /// worst case its diff bounds (every line of the 1 MB text moved on both sides). Throws
    /// when a merge that must succeed gives anything but the expected text.
    func runMerge() throws {
        print("\n== Line-wise text merge (diff3) ==")
        let large = MergeBench.scattered(seed: 0x5eed, lines: 20_000, editsPerSide: 100)
        var times: [Double] = []
        for _ in 0..<max(rounds, 1) {
            var result: TextMergeResult?
            times.append(MergeBench.milliseconds { result = TextMerge.merge(ancestor: large.ancestor, local: large.local, remote: large.remote) })
            guard result == .merged(large.expected) else { throw BenchError("the 1 MB merge did not give the expected text") }
        }
        times.sort()
        print(String(format: "1 MB text (%d lines, %d bytes), 100 scattered edits per side: %.2f ms (median of %d, %.2f–%.2f)",
                     20_000, large.ancestor.count, times[times.count / 2], times.count, times[0], times[times.count - 1]))

        var clean = 0
        var expected = 0
        var total = 0.0
        for seed in UInt64(0)..<1_000 {
            let pair = MergeBench.separated(seed: seed)
            var result: TextMergeResult?
            total += MergeBench.milliseconds { result = TextMerge.merge(ancestor: pair.ancestor, local: pair.local, remote: pair.remote) }
            if case .merged(let text) = result {
                clean += 1
                if text == pair.expected { expected += 1 }
            }
        }
        print(String(format: "1,000 seeded random pairs of edits separated by unchanged lines: %d merged cleanly (%d as expected) in %.1f ms",
                     clean, expected, total))
        guard clean == 1_000, expected == 1_000 else { throw BenchError("\(1_000 - expected) separated edit pairs did not merge as expected") }

        let shuffled = MergeBench.shuffledOnBothSides(large.ancestor, seed: 0x5eed)
        var worst: TextMergeResult?
        let worstTime = MergeBench.milliseconds { worst = TextMerge.merge(ancestor: large.ancestor, local: shuffled.local, remote: shuffled.remote) }
        let outcome: String
        switch worst {
        case .conflict(let reason)?: outcome = "conflict, \(reason)"
        case .merged?: outcome = "merged"
        case nil: outcome = "no result"
        }
        print(String(format: "worst case, every line of the 1 MB text moved on both sides: %.1f ms (%@)", worstTime, outcome))
    }
}

/// Texts for the merge benchmark, seeded (SplitMix64): the same on every run.
enum MergeBench {
    struct Texts {
        var ancestor: [UInt8]
        var local: [UInt8]
        var remote: [UInt8]
        /// The ancestor with both sides' edits applied: what a clean merge must give.
        var expected: [UInt8]
    }

    /// One side's change: ancestor lines `range` replaced by `lines`.
    struct Edit {
        var range: Range<Int>
        var lines: [String]
        var local: Bool
    }

    /// A text of `lines` unique lines of about 50 bytes, cut into 2 × `editsPerSide` equal
    /// stretches, each with one edit (1–3 lines replaced, deleted or inserted) strictly inside
    /// it, by a side drawn so that each side has `editsPerSide`.
    static func scattered(seed: UInt64, lines: Int, editsPerSide: Int) -> Texts {
        var random = SplitMix64(seed: seed)
        let ancestor = (0..<lines).map { index in
            "\(index): " + String(repeating: "lorem ipsum ", count: 3) + String(random.next() % 1_000_000) + "\n"
        }
        var sides = Array(repeating: true, count: editsPerSide) + Array(repeating: false, count: editsPerSide)
        sides.shuffle(using: &random)
        let stretch = lines / sides.count
        let edits = sides.enumerated().map { index, local in
            let start = index * stretch + 1 + below(stretch - 5, &random)
            let removed = below(4, &random)
            let added = removed == 0 ? 1 + below(3, &random) : below(4, &random)
            return Edit(range: start..<(start + removed),
                        lines: (0..<added).map { "\(local ? "local" : "remote") edit \(index).\($0)\n" }, local: local)
        }
        return texts(ancestor, edits)
    }

    /// Up to 40 unique lines and random edits by both sides, each local edit separated from
    /// each remote one by at least one unchanged line (often exactly one).
    static func separated(seed: UInt64) -> Texts {
        var random = SplitMix64(seed: seed)
        let count = below(41, &random)
        let ancestor = (0..<count).map { "line \($0)\n" }
        var edits: [Edit] = []
        var position = 0
        var lastEnd = (local: -1, remote: -1)
        while edits.count < 12 {
            let local = below(2, &random) == 0
            let start = max(position, (local ? lastEnd.remote : lastEnd.local) + 1) + below(3, &random)
            if start > count { break }
            let removed = below(min(3, count - start) + 1, &random)
            let added = removed == 0 ? 1 + below(3, &random) : below(4, &random)
            edits.append(Edit(range: start..<(start + removed),
                              lines: (0..<added).map { "\(local ? "local" : "remote") \(edits.count).\($0)\n" }, local: local))
            position = start + removed
            if local { lastEnd.local = position } else { lastEnd.remote = position }
        }
        return texts(ancestor, edits)
    }

    /// The lines of `text` in two different random orders.
    static func shuffledOnBothSides(_ text: [UInt8], seed: UInt64) -> (local: [UInt8], remote: [UInt8]) {
        var random = SplitMix64(seed: seed)
        let lines = text.split(separator: 0x0A, omittingEmptySubsequences: false).dropLast().map { Array($0) + [0x0A] }
        return (Array(lines.shuffled(using: &random).joined()), Array(lines.shuffled(using: &random).joined()))
    }

    static func texts(_ ancestor: [String], _ edits: [Edit]) -> Texts {
        func text(_ edits: [Edit]) -> [UInt8] {
            var lines: [String] = []
            var next = 0
            for edit in edits {
                lines += ancestor[next..<edit.range.lowerBound]
                lines += edit.lines
                next = edit.range.upperBound
            }
            lines += ancestor[next...]
            return Array(lines.joined().utf8)
        }
        return Texts(ancestor: text([]), local: text(edits.filter(\.local)), remote: text(edits.filter { !$0.local }),
                     expected: text(edits))
    }

    /// A number in `0..<bound` (bound > 0).
    static func below(_ bound: Int, _ random: inout SplitMix64) -> Int { Int(random.next() % UInt64(bound)) }

    /// How long `work` takes, in milliseconds.
    static func milliseconds(_ work: () -> Void) -> Double {
        let duration = ContinuousClock().measure(work)
        return Double(duration.components.seconds) * 1e3 + Double(duration.components.attoseconds) / 1e15
    }
}
