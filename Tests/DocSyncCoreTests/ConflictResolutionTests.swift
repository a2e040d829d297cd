import DocSyncCore
import Foundation
import Testing

/// `ConflictResolution`: which file holds which side of a conflict, and what each choice does.
@Suite struct ConflictResolutionTests {
    static let time = Timestamp(seconds: 1_790_000_000, nanoseconds: 0)

    /// The copy of `path` the device `device` would make.
    static func copy(_ path: String, by device: String, number: Int = 1) -> RelativePath {
        var taken = 1
        return ConflictName.copyPath(for: RelativePath(path), device: device, time: time, timeZone: TimeZone(identifier: "UTC")!) { _ in
            defer { taken += 1 }
            return taken < number
        }
    }

    static let original = RelativePath("docs/report.pdf")
    static let mine = copy("docs/report.pdf", by: "laptop")
    static let theirs = copy("docs/report.pdf", by: "desktop")
    static let theirsToo = copy("docs/report.pdf", by: "tablet")
    static let mineAgain = copy("docs/report.pdf", by: "laptop", number: 2)

    func plan(_ copies: [RelativePath], named: RelativePath, _ keep: ConflictKeep, taken: Set<String> = []) throws -> [ConflictResolution.Step] {
        try ConflictResolution.plan(original: Self.original, copies: copies, named: named, keep: keep, device: "laptop") {
            taken.contains($0.string)
        }
    }

    struct Case: Sendable, CustomTestStringConvertible {
        var copies: [RelativePath]
        var named: RelativePath
        var keep: ConflictKeep
        var steps: [ConflictResolution.Step]?  // nil: refused as ambiguous
        var note: String
        var testDescription: String { note }
    }

    static let cases: [Case] = [
        // One copy made here: it holds this device's side, the original the other.
        Case(copies: [mine], named: original, keep: .local, steps: [.takeCopy(mine)], note: "own copy, by original, keep local"),
        Case(copies: [mine], named: mine, keep: .local, steps: [.takeCopy(mine)], note: "own copy, by copy, keep local"),
        Case(copies: [mine], named: original, keep: .remote, steps: [.dropCopy(mine)], note: "own copy, by original, keep remote"),
        Case(copies: [mine], named: mine, keep: .remote, steps: [.dropCopy(mine)], note: "own copy, by copy, keep remote"),
        // One copy from another device: it holds that side, the original this device's.
        Case(copies: [theirs], named: original, keep: .local, steps: [.dropCopy(theirs)], note: "their copy, by original, keep local"),
        Case(copies: [theirs], named: theirs, keep: .local, steps: [.dropCopy(theirs)], note: "their copy, by copy, keep local"),
        Case(copies: [theirs], named: original, keep: .remote, steps: [.takeCopy(theirs)], note: "their copy, by original, keep remote"),
        Case(copies: [theirs], named: theirs, keep: .remote, steps: [.takeCopy(theirs)], note: "their copy, by copy, keep remote"),
        // Keeping both renames each copy named after the original.
        Case(copies: [theirs], named: theirs, keep: .both, steps: [.renameCopy(theirs, to: RelativePath("docs/report 2.pdf"))], note: "keep both"),
        // Several copies, named by the original.
        Case(copies: [theirs, mine], named: original, keep: .local, steps: [.takeCopy(mine), .dropCopy(theirs)], note: "own and their copy, keep local"),
        Case(copies: [theirs, mine], named: original, keep: .remote, steps: nil, note: "own and their copy, keep remote: original or theirs?"),
        Case(copies: [theirs, theirsToo], named: original, keep: .local, steps: [.dropCopy(theirs), .dropCopy(theirsToo)].sorted { $0.copy < $1.copy },
             note: "two of theirs, keep local"),
        Case(copies: [theirs, theirsToo], named: original, keep: .remote, steps: nil, note: "two of theirs, keep remote: which?"),
        Case(copies: [mine, mineAgain], named: original, keep: .local, steps: nil, note: "two of mine, keep local: which?"),
        Case(copies: [mine, mineAgain], named: original, keep: .remote, steps: [.dropCopy(mine), .dropCopy(mineAgain)].sorted { $0.copy < $1.copy },
             note: "two of mine, keep remote: the original"),
        // Several copies, one named: that conflict alone, by the rule of sides.
        Case(copies: [theirs, mine], named: theirs, keep: .remote, steps: [.takeCopy(theirs)], note: "their copy named among several"),
        Case(copies: [theirs, mine], named: mine, keep: .remote, steps: [.dropCopy(mine)], note: "own copy named among several"),
        // Nothing to settle.
        Case(copies: [], named: original, keep: .local, steps: [], note: "no copies"),
        Case(copies: [mine], named: RelativePath("docs/other.pdf"), keep: .local, steps: [], note: "a path of no copy"),
    ]

    @Test(arguments: cases) func sidesAndSteps(_ test: Case) throws {
        if let steps = test.steps {
            #expect(try plan(test.copies, named: test.named, test.keep) == steps)
        } else {
            let error = #expect(throws: SyncError.self) { try plan(test.copies, named: test.named, test.keep) }
            #expect(error?.code == .invalidArguments)
            #expect(error?.message.contains("resolve each conflict copy by its own path") == true)
        }
    }

    @Test func keepingBothGivesEachCopyAFreeOrdinaryName() throws {
        let steps = try plan([Self.theirs, Self.mine], named: Self.original, .both, taken: ["docs/report 2.pdf"])
        let targets = steps.compactMap { step -> String? in if case .renameCopy(_, let to) = step { to.string } else { nil } }
        #expect(targets == ["docs/report 3.pdf", "docs/report 4.pdf"])
        #expect(targets.allSatisfy { !ConflictName.isConflictCopy(RelativePath($0).name) })
    }

    @Test func theDeviceIsReadFromEveryFormOfCopyName() {
        #expect(ConflictName.device(of: Self.mine.name) == "laptop")
        #expect(ConflictName.device(of: Self.mineAgain.name) == "laptop")
        #expect(ConflictName.device(of: "notes (conflict my laptop 2026-11-22 10.04.05)") == "my laptop")
        #expect(ConflictName.device(of: "a (conflict x 2026-11-22 10.04.05) (conflict y 2026-11-23 10.04.05).txt") == "y")
        #expect(ConflictName.device(of: "report.pdf") == nil)
        #expect(ConflictName.device(of: "report (conflict laptop yesterday).pdf") == nil)
        // A device name made safe in the copy's name still counts as this device.
        let copy = ConflictName.copyPath(for: RelativePath("a.txt"), device: "lab/pc", time: Self.time) { _ in false }
        #expect(ConflictResolution.isLocal(copy, device: "lab/pc"))
        #expect(!ConflictResolution.isLocal(copy, device: "lab"))
    }

    @Test func aKeptNameFitsInAFileName() {
        let long = RelativePath(String(repeating: "é", count: 125) + ".txt")  // 254 bytes, 256 with " 2"
        let kept = ConflictResolution.keptCopyPath(for: long) { _ in false }
        #expect(kept.name.utf8.count <= 255 && kept.name.hasSuffix(" 2.txt"))
        #expect(ConflictResolution.keptCopyPath(for: RelativePath("Makefile")) { _ in false } == RelativePath("Makefile 2"))
        #expect(ConflictResolution.keptCopyPath(for: RelativePath(".bashrc")) { _ in false } == RelativePath(".bashrc 2"))
    }

    @Test func theLoggedOutcomeFollowsTheChoice() {
        #expect(ConflictKeep.allCases.map(\.outcome) == [.resolvedLocal, .resolvedRemote, .resolvedBoth])
        #expect(ConflictOutcome.allCases.map(\.rawValue)
                == ["merged", "kept-both", "local-won", "remote-won", "resolved-local", "resolved-remote", "resolved-both"])
    }
}
