import DocSyncCore
import DocSyncTestSupport
import Foundation
import Testing

/// SPEC §4, "Merge before duplicating", through real daemons: a notes file edited in
/// different places on stopped devices ends as one file holding every edit.
@Suite("Text files merged by real daemons", .serialized)
struct TextMergeSystemTests {
    static let notes = SampleTexts.notes

    /// Files in `daemon`'s version store holding exactly `text`.
    func versionStoreHolds(_ daemon: DaemonProcess, _ text: String) -> Bool {
        let versions = daemon.stateDirectory.appendingPathComponent("folders")
        let files = (try? FileManager.default.subpathsOfDirectory(atPath: versions.path)) ?? []
        return files.contains { $0.contains("/versions/") && contents(versions.appendingPathComponent($0)) == text }
    }

    @Test func aMarkdownFileEditedInDifferentSectionsOnStoppedDevicesIsMerged() async throws {
        let pair = try DevicePair()
        try pair.startBoth()
        try Self.notes.write(to: pair.a.file("notes.md"), atomically: false, encoding: .utf8)
        await pair.converge("initial file", also: { contents(pair.b.file("notes.md")) == Self.notes })
        for daemon in [pair.a, pair.b] { #expect(try await daemon.waitSettled()) }
        await pair.stopBoth()
        let alpha = Self.notes.replacingOccurrences(of: "call the bank", with: "call the bank about the card")
        let beta = Self.notes.replacingOccurrences(of: "water the plants", with: "water the plants and the garden")
        try overwrite(pair.a.file("notes.md"), alpha)
        try overwrite(pair.b.file("notes.md"), beta)
        try pair.startBoth()
        let merged = alpha.replacingOccurrences(of: "water the plants", with: "water the plants and the garden")
        await pair.converge("merge", also: { contents(pair.a.file("notes.md")) == merged })
        for daemon in [pair.a, pair.b] { #expect(try await daemon.waitSettled()) }
        for daemon in [pair.a, pair.b] {
            #expect(syncedNames(daemon.folder) == ["notes.md"], "no conflict copy on \(daemon.name)")
            #expect(contents(daemon.file("notes.md")) == merged)
        }
        let merger = try #require([pair.a, pair.b].first { versionStoreHolds($0, alpha) && versionStoreHolds($0, beta) },
                                  "both inputs are in the merging device's version store")
        let log = try await runProcess(builtProduct("docs-status"), ["conflicts", "--log", "--json", "--socket", merger.socket])
        #expect(log.status == 0 && log.output.contains("\"merged\"") && log.output.contains("notes.md"), "\(log.output)")
        await pair.stopBoth()
    }

    @Test func threeDevicesEditingThreeLinesWhileStoppedEndWithOneMergedFile() async throws {
        let pair = try DevicePair()
        let gamma = try DaemonProcess(name: "gamma", base: pair.base.url, backend: URL(fileURLWithPath: pair.backendDirectory.path))
        let daemons = [pair.a, pair.b, gamma]
        for daemon in daemons { try daemon.start() }
        let lines = (1...9).map { "line \($0)\n" }
        try lines.joined().write(to: pair.a.file("plan.txt"), atomically: false, encoding: .utf8)
        #expect(await eventually(timeout: .seconds(60)) { daemons.allSatisfy { contents($0.file("plan.txt")) == lines.joined() } })
        for daemon in daemons { #expect(try await daemon.waitSettled()) }
        for daemon in daemons { await daemon.stop() }
        var expected = lines
        for (index, daemon) in daemons.enumerated() {
            var edited = lines
            edited[index * 4] = "\(daemon.name) was here\n"
            expected[index * 4] = edited[index * 4]
            try overwrite(daemon.file("plan.txt"), edited.joined())
        }
        for daemon in daemons { try daemon.start() }
        let done = await eventually(timeout: .seconds(90)) {
            daemons.allSatisfy { contents($0.file("plan.txt")) == expected.joined() && syncedNames($0.folder) == ["plan.txt"] }
        }
        #expect(done, "alpha: \(contents(pair.a.file("plan.txt")) ?? "-")\nbeta: \(contents(pair.b.file("plan.txt")) ?? "-")\ngamma: \(contents(gamma.file("plan.txt")) ?? "-")")
        for daemon in daemons { #expect(try await daemon.waitSettled()) }
        for daemon in daemons { await daemon.stop() }
    }
}
