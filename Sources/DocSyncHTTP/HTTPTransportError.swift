import AsyncHTTPClient
import DocSyncCore
import NIOCore
import NIOPosix
import NIOSSL

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Turns what AsyncHTTPClient and SwiftNIO throw into the `SyncError` codes of SPEC §5:
/// a server that cannot be reached is `networkUnavailable`, a connection that breaks or
/// stalls is `networkFailure` (both retried with backoff), a TLS failure says which
/// certificate to check.
enum HTTPTransportError {
    static func map(_ error: any Error, _ context: String, server: String) -> SyncError {
        if let error = error as? SyncError { return error }
        if error is CancellationError {
            return SyncError(.networkFailure, "\(context): cancelled")
        }
        if let error = error as? HTTPClientError {
            switch error {
            case .connectTimeout, .tlsHandshakeTimeout, .getConnectionFromPoolTimeout:
                return SyncError(.networkUnavailable, "\(context): cannot reach \(server) (\(error)); retrying later")
            case .alreadyShutdown:
                return SyncError(.internalError, "\(context): this HTTP backend was shut down; open a new one")
            case .cancelled, .requestStreamCancelled:
                return SyncError(.networkFailure, "\(context): cancelled")
            default:
                return SyncError(.networkFailure, "\(context): the connection to \(server) failed (\(error)); retrying later")
            }
        }
        if let error = error as? IOError {
            switch error.errnoCode {
            case ECONNREFUSED, ENETUNREACH, EHOSTUNREACH, EHOSTDOWN, ENETDOWN, EADDRNOTAVAIL:
                return SyncError(.networkUnavailable, "\(context): cannot reach \(server) (\(error)); is docsync-server running? retrying later")
            default:
                return SyncError(.networkFailure, "\(context): the connection to \(server) failed (\(error)); retrying later")
            }
        }
        if error is NIOConnectionError {
            return SyncError(.networkUnavailable, "\(context): cannot reach \(server) (\(error)); is docsync-server running? retrying later")
        }
        if error is NIOSSLError || error is BoringSSLError {
            return SyncError(.networkFailure,
                             "\(context): TLS with \(server) failed (\(error)); check that the server's certificate is trusted (trustedCertificateFile) and names the host")
        }
        if error is NIOTooManyBytesError {
            return SyncError(.internalError, "\(context): the server's answer is larger than this client reads (\(error)); is it a compatible docsync-server?")
        }
        let text = String(describing: error)
        if text.localizedCaseInsensitiveContains("refused") {
            return SyncError(.networkUnavailable, "\(context): cannot reach \(server) (\(text)); is docsync-server running? retrying later")
        }
        return SyncError(.networkFailure, "\(context): the connection to \(server) failed (\(text)); retrying later")
    }
}
