import DocSyncCore
import DocSyncStorage
import DocSyncTestSupport
import Foundation
import Testing

/// An encrypted folder read out of the embedded store by `Tests/Encryption/read_store.py`,
/// a reader written from the README alone with Python's `cryptography` (SPEC §13, "an
/// independent reader"): the store holds an encrypted account as docsync writes it — the key
/// directory as Values in `~docsync.keys`, sealed records in the folder's opaque zone, two
/// epochs — and what the script writes with the recovery key must be the folder, byte for
/// byte. If it is not, the README's "Encryption format" or "Reading an embedded store without
/// docsync" is incomplete or wrong (or docsync writes something else than it says).
@Suite(.serialized) struct IndependentReaderTests {
    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Tests/Encryption/read_store.py")
    static let folder = ZoneID("Documents")

    /// Lives as long as the test (one suite instance per test).
    let directory: TemporaryDirectory
    let backend: LocalBackend
    let account: Account

    init() async throws {
        directory = try TemporaryDirectory("docsync-reader")
        backend = try LocalBackend(url: directory.url.appendingPathComponent("store"), options: .init(collectsOnSchedule: false))
        account = try await Account.enabled(on: backend, folder: Self.folder)
    }

    // MARK: the tests

    /// Everything but chunks: folders (one named beyond ASCII), an empty document, symlinks,
    /// records of the second epoch; a deleted record is not live, so not written.
    @Test func foldersSymlinksEmptyFilesAndASecondEpochComeBack() async throws {
        var expected = Tree()
        try await save(.folder, "Reports", mode: 0o755, into: &expected)
        try await save(.folder, "Résumés ü €", mode: 0o700, into: &expected)
        try await saveDocument("Reports/empty.txt", Data(), mode: 0o644, into: &expected)
        try await save(.symlink, "latest", target: "Reports/empty.txt", into: &expected)
        try await save(.symlink, "Reports/outside", target: "../../elsewhere \"quoted\"", into: &expected)
        try await save(.folder, "Later", mode: 0o755, epoch: 2, into: &expected)
        try await save(.symlink, "Later/back", target: "..", epoch: 2, into: &expected)
        try await saveDeleted("Gone")

        let read = try await runReader(recoveryKey: account.recovery.text)
        #expect(read.status == 0, "\(read.errors)")
        try expectTree(expected)
    }

    /// Documents read from the packs: a small one, a large one whose asset is a manifest
    /// tree, one of the second epoch. Cancelled, saying so, while the embedded store refuses
    /// sealed chunks (it checks their bytes against their id, a MAC it cannot compute).
    @Test func documentsComeBackFromThePacks() async throws {
        var expected = Tree()
        try await save(.folder, "Reports", mode: 0o755, into: &expected)
        try await saveDocument("Reports/note.txt", Data("the minutes, sealed\n".utf8), mode: 0o644, into: &expected)
        // 3 MB: a few hundred chunks, so the asset's root holds manifest nodes (depth 1).
        let large = Self.content(3_000_000, seed: 7)
        let depth = try await saveDocument("large.bin", large, mode: 0o600, into: &expected)
        #expect(depth > 0, "the large file's asset has a manifest tree")
        try await save(.folder, "Later", mode: 0o755, epoch: 2, into: &expected)
        try await saveDocument("Later/todo.md", Data("- read the README\n".utf8), mode: 0o644, epoch: 2, into: &expected)
        try await save(.symlink, "latest", target: "Reports/note.txt", into: &expected)

        let read = try await runReader(recoveryKey: account.recovery.text)
        #expect(read.status == 0, "\(read.errors)")
        try expectTree(expected)
    }

    /// Another account's recovery key, or one with a typo: the script exits 2 saying why, and
    /// writes nothing.
    @Test func aWrongRecoveryKeyReadsNothing() async throws {
        var expected = Tree()
        try await save(.folder, "Reports", mode: 0o755, into: &expected)

        let other = try await runReader(recoveryKey: RecoveryKey().text)
        #expect(other.status == 2, "\(other.output) \(other.errors)")
        #expect(other.errors.contains("this recovery key is not the account's"), "\(other.errors)")
        var letters = Array(account.recovery.text)
        letters[0] = letters[0] == "a" ? "b" : "a"
        let typo = try await runReader(recoveryKey: String(letters))
        #expect(typo.status == 2 && typo.errors.contains("typo"), "\(typo.errors)")
        #expect(try Tree(reading: output) == Tree(), "nothing is written")
    }

    // MARK: the store, as docsync writes it

    /// The account's keys, its recovery key, and the epochs of the folder's opaque zone.
    struct Account {
        let keys: AccountKeys
        let recovery: RecoveryKey
        let zone: ZoneID
        let epochs: [UInt32: FolderEpochKeys]

        /// Encryption turned on, as `docs-status encryption enable` does: the account's
        /// statement, the recovery entry, a device announced and trusted, and the folder's
        /// epochs 1 (derived) and 2 (random) — all saved as Values of `~docsync.keys` the way
        /// the daemon's `KeyDirectoryClient` saves them; then the folder's zone.
        static func enabled(on backend: LocalBackend, folder: ZoneID) async throws -> Account {
            let keys = AccountKeys.generate()
            let recovery = RecoveryKey()
            let device = EncryptionKeyPair().publicKeys
            let zone = keys.opaqueZoneName(for: folder)
            let first = keys.firstEpochSecret(of: zone), second = FolderEpochKeys.newSecret()
            var writes = try keys.enabling(recoveryKey: recovery, device: device, name: "laptop")
            writes.merge(try keys.startingEpoch(1, of: zone, secret: first))
            writes.merge(try keys.startingEpoch(2, of: zone, secret: second))

            let store = KeyValueStoreID(KeyDirectory.storeName)
            try await backend.createZone(store.zone)
            var batch = RecordBatch(zone: store.zone)
            for (name, value) in writes.values.sorted(by: { $0.key < $1.key }) {
                let value = try #require(value)
                batch.saves.append(Record.value(value, for: try KeyValueKey(validating: name), in: store, modified: Timestamp(Date()),
                                                device: DeviceID(device).text))
            }
            let saved = try await backend.modifyRecords(batch)
            #expect(saved.failed.isEmpty, "\(saved.failed)")
            try await backend.createZone(zone)
            return Account(keys: keys, recovery: recovery, zone: zone,
                           epochs: [1: try FolderEpochKeys(secret: first, epoch: 1), 2: try FolderEpochKeys(secret: second, epoch: 2)])
        }
    }

    /// What the folder holds, by path: what the reader must write.
    struct Tree: Equatable, CustomStringConvertible {
        enum Entry: Equatable, CustomStringConvertible {
            case folder
            case file(Data, mode: UInt32)
            case link(String)

            var description: String {
                switch self {
                case .folder: "folder"
                case let .file(data, mode): "file of \(data.count) bytes, SHA-256 \(SHA256Digest(hashing: data).shortHex), mode \(String(mode, radix: 8))"
                case let .link(target): "symlink to \(target.debugDescription)"
                }
            }
        }

        var entries: [String: Entry] = [:]

        init() {}

        /// The tree under `root` as it is on disk (symlinks not followed).
        init(reading root: URL) throws {
            guard FileManager.default.fileExists(atPath: root.path) else { return }
            try read(root, under: "")
        }

        /// Walks `directory` itself, never through a symlink (a link to `..` must not loop).
        private mutating func read(_ directory: URL, under prefix: String) throws {
            let manager = FileManager.default
            for name in try manager.contentsOfDirectory(atPath: directory.path) {
                let path = prefix + name, url = directory.appendingPathComponent(name)
                let attributes = try manager.attributesOfItem(atPath: url.path)  // lstat: a link is a link
                switch attributes[.type] as? FileAttributeType {
                case .typeDirectory?:
                    entries[path] = .folder
                    try read(url, under: path + "/")
                case .typeSymbolicLink?:
                    entries[path] = .link(try manager.destinationOfSymbolicLink(atPath: url.path))
                default:
                    let mode = (attributes[.posixPermissions] as? NSNumber)?.uint32Value ?? 0
                    entries[path] = .file(try Data(contentsOf: url), mode: mode & 0o777)
                }
            }
        }

        var description: String {
            entries.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" }.joined(separator: "\n")
        }
    }

    /// Seals `type` at `path` in `epoch` and saves it; adds it to `expected`.
    func save(_ type: RecordType, _ path: String, mode: UInt32 = 0o777, target: String? = nil, epoch: UInt32 = 1,
              into expected: inout Tree) async throws {
        let plain = Self.plain(type, path, mode: mode, target: target)
        try await saveSealed(plain, epoch: epoch)
        expected.entries[path] = type == .folder ? .folder : .link(target!)
    }

    /// Seals `content` as the document `path` in `epoch`, uploads its sealed chunks and
    /// nodes, saves it, and adds it to `expected`; returns its asset's depth.
    @discardableResult
    func saveDocument(_ path: String, _ content: Data, mode: UInt32, epoch: UInt32 = 1, into expected: inout Tree) async throws -> Int {
        let keys = try #require(account.epochs[epoch])
        let asset = keys.sealAsset(content, zone: account.zone)
        try await backend.uploadChunks(asset.chunks.map(ChunkUpload.init(sealed:)))
        try await backend.uploadChunks(asset.nodes.map { ChunkUpload(digest: $0.ref.digest, bytes: $0.bytes) })
        let plain = Self.plain(.document, path, mode: mode, size: Int64(content.count), asset: asset.reference)
        try await saveSealed(plain, epoch: epoch, asset: asset)
        expected.entries[path] = .file(content, mode: mode)
        return asset.reference.depth
    }

    /// A folder saved and then deleted: in Recently Deleted, not live, so not read.
    func saveDeleted(_ path: String) async throws {
        let saved = try await saveSealed(Self.plain(.folder, path, mode: 0o755), epoch: 1)
        let result = try await backend.modifyRecords(RecordBatch(zone: account.zone, deletions: [RecordDeletion(id: saved.id, device: "laptop")]))
        #expect(result.failed.isEmpty, "\(result.failed)")
    }

    @discardableResult
    func saveSealed(_ plain: Record, epoch: UInt32, asset: SealedAsset? = nil) async throws -> Record {
        let keys = try #require(account.epochs[epoch])
        let wire = asset.map { Record.sealing(plain, version: 1, with: keys, zone: account.zone, asset: $0) }
            ?? Record.sealing(plain, version: 1, with: keys, zone: account.zone)
        return try await backend.save(wire)
    }

    static func plain(_ type: RecordType, _ path: String, mode: UInt32, size: Int64? = nil, asset: AssetReference? = nil,
                      target: String? = nil) -> Record {
        Record(id: RecordID(zone: folder, recordName: RecordID.newName()), type: type, path: RelativePath(path),
               size: size ?? Int64(target?.utf8.count ?? 0), modified: Timestamp(nanosecondsSince1970: 1_760_000_000_123_456_789),
               mode: mode, contentDigest: asset?.contentDigest, asset: asset, symlinkTarget: target, lastModifiedBy: "laptop")
    }

    static func content(_ count: Int, seed: UInt64) -> Data {
        var random = SplitMix64(seed: seed)
        return Data((0..<count).map { _ in UInt8(truncatingIfNeeded: random.next()) })
    }

    // MARK: the reader

    var output: URL { directory.url.appendingPathComponent("out") }

    /// Runs the script on the store with `recoveryKey`, writing into `output`.
    func runReader(recoveryKey: String) async throws -> (status: Int32, output: String, errors: String) {
        try await Self.requireCryptography()
        return try await runProcess(URL(fileURLWithPath: "/usr/bin/env"), [
            "python3", Self.script.path, "--recovery-key", recoveryKey, "--store", backend.directory.path,
            "--folder", Self.folder.name, "--out", output.path,
        ])
    }

    func expectTree(_ expected: Tree) throws {
        let found = try Tree(reading: output)
        #expect(Set(found.entries.keys) == Set(expected.entries.keys), "written:\n\(found)\nexpected:\n\(expected)")
        for (path, entry) in expected.entries.sorted(by: { $0.key < $1.key }) {
            #expect(found.entries[path] == entry, "\(path)")
        }
    }

    /// Python's `cryptography`, installed as `Tests/Encryption/check.sh` installs it when it is
    /// missing (`pip install --user`); the test is cancelled, saying so, only when that fails.
    static func requireCryptography() async throws {
        let env = URL(fileURLWithPath: "/usr/bin/env")
        if try await runProcess(env, ["python3", "-c", "import cryptography"]).status == 0 { return }
        let pip = ["python3", "-m", "pip", "install", "--user", "--quiet", "--disable-pip-version-check", "--no-input", "cryptography"]
        if try await runProcess(env, pip).status != 0 { _ = try await runProcess(env, pip + ["--break-system-packages"]) }
        if try await runProcess(env, ["python3", "-c", "import cryptography"]).status != 0 {
            try Test.cancel("Python 3 with the cryptography package is needed to run Tests/Encryption/read_store.py, and pip could not install it")
        }
    }
}
