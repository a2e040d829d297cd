import DocSyncCore
import Foundation

/// What makes a user name, a device name and a quota valid, and the errors that say so, the
/// same for every account store.
public enum AccountRules {
    /// Why `name` is not a valid user name, or `nil`: 1–64 characters of lowercase ASCII
    /// letters, digits, `.`, `_` and `-`, not starting with `.` or `-` (it names a directory).
    public static func problem(withUserName name: String) -> String? {
        if name.isEmpty { return "is empty" }
        if name.utf8.count > 64 { return "is longer than 64 characters" }
        if name.hasPrefix(".") || name.hasPrefix("-") { return "starts with '.' or '-'" }
        for byte in name.utf8 {
            let ok = (UInt8(ascii: "a") ... UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "0") ... UInt8(ascii: "9")).contains(byte)
                || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "-")
            if !ok { return "may hold only lowercase letters, digits, '.', '_' and '-'" }
        }
        return nil
    }

    /// Throws `invalidArguments` for a user name that is not valid.
    public static func check(userName name: String) throws(SyncError) {
        if let problem = problem(withUserName: name) {
            throw SyncError(.invalidArguments, "user name \(name.debugDescription) \(problem)")
        }
    }

    /// Throws `invalidArguments` for a device name that is not valid.
    public static func check(device: String?) throws(SyncError) {
        if let device, let problem = DeviceName.problem(with: device) {
            throw SyncError(.invalidArguments, "device name \(device.debugDescription) \(problem)")
        }
    }

    /// Throws `invalidArguments` for a negative quota.
    public static func check(quota bytes: Int64?) throws(SyncError) {
        if let bytes, bytes < 0 { throw SyncError(.invalidArguments, "a quota cannot be negative") }
    }

    /// `invalidArguments`: there is no account `name`.
    public static func noSuchUser(_ name: String) -> SyncError {
        SyncError(.invalidArguments, "there is no user \(name.debugDescription); create it with `docsync-server user add \(name)`")
    }

    /// `invalidArguments`: the account `name` exists already.
    public static func userExists(_ name: String) -> SyncError {
        SyncError(.invalidArguments, "user \(name) already exists; use `docsync-server user token \(name)` for another device's token")
    }
}
