import Foundation

/// Where and how `S3Client` reaches one bucket: the endpoint (path-style addressing,
/// `http(s)://host[:port]/BUCKET/KEY`), the region that signatures name, the bucket, the
/// credentials, and the client's limits.
///
/// A value built by `init(endpoint:...)` or `init(url:environment:credentialsFile:)` has been
/// checked: the endpoint is an http(s) URL with a host and no path, query or credentials, the
/// bucket name follows S3's rules (3–63 lower-case letters, digits, `.` and `-`), and the keys
/// are non-empty without spaces or control characters. `description` never shows the secret.
public struct S3Configuration: Sendable, Hashable, CustomStringConvertible {
    /// The store's base URL: scheme, host and port only (`http://127.0.0.1:8480`).
    public let endpoint: URL
    /// The region that signatures name (`us-east-1` unless the store says otherwise).
    public let region: String
    public let bucket: String
    /// The access key, sent as it is (it may contain `:`, as Swift's `account:user` does).
    public let accessKey: String
    public let secretKey: String

    /// Whether bodies are covered by signatures (see `S3PayloadSigning`); `.unsigned` by default.
    public var payloadSigning: S3PayloadSigning = .unsigned
    /// How long one request may take, from sending it to having read the whole answer; a
    /// request that takes longer fails with `networkFailure`. 60 s by default: enough for one
    /// part of `partSize` at 300 KB/s.
    public var requestTimeout: Duration = .seconds(60)
    /// `putObject` uploads a larger object in parts (multipart upload). 16 MiB by default;
    /// never less than `partSize`.
    public var multipartThreshold: Int = 16 << 20
    /// The size of each part of an automatic multipart upload (the last may be smaller).
    /// 16 MiB by default; S3 requires at least 5 MiB (`minimumPartSize`) for all parts but the last.
    public var partSize: Int = 16 << 20
    /// How many parts of one automatic multipart upload are sent at once. 4 by default.
    public var partConcurrency: Int = 4

    /// The smallest part S3 accepts, except for an upload's last part.
    public static let minimumPartSize = 5 << 20
    /// The most parts one multipart upload may have.
    public static let maximumPartCount = 10_000

    /// A configuration from its parts. Throws `invalidConfiguration`, saying what to fix,
    /// when the endpoint, region, bucket or keys are not usable.
    public init(endpoint: URL, region: String, bucket: String, accessKey: String, secretKey: String) throws(S3Error) {
        self.endpoint = try Self.checkedEndpoint(endpoint)
        guard !region.isEmpty, region.unicodeScalars.allSatisfy({ $0.properties.isAlphabetic || ("0"..."9").contains($0) || $0 == "-" || $0 == "_" }) else {
            throw S3Error(.invalidConfiguration, "the region \"\(region)\" is not a region name; write one such as us-east-1")
        }
        self.region = region
        try Self.checkBucketName(bucket)
        self.bucket = bucket
        try Self.checkKey(accessKey, name: "access key")
        try Self.checkKey(secretKey, name: "secret key")
        self.accessKey = accessKey
        self.secretKey = secretKey
    }

    public var description: String {
        "s3://\(bucket) at \(endpoint.absoluteString) (region \(region), access key \(accessKey))"
    }

    /// The `Host` header the endpoint is reached with (the port only when not the scheme's own).
    var hostHeader: String {
        let host = endpoint.host ?? ""
        let bracketed = host.contains(":") && !host.hasPrefix("[") ? "[\(host)]" : host
        guard let port = endpoint.port else { return bracketed }
        let scheme = endpoint.scheme?.lowercased()
        if (scheme == "http" && port == 80) || (scheme == "https" && port == 443) { return bracketed }
        return "\(bracketed):\(port)"
    }

    static func checkedEndpoint(_ url: URL) throws(S3Error) -> URL {
        let text = url.absoluteString
        guard let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https",
              let host = url.host, !host.isEmpty
        else {
            throw S3Error(.invalidConfiguration, "the endpoint \(text) is not an http(s) URL with a host; write http://host:port or https://host")
        }
        guard url.user == nil, url.password == nil else {
            throw S3Error(.invalidConfiguration, "the endpoint has credentials in it; give them in a credentials file or the environment instead")
        }
        guard url.query == nil, url.fragment == nil, url.path.isEmpty || url.path == "/" else {
            throw S3Error(.invalidConfiguration, "the endpoint \(text) has a path, query or fragment; write only http(s)://host[:port] (the bucket is given apart)")
        }
        var base = text
        while base.hasSuffix("/") { base.removeLast() }
        guard let clean = URL(string: base) else {
            throw S3Error(.invalidConfiguration, "the endpoint \(text) is not a valid URL")
        }
        return clean
    }

    /// S3's rules for bucket names (the strict ones, which path-style addressing and every
    /// store accept).
    static func checkBucketName(_ bucket: String) throws(S3Error) {
        let bytes = Array(bucket.utf8)
        func refuse(_ why: String) -> S3Error {
            S3Error(.invalidConfiguration, "the bucket name \"\(bucket)\" \(why); use 3 to 63 lower-case letters, digits, '.' and '-', starting and ending with a letter or digit")
        }
        guard (3...63).contains(bytes.count) else { throw refuse("has \(bytes.count) characters") }
        let isLowerAlnum = { (byte: UInt8) in
            (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
        }
        guard bytes.allSatisfy({ isLowerAlnum($0) || $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "-") }) else {
            throw refuse("has characters other than lower-case letters, digits, '.' and '-'")
        }
        guard isLowerAlnum(bytes.first!), isLowerAlnum(bytes.last!) else {
            throw refuse("does not start and end with a letter or digit")
        }
        guard !bucket.contains(".."), !bucket.contains(".-"), !bucket.contains("-.") else {
            throw refuse("has '..', '.-' or '-.'")
        }
        let dotted = bucket.split(separator: ".", omittingEmptySubsequences: false)
        if dotted.count == 4, dotted.allSatisfy({ UInt8($0) != nil }) { throw refuse("is an IP address") }
    }

    private static func checkKey(_ key: String, name: String) throws(S3Error) {
        guard !key.isEmpty else {
            throw S3Error(.invalidConfiguration, "the \(name) is empty; give the store's \(name)")
        }
        guard key.unicodeScalars.allSatisfy({ $0.value > 0x20 && $0.value != 0x7f }) else {
            throw S3Error(.invalidConfiguration, "the \(name) has spaces or control characters; give it without them")
        }
    }
}
