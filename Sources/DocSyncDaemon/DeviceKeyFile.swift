import DocSyncCore
import Foundation
import Logging
#if canImport(Glibc)
import Glibc
#endif

/// This device's key pair (SPEC §13), in `device-key` in the state directory: the 64
/// private bytes (X25519, then Ed25519), readable by the user alone (mode 600). Created once,
/// the first time the daemon starts with that state directory, and never replaced: a file
/// that cannot be read as a key pair is an error that names it, so a damaged key is noticed
/// instead of silently becoming another device.
public enum DeviceKeyFile {
    public static let name = "device-key"

    /// The key pair in `directory`, created there when there is none. A file that others
    /// may read is made the user's alone again (and `logger` says so).
    public static func loadOrCreate(in directory: URL, logger: Logger) throws -> EncryptionKeyPair {
        let url = directory.appendingPathComponent(name)
        if let existing = FileManager.default.contents(atPath: url.path) {
            let mode = (try? FileManager.default.attributesOfItem(atPath: url.path)[.posixPermissions] as? Int) ?? 0o600
            if mode & 0o077 != 0 {
                try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: url.path)
                logger.warning("the device key was readable by others; it is now the user's alone (mode 600)", metadata: ["path": "\(url.path)"])
            }
            do { return try EncryptionKeyPair(privateBytes: existing) } catch {
                throw DeviceKeyError(path: url.path, problem: error.message)
            }
        }
        let keys = EncryptionKeyPair()
        try write(keys.privateBytes, to: url)
        logger.notice("created this device's key pair", metadata: ["path": "\(url.path)", "fingerprint": "\(keys.publicKeys.fingerprint)"])
        return keys
    }

    /// Writes `bytes` to a new file at `url`, created with mode 600 (never readable by others,
    /// not even for a moment), flushed to disk. Fails when the file exists.
    static func write(_ bytes: Data, to url: URL) throws {
        let descriptor = open(url.path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw DeviceKeyError(path: url.path, problem: "cannot be created: \(String(cString: strerror(errno)))") }
        defer { close(descriptor) }
        let written = bytes.withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress, $0.count) }
        guard written == bytes.count, fsync(descriptor) == 0 else {
            unlink(url.path)
            throw DeviceKeyError(path: url.path, problem: "cannot be written: \(String(cString: strerror(errno)))")
        }
    }
}

/// The device key file cannot be used: what is wrong and what to do.
public struct DeviceKeyError: Error, CustomStringConvertible {
    public let path: String
    public let problem: String

    public var description: String {
        "this device's key \(path) \(problem). Restore it from a backup of the state directory; if it is lost, "
            + "move it aside and start docsyncd again: the device gets a new key (and, for an encrypted account, must be approved again)"
    }
}
