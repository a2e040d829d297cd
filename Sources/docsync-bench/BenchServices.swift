import DocSyncScaleOut
import Foundation
import Logging

/// The PostgreSQL server and S3 store the scale-out parts of the benchmark use: what
/// `make bench` exports after starting them (config/services/), the same variables as for
/// the tests.
struct BenchServices {
    /// A role that may create databases, on the server's default database.
    let admin: PostgresLocation
    let s3Endpoint: String
    let s3Region: String
    let s3AccessKey: String
    let s3SecretKey: String
    /// The postmaster (`DOCSYNC_PG_PID`) and the S3 store's processes (`DOCSYNC_S3_PIDS`), for
    /// their CPU; `nil` when not exported.
    let postgresPIDs: [Int32]?
    let s3PIDs: [Int32]?

    /// Reads the variables; `part` names what needs them in the error when they are missing.
    static func fromEnvironment(for part: String) throws -> BenchServices {
        let environment = ProcessInfo.processInfo.environment
        guard let postgres = environment["DOCSYNC_TEST_POSTGRES_URL"], let endpoint = environment["DOCSYNC_TEST_S3_ENDPOINT"],
              let region = environment["DOCSYNC_TEST_S3_REGION"], let access = environment["DOCSYNC_TEST_S3_ACCESS_KEY"],
              let secret = environment["DOCSYNC_TEST_S3_SECRET_KEY"]
        else {
            throw BenchError("\(part) needs PostgreSQL and S3: run it through make (`make bench`, `make bench-cluster`, `make bench-load`), "
                + "or `make services-up` and export what it prints")
        }
        return BenchServices(admin: try PostgresLocation(url: postgres), s3Endpoint: endpoint, s3Region: region, s3AccessKey: access, s3SecretKey: secret,
                             postgresPIDs: environment["DOCSYNC_PG_PID"].flatMap { Int32($0) }.map { [$0] },
                             s3PIDs: environment["DOCSYNC_S3_PIDS"].map { $0.split(separator: ",").compactMap { Int32($0) } })
    }

    /// A name for a fresh store: its database, and its bucket (the same with dashes).
    static func storeName(_ prefix: String) -> String { "\(prefix)_\(UInt32.random(in: 0 ... .max))" }

    /// Creates the database `name` and returns where it is.
    func makeDatabase(_ name: String) async throws -> PostgresLocation {
        try await admin.executeAlone("CREATE DATABASE \(name)", logger: Self.logger)
        return admin.with(database: name)
    }

    /// Drops the database `name` (and what still uses it).
    func dropDatabase(_ name: String) async {
        try? await admin.executeAlone("DROP DATABASE IF EXISTS \(name) WITH (FORCE)", logger: Self.logger)
    }

    /// The S3 location of the bucket named after the database `name`.
    func chunks(for name: String) -> String {
        "s3://\(name.replacingOccurrences(of: "_", with: "-"))?endpoint=\(s3Endpoint)&region=\(s3Region)"
    }

    private static let logger = Logger(label: "docsync.bench")
}
