import Foundation

/// Where the scale-out store is (`[storage]` of the configuration file): the PostgreSQL
/// database of accounts, records and history, the S3 location of the chunks, and the file
/// holding the S3 credentials (else they come from the environment).
public struct ScaleOutLocation: Sendable, Hashable {
    /// `postgres://USER:PASSWORD@HOST:PORT/DATABASE` (the password may come from `PGPASSWORD` instead).
    public var records: String
    /// `s3://BUCKET?endpoint=http://HOST:PORT&region=REGION`.
    public var chunks: String
    /// A file with `access_key` and `secret_key` lines (`S3CredentialsFile`).
    public var credentials: String?

    public init(records: String, chunks: String, credentials: String? = nil) {
        self.records = records
        self.chunks = chunks
        self.credentials = credentials
    }
}
