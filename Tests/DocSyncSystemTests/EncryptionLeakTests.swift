import Crypto
import DocSyncCore
import DocSyncTestSupport
import Foundation
import Testing

/// Nothing leaks (SPEC §13): after an encrypted account synced a folder of known files,
/// every byte the server side holds — the embedded store's SQLite files with their WAL and
/// its packs, or docsync-server's whole data directory with its log — is searched for each
/// file's name and path, the SHA-256 of each file and of each of its plain chunks (as
/// bytes and as hex), the files' text, and the names of its folders. None is found.
@Suite(.serialized) struct EncryptionLeakTests {
    /// A folder of known files: names and text no store could hold by chance.
    static let files: [String: String] = [
        "Taxes/Return 2026 (final).txt": "adjusted gross income 81234 zebra-quartz\n",
        "Taxes/receipts.csv": String(repeating: "2026-03-01,pharmacy,12.40,lilac-umbrella\n", count: 4000),
        "Diary/entry-0412.md": "# the day we found the otter-lantern\n",
        "photo-otter.raw": String(repeating: "otter-lantern-pixels ", count: 60_000),
    ]

    /// What must not be found of `files` (path to text): each name, path, folder name and
    /// text as UTF-8, each file's SHA-256 and the SHA-256 of each of its plain chunks as raw
    /// bytes and as hex.
    static func needles(of files: [String: String] = EncryptionLeakTests.files) -> [(what: String, bytes: Data)] {
        // The folder id is not among them: the laptop's folder ran in its plain zone (`Docs`,
        // empty) before encryption was turned on, and that zone keeps its name (SPEC §13 allows
        // the zone a plain folder leaves behind to).
        var needles: [(String, Data)] = []
        for (path, text) in files {
            let name = String(path.split(separator: "/").last!)
            needles.append(("name \(name)", Data(name.utf8)))
            needles.append(("path \(path)", Data(path.utf8)))
            let content = Data(text.utf8)
            needles.append(("text of \(path)", content.prefix(24)))
            let digest = SHA256Digest(hashing: content)
            needles.append(("SHA-256 of \(path)", digest.withUnsafeBytes { Data($0) }))
            needles.append(("SHA-256 hex of \(path)", Data(digest.hex.utf8)))
            let manifest = content.withUnsafeBytes { AssetChunker().chunk($0) }
            for chunk in manifest.chunks {
                needles.append(("a plain chunk id of \(path)", chunk.digest.withUnsafeBytes { Data($0) }))
                needles.append(("a plain chunk id (hex) of \(path)", Data(chunk.digest.hex.utf8)))
            }
        }
        for folder in Set(files.keys.compactMap { $0.split(separator: "/").dropLast().first.map(String.init) }) {
            needles.append(("folder name \(folder)", Data(folder.utf8)))
        }
        return needles
    }

    /// Every needle found in a file under `directory`, as "what in FILE".
    static func search(_ directory: URL, for needles: [(what: String, bytes: Data)] = EncryptionLeakTests.needles()) -> [String] {
        var found: [String] = []
        let enumerator = FileManager.default.enumerator(at: directory, includingPropertiesForKeys: [.isRegularFileKey])
        while let url = enumerator?.nextObject() as? URL {
            guard (try? url.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile) == true,
                  let bytes = FileManager.default.contents(atPath: url.path) else { continue }
            found += search(bytes, for: needles).map { "\($0) in \(url.path.dropFirst(directory.path.count))" }
        }
        return found
    }

    /// What of `needles` `bytes` hold.
    static func search(_ bytes: Data, for needles: [(what: String, bytes: Data)]) -> [String] {
        needles.filter { bytes.range(of: $0.bytes) != nil }.map(\.what)
    }

    /// Encryption turned on from `laptop`, `files` written, a second device approved, the
    /// files on it.
    static func syncEncrypted(_ laptop: DaemonProcess, _ desk: DaemonProcess, files: [String: String] = EncryptionLeakTests.files) async throws {
        try laptop.start()
        #expect(try await eventually(timeout: .seconds(60), pollEvery: .milliseconds(100)) { try await laptop.waitSettled(timeout: 5) })
        let enabled = try await laptop.docsStatus(["encryption", "enable"])
        #expect(enabled.status == 0, "\(enabled)")
        for (path, text) in files {
            let url = laptop.file(path)
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(text.utf8).write(to: url)
        }
        // Every file and folder uploaded. (Not `wait`: the laptop's folder, plain and empty
        // before `enable`, stays 'moving into its encrypted zone' until the server moves its
        // plain zone, which docsync-server cannot do yet.)
        let items = files.count + Set(files.keys.flatMap { path in
            path.split(separator: "/").dropLast().indices.map { path.split(separator: "/")[...$0].joined(separator: "/") }
        }).count
        var folder: FolderStatus?
        #expect(try await eventually(timeout: .seconds(60), pollEvery: .milliseconds(200)) {
            folder = try await laptop.status()?.folders.first
            return folder.map { $0.state == .idle && $0.items == items && $0.pendingUploads == 0 } ?? false
        }, "the laptop uploads the files: \(String(describing: folder)) \(laptop.logText().suffix(3000))")
        try desk.start()
        var code: String?
        #expect(try await eventually(timeout: .seconds(60), pollEvery: .milliseconds(200)) {
            code = await EncryptionSystemTests.polledEncryption(desk)?.approvalCode
            return code != nil
        })
        #expect(try await laptop.docsStatus(["devices", "approve", "desk", "--fingerprint", code ?? ""]).status == 0)
        #expect(try await eventually(timeout: .seconds(120), pollEvery: .milliseconds(200)) {
            files.allSatisfy { path, text in FileManager.default.contents(atPath: desk.file(path).path) == Data(text.utf8) }
        }, "every file reaches the approved desk: \(desk.logText().suffix(2000))")
    }

    @Test func theEmbeddedStoreHoldsNothingOfTheFiles() async throws {
        let base = try TemporaryDirectory("docsync-leak-file")
        let backend = base.url.appendingPathComponent("backend")
        try FileManager.default.createDirectory(at: backend, withIntermediateDirectories: true)
        let laptop = try DaemonProcess(name: "laptop", base: base.url, backend: backend)
        let desk = try DaemonProcess(name: "desk", base: base.url, backend: backend)
        try await Self.syncEncrypted(laptop, desk)
        let found = Self.search(backend)
        #expect(found.isEmpty, "the embedded store's files (SQLite, WAL, packs) hold: \(found)")
        // The search finds what is there: the devices' own folders hold every needle.
        #expect(!Self.search(laptop.folder).isEmpty)
        for daemon in [laptop, desk] { _ = await daemon.stop() }
    }

    @Test func docsyncServersDataAndLogHoldNothingOfTheFiles() async throws {
        let accounts = try await ShareCommandSystemTests.Accounts.start(["alice"], "docsync-leak-server")
        let laptop = try accounts.daemon("alice", device: "laptop"), desk = try accounts.daemon("alice", device: "desk")
        try await Self.syncEncrypted(laptop, desk)
        for daemon in [laptop, desk] { _ = await daemon.stop() }
        _ = try await accounts.server.stop()
        let found = Self.search(accounts.data.url)
        #expect(found.isEmpty, "docsync-server's data directory and log hold: \(found)")
    }
}
