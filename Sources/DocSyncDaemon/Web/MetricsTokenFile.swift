import Foundation
import Logging

/// The bearer token `/metrics` accepts without a browser session (SPEC §15), in
/// `metrics-token` in the state directory, readable by the user alone (mode 600): what
/// Prometheus's `credentials_file` points at. Made the first time the daemon starts with that
/// state directory and kept; delete the file and restart to change it.
enum MetricsTokenFile {
    static let name = "metrics-token"

    /// The token in `directory`, made there when there is none. A file others may read is
    /// made the user's alone again (and `logger` says so).
    static func loadOrCreate(in directory: URL, logger: Logger) throws -> String {
        let url = directory.appendingPathComponent(name)
        if let existing = FileManager.default.contents(atPath: url.path) {
            let token = String(decoding: existing, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            if !token.isEmpty {
                let mode = (try? FileManager.default.attributesOfItem(atPath: url.path)[.posixPermissions] as? Int) ?? 0o600
                if mode & 0o077 != 0 {
                    try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: url.path)
                    logger.warning("the metrics token was readable by others; it is now the user's alone (mode 600)", metadata: ["path": "\(url.path)"])
                }
                return token
            }
            try FileManager.default.removeItem(at: url)
        }
        let token = WebSessions.secret()
        try DeviceKeyFile.write(Data((token + "\n").utf8), to: url)
        return token
    }
}
