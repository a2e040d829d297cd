import DocSyncCore
import Foundation
import Testing

@Suite struct ThreeWayMergeTests {
    static let zone = ZoneID("Docs")
    static let id = RecordID(zone: zone, recordName: "item0001")
    static let copyName = "copy0001"
    static let here = "laptop"
    static let there = "desktop"
    static let conflictTime = Timestamp(seconds: 1_795_341_845, nanoseconds: 0)

    static func time(_ seconds: Int64) -> Timestamp { Timestamp(seconds: 1_700_000_000 + seconds, nanoseconds: 0) }

    /// A document whose content is the bytes of `text`.
    static func document(_ path: String, _ text: String, modified: Int64 = 0, mode: UInt32 = 0o644,
                         tag: String? = "t1", by device: String = there) -> Record {
        let digest = SHA256Digest(hashing: Array(text.utf8))
        let size = Int64(text.utf8.count)
        let asset = AssetReference(depth: 0, entries: [ChunkRef(digest: digest, length: Int(size))], chunkCount: 1,
                                   size: size, contentDigest: digest)
        return Record(id: id, type: .document, changeTag: tag.map(ChangeTag.init), path: RelativePath(path), size: size,
                      modified: time(modified), mode: mode, contentDigest: digest, asset: asset, lastModifiedBy: device)
    }

    static func symlink(_ path: String, _ target: String, modified: Int64 = 0, tag: String? = "t1") -> Record {
        Record(id: id, type: .symlink, changeTag: tag.map(ChangeTag.init), path: RelativePath(path),
               size: Int64(target.utf8.count), modified: time(modified), mode: 0o777, symlinkTarget: target,
               lastModifiedBy: there)
    }

    static func folder(_ path: String, modified: Int64 = 0, mode: UInt32 = 0o755, tag: String? = "t1") -> Record {
        Record(id: id, type: .folder, changeTag: tag.map(ChangeTag.init), path: RelativePath(path), modified: time(modified),
               mode: mode, lastModifiedBy: there)
    }

    static func merge(_ ancestor: Record?, _ local: Record, _ server: Record, policy: ConflictPolicy = .keepBoth,
                      taken: Set<String> = []) -> MergeOutcome {
        var local = local
        local.changeTag = ChangeTag("stale-local-tag")  // ignored by the merge
        return ThreeWayMerge.merge(
            ancestor: ancestor, local: local, server: server, policy: policy, localDevice: here,
            conflictCopyName: copyName, conflictTime: conflictTime, pathIsTaken: { taken.contains($0.string) })
    }

    /// The merged record must always be the server's record (id, change tag) with fields merged.
    static func checkIdentity(_ outcome: MergeOutcome, server: Record) {
        #expect(outcome.merged.id == server.id)
        #expect(outcome.merged.changeTag == server.changeTag)
        #expect(outcome.needsSend == (outcome.merged != server))
    }

    // MARK: - One side changed

    @Test func nothingChangedKeepsTheServerRecord() {
        let base = Self.document("a.txt", "one")
        let outcome = Self.merge(base, base, base)
        #expect(outcome == MergeOutcome(merged: base, needsSend: false))
    }

    @Test func onlyTheServerChangedTakesTheServerRecord() {
        let base = Self.document("a.txt", "one")
        let server = Self.document("b/a.txt", "two", modified: 9, mode: 0o600, tag: "t2")
        let outcome = Self.merge(base, base, server)
        #expect(outcome == MergeOutcome(merged: server, needsSend: false))
    }

    @Test func onlyTheLocalSideChangedTakesEveryLocalField() {
        let base = Self.document("a.txt", "one")
        let local = Self.document("b/a.txt", "two", modified: 9, mode: 0o600, tag: nil, by: Self.here)
        let outcome = Self.merge(base, local, base)
        var expected = local
        expected.changeTag = base.changeTag
        #expect(outcome == MergeOutcome(merged: expected, needsSend: true))
    }

    @Test func renameHereAndEditThereGivesARenamedEditedFile() {
        let base = Self.document("a.txt", "one")
        let local = Self.document("renamed.txt", "one")
        let server = Self.document("a.txt", "two", modified: 5, tag: "t2")
        let outcome = Self.merge(base, local, server)
        Self.checkIdentity(outcome, server: server)
        #expect(outcome.merged.path == RelativePath("renamed.txt"))
        #expect(outcome.merged.contentDigest == server.contentDigest)
        #expect(outcome.merged.asset == server.asset)
        #expect(outcome.merged.modified == server.modified)
        #expect(outcome.merged.lastModifiedBy == Self.here)
        #expect(outcome.needsSend)
        #expect(outcome.conflictCopy == nil)
        #expect(outcome.losingContent == nil)
    }

    @Test func editHereAndRenameThereGivesARenamedEditedFile() {
        let base = Self.document("a.txt", "one")
        let local = Self.document("a.txt", "local edit", modified: 7)
        let server = Self.document("moved/a.txt", "one", tag: "t2")
        let outcome = Self.merge(base, local, server)
        Self.checkIdentity(outcome, server: server)
        #expect(outcome.merged.path == RelativePath("moved/a.txt"))
        #expect(outcome.merged.contentDigest == local.contentDigest)
        #expect(outcome.merged.size == local.size)
        #expect(outcome.merged.asset == local.asset)
        #expect(outcome.merged.modified == local.modified)
        #expect(outcome.merged.lastModifiedBy == Self.here)
        #expect(outcome.needsSend)
        #expect(outcome.conflictCopy == nil && outcome.losingContent == nil)
    }

    @Test func modeHereAndEditThereKeepsBoth() {
        let base = Self.document("a.txt", "one")
        let local = Self.document("a.txt", "one", mode: 0o600)
        let server = Self.document("a.txt", "two", modified: 3, tag: "t2")
        let outcome = Self.merge(base, local, server)
        #expect(outcome.merged.mode == 0o600)
        #expect(outcome.merged.contentDigest == server.contentDigest)
        #expect(outcome.merged.modified == server.modified)
        #expect(outcome.needsSend)
    }

    // MARK: - Both sides changed the same group

    @Test func bothRenamedDifferentlyTheServerWinsWithoutACopy() {
        let base = Self.document("a.txt", "one")
        let local = Self.document("local.txt", "one")
        let server = Self.document("server.txt", "one", tag: "t2")
        let outcome = Self.merge(base, local, server)
        #expect(outcome == MergeOutcome(merged: server, needsSend: false))
    }

    @Test func bothChangedModeDifferentlyTheServerWins() {
        let base = Self.document("a.txt", "one")
        let outcome = Self.merge(base, Self.document("a.txt", "one", mode: 0o600), Self.document("a.txt", "one", mode: 0o640))
        #expect(outcome.merged.mode == 0o640)
        #expect(!outcome.needsSend)
    }

    @Test func bothMadeTheSameChangeMergesQuietly() {
        let base = Self.document("a.txt", "one")
        let local = Self.document("b.txt", "two", modified: 4, mode: 0o600)
        let server = Self.document("b.txt", "two", modified: 4, mode: 0o600, tag: "t2")
        #expect(Self.merge(base, local, server) == MergeOutcome(merged: server, needsSend: false))
    }

    @Test func sameContentWithADifferentAssetCountsAsTheSame() {
        let base = Self.document("a.txt", "one")
        var local = Self.document("a.txt", "two")
        local.asset = AssetReference(depth: 0, entries: [], chunkCount: 0, size: local.size, contentDigest: local.contentDigest!)
        let server = Self.document("a.txt", "two", tag: "t2")
        let outcome = Self.merge(base, local, server)
        #expect(outcome.merged.asset == server.asset)
        #expect(!outcome.needsSend)
    }

    /// Content changed on both sides, under each policy: (policy, local modified, server modified,
    /// whose content is merged, whose content lost, whether a conflict copy is made).
    @Test(arguments: [
        (ConflictPolicy.keepBoth, 10, 20, MergeSide.server, nil, true),
        (.keepBoth, 20, 10, .server, nil, true),
        (.newestWins, 20, 10, .local, .server, false),
        (.newestWins, 10, 20, .server, .local, false),
        (.newestWins, 15, 15, .server, .local, false),
        (.localWins, 10, 20, .local, .server, false),
        (.localWins, 20, 10, .local, .server, false),
        (.remoteWins, 20, 10, .server, .local, false),
        (.remoteWins, 10, 20, .server, .local, false),
    ] as [(ConflictPolicy, Int64, Int64, MergeSide, MergeSide?, Bool)])
    func contentChangedOnBothSides(policy: ConflictPolicy, localModified: Int64, serverModified: Int64,
                                   winner: MergeSide, loser: MergeSide?, makesCopy: Bool) {
        let base = Self.document("docs/report.pdf", "base")
        let local = Self.document("docs/report.pdf", "local", modified: localModified, mode: 0o600)
        let server = Self.document("docs/report.pdf", "server!", modified: serverModified, tag: "t2")
        let outcome = Self.merge(base, local, server, policy: policy)
        Self.checkIdentity(outcome, server: server)
        let won = winner == .local ? local : server
        #expect(outcome.merged.contentDigest == won.contentDigest)
        #expect(outcome.merged.size == won.size)
        #expect(outcome.merged.asset == won.asset)
        #expect(outcome.merged.modified == won.modified)
        #expect(outcome.merged.mode == 0o600, "mode changed on the local side only")
        #expect(outcome.merged.lastModifiedBy == Self.here, "the local mode was taken")
        #expect(outcome.losingContent == loser)
        #expect((outcome.conflictCopy != nil) == makesCopy)
    }

    @Test func keepBothCopyIsTheLocalContentBesideTheMergedPath() throws {
        let base = Self.document("docs/report.pdf", "base")
        let local = Self.document("docs/renamed.pdf", "local", modified: 10, mode: 0o600)
        let server = Self.document("docs/report.pdf", "server", modified: 20, tag: "t2")
        let outcome = Self.merge(base, local, server, taken: ["docs/renamed (conflict laptop 2026-11-22 10.04.05).pdf"])
        let copy = try #require(outcome.conflictCopy)
        #expect(copy.id == RecordID(zone: Self.zone, recordName: Self.copyName))
        #expect(copy.changeTag == nil)
        #expect(copy.path.parent == outcome.merged.path.parent)
        #expect(ConflictName.originalName(of: copy.path.name) == outcome.merged.path.name)
        #expect(copy.path.name.hasPrefix("renamed (conflict laptop "))
        #expect(copy.path.name.hasSuffix(" 2).pdf"), "the unnumbered name is taken")
        #expect(copy.type == local.type)
        #expect(copy.contentDigest == local.contentDigest)
        #expect(copy.asset == local.asset)
        #expect(copy.size == local.size)
        #expect(copy.modified == local.modified)
        #expect(copy.mode == local.mode)
        #expect(copy.lastModifiedBy == Self.here)
        #expect(outcome.merged.path == local.path, "the rename still merges")
        #expect(outcome.merged.contentDigest == server.contentDigest)
        #expect(outcome.losingContent == nil)
        #expect(outcome.needsSend)
    }

    @Test func keepBothWithOnlyContentInConflictNeedsNoSend() {
        let base = Self.document("a.txt", "base")
        let server = Self.document("a.txt", "server", modified: 2, tag: "t2")
        let outcome = Self.merge(base, Self.document("a.txt", "local", modified: 1), server)
        #expect(outcome.merged == server)
        #expect(!outcome.needsSend)
        #expect(outcome.conflictCopy != nil)
    }

    @Test func documentAgainstSymlinkIsAContentConflict() throws {
        let base = Self.document("link", "base")
        let local = Self.symlink("link", "target", modified: 30)
        let server = Self.document("link", "server", modified: 20, tag: "t2")
        let kept = Self.merge(base, local, server)
        #expect(kept.merged.type == .document)
        #expect(kept.merged.contentDigest == server.contentDigest && kept.merged.asset == server.asset)
        #expect(kept.merged.mode == 0o777, "the mode changed on the local side only")
        let copy = try #require(kept.conflictCopy)
        #expect(copy.type == .symlink && copy.symlinkTarget == "target")

        let newest = Self.merge(base, local, server, policy: .newestWins)
        #expect(newest.merged.type == .symlink)
        #expect(newest.merged.symlinkTarget == "target")
        #expect(newest.merged.contentDigest == nil && newest.merged.asset == nil)
        #expect(newest.merged.size == local.size)
        #expect(newest.losingContent == .server)
        #expect(throws: Never.self) { try newest.merged.validate() }
    }

    @Test func symlinkRetargetedOnBothSidesConflicts() {
        let base = Self.symlink("l", "a")
        let outcome = Self.merge(base, Self.symlink("l", "b"), Self.symlink("l", "c", tag: "t2"), policy: .localWins)
        #expect(outcome.merged.symlinkTarget == "b")
        #expect(outcome.losingContent == .server)
    }

    // MARK: - modified

    @Test func sameContentTakesTheModifiedThatChanged() {
        let base = Self.document("a.txt", "one", modified: 0)
        let touchedHere = Self.merge(base, Self.document("a.txt", "one", modified: 5), base)
        #expect(touchedHere.merged.modified == Self.time(5))
        #expect(touchedHere.merged.lastModifiedBy == Self.here)
        #expect(touchedHere.needsSend)

        let touchedThere = Self.merge(base, base, Self.document("a.txt", "one", modified: 6, tag: "t2"))
        #expect(touchedThere.merged.modified == Self.time(6))
        #expect(!touchedThere.needsSend)

        let touchedBoth = Self.merge(base, Self.document("a.txt", "one", modified: 5),
                                     Self.document("a.txt", "one", modified: 6, tag: "t2"))
        #expect(touchedBoth.merged.modified == Self.time(6))
        #expect(!touchedBoth.needsSend)
    }

    @Test func modifiedFollowsTheContentWinner() {
        let base = Self.document("a.txt", "one", modified: 0)
        // Content changed here only, while the server only touched modified: local content, local time.
        let outcome = Self.merge(base, Self.document("a.txt", "two", modified: 5),
                                 Self.document("a.txt", "one", modified: 9, tag: "t2"))
        #expect(outcome.merged.contentDigest == Self.document("a.txt", "two").contentDigest)
        #expect(outcome.merged.modified == Self.time(5))
    }

    // MARK: - No ancestor: created on both sides independently

    @Test func noAncestorWithEqualContentMergesQuietly() {
        let local = Self.document("a.txt", "same", modified: 1, mode: 0o600, tag: nil)
        let server = Self.document("b.txt", "same", modified: 2, mode: 0o644, tag: "t2")
        let outcome = Self.merge(nil, local, server)
        #expect(outcome == MergeOutcome(merged: server, needsSend: false))
    }

    @Test(arguments: ConflictPolicy.allCases)
    func noAncestorWithDifferentContentConflicts(policy: ConflictPolicy) {
        let local = Self.document("a.txt", "mine", modified: 1, tag: nil)
        let server = Self.document("a.txt", "theirs", modified: 2, tag: "t2")
        let outcome = Self.merge(nil, local, server, policy: policy)
        Self.checkIdentity(outcome, server: server)
        switch policy {
        case .keepBoth:
            #expect(outcome.conflictCopy?.contentDigest == local.contentDigest)
            #expect(outcome.losingContent == nil)
        case .newestWins, .remoteWins:
            #expect(outcome.merged == server)
            #expect(outcome.losingContent == .local)
        case .localWins:
            #expect(outcome.merged.contentDigest == local.contentDigest)
            #expect(outcome.losingContent == .server)
        }
        if policy != .keepBoth { #expect(outcome.conflictCopy == nil) }
    }

    @Test(arguments: ConflictPolicy.allCases)
    func foldersNeverConflictOnContent(policy: ConflictPolicy) {
        let base = Self.folder("dir")
        let local = Self.folder("dir-renamed", modified: 5)
        let server = Self.folder("dir", modified: 8, mode: 0o700, tag: "t2")
        let outcome = Self.merge(base, local, server, policy: policy)
        #expect(outcome.conflictCopy == nil)
        #expect(outcome.losingContent == nil)
        #expect(outcome.merged.path == RelativePath("dir-renamed"))
        #expect(outcome.merged.mode == 0o700)
        #expect(outcome.merged.modified == Self.time(8))
        #expect(outcome.needsSend)

        let independent = Self.merge(nil, Self.folder("x", modified: 1, tag: nil), Self.folder("x", modified: 2, tag: "t2"),
                                     policy: policy)
        #expect(independent.conflictCopy == nil && independent.losingContent == nil && !independent.needsSend)
    }

    @Test func theMergedRecordIsValid() throws {
        let base = Self.document("a.txt", "base")
        for policy in ConflictPolicy.allCases {
            let outcome = Self.merge(base, Self.document("b.txt", "local", modified: 3, mode: 0o600),
                                     Self.document("a.txt", "server", modified: 2, tag: "t2"), policy: policy)
            try outcome.merged.validate()
            try outcome.conflictCopy?.validate()
        }
    }
}
