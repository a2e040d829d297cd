import DocSyncCore
import Testing

/// Decision table: a record this device does not know (no local item with its name).
@Suite struct NewRecordPlanTests {
    typealias F = Fixture
    static let a = F.doc("A", "a.txt", "one", at: 5)
    static let dA = F.folder("A", "a.txt")
    static let lA = F.link("A", "a.txt", "target")

    static let cases: [PlannerCase] = {
        let a = Self.a, dA = Self.dA, lA = Self.lA
        var cases: [PlannerCase] = [
            PlannerCase("a new document is placed", F.scope(.saved(a)), [.place(a)]),
            PlannerCase("a new folder is made", F.scope(.saved(dA)), [.place(dA)]),
            PlannerCase("a new link is made", F.scope(.saved(lA)), [.place(lA)]),
            PlannerCase("a new document in a nested folder is placed", F.scope(.saved(F.doc("A", "x/y/z.txt", "one"))), [.place(F.doc("A", "x/y/z.txt", "one"))]),
            PlannerCase("a new document in an on-demand folder is a placeholder", F.scope(.saved(a)), onDemand: true, [.placePlaceholder(a)]),
            PlannerCase("a new folder in an on-demand folder is made", F.scope(.saved(dA)), onDemand: true, [.place(dA)]),
            PlannerCase("a new link in an on-demand folder is made", F.scope(.saved(lA)), onDemand: true, [.place(lA)]),
            PlannerCase("an ignored document is left alone", F.scope(.saved(a), isIgnored: true), []),
            PlannerCase("an ignored folder is left alone", F.scope(.saved(dA), isIgnored: true), []),
            PlannerCase("an ignored link is left alone", F.scope(.saved(lA), isIgnored: true), []),
            PlannerCase("an ignored document in an on-demand folder is left alone", F.scope(.saved(a), isIgnored: true), onDemand: true, []),
            PlannerCase("a directory already there is adopted by a new folder record", F.scope(.saved(dA), directoryAtPath: true), [.adoptDirectory(dA)]),
            PlannerCase("a directory already there is adopted in an on-demand folder", F.scope(.saved(dA), directoryAtPath: true), onDemand: true, [.adoptDirectory(dA)]),
            PlannerCase("a directory where a new document goes: the document is placed (the write finds it)", F.scope(.saved(a), directoryAtPath: true), [.place(a)]),
        ]

        // Another item at the record's path.
        let syncedB = F.synced(F.doc("B", "a.txt", "other", at: 3))
        let sameB = F.synced(F.doc("B", "a.txt", "one", at: 3))
        let newB = F.local(F.doc("B", "a.txt", "other", at: 3), .edited, ancestor: nil)
        let newerB = F.local(F.doc("B", "a.txt", "other", at: 9), .edited, ancestor: nil)
        let sameTimeB = F.local(F.doc("B", "a.txt", "other", at: 5), .edited, ancestor: nil)
        let newSameB = F.local(F.doc("B", "a.txt", "one", at: 3), .edited, ancestor: nil)
        let folderB = F.synced(F.folder("B", "a.txt", at: 3))
        let newFolderB = F.local(F.folder("B", "a.txt", at: 3), .edited, ancestor: nil)
        let linkB = F.synced(F.link("B", "a.txt", "elsewhere", at: 3))
        let newSameLinkB = F.local(F.link("B", "a.txt", "target", at: 3), .edited, ancestor: nil)
        let newLinkB = F.local(F.link("B", "a.txt", "elsewhere", at: 3), .edited, ancestor: nil)
        let placeholderB = F.synced(F.doc("B", "a.txt", "other", at: 3), placeholder: true)
        let asideB = F.aside("a.txt", at: 3)
        let dB = F.folder("B", "a.txt")
        let syncedFolderA = F.synced(F.folder("A", "a.txt", at: 3))
        cases += [
            PlannerCase("a synced document in the way is moved aside", F.scope(.saved(a), occupant: syncedB), [.moveAside(item: syncedB.recordName, to: asideB), .place(a)]),
            PlannerCase("a synced document with the same content in the way is still moved aside (two records)", F.scope(.saved(a), occupant: sameB), [.moveAside(item: sameB.recordName, to: asideB), .place(a)]),
            PlannerCase("a new local document with other content is moved aside", F.scope(.saved(a), occupant: newB), [.moveAside(item: newB.recordName, to: asideB), .place(a)]),
            PlannerCase("a new local document with the same content adopts the record", F.scope(.saved(a), occupant: newSameB), [.adopt(item: newSameB.recordName, as: a)]),
            PlannerCase("a new local link to the same target adopts the record", F.scope(.saved(lA), occupant: newSameLinkB), [.adopt(item: newSameLinkB.recordName, as: lA)]),
            PlannerCase("a new local link to another target is moved aside", F.scope(.saved(lA), occupant: newLinkB), [.moveAside(item: newLinkB.recordName, to: asideB), .place(lA)]),
            PlannerCase("joining: an older local document is a stale copy the record replaces", F.scope(.saved(a), occupant: newB, joining: true), [.place(a, over: newB.recordName)]),
            PlannerCase("joining: a newer local document is kept beside", F.scope(.saved(a), occupant: newerB, joining: true), [.moveAside(item: newerB.recordName, to: F.aside("a.txt", at: 9)), .place(a)]),
            PlannerCase("joining: a local document as old as the record is kept beside", F.scope(.saved(a), occupant: sameTimeB, joining: true), [.moveAside(item: sameTimeB.recordName, to: F.aside("a.txt", at: 5)), .place(a)]),
            PlannerCase("joining: the same content adopts the record", F.scope(.saved(a), occupant: newSameB, joining: true), [.adopt(item: newSameB.recordName, as: a)]),
            PlannerCase("joining: an older link is not a stale copy", F.scope(.saved(lA), occupant: newLinkB, joining: true), [.moveAside(item: newLinkB.recordName, to: asideB), .place(lA)]),
            PlannerCase("joining: a synced document in the way is moved aside", F.scope(.saved(a), occupant: syncedB, joining: true), [.moveAside(item: syncedB.recordName, to: asideB), .place(a)]),
            PlannerCase("a synced folder with a larger name gives way to the record's", F.scope(.saved(dA), occupant: folderB), [.adopt(item: folderB.recordName, as: dA)]),
            PlannerCase("a synced folder with a smaller name stays; the other record waits for the path", F.scope(.saved(dB), occupant: syncedFolderA), [.shadow(dB)]),
            PlannerCase("a new local folder adopts the record", F.scope(.saved(dA), occupant: newFolderB), [.adopt(item: newFolderB.recordName, as: dA)]),
            PlannerCase("a new local folder adopts the record even with a smaller name", F.scope(.saved(dB), occupant: F.local(F.folder("A", "a.txt"), .edited, ancestor: nil)),
                        [.adopt(item: F.name("A"), as: dB)]),
            PlannerCase("a synced folder where a document arrives is moved aside", F.scope(.saved(a), occupant: folderB), [.moveAside(item: folderB.recordName, to: asideB), .place(a)]),
            PlannerCase("a new local folder where a document arrives is moved aside", F.scope(.saved(a), occupant: newFolderB), [.moveAside(item: newFolderB.recordName, to: asideB), .place(a)]),
            PlannerCase("a synced document where a folder arrives is moved aside", F.scope(.saved(dA), occupant: syncedB), [.moveAside(item: syncedB.recordName, to: asideB), .place(dA)]),
            PlannerCase("a new local document where a folder arrives is moved aside", F.scope(.saved(dA), occupant: newB), [.moveAside(item: newB.recordName, to: asideB), .place(dA)]),
            PlannerCase("a synced link where a document arrives is moved aside", F.scope(.saved(a), occupant: linkB), [.moveAside(item: linkB.recordName, to: asideB), .place(a)]),
            PlannerCase("a synced document where a link arrives is moved aside", F.scope(.saved(lA), occupant: syncedB), [.moveAside(item: syncedB.recordName, to: asideB), .place(lA)]),
            PlannerCase("in an on-demand folder, an item in the way is moved aside and the record downloaded", F.scope(.saved(a), occupant: syncedB), onDemand: true,
                        [.moveAside(item: syncedB.recordName, to: asideB), .place(a)]),
            PlannerCase("the first conflict name in use: the copy is numbered", F.scope(.saved(a), occupant: syncedB, inUse: [asideB]),
                        [.moveAside(item: syncedB.recordName, to: F.aside("a.txt", at: 3, taken: [asideB])), .place(a)]),
            PlannerCase("two conflict names in use: the copy takes the third", F.scope(.saved(a), occupant: syncedB, inUse: [asideB, F.aside("a.txt", at: 3, taken: [asideB])]),
                        [.moveAside(item: syncedB.recordName, to: F.aside("a.txt", at: 3, taken: [asideB, F.aside("a.txt", at: 3, taken: [asideB])])), .place(a)]),
        ]

        // The item in the way was deleted elsewhere in the same fetch: replaced, not a conflict.
        cases += [
            PlannerCase("replaced elsewhere: the deleted document goes to the version store, the new one is placed",
                        F.scope(.saved(a), occupant: syncedB, occupantDeleted: true), [.deleteToVersionStore(item: syncedB.recordName), .place(a)]),
            PlannerCase("replaced elsewhere: an emptied folder is removed for the document", F.scope(.saved(a), occupant: folderB, occupantDeleted: true),
                        [.removeDirectory(item: folderB.recordName), .place(a)]),
            PlannerCase("replaced elsewhere: a folder still holding items is moved aside", F.scope(.saved(a), occupant: folderB, occupantDeleted: true, occupantHasLiveChildren: true),
                        [.moveAside(item: folderB.recordName, to: asideB), .place(a)]),
            PlannerCase("replaced elsewhere: a placeholder goes", F.scope(.saved(a), occupant: placeholderB, occupantDeleted: true),
                        [.removePlaceholder(item: placeholderB.recordName), .place(a)]),
            PlannerCase("replaced elsewhere, on demand: the placeholder is replaced by the new one's", F.scope(.saved(a), occupant: placeholderB, occupantDeleted: true), onDemand: true,
                        [.removePlaceholder(item: placeholderB.recordName), .placePlaceholder(a)]),
            PlannerCase("replaced elsewhere but edited here: the edit is moved aside", F.scope(.saved(a), occupant: newB, occupantDeleted: true),
                        [.moveAside(item: newB.recordName, to: asideB), .place(a)]),
            PlannerCase("replaced elsewhere: a link goes to the version store", F.scope(.saved(a), occupant: linkB, occupantDeleted: true),
                        [.deleteToVersionStore(item: linkB.recordName), .place(a)]),
            PlannerCase("replaced elsewhere by a folder: the document goes to the version store", F.scope(.saved(dA), occupant: syncedB, occupantDeleted: true),
                        [.deleteToVersionStore(item: syncedB.recordName), .place(dA)]),
            PlannerCase("replaced elsewhere, folder by folder: the record is adopted", F.scope(.saved(dA), occupant: folderB, occupantDeleted: true),
                        [.adopt(item: folderB.recordName, as: dA)]),
        ]
        return cases
    }()

    @Test(arguments: cases) func plan(_ row: PlannerCase) {
        #expect(RemoteChangePlanner.plan(row.scope, settings: row.settings) == row.expected, "\(row.name)")
    }
}
