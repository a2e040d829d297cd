import DocSyncCore
import Testing

/// Decision table: a record changed elsewhere whose item is unchanged here (it follows the
/// server), shown as a placeholder, or deleted here (the edit beats the delete).
@Suite struct UpdatePlanTests {
    typealias F = Fixture

    static let cases: [PlannerCase] = {
        let a = F.doc("A", "a.txt", "one", at: 5)
        let item = F.synced(a)
        let name = item.recordName
        func next(_ record: Record, _ change: (inout Record) -> Void) -> Record {
            var record = F.changed(record)
            change(&record)
            return record
        }
        let content = next(a) { $0 = F.changed(F.doc("A", "a.txt", "two", at: 6)) }
        let mode = next(a) { $0.mode = 0o600 }
        let touched = next(a) { $0.modified = F.time(9) }
        let tagOnly = next(a) { $0.lastModifiedBy = "tablet" }
        let renamed = next(a) { $0.path = RelativePath("b.txt") }
        let renamedEdited = next(content) { $0.path = RelativePath("b.txt") }
        let movedAcross = next(a) { $0.path = RelativePath("archive/2026/a.txt") }
        let renamedMode = next(a) { $0.path = RelativePath("b.txt"); $0.mode = 0o600 }
        let d = F.folder("A", "docs", at: 5)
        let folderItem = F.synced(d)
        let folderTouched = next(d) { $0.modified = F.time(9) }
        let folderMode = next(d) { $0.mode = 0o700 }
        let folderRenamed = next(d) { $0.path = RelativePath("papers") }
        let folderMoved = next(d) { $0.path = RelativePath("old/docs") }
        let l = F.link("A", "a.txt", "target", at: 5)
        let linkItem = F.synced(l)
        let linkRetargeted = next(l) { $0.symlinkTarget = "elsewhere"; $0.size = 9 }
        let linkTouched = next(l) { $0.modified = F.time(9) }
        let linkRenamed = next(l) { $0.path = RelativePath("b.txt") }
        let occupantB = F.synced(F.doc("B", "b.txt", "other", at: 3))
        let newOccupantB = F.local(F.doc("B", "b.txt", "other", at: 3), .edited, ancestor: nil)
        let folderOccupantB = F.synced(F.folder("B", "papers", at: 3))
        let placeholder = F.synced(a, placeholder: true)

        var cases: [PlannerCase] = [
            PlannerCase("the record at the tag held here is nothing new", F.scope(.saved(a), item: item), []),
            PlannerCase("a folder at the tag held here is nothing new", F.scope(.saved(d), item: folderItem), []),
            PlannerCase("a link at the tag held here is nothing new", F.scope(.saved(l), item: linkItem), []),
            PlannerCase("new content replaces the file, the old kept as overwritten", F.scope(.saved(content), item: item),
                        [.writeContent(item: name, content, keepReplacedAs: .overwritten), .settle(item: name, as: content)]),
            PlannerCase("a new mode is set", F.scope(.saved(mode), item: item), [.setMetadata(item: name, mode: 0o600, modified: a.modified), .settle(item: name, as: mode)]),
            PlannerCase("a new time is set", F.scope(.saved(touched), item: item), [.setMetadata(item: name, mode: 0o644, modified: F.time(9)), .settle(item: name, as: touched)]),
            PlannerCase("a new tag alone only settles", F.scope(.saved(tagOnly), item: item), [.settle(item: name, as: tagOnly)]),
            PlannerCase("a rename moves the file", F.scope(.saved(renamed), item: item), [.move(item: name, to: "b.txt"), .settle(item: name, as: renamed)]),
            PlannerCase("a rename with new content moves, then rewrites", F.scope(.saved(renamedEdited), item: item),
                        [.move(item: name, to: "b.txt"), .writeContent(item: name, renamedEdited, keepReplacedAs: .overwritten), .settle(item: name, as: renamedEdited)]),
            PlannerCase("a move across directories", F.scope(.saved(movedAcross), item: item), [.move(item: name, to: "archive/2026/a.txt"), .settle(item: name, as: movedAcross)]),
            PlannerCase("a rename with a new mode", F.scope(.saved(renamedMode), item: item),
                        [.move(item: name, to: "b.txt"), .setMetadata(item: name, mode: 0o600, modified: a.modified), .settle(item: name, as: renamedMode)]),
            PlannerCase("a rename onto a synced item moves it aside first", F.scope(.saved(renamed), item: item, occupant: occupantB),
                        [.moveAside(item: occupantB.recordName, to: F.aside("b.txt", at: 3)), .move(item: name, to: "b.txt"), .settle(item: name, as: renamed)]),
            PlannerCase("a rename onto a new local item moves it aside first", F.scope(.saved(renamed), item: item, occupant: newOccupantB),
                        [.moveAside(item: newOccupantB.recordName, to: F.aside("b.txt", at: 3)), .move(item: name, to: "b.txt"), .settle(item: name, as: renamed)]),
            PlannerCase("a folder's new time is not kept on disk: it only settles", F.scope(.saved(folderTouched), item: folderItem), [.settle(item: name, as: folderTouched)]),
            PlannerCase("a folder's new mode is set", F.scope(.saved(folderMode), item: folderItem),
                        [.setMetadata(item: name, mode: 0o700, modified: d.modified), .settle(item: name, as: folderMode)]),
            PlannerCase("a folder rename moves it with everything inside", F.scope(.saved(folderRenamed), item: folderItem),
                        [.move(item: name, to: "papers"), .settle(item: name, as: folderRenamed)]),
            PlannerCase("a folder moved into another", F.scope(.saved(folderMoved), item: folderItem), [.move(item: name, to: "old/docs"), .settle(item: name, as: folderMoved)]),
            PlannerCase("a folder renamed onto another folder moves that one aside", F.scope(.saved(folderRenamed), item: folderItem, occupant: folderOccupantB),
                        [.moveAside(item: folderOccupantB.recordName, to: F.aside("papers", at: 3)), .move(item: name, to: "papers"), .settle(item: name, as: folderRenamed)]),
            PlannerCase("a link's new target replaces the link", F.scope(.saved(linkRetargeted), item: linkItem),
                        [.writeContent(item: name, linkRetargeted, keepReplacedAs: .overwritten), .settle(item: name, as: linkRetargeted)]),
            PlannerCase("a link's new time only settles", F.scope(.saved(linkTouched), item: linkItem), [.settle(item: name, as: linkTouched)]),
            PlannerCase("a link rename moves it", F.scope(.saved(linkRenamed), item: linkItem), [.move(item: name, to: "b.txt"), .settle(item: name, as: linkRenamed)]),
            PlannerCase("a placeholder follows new content", F.scope(.saved(content), item: placeholder), onDemand: true, [.updatePlaceholder(item: name, to: content)]),
            PlannerCase("a placeholder follows a rename", F.scope(.saved(renamed), item: placeholder), onDemand: true, [.updatePlaceholder(item: name, to: renamed)]),
            PlannerCase("a placeholder follows a change outside an on-demand folder too", F.scope(.saved(touched), item: placeholder), [.updatePlaceholder(item: name, to: touched)]),
            PlannerCase("a placeholder at the tag held here is nothing new", F.scope(.saved(a), item: placeholder), onDemand: true, []),
            PlannerCase("a placeholder whose record is no longer a document goes; the record arrives as new",
                        F.scope(.saved(next(d) { _ in }), item: placeholder), onDemand: true,
                        [.removePlaceholder(item: name), .place(next(d) { _ in })]),
        ]
        // The policy decides conflicts only: an unchanged item follows the server under each.
        for policy in ConflictPolicy.allCases where policy != .keepBoth {
            cases += [
                PlannerCase("new content replaces the file", F.scope(.saved(content), item: item), policy: policy,
                            [.writeContent(item: name, content, keepReplacedAs: .overwritten), .settle(item: name, as: content)]),
                PlannerCase("a rename moves the file", F.scope(.saved(renamed), item: item), policy: policy, [.move(item: name, to: "b.txt"), .settle(item: name, as: renamed)]),
                PlannerCase("a rename onto a synced item moves it aside first", F.scope(.saved(renamed), item: item, occupant: occupantB), policy: policy,
                            [.moveAside(item: occupantB.recordName, to: F.aside("b.txt", at: 3)), .move(item: name, to: "b.txt"), .settle(item: name, as: renamed)]),
            ]
        }

        // Deleted here, changed there: the edit wins and the item comes back.
        let deleted = F.local(a, .deleted, ancestor: a)
        let deletedFolder = F.local(d, .deleted, ancestor: d)
        let deletedLink = F.local(l, .deleted, ancestor: l)
        let deletedPlaceholder = F.local(a, .deleted, ancestor: a, placeholder: true)
        let newHere = F.local(F.doc("B", "a.txt", "new here", at: 8), .edited, ancestor: nil)
        cases += [
            PlannerCase("deleted here, edited there: the document comes back", F.scope(.saved(content), item: deleted), [.place(content)]),
            PlannerCase("deleted here, renamed there: it comes back at the new path", F.scope(.saved(renamed), item: deleted), [.place(renamed)]),
            PlannerCase("deleted here, moved to another folder there under its name: the deletion stands", F.scope(.saved(movedAcross), item: deleted),
                        [.keepDeletion(item: name, over: movedAcross)]),
            PlannerCase("deleted here, moved aside to a conflict copy's name there: the deletion stands",
                        F.scope(.saved(next(a) { $0.path = RelativePath("archive/a (conflict tablet 2024-01-01 00.00.05).txt") }), item: deleted),
                        [.keepDeletion(item: name, over: next(a) { $0.path = RelativePath("archive/a (conflict tablet 2024-01-01 00.00.05).txt") })]),
            PlannerCase("deleted here, moved and renamed there: it comes back", F.scope(.saved(next(movedAcross) { $0.path = RelativePath("archive/b.txt") }), item: deleted),
                        [.place(next(movedAcross) { $0.path = RelativePath("archive/b.txt") })]),
            PlannerCase("deleted here, changed there: a folder comes back", F.scope(.saved(folderMode), item: deletedFolder), [.place(folderMode)]),
            PlannerCase("deleted here, changed there: a link comes back", F.scope(.saved(linkRetargeted), item: deletedLink), [.place(linkRetargeted)]),
            PlannerCase("deleted here, edited there, on demand: a placeholder comes back", F.scope(.saved(content), item: deletedPlaceholder), onDemand: true,
                        [.placePlaceholder(content)]),
            PlannerCase("deleted here, edited there, on demand: a downloaded file comes back downloaded", F.scope(.saved(content), item: deleted), onDemand: true,
                        [.place(content)]),
            PlannerCase("deleted here, edited there: a new item at its path is moved aside", F.scope(.saved(content), item: deleted, occupant: newHere),
                        [.moveAside(item: newHere.recordName, to: F.aside("a.txt", at: 8)), .place(content)]),
            PlannerCase("deleted here, the record unchanged since: the deletion stands", F.scope(.saved(a), item: deleted), []),
        ]
        // Deleted here, and only moved to another folder there (as its folder's move carries
        // it): no edit competes, the deletion stands against the new tag.
        let aInDocs = F.doc("A", "docs/a.txt", "one", at: 5)
        let carried = next(aInDocs) { $0.path = RelativePath("archive/docs/a.txt") }
        let deletedAfterFolderMove = F.local(carried, .deleted, ancestor: aInDocs)
        let dInOld = F.folder("A", "old/docs", at: 5)
        let folderCarried = next(dInOld) { $0.path = RelativePath("archive/docs") }
        let carriedAndEdited = next(F.doc("A", "archive/docs/a.txt", "two", at: 6)) { _ in }
        let carriedAndTouched = next(carried) { $0.modified = F.time(9) }
        let carriedAndRenamed = next(aInDocs) { $0.path = RelativePath("archive/docs/b.txt") }
        cases += [
            PlannerCase("deleted here, carried along with its folder there: the deletion stands",
                        F.scope(.saved(carried), item: deletedAfterFolderMove), [.keepDeletion(item: name, over: carried)]),
            PlannerCase("a folder deleted here, carried along with its parent there: the deletion stands",
                        F.scope(.saved(folderCarried), item: F.local(folderCarried, .deleted, ancestor: dInOld)), [.keepDeletion(item: name, over: folderCarried)]),
            PlannerCase("deleted here, carried along there and edited: the edit wins",
                        F.scope(.saved(carriedAndEdited), item: deletedAfterFolderMove), [.place(carriedAndEdited)]),
            PlannerCase("deleted here, carried along there and its time changed: it comes back",
                        F.scope(.saved(carriedAndTouched), item: deletedAfterFolderMove), [.place(carriedAndTouched)]),
            PlannerCase("deleted here, renamed there within the moved folder: it comes back",
                        F.scope(.saved(carriedAndRenamed), item: F.local(F.doc("A", "archive/docs/a.txt", "one", at: 5), .deleted, ancestor: aInDocs)),
                        [.place(carriedAndRenamed)]),
            PlannerCase("deleted here before its folder's move reached it, carried there: the deletion stands",
                        F.scope(.saved(carried), item: F.local(aInDocs, .deleted, ancestor: aInDocs)), [.keepDeletion(item: name, over: carried)]),
        ]
        for policy in ConflictPolicy.allCases where policy != .keepBoth {
            cases.append(PlannerCase("deleted here, edited there: the edit wins", F.scope(.saved(content), item: deleted), policy: policy, [.place(content)]))
        }
        return cases
    }()

    @Test(arguments: cases) func plan(_ row: PlannerCase) {
        #expect(RemoteChangePlanner.plan(row.scope, settings: row.settings) == row.expected, "\(row.name)")
    }
}
