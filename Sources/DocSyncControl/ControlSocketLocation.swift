#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation

/// Where the control socket lives. `docsyncd` and `docs-status` use the same rules, so they
/// meet without configuration.
///
/// The default path (`defaultPath`), first match wins:
/// 1. `$XDG_RUNTIME_DIR/docsync/control.sock` when `XDG_RUNTIME_DIR` is set to an absolute path;
/// 2. `/run/user/<uid>/docsync/control.sock` when `/run/user/<uid>` exists (systemd's runtime
///    directory, for sessions where the variable is not passed on, like `sudo -u` or cron);
/// 3. `$TMPDIR/docsync-<uid>/control.sock` (`/tmp/docsync-<uid>/control.sock` without an
///    absolute `TMPDIR`).
///
/// `docs-status` looks in this order (`resolve`): `--socket PATH`, then `$DOCSYNC_SOCKET`,
/// then the default. `docsyncd` uses `--socket`, then `socket` in docsync.toml, then the default.
public enum ControlSocketLocation {
    /// The environment variable `docs-status` reads a socket path from.
    public static let environmentVariable = "DOCSYNC_SOCKET"

    /// The longest path a Unix socket may have, in bytes (107 on Linux).
    public static var maximumPathLength: Int { UnixSocket.maximumPathLength }

    /// The default control socket path for user `userID` (see the type's documentation).
    /// `directoryExists` is asked about `/run/user/<uid>`; tests pass their own.
    public static func defaultPath(
        environment: [String: String] = ProcessInfo.processInfo.environment,
        userID: UInt32 = getuid(),
        directoryExists: (String) -> Bool = isDirectory
    ) -> String {
        if let runtime = absolute(environment["XDG_RUNTIME_DIR"]) {
            return "\(runtime)/docsync/control.sock"
        }
        let systemdRuntime = "/run/user/\(userID)"
        if directoryExists(systemdRuntime) {
            return "\(systemdRuntime)/docsync/control.sock"
        }
        let temporary = absolute(environment["TMPDIR"]) ?? "/tmp"
        return "\(temporary)/docsync-\(userID)/control.sock"
    }

    /// The socket `docs-status` talks to: `explicit` (`--socket`), else `$DOCSYNC_SOCKET`,
    /// else `defaultPath`.
    public static func resolve(
        explicit: String?,
        environment: [String: String] = ProcessInfo.processInfo.environment,
        userID: UInt32 = getuid(),
        directoryExists: (String) -> Bool = isDirectory
    ) -> String {
        if let explicit, !explicit.isEmpty { return explicit }
        if let fromEnvironment = environment[environmentVariable], !fromEnvironment.isEmpty { return fromEnvironment }
        return defaultPath(environment: environment, userID: userID, directoryExists: directoryExists)
    }

    /// Whether `path` is a directory on this machine.
    public static func isDirectory(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFDIR
    }

    /// `value` without trailing slashes when it is an absolute path, else `nil` (the XDG
    /// rules ignore relative values).
    private static func absolute(_ value: String?) -> String? {
        guard var value, value.hasPrefix("/") else { return nil }
        while value.count > 1, value.hasSuffix("/") { value.removeLast() }
        return value == "/" ? "" : value
    }
}
