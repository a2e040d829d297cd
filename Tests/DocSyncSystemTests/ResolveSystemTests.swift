import DocSyncControl
import DocSyncCore
import DocSyncTestSupport
import Foundation
import Testing

/// `docs-status resolve` and `docs-status conflicts --log` through the real binaries: two
/// `docsyncd` processes on one `file://` backend, two files edited on both while they were
/// stopped (one conflict copy each), settled with `docs-status`.
@Suite("docs-status resolve and conflicts --log against real daemons", .serialized)
struct ResolveSystemTests {
    /// A conflict log entry as `conflicts --log --json` prints it (the README's conflict object).
    struct LoggedConflict: Decodable {
        let time: Date
        let folder: String
        let path: String
        let copyPath: String?
        let localDevice: String
        let remoteDevice: String?
        let outcome: String
        let detail: String?
    }

    func call(_ arguments: [String], on daemon: DaemonProcess) async throws -> (status: Int32, output: String, errors: String) {
        try await daemon.docsStatus(arguments)
    }

    func json<T: Decodable>(_ type: T.Type, _ arguments: [String], on daemon: DaemonProcess,
                            sourceLocation: SourceLocation = #_sourceLocation) async throws -> T {
        try await daemon.docsStatusJSON(type, arguments, sourceLocation: sourceLocation)
    }

    /// The conflict copy of `name` in `folder` and the device its name carries.
    func copy(of name: String, in folder: URL) throws -> (name: String, device: String) {
        let stem = ConflictName.split(name).stem
        let copy = try #require(syncedNames(folder).first { $0.hasPrefix(stem + " (conflict ") }, "\(syncedNames(folder))")
        return (copy, try #require(ConflictName.device(of: copy)))
    }

    @Test func resolveAndTheConflictLog() async throws {
        let pair = try DevicePair()
        try pair.startBoth()
        defer { Task { [pair] in await pair.stopBoth() } }
        let a = pair.a, b = pair.b
        for name in ["a.dat", "b.dat"] { try "draft\n".write(to: a.file(name), atomically: false, encoding: .utf8) }
        await pair.converge("two files to edit on both sides")
        #expect(try await a.waitSettled())
        #expect(try await b.waitSettled())
        await pair.stopBoth()
        for name in ["a.dat", "b.dat"] {
            try overwrite(a.file(name), "alpha's \(name)\n")
            try overwrite(b.file(name), "beta's \(name)\n")
        }
        try pair.startBoth()
        await pair.converge("concurrent edits", also: { syncedNames(a.folder).count == 4 })
        #expect(try await a.waitSettled())
        #expect(try await b.waitSettled())

        // a.dat, on the device that made its copy (the copy's name says which), by the
        // original's path, keeping that device's own version: the copy's content.
        let (copyOfA, maker) = try copy(of: "a.dat", in: a.folder)
        let (resolver, other) = maker == "alpha" ? (a, b) : (b, a)
        let byPath = try await call(["resolve", resolver.file("a.dat").path, "--keep", "local"], on: resolver)
        #expect(byPath.status == 0, "\(byPath)")
        #expect(byPath.output.contains("✓ done") && byPath.output.contains("Docs/a.dat"), "\(byPath.output)")
        await pair.converge("a.dat resolved", also: {
            contents(a.file("a.dat")) == "\(maker)'s a.dat\n" && !syncedNames(a.folder).contains(copyOfA)
        })

        // Every conflict left (b.dat's), on beta, keeping both: the copy becomes "b 2.dat".
        let (copyOfB, makerOfB) = try copy(of: "b.dat", in: b.folder)
        let all = try await json([ActionOutcome].self, ["resolve", "--all", "--keep", "both"], on: b)
        #expect(all.map(\.path) == ["b.dat"] && all.allSatisfy(\.done), "\(all)")
        await pair.converge("b.dat resolved keeping both", also: { syncedNames(a.folder).sorted() == ["a.dat", "b 2.dat", "b.dat"] })
        #expect(contents(b.file("b 2.dat")) == "\(makerOfB)'s b.dat\n")
        #expect(contents(b.file("b.dat")) == "\(makerOfB == "alpha" ? "beta" : "alpha")'s b.dat\n")
        #expect(try await resolver.waitSettled())
        #expect(try await b.waitSettled())
        #expect(try await json([ItemStatus].self, ["conflicts"], on: b).isEmpty)
        #expect(try await json([ItemStatus].self, ["conflicts"], on: a).isEmpty, "the copy that arrived renamed is no conflict on alpha either")

        // The log, in JSON: each resolution on the device that made it.
        let resolverLog = try await json([LoggedConflict].self, ["conflicts", "--log"], on: resolver)
        let local = try #require(resolverLog.first { $0.outcome == "resolved-local" }, "\(resolverLog)")
        #expect(local.folder == "Docs" && local.path == "a.dat" && local.copyPath == copyOfA)
        #expect(local.localDevice == maker && local.remoteDevice == other.name)
        #expect(abs(local.time.timeIntervalSinceNow) < 600 && local.detail?.contains("version store") == true, "\(local)")
        let betaLog = try await json([LoggedConflict].self, ["conflicts", "--log", "--since", "1h"], on: b)
        let both = try #require(betaLog.first { $0.outcome == "resolved-both" }, "\(betaLog)")
        #expect(both.path == "b.dat" && both.copyPath == copyOfB && both.localDevice == "beta" && both.detail?.contains("b 2.dat") == true)
        #expect(betaLog.map(\.time) == betaLog.map(\.time).sorted(by: >), "newest first")

        // And as a table; a time after everything leaves nothing.
        let table = try await call(["conflicts", "--log"], on: b)
        #expect(table.status == 0 && table.output.contains("resolved-both") && table.output.contains("Docs/b.dat"), "\(table.output)")
        let later = try await call(["conflicts", "--log", "--since", "2100-01-01"], on: b)
        #expect(later.status == 0 && later.output == "no conflicts logged since 2100-01-01\n", "\(later)")
        await pair.stopBoth()
    }
}
