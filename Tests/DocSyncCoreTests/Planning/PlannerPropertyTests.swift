import DocSyncCore
import Foundation
import Testing

/// Seeded random scopes: whatever the situation, a plan never loses a local edit, never
/// touches an item it was not shown, and never names a conflict copy over a path in use.
@Suite struct PlannerPropertyTests {
    typealias F = Fixture

    struct Generator {
        var random: SplitMix64

        mutating func pick<T>(_ choices: [T]) -> T { choices[Int(random.next() % UInt64(choices.count))] }
        mutating func chance(_ percent: UInt64) -> Bool { random.next() % 100 < percent }

        mutating func record(_ letter: String, tag: String) -> Record {
            let path = pick(["a.txt", "b.txt", "docs/a.txt", "docs"])
            let seconds = Int64(pick([3, 5, 7, 10]))
            var record: Record
            switch pick([0, 0, 1, 2]) {
            case 0: record = F.doc(letter, path, pick(["one", "two", "three"]), at: seconds, mode: pick([0o644, 0o600]))
            case 1: record = F.folder(letter, path, at: seconds, mode: pick([0o755, 0o700]))
            default: record = F.link(letter, path, pick(["x", "y"]), at: seconds)
            }
            record.changeTag = ChangeTag(tag)
            return record
        }

        mutating func item(_ letter: String) -> LocalItem {
            let ancestor = chance(80) ? record(letter, tag: "t1") : nil
            let change: LocalItem.Change = ancestor == nil ? .edited : pick([.none, .edited, .deleted])
            let observed = change == .none ? ancestor! : record(letter, tag: "t1")
            var item = F.local(observed, change, ancestor: ancestor, placeholder: change != .edited && observed.type == .document && chance(15))
            item.onlyMovedByEngine = change == .edited && ancestor != nil && chance(10)
            return item
        }

        mutating func scope() -> (RemoteChangeScope, PlannerSettings) {
            let change: RemoteChange = chance(75) ? .saved(record("A", tag: pick(["t1", "t2"]))) : .deleted(recordName: F.name("A"))
            var occupant: LocalItem?
            if chance(40) {
                var other = item("B")
                if other.change == .deleted, let ancestor = other.ancestor {
                    other.change = .none
                    other.observed = ancestor
                }
                if case .saved(let record) = change { other.observed.path = record.path }
                occupant = other
            }
            var inUse = Set<RelativePath>()
            for base in ["a.txt", "b.txt", "docs/a.txt", "docs"] where chance(30) {
                for seconds in [3, 5, 7, 10] as [Int64] { inUse.insert(F.aside(base, at: seconds)) }
            }
            let scope = F.scope(change, item: chance(70) ? item("A") : nil, occupant: occupant, occupantDeleted: chance(30),
                                occupantHasLiveChildren: chance(30), directoryAtPath: occupant == nil && chance(10),
                                hasLiveChildren: chance(30), isIgnored: chance(5), inUse: inUse, joining: chance(20))
            let settings = PlannerSettings(device: F.here, conflictPolicy: pick(ConflictPolicy.allCases), onDemand: chance(25),
                                           textMerge: chance(50) ? .standard : nil)
            return (scope, settings)
        }
    }

    @Test func plansKeepEveryEditAndTouchOnlyWhatTheyWereShown() {
        let seed = ProcessInfo.processInfo.environment["DOCSYNC_SEED"].flatMap(UInt64.init) ?? 0x5EED_0024
        var generator = Generator(random: SplitMix64(seed: seed))
        for round in 0..<5_000 {
            let (scope, settings) = generator.scope()
            let plan = RemoteChangePlanner.plan(scope, settings: settings)
            let context = "seed \(seed) round \(round): \(scope) → \(plan)"
            var shown = Set([scope.item?.recordName, scope.occupant?.recordName].compactMap { $0 })
            if case .saved(let record) = scope.change { shown.insert(record.id.recordName) }
            var copies: [RelativePath] = []
            var keptBeside = Set<String>()
            // A line-wise merge keeps both inputs itself; what it falls back to is checked as
            // a plan of its own (it is carried out instead, never after).
            var actions = plan
            if case .mergeText(let name, _, _, _, let otherwise)? = plan.last {
                #expect(shown.contains(name) && scope.item?.change == .edited && settings.conflictPolicy == .keepBoth, "\(context)")
                #expect(otherwise.contains { if case .keepConflictCopy = $0 { true } else { false } }, "a merge falls back to the conflict copy: \(context)")
                actions = plan.dropLast() + otherwise
            }
            for action in actions {
                switch action {
                case .forget(let name), .deleteToVersionStore(let name), .removeDirectory(let name), .removePlaceholder(let name):
                    #expect(shown.contains(name), "\(context)")
                    if name == scope.occupant?.recordName {
                        #expect(scope.occupantDeleted && scope.occupant?.change == LocalItem.Change.none, "an occupant removed that was not deleted elsewhere: \(context)")
                    }
                    if name == scope.item?.recordName {
                        let onlyMoved = scope.item.map { item in
                            item.onlyMovedByEngine || item.ancestor.map { RemoteChangePlanner.onlyRelocated($0, item.observed) } == true
                        } == true
                        #expect(scope.item?.change != .edited || onlyMoved, "a local edit removed: \(context)")
                    }
                case .writeContent(let name, _, let reason):
                    #expect(shown.contains(name), "\(context)")
                    #expect(reason != nil || keptBeside.contains(name), "content replaced without keeping it: \(context)")
                case .keepConflictCopy(let name, let path, _):
                    keptBeside.insert(name)
                    copies.append(path)
                    #expect(!scope.pathsInUse.contains(path), "\(context)")
                case .moveAside(let name, let path):
                    #expect(shown.contains(name), "\(context)")
                    copies.append(path)
                    #expect(!scope.pathsInUse.contains(path), "\(context)")
                case .move(let name, _), .setMetadata(let name, _, _), .settle(let name, _), .rebase(let name, _, _), .adopt(let name, _),
                     .detach(let name), .markChanged(let name), .updatePlaceholder(let name, _):
                    #expect(shown.contains(name), "\(context)")
                case .place(let record, let over):
                    #expect(shown.contains(record.id.recordName), "\(context)")
                    if let over { #expect(over == scope.occupant?.recordName && scope.occupant?.ancestor == nil, "\(context)") }
                case .keepDeletion(let name, let record):
                    #expect(name == scope.item?.recordName && scope.item?.change == .deleted, "\(context)")
                    #expect(scope.item?.ancestor.map { $0.contentDigest == record.contentDigest && $0.type == record.type && $0.mode == record.mode } == true,
                            "a deletion kept over an edit: \(context)")
                case .shadow(let record):
                    #expect(record.type == .folder && scope.occupant?.type == .folder, "only a folder waits for a folder's path: \(context)")
                case .placePlaceholder, .keepInVersionStore, .adoptDirectory, .noteConflict:
                    break
                case .mergeText:
                    Issue.record("a merge that is not a plan's last step: \(context)")
                }
            }
            #expect(Set(copies).count == copies.count, "two copies share a name: \(context)")
            if scope.isIgnored, case .saved = scope.change { #expect(plan.isEmpty, "\(context)") }
        }
    }
}
