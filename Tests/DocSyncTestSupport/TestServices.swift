import Foundation

/// Where the real services of the tests are: the PostgreSQL server and the S3 store that
/// `make test` starts (with `config/services/start-postgres.sh` and `start-s3.sh`) before
/// it runs the tests and stops afterwards.
///
/// The addresses come from the environment:
///
/// | variable | holds |
/// |---|---|
/// | `DOCSYNC_TEST_POSTGRES_URL` | `postgres://user:password@127.0.0.1:port/database` (the role may create databases) |
/// | `DOCSYNC_TEST_S3_ENDPOINT` | the S3 endpoint, `http://127.0.0.1:port` (path-style addressing) |
/// | `DOCSYNC_TEST_S3_REGION` | the region to sign requests for |
/// | `DOCSYNC_TEST_S3_ACCESS_KEY` | the access key |
/// | `DOCSYNC_TEST_S3_SECRET_KEY` | the secret key |
///
/// A test run outside `make test` (`swift test`, an IDE) has them only when the services
/// were started with `make services-up` and the variables it printed (kept in
/// `.build/services/postgres.env` and `s3.env`) exported; otherwise these functions throw
/// ``Missing``, which says so.
public enum TestServices {
    /// The URL of the PostgreSQL server's test database, from `DOCSYNC_TEST_POSTGRES_URL`.
    ///
    /// - Throws: ``Missing`` when the variable is unset or empty.
    public static func postgresURL() throws -> String {
        try values(["DOCSYNC_TEST_POSTGRES_URL"], for: "PostgreSQL")[0]
    }

    /// The S3 store's endpoint, region and keys, from `DOCSYNC_TEST_S3_ENDPOINT`,
    /// `DOCSYNC_TEST_S3_REGION`, `DOCSYNC_TEST_S3_ACCESS_KEY` and `DOCSYNC_TEST_S3_SECRET_KEY`.
    ///
    /// - Throws: ``Missing`` naming every one of them that is unset or empty.
    public static func s3() throws -> (endpoint: String, region: String, accessKey: String, secretKey: String) {
        let found = try values(
            ["DOCSYNC_TEST_S3_ENDPOINT", "DOCSYNC_TEST_S3_REGION", "DOCSYNC_TEST_S3_ACCESS_KEY", "DOCSYNC_TEST_S3_SECRET_KEY"],
            for: "S3")
        return (endpoint: found[0], region: found[1], accessKey: found[2], secretKey: found[3])
    }

    /// The values of `names`, in their order; throws naming the missing ones.
    private static func values(_ names: [String], for service: String) throws -> [String] {
        let environment = ProcessInfo.processInfo.environment
        let missing = names.filter { (environment[$0] ?? "").isEmpty }
        guard missing.isEmpty else { throw Missing(service: service, variables: missing) }
        return names.map { environment[$0]! }
    }

    /// A test needs a real service whose address is not in the environment: the tests were
    /// not run through `make test`, and no services were started and exported by hand.
    public struct Missing: Error, CustomStringConvertible, LocalizedError {
        /// The service that is needed ("PostgreSQL" or "S3").
        public let service: String
        /// The environment variables that are unset or empty.
        public let variables: [String]

        public var description: String {
            """
            this test needs the \(service) service, but \(variables.joined(separator: ", ")) \
            \(variables.count == 1 ? "is" : "are") not set. Run the tests through `make test`, which starts \
            PostgreSQL and S3 and stops them afterwards; or start them with `make services-up` and export \
            the variables it prints (kept in .build/services/*.env): \
            set -a; . .build/services/postgres.env; . .build/services/s3.env; set +a
            """
        }

        public var errorDescription: String? { description }
    }
}
