import DocSyncCore
import DocSyncHTTP
import DocSyncStorage
import Foundation

extension Daemon {
    /// The backend a URL names: the embedded backend for `file://`, a `docsync-server`
    /// client for `http(s)://` (with the token from `token_file`). Throws a `DaemonError`
    /// telling a person what to fix.
    static func makeBackend(_ configuration: BackendConfiguration) throws -> any StorageBackend {
        let url = configuration.url
        switch url.scheme?.lowercased() {
        case "file":
            do { return try LocalBackend(url: url) } catch {
                throw DaemonError("cannot open the backend at \(url.path): \(error.message)")
            }
        case "http", "https":
            guard let tokenFile = configuration.tokenFile else {
                throw DaemonError("backend \(url.absoluteString) needs this device's token: run 'docsync-server user add NAME' (or 'user token NAME') on the server, save the line it prints in a file, and name it as token_file in [backend] or with --token-file")
            }
            let token: String
            do { token = try String(contentsOf: tokenFile, encoding: .utf8) } catch {
                throw DaemonError("cannot read the token file \(tokenFile.path): \(error.localizedDescription); write the token 'docsync-server user add' printed into it")
            }
            do {
                return try HTTPBackend(url: url, token: token, options: HTTPBackend.Options(trustedCertificateFile: configuration.caFile))
            } catch {
                throw DaemonError("backend \(url.absoluteString): \(error.message)")
            }
        default:
            throw DaemonError("backend \(url.absoluteString) is neither file:///path nor http(s)://host:port")
        }
    }
}
