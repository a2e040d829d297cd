import DocSyncCore
import DocSyncEngine
import DocSyncStorage
import DocSyncTestSupport
import Foundation
import Testing

/// `docs-status resolve` on two in-process devices (SPEC §4): alpha's edit reached the server
/// last, so alpha made the conflict copy (`<stem> (conflict alpha …)`, alpha's content) and
/// the original holds beta's; beta received the copy. Each choice is checked on the device
/// that made the copy and on the one that received it, by the original's path and by the
/// copy's: the kept content at the path on both devices, the other in the resolving device's
/// version store, the copy gone (or an ordinary file), no conflict left, and the log's row.
@Suite("docs-status resolve: settling conflicts")
struct ResolveTests {
    let base: TemporaryDirectory
    let local: LocalBackend
    let faulty: FaultInjectingBackend

    init() throws {
        base = try TemporaryDirectory("docsync-resolve")
        local = try LocalBackend(directory: base.url.appendingPathComponent("backend"))
        faulty = FaultInjectingBackend(wrapping: local)
    }

    static func alphas(_ name: String) -> String { "alpha's edit of \(name)\n" }
    static func betas(_ name: String) -> String { "beta's edit of \(name)\n" }

    /// Alpha (through the fault injector) and beta, both holding `names` (not merged line-wise:
    /// `.dat`), edited on both while alpha could not fetch: one conflict copy per name, made
    /// by alpha, on both devices.
    func conflicts(_ names: [String] = ["shared.dat"], deleteBrake: DeleteBrake = DeleteBrake()) async throws -> (EngineDevice, EngineDevice) {
        let a = try EngineDevice(name: "alpha", base: base.url, backend: faulty, deleteBrake: deleteBrake)
        let b = try EngineDevice(name: "beta", base: base.url, backend: local, deleteBrake: deleteBrake)
        for name in names { try "base\n".write(to: a.file(name), atomically: false, encoding: .utf8) }
        a.rescan()
        #expect(await eventually(timeout: .seconds(60)) { names.allSatisfy { b.read($0) == "base\n" } && a.engine.isSettled })
        #expect(await a.cutOffFromFetching(through: faulty), "alpha tried to fetch and was refused")
        for name in names { try Self.betas(name).write(to: b.file(name), atomically: false, encoding: .utf8) }
        b.rescan()
        #expect(await eventually(timeout: .seconds(60)) { b.engine.isSettled })
        for name in names { try Self.alphas(name).write(to: a.file(name), atomically: false, encoding: .utf8) }
        a.rescan()
        faulty.setPlan(.none)
        a.engine.noteRemoteChange()
        let settled = await eventually(timeout: .seconds(60)) {
            a.names().count == 2 * names.count && sameTrees(a, b) && a.engine.isSettled && b.engine.isSettled
                && a.status.conflicts == names.count && b.status.conflicts == names.count
        }
        #expect(settled, "a conflict copy per name on both devices: \(a.names()) / \(b.names())")
        return (a, b)
    }

    /// The conflict copy of `name` (in the folder's top level).
    func copy(of name: String, on device: EngineDevice) throws -> String {
        let stem = ConflictName.split(name).stem
        return try #require(device.names().first { $0 != name && $0.hasPrefix(stem + " (conflict ") })
    }

    func resolve(_ device: EngineDevice, _ paths: [String], keep: ConflictKeep) async -> [ActionOutcome] {
        await device.engine.perform(.resolve(paths.map { RelativePath($0) }, keep: keep))
    }

    /// Both devices hold `names` and nothing else, alike, settled, with no conflict left.
    /// With `betaFlagAside`, beta's conflict count is left to the caller.
    func settled(_ a: EngineDevice, _ b: EngineDevice, holding names: [String], betaFlagAside: Bool = false,
                 sourceLocation: SourceLocation = #_sourceLocation) async {
        let settled = await eventually(timeout: .seconds(60)) {
            a.names() == names.sorted() && sameTrees(a, b) && a.engine.isSettled && b.engine.isSettled
                && a.status.conflicts == 0 && (betaFlagAside || b.status.conflicts == 0)
        }
        #expect(settled, "alpha: \(a.names()), \(a.status); beta: \(b.names()), \(b.status)", sourceLocation: sourceLocation)
    }

    /// The conflicts `device` logged as resolved by a person (the engine logs the conflicts it
    /// met too).
    func resolutions(_ device: EngineDevice) throws -> [ConflictLogEntry] {
        try device.engine.conflictLog().filter { [.resolvedLocal, .resolvedRemote, .resolvedBoth].contains($0.outcome) }
    }

    @Test func keepLocalWhereTheCopyWasMadeTakesTheCopysContent() async throws {
        let (a, b) = try await conflicts()
        let copy = try copy(of: "shared.dat", on: a)
        let outcomes = await resolve(a, ["shared.dat"], keep: .local)
        #expect(outcomes.map(\.done) == [true], "\(outcomes)")
        await settled(a, b, holding: ["shared.dat"])
        #expect(a.read("shared.dat") == Self.alphas("shared.dat") && b.read("shared.dat") == Self.alphas("shared.dat"))
        #expect(a.keepsVersion(Self.betas("shared.dat")), "the other side is in the version store")
        let versions = try a.engine.versionEntries(at: RelativePath("shared.dat"))
        #expect(versions.contains { $0.reason == "conflict" && $0.device == "beta" }, "\(versions)")
        let log = try resolutions(a)
        #expect(log.count == 1)
        let entry = try #require(log.first)
        #expect(entry.outcome == .resolvedLocal && entry.path == "shared.dat" && entry.copyPath == copy, "\(entry)")
        #expect(entry.localDevice == "alpha" && entry.remoteDevice == "beta" && entry.folder == "Docs", "\(entry)")
        #expect(try resolutions(b).isEmpty, "beta saw ordinary changes, no conflict")
    }

    @Test func keepRemoteByTheCopysPathWhereItWasMadeKeepsTheOriginal() async throws {
        let (a, b) = try await conflicts()
        let copy = try copy(of: "shared.dat", on: a)
        let outcomes = await resolve(a, [copy], keep: .remote)
        #expect(outcomes.map(\.done) == [true] && outcomes.first?.path == copy, "\(outcomes)")
        await settled(a, b, holding: ["shared.dat"])
        #expect(a.read("shared.dat") == Self.betas("shared.dat") && b.read("shared.dat") == Self.betas("shared.dat"))
        #expect(a.keepsVersion(Self.alphas("shared.dat")))
        let log = try resolutions(a)
        #expect(log.map(\.outcome) == [.resolvedRemote] && log.first?.copyPath == copy && log.first?.remoteDevice == "beta")
    }

    @Test func keepLocalWhereTheCopyArrivedKeepsTheOriginal() async throws {
        let (a, b) = try await conflicts()
        let copy = try copy(of: "shared.dat", on: b)
        let outcomes = await resolve(b, ["shared.dat"], keep: .local)
        #expect(outcomes.map(\.done) == [true], "\(outcomes)")
        await settled(a, b, holding: ["shared.dat"])
        #expect(b.read("shared.dat") == Self.betas("shared.dat") && a.read("shared.dat") == Self.betas("shared.dat"))
        #expect(b.keepsVersion(Self.alphas("shared.dat")))
        let entry = try #require(try resolutions(b).first)
        #expect(entry.outcome == .resolvedLocal && entry.copyPath == copy && entry.localDevice == "beta" && entry.remoteDevice == "alpha", "\(entry)")
    }

    @Test func keepRemoteByTheCopysPathWhereItArrivedTakesTheCopysContent() async throws {
        let (a, b) = try await conflicts()
        let copy = try copy(of: "shared.dat", on: b)
        let outcomes = await resolve(b, [copy], keep: .remote)
        #expect(outcomes.map(\.done) == [true], "\(outcomes)")
        await settled(a, b, holding: ["shared.dat"])
        #expect(b.read("shared.dat") == Self.alphas("shared.dat") && a.read("shared.dat") == Self.alphas("shared.dat"))
        #expect(b.keepsVersion(Self.betas("shared.dat")))
        #expect(try resolutions(b).map(\.outcome) == [.resolvedRemote])
    }

    @Test func keepBothMakesTheCopyAnOrdinaryFile() async throws {
        let (a, b) = try await conflicts()
        let copy = try copy(of: "shared.dat", on: a)
        let outcomes = await resolve(a, [copy], keep: .both)
        #expect(outcomes.map(\.done) == [true], "\(outcomes)")
        await settled(a, b, holding: ["shared 2.dat", "shared.dat"], betaFlagAside: true)
        #expect(b.read("shared 2.dat") == Self.alphas("shared.dat") && b.read("shared.dat") == Self.betas("shared.dat"))
        #expect(await eventually(timeout: .seconds(30)) { b.status.conflicts == 0 }, "beta: the copy that arrived renamed is no conflict")
        let log = try resolutions(a)
        #expect(log.map(\.outcome) == [.resolvedBoth] && log.first?.copyPath == copy)
        #expect(log.first?.detail?.contains("shared 2.dat") == true, "\(log)")
    }

    @Test func allSettlesEveryConflictAndWhereNarrowsIt() async throws {
        let names = ["a.dat", "b.dat", "c.dat"]
        let (a, b) = try await conflicts(names)
        // --where matching an original and its copy settles that conflict once.
        let narrowed = try b.engine.conflictTargets(matching: MetadataPredicate(parsing: "name BEGINSWITH 'a'"))
        #expect(narrowed.count == 2 && narrowed.contains(RelativePath("a.dat")), "\(narrowed)")
        let first = await b.engine.perform(.resolve(narrowed, keep: .remote))
        #expect(first.allSatisfy(\.done) && first.count == 2, "\(first)")
        #expect(await eventually(timeout: .seconds(60)) { b.status.conflicts == 2 && b.engine.isSettled })
        let all = try b.engine.conflictTargets(matching: nil)
        #expect(all == [RelativePath("b.dat"), RelativePath("c.dat")])
        let rest = await b.engine.perform(.resolve(all, keep: .remote))
        #expect(rest.map(\.done) == [true, true], "\(rest)")
        await settled(a, b, holding: names)
        for name in names { #expect(a.read(name) == Self.alphas(name) && b.read(name) == Self.alphas(name)) }
        let log = try resolutions(b)
        #expect(log.count == 3 && log.allSatisfy { $0.outcome == .resolvedRemote && $0.remoteDevice == "alpha" })
        #expect(Set(log.map(\.path)) == Set(names))
    }

    /// Resolving copies away deletes their records, as many as the conflicts: with a brake
    /// at 50 % and 2 items, three copies of six items would be held as a mass deletion, yet
    /// a person asked for each by name. They go, and the brake still holds what nobody asked for.
    @Test func copiesResolvedAwayAreNotHeldByTheMassDeleteBrake() async throws {
        let names = ["a.dat", "b.dat", "c.dat"]
        let brake = DeleteBrake(percent: 50, minimum: 2)
        let (a, b) = try await conflicts(names, deleteBrake: brake)
        let outcomes = await b.engine.perform(.resolve(try b.engine.conflictTargets(matching: nil), keep: .local))
        #expect(outcomes.map(\.done) == [true, true, true], "\(outcomes)")
        await settled(a, b, holding: names)
        #expect(b.status.state != .deletionsHeld && a.status.state != .deletionsHeld)
        for name in names { #expect(a.read(name) == Self.betas(name)) }

        // What nobody asked for is still braked: two of the three files deleted on beta.
        try FileManager.default.removeItem(at: b.file("a.dat"))
        try FileManager.default.removeItem(at: b.file("b.dat"))
        b.rescan()
        #expect(await eventually(timeout: .seconds(60)) { b.status.state == .deletionsHeld }, "\(b.status)")
        #expect(a.names() == names, "alpha keeps the files while beta's deletions are held")
    }

    @Test func pathsWithoutAConflictAreAnsweredPerItem() async throws {
        let (a, _) = try await conflicts()
        try a.write("plain.dat", "no conflict\n")
        #expect(await eventually(timeout: .seconds(60)) { a.engine.isSettled && a.status.items == 3 })
        let outcomes = await resolve(a, ["plain.dat", "missing.dat"], keep: .local)
        #expect(outcomes.map(\.done) == [true, false], "\(outcomes)")
        #expect(outcomes.first?.message == "no conflict to resolve")
        #expect(outcomes.last?.message == "no such item")
        #expect(a.status.conflicts == 1, "the real conflict is untouched")
        #expect(try resolutions(a).isEmpty)
    }
}
