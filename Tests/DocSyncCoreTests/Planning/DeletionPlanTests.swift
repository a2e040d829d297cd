import DocSyncCore
import Testing

/// Decision table: a record deleted on another device.
@Suite struct DeletionPlanTests {
    typealias F = Fixture

    static let cases: [PlannerCase] = {
        let a = F.doc("A", "a.txt", "one", at: 5)
        let d = F.folder("A", "docs", at: 5)
        let l = F.link("A", "a.txt", "target", at: 5)
        let name = F.name("A")
        let gone = RemoteChange.deleted(recordName: name)
        var cases: [PlannerCase] = []
        for policy in ConflictPolicy.allCases {
            cases += [
                PlannerCase("a record never seen here: nothing", F.scope(gone), policy: policy, []),
                PlannerCase("a synced document goes to the version store", F.scope(gone, item: F.synced(a)), policy: policy, [.deleteToVersionStore(item: name)]),
                PlannerCase("a synced link goes to the version store", F.scope(gone, item: F.synced(l)), policy: policy, [.deleteToVersionStore(item: name)]),
                PlannerCase("an emptied folder is removed", F.scope(gone, item: F.synced(d)), policy: policy, [.removeDirectory(item: name)]),
                PlannerCase("a folder holding new items stays and is sent again", F.scope(gone, item: F.synced(d), hasLiveChildren: true), policy: policy,
                            [.detach(item: name), .markChanged(item: name)]),
                PlannerCase("edited here, deleted there: the edit is sent again as new", F.scope(gone, item: F.local(F.doc("A", "a.txt", "two", at: 9), .edited, ancestor: a)),
                            policy: policy, [.detach(item: name)]),
                PlannerCase("a folder changed here, deleted there: sent again", F.scope(gone, item: F.local(F.folder("A", "docs", mode: 0o700), .edited, ancestor: d)),
                            policy: policy, [.detach(item: name)]),
                PlannerCase("moved aside here by the engine only, deleted there: the deletion wins",
                            F.scope(gone, item: F.movedAside(F.doc("A", "a (conflict here 2024-01-01 00.00.05).txt", "one", at: 5), ancestor: a)),
                            policy: policy, [.deleteToVersionStore(item: name)]),
                PlannerCase("a folder moved aside here by the engine only, deleted there: removed",
                            F.scope(gone, item: F.movedAside(F.folder("A", "docs (conflict here 2024-01-01 00.00.05)", at: 5), ancestor: d)),
                            policy: policy, [.removeDirectory(item: name)]),
                PlannerCase("only moved to another folder here, deleted there: the deletion wins",
                            F.scope(gone, item: F.local(F.doc("A", "archive/a.txt", "one", at: 5), .edited, ancestor: a)),
                            policy: policy, [.deleteToVersionStore(item: name)]),
                PlannerCase("a folder only moved into another here, deleted there: removed",
                            F.scope(gone, item: F.local(F.folder("A", "old/docs", at: 5), .edited, ancestor: d)),
                            policy: policy, [.removeDirectory(item: name)]),
                PlannerCase("moved to another folder and edited here, deleted there: the edit is sent again as new",
                            F.scope(gone, item: F.local(F.doc("A", "archive/a.txt", "two", at: 9), .edited, ancestor: a)),
                            policy: policy, [.detach(item: name)]),
                PlannerCase("renamed here, deleted there: the rename is sent again as new",
                            F.scope(gone, item: F.local(F.doc("A", "b.txt", "one", at: 5), .edited, ancestor: a)),
                            policy: policy, [.detach(item: name)]),
                PlannerCase("deleted on both sides: the row goes", F.scope(gone, item: F.local(a, .deleted, ancestor: a)), policy: policy, [.forget(item: name)]),
                PlannerCase("a folder deleted on both sides: the row goes", F.scope(gone, item: F.local(d, .deleted, ancestor: d)), policy: policy, [.forget(item: name)]),
                PlannerCase("a placeholder goes", F.scope(gone, item: F.synced(a, placeholder: true)), policy: policy, [.removePlaceholder(item: name)]),
            ]
        }
        cases += [
            PlannerCase("a placeholder in an on-demand folder goes", F.scope(gone, item: F.synced(a, placeholder: true)), onDemand: true, [.removePlaceholder(item: name)]),
            PlannerCase("a downloaded document in an on-demand folder goes to the version store", F.scope(gone, item: F.synced(a)), onDemand: true,
                        [.deleteToVersionStore(item: name)]),
            PlannerCase("a placeholder deleted here and there: the row goes", F.scope(gone, item: F.local(a, .deleted, ancestor: a, placeholder: true)), onDemand: true,
                        [.forget(item: name)]),
        ]
        return cases
    }()

    @Test(arguments: cases) func plan(_ row: PlannerCase) {
        #expect(RemoteChangePlanner.plan(row.scope, settings: row.settings) == row.expected, "\(row.name)")
    }
}
