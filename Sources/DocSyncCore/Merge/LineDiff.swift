/// A line diff: Myers' O(ND) algorithm (linear-space, by the middle snake) over lines given as
/// integer ids (`LineInterner`).
///
/// The result is the list of changed blocks ("hunks") that turn `old` into `new`: sorted,
/// non-overlapping, and maximal — two hunks are always separated by at least one line kept from
/// `old`. Replacing each hunk's `old` lines by its `new` lines turns `old` into `new` exactly.
/// The kept lines form a longest common subsequence of the two, unless the work budget runs out:
/// then the part still being compared counts as changed as a whole (a coarser but still exact
/// script), which bounds the time a pathological input (two unrelated reorderings of the same
/// lines) can take.
enum LineDiff {
    /// A change: `old[old]` is replaced by `new[new]`. An empty `old` range is an insertion
    /// before `old.lowerBound`, an empty `new` range a deletion.
    struct Hunk: Hashable, Sendable {
        var old: Range<Int>
        var new: Range<Int>
    }

    /// The default work budget, in diagonal steps: about a tenth of a second in a release
    /// build. A 1 MB text of 20,000 lines with a thousand scattered changes among lines that
    /// repeat a lot needs a few million; one with all its lines reordered would need billions.
    static let defaultBudget = 20_000_000

    /// The hunks turning `old` into `new` (see the type's description).
    static func hunks(from old: [Int], to new: [Int], budget: Int = defaultBudget) -> [Hunk] {
        // The common prefix and suffix are kept as they are, without searching.
        var prefix = 0
        while prefix < old.count, prefix < new.count, old[prefix] == new[prefix] { prefix += 1 }
        var suffix = 0
        while suffix < old.count - prefix, suffix < new.count - prefix,
              old[old.count - 1 - suffix] == new[new.count - 1 - suffix] { suffix += 1 }
        let oldEnd = old.count - suffix
        let newEnd = new.count - suffix
        if prefix == oldEnd && prefix == newEnd { return [] }
        if prefix == oldEnd || prefix == newEnd { return [Hunk(old: prefix..<oldEnd, new: prefix..<newEnd)] }

        // A line occurring on one side only is changed in every common subsequence: leaving
        // such lines out of the search shrinks it (a rewritten text is mostly such lines) and
        // keeps the longest common subsequence the same.
        let (oldKept, newKept) = linesOnBothSides(old[prefix..<oldEnd], new[prefix..<newEnd])
        let oldIDs = oldKept.map { old[$0] }
        let newIDs = newKept.map { new[$0] }
        let matches = oldIDs.withUnsafeBufferPointer { a in
            newIDs.withUnsafeBufferPointer { b in
                var search = Search(a: a, b: b, budget: budget)
                search.compare(0, a.count, 0, b.count)
                return search.matches
            }
        }

        var hunks: [Hunk] = []
        var nextOld = prefix
        var nextNew = prefix
        for match in matches {
            let oldIndex = oldKept[match.a]
            let newIndex = newKept[match.b]
            if oldIndex > nextOld || newIndex > nextNew {
                hunks.append(Hunk(old: nextOld..<oldIndex, new: nextNew..<newIndex))
            }
            nextOld = oldIndex + 1
            nextNew = newIndex + 1
        }
        if nextOld < oldEnd || nextNew < newEnd {
            hunks.append(Hunk(old: nextOld..<oldEnd, new: nextNew..<newEnd))
        }
        return hunks
    }

    /// The indices of the lines of `old` that also occur in `new`, and those of `new` that also
    /// occur in `old`, in order.
    private static func linesOnBothSides(_ old: ArraySlice<Int>, _ new: ArraySlice<Int>) -> (old: [Int], new: [Int]) {
        let lowest = min(old.min() ?? 0, new.min() ?? 0)
        let highest = max(old.max() ?? 0, new.max() ?? 0)
        // Bit 1: occurs in old; bit 2: occurs in new. Interned ids are dense, so this is small.
        var seen = [UInt8](repeating: 0, count: highest - lowest + 1)
        for id in old { seen[id - lowest] |= 1 }
        for id in new { seen[id - lowest] |= 2 }
        return (old.indices.filter { seen[old[$0] - lowest] == 3 }, new.indices.filter { seen[new[$0] - lowest] == 3 })
    }

    /// Myers' search for a shortest edit script, divide and conquer on the middle snake (the
    /// bisection of Myers 1986, section 4b, as Neil Fraser's diff-match-patch writes it).
    private struct Search {
        let a: UnsafeBufferPointer<Int>
        let b: UnsafeBufferPointer<Int>
        /// Diagonal steps left before the rest counts as changed.
        var budget: Int
        /// Matched pairs (index in `a`, index in `b`), increasing in both.
        var matches: [(a: Int, b: Int)] = []
        /// The furthest-reaching paths of the forward and backward searches, reused by every
        /// middle snake (each needs at most `a.count + b.count + 3` entries).
        var forward: [Int]
        var backward: [Int]

        init(a: UnsafeBufferPointer<Int>, b: UnsafeBufferPointer<Int>, budget: Int) {
            self.a = a
            self.b = b
            self.budget = budget
            forward = [Int](repeating: -1, count: a.count + b.count + 3)
            backward = forward
        }

        /// Finds the matches between `a[aLow..<aHigh]` and `b[bLow..<bHigh]`, appending them in order.
        mutating func compare(_ aLow: Int, _ aHigh: Int, _ bLow: Int, _ bHigh: Int) {
            var aLow = aLow, bLow = bLow, aHigh = aHigh, bHigh = bHigh
            while aLow < aHigh, bLow < bHigh, a[aLow] == b[bLow] {
                matches.append((aLow, bLow))
                aLow += 1
                bLow += 1
            }
            var suffix = 0
            while aLow < aHigh, bLow < bHigh, a[aHigh - 1] == b[bHigh - 1] {
                aHigh -= 1
                bHigh -= 1
                suffix += 1
            }
            if aLow < aHigh, bLow < bHigh {
                let (a, b) = (self.a, self.b)
                let split = forward.withUnsafeMutableBufferPointer { forward in
                    backward.withUnsafeMutableBufferPointer { backward in
                        Self.middleSnake(a[aLow..<aHigh], b[bLow..<bHigh], forward, backward, budget: &budget)
                    }
                }
                // A split strictly inside the rectangle; anything else would not progress.
                if let (x, y) = split, x + y > 0, x + y < (aHigh - aLow) + (bHigh - bLow) {
                    compare(aLow, aLow + x, bLow, bLow + y)
                    compare(aLow + x, aHigh, bLow + y, bHigh)
                }
            }
            for offset in 0..<suffix { matches.append((aHigh + offset, bHigh + offset)) }
        }

        /// A point (x, y), relative to the slices' starts, on a shortest path through `a` and
        /// `b` about halfway along, where the forward and backward searches meet; nil when the
        /// budget runs out. Both slices are non-empty and their first and last elements differ.
        static func middleSnake(
            _ a: Slice<UnsafeBufferPointer<Int>>, _ b: Slice<UnsafeBufferPointer<Int>>,
            _ forward: UnsafeMutableBufferPointer<Int>, _ backward: UnsafeMutableBufferPointer<Int>,
            budget: inout Int
        ) -> (Int, Int)? {
            let aStart = a.startIndex, bStart = b.startIndex, aEnd = a.endIndex, bEnd = b.endIndex
            let n = a.count
            let m = b.count
            let maxD = (n + m + 1) / 2
            let offset = maxD
            let length = 2 * maxD + 2
            // forward[k]: furthest x on diagonal k = x - y from the start; backward[k]: furthest
            // distance from the end on diagonal k of the reversed problem; -1 = not reached.
            for index in 0..<length {
                forward[index] = -1
                backward[index] = -1
            }
            forward[offset + 1] = 0
            backward[offset + 1] = 0
            let delta = n - m
            // With an odd delta the forward search finds the overlap, with an even one the backward.
            let forwardMeets = delta % 2 != 0
            var forwardStart = 0, forwardEnd = 0, backwardStart = 0, backwardEnd = 0
            for d in 0..<maxD {
                budget -= 2 * d + 2
                if budget < 0 { return nil }
                var k = -d + forwardStart
                while k <= d - forwardEnd {
                    let index = offset + k
                    var x = k == -d || (k != d && forward[index - 1] < forward[index + 1])
                        ? forward[index + 1] : forward[index - 1] + 1
                    var y = x - k
                    let start = x
                    while x < n, y < m, a.base[aStart + x] == b.base[bStart + y] {
                        x += 1
                        y += 1
                    }
                    budget -= x - start
                    forward[index] = x
                    if x > n {
                        forwardEnd += 2  // ran off the right edge
                    } else if y > m {
                        forwardStart += 2  // ran off the bottom edge
                    } else if forwardMeets {
                        let other = offset + delta - k
                        if other >= 0, other < length, backward[other] != -1, x >= n - backward[other] {
                            return (x, y)
                        }
                    }
                    k += 2
                }
                k = -d + backwardStart
                while k <= d - backwardEnd {
                    let index = offset + k
                    var x = k == -d || (k != d && backward[index - 1] < backward[index + 1])
                        ? backward[index + 1] : backward[index - 1] + 1
                    var y = x - k
                    let start = x
                    while x < n, y < m, a.base[aEnd - 1 - x] == b.base[bEnd - 1 - y] {
                        x += 1
                        y += 1
                    }
                    budget -= x - start
                    backward[index] = x
                    if x > n {
                        backwardEnd += 2
                    } else if y > m {
                        backwardStart += 2
                    } else if !forwardMeets {
                        let other = offset + delta - k
                        if other >= 0, other < length, forward[other] != -1 {
                            let forwardX = forward[other]
                            if forwardX >= n - x { return (forwardX, forwardX - (other - offset)) }
                        }
                    }
                    k += 2
                }
            }
            return nil
        }
    }
}
