import DocSyncCore
import DocSyncEngine
import DocSyncTestSupport
import Foundation
import Testing

@Suite("Folder scanner")
struct FolderScannerTests {
    let directory: TemporaryDirectory
    let outside: TemporaryDirectory

    init() throws {
        directory = try TemporaryDirectory("docsync-scan")
        outside = try TemporaryDirectory("docsync-outside")
        let root = directory.url
        try FileManager.default.createDirectory(at: root.appendingPathComponent("docs/deep"), withIntermediateDirectories: true)
        try "a".write(to: root.appendingPathComponent("docs/deep/a.txt"), atomically: false, encoding: .utf8)
        try "b".write(to: root.appendingPathComponent("b.txt"), atomically: false, encoding: .utf8)
        try "swap".write(to: root.appendingPathComponent(".b.txt.swp"), atomically: false, encoding: .utf8)
        try FileManager.default.createDirectory(at: root.appendingPathComponent("private.nosync"), withIntermediateDirectories: true)
        try "hidden".write(to: root.appendingPathComponent("private.nosync/secret.txt"), atomically: false, encoding: .utf8)
        try "elsewhere".write(to: outside.url.appendingPathComponent("x.txt"), atomically: false, encoding: .utf8)
        try FileManager.default.createSymbolicLink(atPath: root.appendingPathComponent("out").path, withDestinationPath: outside.path)
        #expect(mkfifo(root.appendingPathComponent("pipe").path, 0o644) == 0)
        // A name that is not valid UTF-8: "caf\xE9.txt".
        let bytes = Array((root.path + "/caf").utf8) + [0xE9] + Array(".txt".utf8) + [0]
        let fd = bytes.withUnsafeBufferPointer { open(UnsafeRawPointer($0.baseAddress!).assumingMemoryBound(to: CChar.self), O_CREAT | O_WRONLY, 0o644) }
        #expect(fd >= 0)
        close(fd)
    }

    @Test func reportsWhatCanBeSyncedAndWhyTheRestCannot() {
        let scanner = FolderScanner(root: directory.url, ignores: .defaults)
        let result = scanner.scan(nil)
        let paths = Set(result.entries.map(\.path.string))
        #expect(paths == ["docs", "docs/deep", "docs/deep/a.txt", "b.txt", "out"])
        #expect(result.entries.first { $0.path.string == "out" }?.stat.kind == .symlink, "symlinks are entries, never followed")
        let problems = Dictionary(uniqueKeysWithValues: result.problems.map { ($0.path, $0.message) })
        #expect(problems["pipe"]?.contains("FIFOs") == true)
        #expect(problems["caf\\xE9.txt"]?.contains("UTF-8") == true, "\(problems)")
    }

    @Test func scansOneSubtree() {
        let scanner = FolderScanner(root: directory.url, ignores: .defaults)
        let result = scanner.scan(RelativePath("docs"))
        #expect(Set(result.entries.map(\.path.string)) == ["docs", "docs/deep", "docs/deep/a.txt"])
        #expect(scanner.scan(RelativePath("missing")).entries.isEmpty)
    }

    @Test(arguments: [
        ([0x61, 0x62], "ab"),
        ([0x61, 0xFF], "a\\xFF"),
        ([0xC3, 0xA9], "é"),
        ([0xC3], "\\xC3"),
        ([0xE2, 0x82, 0xAC, 0x80], "€\\x80"),
    ] as [([UInt8], String)])
    func escapesNamesThatAreNotUTF8(_ bytes: [UInt8], _ shown: String) {
        #expect(PathDisplay.escaped(parent: nil, nameBytes: bytes) == shown)
        #expect(PathDisplay.escaped(parent: RelativePath("dir"), nameBytes: bytes) == "dir/" + shown)
    }
}
