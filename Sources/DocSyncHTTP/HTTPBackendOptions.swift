import Foundation

extension HTTPBackend {
    /// How an `HTTPBackend` talks to its server. The defaults suit a daemon on a home
    /// connection; tests shorten the reconnection delays.
    public struct Options: Sendable {
        /// A PEM file of the certificate authorities (or the self-signed certificate) to
        /// trust for `https://` servers, instead of the system's trust store.
        public var trustedCertificateFile: URL?
        /// How long to wait for a connection (and TLS handshake) before `networkUnavailable`.
        public var connectTimeout: Duration
        /// How long a connection may stay silent while a response is awaited or read before
        /// `networkFailure`. Longer than the notification stream's heartbeat (15 s).
        public var readTimeout: Duration
        /// The longest one request may take, start to end, before `networkFailure`.
        public var requestTimeout: Duration
        /// How many chunk requests (batches or single chunks) run at once.
        public var chunkTransferParallelism: Int
        /// About how many bytes one framed upload batch carries (a larger chunk goes alone).
        public var chunkBatchSize: Int
        /// The first and the longest wait before reconnecting the notification stream; each
        /// failed attempt doubles the wait, with jitter, up to the longest.
        public var reconnectInitialDelay: Duration
        public var reconnectMaximumDelay: Duration

        public init(
            trustedCertificateFile: URL? = nil,
            connectTimeout: Duration = .seconds(10),
            readTimeout: Duration = .seconds(60),
            requestTimeout: Duration = .seconds(600),
            chunkTransferParallelism: Int = 4,
            chunkBatchSize: Int = WireLimits.clientBatchTarget,
            reconnectInitialDelay: Duration = .milliseconds(100),
            reconnectMaximumDelay: Duration = .seconds(10)
        ) {
            self.trustedCertificateFile = trustedCertificateFile
            self.connectTimeout = connectTimeout
            self.readTimeout = readTimeout
            self.requestTimeout = requestTimeout
            self.chunkTransferParallelism = chunkTransferParallelism
            self.chunkBatchSize = chunkBatchSize
            self.reconnectInitialDelay = reconnectInitialDelay
            self.reconnectMaximumDelay = reconnectMaximumDelay
        }
    }
}
