import DocSyncStorage
import Foundation
import NIOCore
import TOMLKit

/// What `docsync-server serve` runs with: from `--config FILE` (TOML), then the flags,
/// which override the file. `config/docsync-server.example.toml` documents every key.
public struct ServerConfiguration: Sendable, Hashable {
    /// `DATA`: `users.sqlite` and `users/<name>/` (each user's backend), for the embedded
    /// store; `nil` when `scaleOut` names the store instead.
    public var dataDirectory: URL?
    /// The scale-out store (`[storage]` in the file): when set, accounts and storage are in
    /// PostgreSQL and an S3 bucket, and the data directory is not used.
    public var scaleOut: ScaleOutLocation?
    public var listen: ListenAddress
    /// PEM certificate chain and private key; both or neither.
    public var tlsCertificate: URL?
    public var tlsKey: URL?
    /// Requests per second per token (bursts of ten seconds' worth).
    public var rateLimit: Double
    /// Addresses of the proxies (load balancers) whose `X-Forwarded-For` names the client
    /// (`trusted_proxies`); empty: the connection's peer is the client.
    public var trustedProxies: Set<String> = []
    /// Every user's store settings: `deleted_retention`, `gc_interval`, `gc_grace`.
    public var storeSettings: StoreSettings
    /// How long the server goes on serving after a shutdown signal, with `/readyz` answering
    /// 503, before it stops accepting connections (`--drain-delay`). `nil`: the default of
    /// its store, `defaultDrainDelay`.
    public var drainDelayGiven: Duration?

    /// The drain delay of an instance of the scale-out store when none is given: longer than
    /// the shipped balancer configuration takes to mark an instance down after its first
    /// failed check (`config/cluster/haproxy.cfg.template`: at most 2.5 s).
    public static let scaleOutDrainDelay: Duration = .seconds(5)

    /// The drain delay given, else 5 s (`scaleOutDrainDelay`) for the scale-out store, whose
    /// instances run behind a load balancer, and 0 for the embedded store of one machine,
    /// which has no other instance to send requests to.
    public var drainDelay: Duration { drainDelayGiven ?? (scaleOut != nil ? Self.scaleOutDrainDelay : .zero) }

    public init(dataDirectory: URL?, scaleOut: ScaleOutLocation? = nil, listen: ListenAddress = .default, tlsCertificate: URL? = nil,
                tlsKey: URL? = nil, rateLimit: Double = RateLimiter.defaultRatePerSecond, storeSettings: StoreSettings = StoreSettings()) {
        self.dataDirectory = dataDirectory
        self.scaleOut = scaleOut
        self.listen = listen
        self.tlsCertificate = tlsCertificate
        self.tlsKey = tlsKey
        self.rateLimit = rateLimit
        self.storeSettings = storeSettings
    }

    public var usesTLS: Bool { tlsCertificate != nil }

    /// Values given as flags; `nil` means "not given".
    public struct Overrides: Sendable {
        public var data: String?
        /// `[storage] records` (a postgres:// URL), `chunks` (an s3:// location) and
        /// `credentials` (the S3 credentials file).
        public var records: String?
        public var chunks: String?
        public var credentials: String?
        public var listen: String?
        public var tlsCertificate: String?
        public var tlsKey: String?
        public var rateLimit: Double?
        public var trustedProxies: [String]?
        /// `--drain-delay`, a duration as text (`StoreDuration`: "5s", "0").
        public var drainDelay: String?
        /// Store settings by key (`StoreSettings.keys`), each a duration as text.
        public var store: [String: String]

        public init(data: String? = nil, records: String? = nil, chunks: String? = nil, credentials: String? = nil, listen: String? = nil,
                    tlsCertificate: String? = nil, tlsKey: String? = nil, rateLimit: Double? = nil, store: [String: String] = [:]) {
            self.data = data
            self.records = records
            self.chunks = chunks
            self.credentials = credentials
            self.listen = listen
            self.tlsCertificate = tlsCertificate
            self.tlsKey = tlsKey
            self.rateLimit = rateLimit
            self.store = store
        }
    }

    /// The keys the TOML file may hold.
    public static let keys = ["data", "listen", "tls_cert", "tls_key", "rate_limit", "trusted_proxies", "drain_delay", "storage"] + StoreSettings.keys
    /// The keys of the `[storage]` table.
    public static let storageKeys = ["records", "chunks", "credentials"]

    /// Reads `file` (when given), applies `overrides` and checks the result: a data
    /// directory is required; plain HTTP only on a loopback address; TLS needs both files.
    /// Relative paths are taken from the current directory.
    public static func load(file: String?, overrides: Overrides) throws(ServerConfigurationError) -> ServerConfiguration {
        var merged = Overrides()
        if let file { merged = try read(file) }
        if let value = overrides.data { merged.data = value }
        if let value = overrides.records { merged.records = value }
        if let value = overrides.chunks { merged.chunks = value }
        if let value = overrides.credentials { merged.credentials = value }
        if let value = overrides.listen { merged.listen = value }
        if let value = overrides.tlsCertificate { merged.tlsCertificate = value }
        if let value = overrides.tlsKey { merged.tlsKey = value }
        if let value = overrides.rateLimit { merged.rateLimit = value }
        if let value = overrides.trustedProxies { merged.trustedProxies = value }
        if let value = overrides.drainDelay { merged.drainDelay = value }
        for (key, value) in overrides.store {
            var check = StoreSettings()
            if let problem = check.set(key, to: value) {
                throw ServerConfigurationError("--\(key.replacingOccurrences(of: "_", with: "-")): \(problem)")
            }
            merged.store[key] = value
        }

        var scaleOut: ScaleOutLocation?
        switch (merged.records, merged.chunks) {
        case let (records?, chunks?): scaleOut = ScaleOutLocation(records: records, chunks: chunks, credentials: merged.credentials.map { url($0).path })
        case (nil, nil): break
        case (nil, _?): throw ServerConfigurationError("[storage] chunks is set but records is not; the scale-out store needs both (records = \"postgres://…\")")
        case (_?, nil): throw ServerConfigurationError("[storage] records is set but chunks is not; the scale-out store needs both (chunks = \"s3://BUCKET?endpoint=…\")")
        }
        guard merged.data != nil || scaleOut != nil else {
            throw ServerConfigurationError(
                "no data directory; pass --data DIR or set data = \"/path\" in the configuration file (or name a scale-out store: [storage] records and chunks)")
        }
        var configuration = ServerConfiguration(dataDirectory: merged.data.map(url), scaleOut: scaleOut)
        if let listen = merged.listen { configuration.listen = try ListenAddress(parsing: listen) }
        configuration.tlsCertificate = merged.tlsCertificate.map(url)
        configuration.tlsKey = merged.tlsKey.map(url)
        if let rate = merged.rateLimit {
            guard rate > 0, rate.isFinite else {
                throw ServerConfigurationError("rate_limit \(rate) must be a positive number of requests per second")
            }
            configuration.rateLimit = rate
        }
        for (key, value) in merged.store.sorted(by: { $0.key < $1.key }) {
            if let problem = configuration.storeSettings.set(key, to: value) { throw ServerConfigurationError(problem) }
        }
        for address in merged.trustedProxies ?? [] {
            guard (try? SocketAddress(ipAddress: address, port: 0)) != nil else {
                throw ServerConfigurationError("trusted proxy \(address.debugDescription) is not an IP address; give the balancer's address, such as 127.0.0.1")
            }
        }
        configuration.trustedProxies = Set(merged.trustedProxies ?? [])
        if let text = merged.drainDelay {
            guard let seconds = StoreDuration.parse(text), seconds <= 3600 else {
                throw ServerConfigurationError("drain delay (drain_delay, --drain-delay) \(text.debugDescription) is not a duration up to an hour; write one such as \"5s\", or 0 to stop at once")
            }
            configuration.drainDelayGiven = .milliseconds(Int64((seconds * 1000).rounded()))
        }
        try configuration.check()
        return configuration
    }

    /// Throws when TLS is half-configured or plain HTTP would leave the machine.
    public func check() throws(ServerConfigurationError) {
        if (tlsCertificate == nil) != (tlsKey == nil) {
            throw ServerConfigurationError("TLS needs both a certificate and a key: pass --tls-cert PEM and --tls-key PEM (or tls_cert and tls_key)")
        }
        if !usesTLS, !listen.isLoopback {
            throw ServerConfigurationError(
                "refusing to serve plain HTTP on \(listen): tokens would cross the network unencrypted. Pass --tls-cert PEM --tls-key PEM, listen on 127.0.0.1 (behind a TLS proxy), or both")
        }
    }

    /// `path` as a file URL: `~/` expanded, a relative path taken from the current directory.
    public static func url(_ path: String) -> URL {
        let expanded = path.hasPrefix("~/") ? NSHomeDirectory() + path.dropFirst() : path
        return URL(fileURLWithPath: expanded, relativeTo: URL(fileURLWithPath: FileManager.default.currentDirectoryPath, isDirectory: true))
            .standardizedFileURL
    }

    /// The values of a TOML file; unknown keys and values of the wrong type are errors
    /// naming the file, the line and the key.
    static func read(_ file: String) throws(ServerConfigurationError) -> Overrides {
        let text: String
        do { text = try String(contentsOfFile: file, encoding: .utf8) } catch {
            throw ServerConfigurationError("cannot read the configuration file \(file): \(error.localizedDescription)")
        }
        let table: TOMLTable
        do { table = try TOMLTable(string: text) } catch let error as TOMLParseError {
            throw ServerConfigurationError("\(file):\(error.source.begin.line): not valid TOML: \(error.description)")
        } catch {
            throw ServerConfigurationError("\(file): not valid TOML: \(error)")
        }
        func line(_ key: String) -> String {
            for (index, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
                let trimmed = line.drop { $0 == " " || $0 == "\t" }
                if trimmed.hasPrefix(key), trimmed.dropFirst(key.count).drop(while: { $0 == " " || $0 == "\t" }).hasPrefix("=") {
                    return "\(file):\(index + 1)"
                }
            }
            return file
        }
        for key in table.keys.sorted() where !keys.contains(key) {
            throw ServerConfigurationError("\(line(key)): unknown key \(key); the keys are \(keys.joined(separator: ", "))")
        }
        var values = Overrides()
        if let storage = table["storage"] {
            guard let storage = storage.table else {
                throw ServerConfigurationError("\(line("storage")): storage must be a table: [storage] with records, chunks and credentials")
            }
            for key in storage.keys.sorted() where !storageKeys.contains(key) {
                throw ServerConfigurationError("\(line(key)): unknown key \(key) in [storage]; the keys are \(storageKeys.joined(separator: ", "))")
            }
            for key in storageKeys {
                guard let value = storage[key] else { continue }
                guard let text = value.string else { throw ServerConfigurationError("\(line(key)): \(key) in [storage] must be a string") }
                switch key {
                case "records": values.records = text
                case "chunks": values.chunks = text
                default: values.credentials = text
                }
            }
        }
        func string(_ key: String) throws(ServerConfigurationError) -> String? {
            guard let value = table[key] else { return nil }
            guard let string = value.string else { throw ServerConfigurationError("\(line(key)): \(key) must be a string") }
            return string
        }
        values.data = try string("data")
        values.listen = try string("listen")
        values.tlsCertificate = try string("tls_cert")
        values.tlsKey = try string("tls_key")
        if let value = table["drain_delay"] {
            guard let text = value.string ?? value.int.map(String.init) else {
                throw ServerConfigurationError("\(line("drain_delay")): drain_delay must be a duration such as \"5s\", or 0")
            }
            values.drainDelay = text
        }
        if let value = table["trusted_proxies"] {
            let addresses = value.array?.compactMap(\.string)
            guard let addresses, addresses.count == value.array?.count else {
                throw ServerConfigurationError("\(line("trusted_proxies")): trusted_proxies must be a list of addresses, such as [\"127.0.0.1\"]")
            }
            values.trustedProxies = addresses
        }
        if let value = table["rate_limit"] {
            guard let rate = value.double ?? value.int.map(Double.init) else {
                throw ServerConfigurationError("\(line("rate_limit")): rate_limit must be a number of requests per second")
            }
            values.rateLimit = rate
        }
        for key in StoreSettings.keys {
            guard let value = table[key] else { continue }
            guard let text = value.string ?? value.int.map(String.init) ?? value.double.map({ String($0) }) else {
                throw ServerConfigurationError("\(line(key)): \(key) must be a duration such as \"30d\", \"12h\" or \"90s\"")
            }
            var check = StoreSettings()
            if let problem = check.set(key, to: text) { throw ServerConfigurationError("\(line(key)): \(problem)") }
            values.store[key] = text
        }
        return values
    }
}
