import DocSyncCore
import DocSyncS3
import DocSyncScaleOut
import DocSyncTestSupport
import Foundation
import NIOCore
import Testing

/// Nothing leaks through the scale-out store (SPEC §13): an encrypted account syncs
/// `EncryptionLeakTests.files` through docsync-server on PostgreSQL and S3, then a `pg_dump`
/// of its database, every object of its bucket and the server's log are searched for the
/// files' names, paths, text, SHA-256s and plain chunk ids (`EncryptionLeakTests.needles`).
/// None is found. Needs the services `make test` starts (run with the service tests).
@Suite(.serialized) struct ScaleOutLeakTests {
    /// `pg_dump` of the newest PostgreSQL installed (Debian keeps it beside the server).
    static func pgDump() throws -> URL {
        let versions = (try? FileManager.default.contentsOfDirectory(atPath: "/usr/lib/postgresql")) ?? []
        let newest = versions.compactMap(Int.init).sorted().last.map { URL(fileURLWithPath: "/usr/lib/postgresql/\($0)/bin/pg_dump") }
        guard let newest, FileManager.default.isExecutableFile(atPath: newest.path) else {
            throw ServerProcessError("no pg_dump under /usr/lib/postgresql/*/bin (it comes with PostgreSQL)")
        }
        return newest
    }

    /// `bytes` as a plain-format dump writes them in a `bytea` column (the record bodies):
    /// lowercase hex.
    static func hex(_ bytes: Data) -> Data { Data(bytes.map { String(format: "%02x", $0) }.joined().utf8) }

    /// The needles, and each also as a dump writes it in a `bytea` column.
    static func dumpNeedles() -> [(what: String, bytes: Data)] {
        let needles = EncryptionLeakTests.needles()
        return needles + needles.map { ("\($0.what) (as bytea hex)", hex($0.bytes)) }
    }

    @Test func postgreSQLTheBucketAndTheLogHoldNothingOfTheFiles() async throws {
        let storage = try await ScaleOutTestStorage.make()
        try await closing({ await storage.close() }, after: {
            let base = try TemporaryDirectory("docsync-leak-scale-out")
            let logs = base.url.appendingPathComponent("server")
            let server = try await ServerProcess(dataDirectory: logs, storeArguments: storage.serverArguments, environment: storage.serverEnvironment)
            let token = base.url.appendingPathComponent("alice.token")
            try Data((try await server.addUser("alice") + "\n").utf8).write(to: token)
            let laptop = try DaemonProcess(name: "laptop", base: base.url, backend: server.url, extraArguments: ["--token-file", token.path])
            let desk = try DaemonProcess(name: "desk", base: base.url, backend: server.url, extraArguments: ["--token-file", token.path])
            try await EncryptionLeakTests.syncEncrypted(laptop, desk)
            for daemon in [laptop, desk] { _ = await daemon.stop() }
            #expect(try await server.stop() == 0)

            // The database, dumped whole.
            let dump = base.url.appendingPathComponent("records.sql")
            let dumped = try await runProcess(try Self.pgDump(), ["--dbname=\(storage.database.url)", "--file=\(dump.path)", "--no-owner", "--no-privileges"])
            #expect(dumped.status == 0, "pg_dump: \(dumped.errors)")
            let records = try Data(contentsOf: dump)
            #expect(records.range(of: Data("docsync.keys".utf8)) != nil, "the dump holds the account's data (its key directory's zone)")
            #expect(records.range(of: Self.hex(Data("docsync.keys".utf8))) != nil, "and its record bodies, as hex: what the hex needles search")
            let inDatabase = EncryptionLeakTests.search(records, for: Self.dumpNeedles())
            #expect(inDatabase.isEmpty, "PostgreSQL holds: \(inDatabase)")

            // Every object of the bucket.
            let bucket = S3Client(configuration: storage.bucket, logger: ScaleOutTestStorage.logger)
            let objects = try await bucket.listAllObjects(prefix: "")
            #expect(!objects.isEmpty, "the bucket holds the account's chunks")
            var inBucket: [String] = []
            for object in objects {
                let bytes = try await bucket.getObject(object.key)
                inBucket += EncryptionLeakTests.search(Data(bytes.readableBytesView), for: EncryptionLeakTests.needles()).map { "\($0) in \(object.key)" }
            }
            #expect(inBucket.isEmpty, "the bucket holds: \(inBucket)")

            // The server's log (its data directory holds nothing else on this store).
            let inLog = EncryptionLeakTests.search(logs)
            #expect(inLog.isEmpty, "the server's log holds: \(inLog)")
            // The search finds what is there: the devices' own folders hold every needle.
            #expect(!EncryptionLeakTests.search(laptop.folder).isEmpty)
        })
    }
}
