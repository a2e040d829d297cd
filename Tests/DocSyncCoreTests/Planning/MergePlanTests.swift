import DocSyncCore
import Testing

/// Decision table: an item changed here and there (a three-way merge against the
/// acknowledged ancestor), under each conflict policy.
@Suite struct MergePlanTests {
    typealias F = Fixture

    /// `server` with `local`'s content and time, as a merge that took the local content makes it.
    static func withContent(_ server: Record, from local: Record) -> Record {
        var merged = server
        merged.type = local.type
        merged.contentDigest = local.contentDigest
        merged.size = local.size
        merged.asset = local.asset
        merged.symlinkTarget = local.symlinkTarget
        merged.modified = local.modified
        merged.lastModifiedBy = F.here
        return merged
    }

    static func edited(_ record: Record, ancestor: Record?) -> LocalItem { F.local(record, .edited, ancestor: ancestor) }

    static let cases: [PlannerCase] = {
        let a = F.doc("A", "a.txt", "one", at: 5)
        let name = F.name("A")
        let fresh = F.fresh
        let mine = edited(F.doc("A", "a.txt", "two", at: 10), ancestor: a)
        let theirs = F.changed(F.doc("A", "a.txt", "three", at: 7))
        let theirsLater = F.changed(F.doc("A", "a.txt", "three", at: 20))
        let theirsTied = F.changed(F.doc("A", "a.txt", "three", at: 10))
        let copy = F.aside("a.txt", at: 10)
        var cases: [PlannerCase] = []

        // Content changed on both sides.
        cases += [
            PlannerCase("both edited: keep both, this device's beside", F.scope(.saved(theirs), item: mine), policy: .keepBoth,
                        [.keepConflictCopy(item: name, at: copy, recordName: fresh), .writeContent(item: name, theirs, keepReplacedAs: nil), .settle(item: name, as: theirs)]),
            PlannerCase("both edited, the local newer: newest wins, the server's kept", F.scope(.saved(theirs), item: mine), policy: .newestWins,
                        [.keepInVersionStore(theirs), .rebase(item: name, merged: withContent(theirs, from: mine.observed), acked: theirs)]),
            PlannerCase("both edited, the server's newer: newest wins, the local kept", F.scope(.saved(theirsLater), item: mine), policy: .newestWins,
                        [.writeContent(item: name, theirsLater, keepReplacedAs: .conflict), .settle(item: name, as: theirsLater)]),
            PlannerCase("both edited at the same time: the server's wins a tie", F.scope(.saved(theirsTied), item: mine), policy: .newestWins,
                        [.writeContent(item: name, theirsTied, keepReplacedAs: .conflict), .settle(item: name, as: theirsTied)]),
            PlannerCase("both edited: local wins, the server's kept", F.scope(.saved(theirs), item: mine), policy: .localWins,
                        [.keepInVersionStore(theirs), .rebase(item: name, merged: withContent(theirs, from: mine.observed), acked: theirs)]),
            PlannerCase("both edited, the server's newer: local still wins", F.scope(.saved(theirsLater), item: mine), policy: .localWins,
                        [.keepInVersionStore(theirsLater), .rebase(item: name, merged: withContent(theirsLater, from: mine.observed), acked: theirsLater)]),
            PlannerCase("both edited: remote wins, the local kept", F.scope(.saved(theirs), item: mine), policy: .remoteWins,
                        [.writeContent(item: name, theirs, keepReplacedAs: .conflict), .settle(item: name, as: theirs)]),
            PlannerCase("both edited, the conflict name in use: the copy is numbered", F.scope(.saved(theirs), item: mine, inUse: [copy]), policy: .keepBoth,
                        [.keepConflictCopy(item: name, at: F.aside("a.txt", at: 10, taken: [copy]), recordName: fresh),
                         .writeContent(item: name, theirs, keepReplacedAs: nil), .settle(item: name, as: theirs)]),
        ]

        // Renamed and edited there, edited here: the copy goes beside the server's path; an
        // item already there is moved aside first, and the two copies never share a name.
        var theirsMoved = theirs
        theirsMoved.path = "b.txt"
        let copyAtB = F.aside("b.txt", at: 10)
        let inTheWay = F.synced(F.doc("B", "b.txt", "other", at: 10))
        cases += [
            PlannerCase("edited here, renamed and edited there: the copy is named after the server's path", F.scope(.saved(theirsMoved), item: mine),
                        [.keepConflictCopy(item: name, at: copyAtB, recordName: fresh), .writeContent(item: name, theirsMoved, keepReplacedAs: nil),
                         .settle(item: name, as: theirsMoved)]),
            PlannerCase("edited here, renamed onto an item and edited there: that item moves aside, the copy takes the next name",
                        F.scope(.saved(theirsMoved), item: mine, occupant: inTheWay),
                        [.moveAside(item: inTheWay.recordName, to: copyAtB), .keepConflictCopy(item: name, at: F.aside("b.txt", at: 10, taken: [copyAtB]), recordName: fresh),
                         .writeContent(item: name, theirsMoved, keepReplacedAs: nil), .settle(item: name, as: theirsMoved)]),
            PlannerCase("edited here, renamed onto an item and edited there, remote wins: that item moves aside, then the item",
                        F.scope(.saved(theirsMoved), item: mine, occupant: inTheWay), policy: .remoteWins,
                        [.moveAside(item: inTheWay.recordName, to: copyAtB), .move(item: name, to: "b.txt"),
                         .writeContent(item: name, theirsMoved, keepReplacedAs: .conflict), .settle(item: name, as: theirsMoved)]),
        ]

        // One side changed each group: nothing conflicts, under every policy.
        var renamedThere = F.changed(a)
        renamedThere.path = "b.txt"
        var renamedHere = a
        renamedHere.path = "c.txt"
        let movedHere = edited(renamedHere, ancestor: a)
        var retitledHere = a
        retitledHere.path = "b.txt"
        var modeHere = a
        modeHere.mode = 0o600
        var modeThere = F.changed(a)
        modeThere.mode = 0o640
        var touchedThere = F.changed(a)
        touchedThere.modified = F.time(9)
        let sameHere = edited(F.doc("A", "a.txt", "three", at: 10), ancestor: a)
        for policy in ConflictPolicy.allCases {
            var pathHereContentThere = theirs
            pathHereContentThere.path = "c.txt"
            pathHereContentThere.lastModifiedBy = F.here
            var modeHereContentThere = theirs
            modeHereContentThere.mode = 0o600
            modeHereContentThere.lastModifiedBy = F.here
            cases += [
                PlannerCase("edited here, renamed there: moved, the edit sent", F.scope(.saved(renamedThere), item: mine), policy: policy,
                            [.move(item: name, to: "b.txt"), .rebase(item: name, merged: withContent(renamedThere, from: mine.observed), acked: renamedThere)]),
                PlannerCase("renamed here, edited there: the content written at the local path, the rename sent", F.scope(.saved(theirs), item: movedHere), policy: policy,
                            [.writeContent(item: name, pathHereContentThere, keepReplacedAs: .overwritten),
                             .rebase(item: name, merged: pathHereContentThere, acked: theirs)]),
                PlannerCase("renamed on both sides differently: the server's path wins", F.scope(.saved(renamedThere), item: movedHere), policy: policy,
                            [.move(item: name, to: "b.txt"), .settle(item: name, as: renamedThere)]),
                PlannerCase("renamed on both sides alike: settled", F.scope(.saved(renamedThere), item: edited(retitledHere, ancestor: a)), policy: policy,
                            [.settle(item: name, as: renamedThere)]),
                PlannerCase("edited alike on both sides: settled with the server's time", F.scope(.saved(theirs), item: sameHere), policy: policy,
                            [.setMetadata(item: name, mode: 0o644, modified: theirs.modified), .settle(item: name, as: theirs)]),
                PlannerCase("mode changed here, content there: the content written, the mode sent", F.scope(.saved(theirs), item: edited(modeHere, ancestor: a)), policy: policy,
                            [.writeContent(item: name, modeHereContentThere, keepReplacedAs: .overwritten),
                             .rebase(item: name, merged: modeHereContentThere, acked: theirs)]),
                PlannerCase("mode changed on both sides: the server's wins", F.scope(.saved(modeThere), item: edited(modeHere, ancestor: a)), policy: policy,
                            [.setMetadata(item: name, mode: 0o640, modified: a.modified), .settle(item: name, as: modeThere)]),
                PlannerCase("edited here, touched there: the edit and its time sent", F.scope(.saved(touchedThere), item: mine), policy: policy,
                            [.rebase(item: name, merged: withContent(touchedThere, from: mine.observed), acked: touchedThere)]),
            ]
        }

        // Folders never conflict on content; links do.
        let d = F.folder("A", "docs", at: 5)
        var folderModeHere = d
        folderModeHere.mode = 0o700
        var folderRenamedThere = F.changed(d)
        folderRenamedThere.path = "papers"
        var folderRenamedHere = d
        folderRenamedHere.path = "papers2"
        var folderModeThere = F.changed(d)
        folderModeThere.mode = 0o640
        let l = F.link("A", "a.txt", "target", at: 5)
        let linkHere = edited(F.link("A", "a.txt", "mine", at: 10), ancestor: l)
        let linkThere = F.changed(F.link("A", "a.txt", "theirs", at: 7))
        for policy in ConflictPolicy.allCases {
            var movedWithMode = folderRenamedThere
            movedWithMode.mode = 0o700
            movedWithMode.lastModifiedBy = F.here
            var renamedWithMode = folderModeThere
            renamedWithMode.path = "papers2"
            renamedWithMode.lastModifiedBy = F.here
            cases += [
                PlannerCase("a folder's mode changed here, renamed there", F.scope(.saved(folderRenamedThere), item: edited(folderModeHere, ancestor: d)), policy: policy,
                            [.move(item: name, to: "papers"), .rebase(item: name, merged: movedWithMode, acked: folderRenamedThere)]),
                PlannerCase("a folder renamed here, its mode changed there", F.scope(.saved(folderModeThere), item: edited(folderRenamedHere, ancestor: d)), policy: policy,
                            [.setMetadata(item: name, mode: 0o640, modified: d.modified), .rebase(item: name, merged: renamedWithMode, acked: folderModeThere)]),
            ]
        }
        cases += [
            PlannerCase("a link retargeted on both sides: keep both", F.scope(.saved(linkThere), item: linkHere), policy: .keepBoth,
                        [.keepConflictCopy(item: name, at: copy, recordName: fresh), .writeContent(item: name, linkThere, keepReplacedAs: nil), .settle(item: name, as: linkThere)]),
            PlannerCase("a link retargeted on both sides: the newer local one wins", F.scope(.saved(linkThere), item: linkHere), policy: .newestWins,
                        [.keepInVersionStore(linkThere), .rebase(item: name, merged: withContent(linkThere, from: linkHere.observed), acked: linkThere)]),
            PlannerCase("a link retargeted on both sides: local wins", F.scope(.saved(linkThere), item: linkHere), policy: .localWins,
                        [.keepInVersionStore(linkThere), .rebase(item: name, merged: withContent(linkThere, from: linkHere.observed), acked: linkThere)]),
            PlannerCase("a link retargeted on both sides: remote wins", F.scope(.saved(linkThere), item: linkHere), policy: .remoteWins,
                        [.writeContent(item: name, linkThere, keepReplacedAs: .conflict), .settle(item: name, as: linkThere)]),
        ]

        // No ancestor (the server never acknowledged this device's version): every group
        // counts as changed on both sides.
        let orphan = edited(F.doc("A", "a.txt", "two", at: 10), ancestor: nil)
        let orphanSame = edited(F.doc("A", "a.txt", "three", at: 10), ancestor: nil)
        cases += [
            PlannerCase("no ancestor, other content: keep both", F.scope(.saved(theirs), item: orphan), policy: .keepBoth,
                        [.keepConflictCopy(item: name, at: copy, recordName: fresh), .writeContent(item: name, theirs, keepReplacedAs: nil), .settle(item: name, as: theirs)]),
            PlannerCase("no ancestor, other content: the newer local wins", F.scope(.saved(theirs), item: orphan), policy: .newestWins,
                        [.keepInVersionStore(theirs), .rebase(item: name, merged: withContent(theirs, from: orphan.observed), acked: theirs)]),
            PlannerCase("no ancestor, other content: local wins", F.scope(.saved(theirs), item: orphan), policy: .localWins,
                        [.keepInVersionStore(theirs), .rebase(item: name, merged: withContent(theirs, from: orphan.observed), acked: theirs)]),
            PlannerCase("no ancestor, other content: remote wins", F.scope(.saved(theirs), item: orphan), policy: .remoteWins,
                        [.writeContent(item: name, theirs, keepReplacedAs: .conflict), .settle(item: name, as: theirs)]),
            PlannerCase("no ancestor, the same content: settled with the server's time", F.scope(.saved(theirs), item: orphanSame),
                        [.setMetadata(item: name, mode: 0o644, modified: theirs.modified), .settle(item: name, as: theirs)]),
        ]
        return cases
    }()

    /// The plans without their conflict-log notes (`notes` checks those).
    @Test(arguments: cases) func plan(_ row: PlannerCase) {
        let plan = RemoteChangePlanner.plan(row.scope, settings: row.settings).filter { !Self.isNote($0) }
        #expect(plan == row.expected, "\(row.name)")
    }

    static func isNote(_ action: SyncAction) -> Bool {
        if case .noteConflict = action { true } else { false }
    }

    /// In a shared folder the copy names the account and the device (SPEC §11): the label,
    /// for the copy kept beside and for an item moved aside; `lastModifiedBy` stays the device.
    @Test func aSharedFoldersCopiesNameTheAccountAndTheDevice() {
        let a = F.doc("A", "a.txt", "one", at: 5)
        let mine = Self.edited(F.doc("A", "a.txt", "two", at: 10), ancestor: a)
        let theirs = F.changed(F.doc("A", "a.txt", "three", at: 7))
        let settings = PlannerSettings(device: F.here, copyLabel: "bob \(F.here)", conflictPolicy: .keepBoth)
        let plan = RemoteChangePlanner.plan(F.scope(.saved(theirs), item: mine), settings: settings)
        let copies = plan.compactMap { action -> RelativePath? in
            if case .keepConflictCopy(_, let path, _) = action { path } else { nil }
        }
        #expect(copies.count == 1 && copies[0].string.hasPrefix("a (conflict bob \(F.here) "), "\(plan)")
        #expect(!plan.contains { if case .rebase(_, let merged, _) = $0 { merged.lastModifiedBy != F.here } else { false } })
        #expect(PlannerSettings(device: F.here).copyLabel == F.here, "elsewhere, the device alone")
    }

    /// Every content conflict ends its plan with one note for the conflict log: kept both, or
    /// which side the policy kept; a merge without a clash notes nothing.
    @Test func notes() {
        let a = F.doc("A", "a.txt", "one", at: 5)
        let mine = Self.edited(F.doc("A", "a.txt", "two", at: 10), ancestor: a)
        let theirs = F.changed(F.doc("A", "a.txt", "three", at: 7))
        let theirsLater = F.changed(F.doc("A", "a.txt", "three", at: 20))
        var renamed = F.changed(a)
        renamed.path = "b.txt"
        let table: [(String, RemoteChangeScope, ConflictPolicy, ConflictOutcome?, RelativePath?)] = [
            ("keep both", F.scope(.saved(theirs), item: mine), .keepBoth, .keptBoth, F.aside("a.txt", at: 10)),
            ("newest wins, the local newer", F.scope(.saved(theirs), item: mine), .newestWins, .localWon, nil),
            ("newest wins, the server's newer", F.scope(.saved(theirsLater), item: mine), .newestWins, .remoteWon, nil),
            ("local wins", F.scope(.saved(theirs), item: mine), .localWins, .localWon, nil),
            ("remote wins", F.scope(.saved(theirs), item: mine), .remoteWins, .remoteWon, nil),
            ("renamed there, edited here: no clash", F.scope(.saved(renamed), item: mine), .keepBoth, nil, nil),
        ]
        for (name, scope, policy, outcome, copy) in table {
            let plan = RemoteChangePlanner.plan(scope, settings: PlannerSettings(device: F.here, conflictPolicy: policy))
            let notes = plan.filter(Self.isNote)
            guard let outcome else {
                #expect(notes.isEmpty, "\(name): \(plan)")
                continue
            }
            #expect(notes.count == 1 && Self.isNote(plan[plan.count - 1]), "\(name): one note, last: \(plan)")
            guard case .noteConflict(let path, let copyPath, let device, let noted, _)? = notes.first else { continue }
            #expect(path == "a.txt" && copyPath == copy && device == F.there && noted == outcome, "\(name): \(plan)")
        }
    }

    /// Under keep-both a text file the folder merges is merged line-wise first: the plan's
    /// last step, carrying the conflict copy as its fallback. Other policies, other files,
    /// sides too large or without an ancestor keep their plans.
    @Test func textMerges() throws {
        let a = F.doc("A", "a.txt", "one", at: 5)
        let name = F.name("A")
        let mine = Self.edited(F.doc("A", "a.txt", "two", at: 10), ancestor: a)
        let theirs = F.changed(F.doc("A", "a.txt", "three", at: 7))
        let copy = F.aside("a.txt", at: 10)
        let fallback: [SyncAction] = [
            .keepConflictCopy(item: name, at: copy, recordName: F.fresh), .writeContent(item: name, theirs, keepReplacedAs: nil),
            .settle(item: name, as: theirs),
            .noteConflict(path: "a.txt", copyPath: copy, remoteDevice: F.there, outcome: .keptBoth,
                          detail: "both devices changed the content; this device's is kept beside"),
        ]
        let merging = PlannerSettings(device: F.here, conflictPolicy: .keepBoth, textMerge: .standard)
        #expect(RemoteChangePlanner.plan(F.scope(.saved(theirs), item: mine), settings: merging)
                == [.mergeText(item: name, ancestor: a, server: theirs, merged: theirs, otherwise: fallback)])

        // Not merged: another policy, a name the globs do not take, a side over the size limit, no ancestor.
        var newest = merging
        newest.conflictPolicy = .newestWins
        #expect(!RemoteChangePlanner.plan(F.scope(.saved(theirs), item: mine), settings: newest).contains { if case .mergeText = $0 { true } else { false } })
        let binary = Self.edited(F.doc("A", "a.bin", "two", at: 10), ancestor: F.doc("A", "a.bin", "one", at: 5))
        let binaryTheirs = F.changed(F.doc("A", "a.bin", "three", at: 7))
        var small = merging
        small.textMerge = try TextMergeRule(maxSize: 3)
        let orphan = Self.edited(F.doc("A", "a.txt", "two", at: 10), ancestor: nil)
        for (what, scope, settings) in [("a.bin", F.scope(.saved(binaryTheirs), item: binary), merging),
                                        ("over 3 bytes", F.scope(.saved(theirs), item: mine), small),
                                        ("no ancestor", F.scope(.saved(theirs), item: orphan), merging)] {
            let plan = RemoteChangePlanner.plan(scope, settings: settings)
            #expect(plan.first.map { if case .keepConflictCopy = $0 { true } else { false } } == true, "\(what): \(plan)")
        }
    }
}
