import DocSyncCore
import DocSyncEngine
import DocSyncStorage
import DocSyncTestSupport
import Foundation
import Testing

/// SPEC §4, "Merge before duplicating", on in-process devices: text edited on two devices is
/// merged line-wise when the edits are apart, and kept both (the conflict copy) otherwise;
/// identical content is never a conflict.
@Suite("SPEC §4: text files merged instead of duplicated")
struct TextMergeConflictTests {
    let base: TemporaryDirectory
    let local: LocalBackend

    init() throws {
        base = try TemporaryDirectory("docsync-text-merge")
        local = try LocalBackend(directory: base.url.appendingPathComponent("backend"))
    }

    static let notes = SampleTexts.notes

    /// Devices named `names`, each through its own fault injector (so each can be taken
    /// offline alone), all holding `path` with `content` once they settle.
    func devices(_ names: [String], holding path: String, _ content: Data, textMerge: TextMergeRule? = .standard)
        async throws -> [(device: EngineDevice, link: FaultInjectingBackend)] {
        var made: [(device: EngineDevice, link: FaultInjectingBackend)] = []
        for name in names {
            let link = FaultInjectingBackend(wrapping: local)
            made.append((try EngineDevice(name: name, base: base.url, backend: link, textMerge: textMerge), link))
        }
        try content.write(to: made[0].device.file(path))
        made[0].device.rescan()
        let all = made.map(\.device)
        #expect(await eventually(timeout: .seconds(60)) {
            all.allSatisfy { FileManager.default.contents(atPath: $0.file(path).path) == content && $0.engine.isSettled }
        })
        return made
    }

    /// Takes a device offline: every call to the backend fails as if the network were down.
    func offline(_ link: FaultInjectingBackend) {
        link.setPlan(FaultPlan(rules: [FaultRule([], .fromCall(1), .fail(SyncError(.networkUnavailable, "injected: offline")))]))
    }

    /// Brings a device back and tells it to sync.
    func online(_ pair: (device: EngineDevice, link: FaultInjectingBackend)) {
        pair.link.setPlan(.none)
        pair.device.engine.noteRemoteChange()
        pair.device.rescan()
    }

    func write(_ device: EngineDevice, _ path: String, _ content: Data) throws {
        try content.write(to: device.file(path))
        device.rescan()
    }

    func contents(_ device: EngineDevice, _ path: String) -> Data? {
        FileManager.default.contents(atPath: device.file(path).path)
    }

    /// Both devices edit `path` offline (`first`'s edit reaches the server first), then sync.
    func editBothOffline(_ pair: [(device: EngineDevice, link: FaultInjectingBackend)], _ path: String, first: Data, second: Data) async throws {
        let (a, b) = (pair[0], pair[1])
        offline(a.link)
        offline(b.link)
        try write(a.device, path, first)
        try write(b.device, path, second)
        online(a)
        #expect(await eventually(timeout: .seconds(60)) { a.device.engine.isSettled && a.device.status.pendingUploads == 0 })
        online(b)
    }

    func settled(_ devices: [EngineDevice]) -> Bool {
        devices.allSatisfy { $0.engine.isSettled } && zip(devices, devices.dropFirst()).allSatisfy { sameTrees($0, $1) }
    }

    @Test func editsInDifferentSectionsMergeIntoOneFile() async throws {
        let pair = try await devices(["alpha", "beta"], holding: "notes.md", Data(Self.notes.utf8))
        let alpha = Self.notes.replacingOccurrences(of: "call the bank", with: "call the bank about the card")
        let beta = Self.notes.replacingOccurrences(of: "water the plants", with: "water the plants and the garden")
        try await editBothOffline(pair, "notes.md", first: Data(alpha.utf8), second: Data(beta.utf8))
        let merged = Self.notes.replacingOccurrences(of: "call the bank", with: "call the bank about the card")
            .replacingOccurrences(of: "water the plants", with: "water the plants and the garden")
        let devices = pair.map(\.device)
        #expect(await eventually(timeout: .seconds(60)) { settled(devices) && contents(devices[0], "notes.md") == Data(merged.utf8) })
        for device in devices {
            #expect(device.names() == ["notes.md"], "no conflict copy on \(device.name)")
            #expect(device.status.conflicts == 0)
        }
        #expect(devices[1].keepsVersion(alpha) && devices[1].keepsVersion(beta), "both inputs of the merge are in the merging device's version store")
        let log = try devices[1].engine.conflictLog()
        #expect(log.map(\.outcome) == [.merged] && log.first?.path == "notes.md" && log.first?.remoteDevice == "alpha" && log.first?.localDevice == "beta")
        #expect(try devices[0].engine.conflictLog().isEmpty, "alpha met no conflict: the merge reached it as an edit")
    }

    /// Renamed and edited on one device, edited elsewhere in the text on the other: one
    /// file, at the new name, with both edits.
    @Test func aRenameWithAnEditAndAnEditElsewhereMergeAtTheNewName() async throws {
        let pair = try await devices(["alpha", "beta"], holding: "notes.md", Data(Self.notes.utf8))
        let (a, b) = (pair[0], pair[1])
        offline(a.link)
        offline(b.link)
        let alpha = Self.notes.replacingOccurrences(of: "# Notes", with: "# Week notes")
        try FileManager.default.moveItem(at: a.device.file("notes.md"), to: a.device.file("week.md"))
        try write(a.device, "week.md", Data(alpha.utf8))
        let beta = Self.notes.replacingOccurrences(of: "buy bread", with: "buy bread and eggs")
        try write(b.device, "notes.md", Data(beta.utf8))
        online(a)
        #expect(await eventually(timeout: .seconds(60)) { a.device.engine.isSettled && a.device.status.pendingUploads == 0 })
        online(b)
        let devices = pair.map(\.device)
        let merged = alpha.replacingOccurrences(of: "buy bread", with: "buy bread and eggs")
        #expect(await eventually(timeout: .seconds(60)) {
            settled(devices) && devices.allSatisfy { $0.names() == ["week.md"] && contents($0, "week.md") == Data(merged.utf8) }
        })
    }

    @Test func overlappingEditsKeepTheConflictCopy() async throws {
        let pair = try await devices(["alpha", "beta"], holding: "notes.md", Data(Self.notes.utf8))
        let alpha = Self.notes.replacingOccurrences(of: "buy bread", with: "buy bread and milk")
        let beta = Self.notes.replacingOccurrences(of: "buy bread", with: "buy rolls")
        try await editBothOffline(pair, "notes.md", first: Data(alpha.utf8), second: Data(beta.utf8))
        let devices = pair.map(\.device)
        #expect(await eventually(timeout: .seconds(60)) { settled(devices) && devices[0].names().count == 2 })
        #expect(contents(devices[0], "notes.md") == Data(alpha.utf8), "the version that reached the server first stays in place")
        let copy = try #require(devices[0].names().first { $0 != "notes.md" })
        #expect(ConflictName.isConflictCopy(copy) && copy.contains("beta"))
        #expect(contents(devices[0], copy) == Data(beta.utf8))
        #expect(await eventually(timeout: .seconds(30)) { devices.allSatisfy { $0.status.conflicts == 1 } })
        let entry = try #require(try devices[1].engine.conflictLog().first)
        #expect(entry.outcome == .keptBoth && entry.path == "notes.md" && entry.copyPath == copy)
        #expect(entry.detail?.hasPrefix("not merged: ") == true, "\(entry.detail ?? "no detail")")
    }

    @Test func editsOnAdjacentLinesKeepTheConflictCopy() async throws {
        let pair = try await devices(["alpha", "beta"], holding: "list.txt", Data("one\ntwo\nthree\nfour\n".utf8))
        try await editBothOffline(pair, "list.txt", first: Data("one\nTWO\nthree\nfour\n".utf8), second: Data("one\ntwo\nTHREE\nfour\n".utf8))
        let devices = pair.map(\.device)
        #expect(await eventually(timeout: .seconds(60)) { settled(devices) && devices[0].names().count == 2 })
        #expect(contents(devices[0], "list.txt") == Data("one\nTWO\nthree\nfour\n".utf8))
    }

    @Test func aFileThatIsNotUTF8KeepsTheConflictCopy() async throws {
        let ancestor = Data("one\ntwo\nthree\nfour\nfive\n".utf8) + Data([0xFF, 0xFE, 0x0A])
        let pair = try await devices(["alpha", "beta"], holding: "latin.txt", ancestor)
        let alpha = Data("ONE\ntwo\nthree\nfour\nfive\n".utf8) + Data([0xFF, 0xFE, 0x0A])
        let beta = Data("one\ntwo\nthree\nfour\nFIVE\n".utf8) + Data([0xFF, 0xFE, 0x0A])
        try await editBothOffline(pair, "latin.txt", first: alpha, second: beta)
        let devices = pair.map(\.device)
        #expect(await eventually(timeout: .seconds(60)) { settled(devices) && devices[0].names().count == 2 })
        #expect(contents(devices[0], "latin.txt") == alpha)
    }

    @Test func aFileOverTheMergeLimitKeepsTheConflictCopy() async throws {
        let rule = try TextMergeRule(maxSize: 100)
        let lines = (0..<40).map { "line \($0)\n" }
        let pair = try await devices(["alpha", "beta"], holding: "big.txt", Data(lines.joined().utf8), textMerge: rule)
        var alpha = lines, beta = lines
        alpha[2] = "alpha's line\n"
        beta[30] = "beta's line\n"
        try await editBothOffline(pair, "big.txt", first: Data(alpha.joined().utf8), second: Data(beta.joined().utf8))
        let devices = pair.map(\.device)
        #expect(await eventually(timeout: .seconds(60)) { settled(devices) && devices[0].names().count == 2 })
    }

    @Test func aFileNotMatchedByTheMergeGlobsKeepsTheConflictCopy() async throws {
        let lines = (0..<10).map { "line \($0)\n" }
        let pair = try await devices(["alpha", "beta"], holding: "data.log", Data(lines.joined().utf8))
        var alpha = lines, beta = lines
        alpha[1] = "alpha\n"
        beta[8] = "beta\n"
        try await editBothOffline(pair, "data.log", first: Data(alpha.joined().utf8), second: Data(beta.joined().utf8))
        let devices = pair.map(\.device)
        #expect(await eventually(timeout: .seconds(60)) { settled(devices) && devices[0].names().count == 2 })
    }

    @Test func aJSONFileWhoseEditsAreApartMerges() async throws {
        let ancestor = "{\n  \"a\": 1,\n  \"b\": 2,\n  \"c\": 3\n}\n"
        let alpha = "{\n  \"a\": 1,\n  \"b\": 2,\n  \"c\": 3,\n  \"d\": 4\n}\n"
        let beta = "{\n  \"z\": 0,\n  \"a\": 1,\n  \"b\": 2,\n  \"c\": 3\n}\n"
        let pair = try await devices(["alpha", "beta"], holding: "settings.json", Data(ancestor.utf8))
        try await editBothOffline(pair, "settings.json", first: Data(alpha.utf8), second: Data(beta.utf8))
        let devices = pair.map(\.device)
        let merged = "{\n  \"z\": 0,\n  \"a\": 1,\n  \"b\": 2,\n  \"c\": 3,\n  \"d\": 4\n}\n"
        #expect(await eventually(timeout: .seconds(60)) { settled(devices) && contents(devices[0], "settings.json") == Data(merged.utf8) })
        #expect(devices[0].names() == ["settings.json"])
    }

    /// Each side adds the same key to a table, on lines apart: the lines merge, but TOML
    /// forbids the key twice, so the merge is not kept.
    @Test func aTOMLFileWhoseMergeNoLongerParsesKeepsTheConflictCopy() async throws {
        let ancestor = "[server]\nhost = \"a\"\nport = 1\n\n[client]\nname = \"x\"\n"
        let alpha = "[server]\nhost = \"a\"\ntimeout = 5\nport = 1\n\n[client]\nname = \"x\"\n"
        let beta = "[server]\nhost = \"a\"\nport = 1\ntimeout = 9\n\n[client]\nname = \"x\"\n"
        let pair = try await devices(["alpha", "beta"], holding: "app.toml", Data(ancestor.utf8))
        try await editBothOffline(pair, "app.toml", first: Data(alpha.utf8), second: Data(beta.utf8))
        let devices = pair.map(\.device)
        #expect(await eventually(timeout: .seconds(60)) { settled(devices) && devices[0].names().count == 2 })
        #expect(contents(devices[0], "app.toml") == Data(alpha.utf8), "the version that reached the server first stays in place")
    }

    @Test func crlfTextMergesAndKeepsItsLineEndings() async throws {
        let ancestor = "a\r\nb\r\nc\r\nd\r\ne\r\n"
        let pair = try await devices(["alpha", "beta"], holding: "dos.txt", Data(ancestor.utf8))
        try await editBothOffline(pair, "dos.txt", first: Data("A\r\nb\r\nc\r\nd\r\ne\r\n".utf8), second: Data("a\r\nb\r\nc\r\nd\r\nE".utf8))
        let devices = pair.map(\.device)
        #expect(await eventually(timeout: .seconds(60)) { settled(devices) && contents(devices[0], "dos.txt") == Data("A\r\nb\r\nc\r\nd\r\nE".utf8) })
        #expect(devices[0].names() == ["dos.txt"])
    }

    @Test func threeDevicesEditingThreeLinesOfflineEndWithOneMergedFile() async throws {
        let lines = (1...9).map { "line \($0)\n" }
        let trio = try await devices(["alpha", "beta", "gamma"], holding: "plan.txt", Data(lines.joined().utf8))
        for member in trio { offline(member.link) }
        var expected = lines
        for (index, member) in trio.enumerated() {
            var edited = lines
            edited[index * 4] = "\(member.device.name) was here\n"
            expected[index * 4] = edited[index * 4]
            try write(member.device, "plan.txt", Data(edited.joined().utf8))
        }
        for member in trio { online(member) }
        let devices = trio.map(\.device)
        #expect(await eventually(timeout: .seconds(90)) {
            settled(devices) && devices.allSatisfy { contents($0, "plan.txt") == Data(expected.joined().utf8) }
        })
        for device in devices { #expect(device.names() == ["plan.txt"], "no conflict copy on \(device.name)") }
        let merges = try devices.map { try $0.engine.conflictLog().filter { $0.outcome == .merged }.count }.reduce(0, +)
        #expect(merges >= 2, "three versions take at least two merges")
    }

    @Test func identicalEditsAreNoConflict() async throws {
        let pair = try await devices(["alpha", "beta"], holding: "same.md", Data(Self.notes.utf8))
        let edited = Data((Self.notes + "one more line\n").utf8)
        try await editBothOffline(pair, "same.md", first: edited, second: edited)
        let devices = pair.map(\.device)
        #expect(await eventually(timeout: .seconds(60)) { settled(devices) && devices.allSatisfy { $0.status.pendingUploads == 0 } })
        for device in devices {
            #expect(device.names() == ["same.md"])
            #expect(contents(device, "same.md") == edited)
            #expect(device.status.conflicts == 0)
            #expect(try device.engine.conflictLog().isEmpty, "the same bytes are no conflict")
        }
    }

    /// Renamed and edited on one device, edited to the same bytes on the other: the same
    /// content is no conflict, whatever the path history; the rename stands.
    @Test func identicalContentAfterARenameIsNoConflict() async throws {
        let lines = (1...5).map { "line \($0)\n" }
        let pair = try await devices(["alpha", "beta"], holding: "draft.txt", Data(lines.joined().utf8))
        let edited = Data((lines + ["the end\n"]).joined().utf8)
        let (a, b) = (pair[0], pair[1])
        offline(a.link)
        offline(b.link)
        try FileManager.default.moveItem(at: a.device.file("draft.txt"), to: a.device.file("final.txt"))
        try write(a.device, "final.txt", edited)
        try write(b.device, "draft.txt", edited)
        online(a)
        #expect(await eventually(timeout: .seconds(60)) { a.device.engine.isSettled && a.device.status.pendingUploads == 0 })
        online(b)
        let devices = pair.map(\.device)
        #expect(await eventually(timeout: .seconds(60)) { settled(devices) && devices.allSatisfy { $0.names() == ["final.txt"] } })
        #expect(contents(b.device, "final.txt") == edited)
        #expect(b.device.status.conflicts == 0)
    }
}
