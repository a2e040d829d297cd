import Foundation
import Glibc

/// A user of this machine without privileges, for tests that run a daemon as such a user
/// would (an on-demand folder mounted through `fusermount3`, SPEC §14).
struct UnprivilegedUser: Sendable {
    let name: String
    let uid: uid_t
    let gid: gid_t

    /// The first ordinary user (uid 1000 and up, with a login shell) of `/etc/passwd`, when
    /// this process is root and may act as them; nil otherwise.
    static let available: UnprivilegedUser? = {
        guard getuid() == 0, let passwd = try? String(contentsOfFile: "/etc/passwd", encoding: .utf8) else { return nil }
        for line in passwd.split(separator: "\n") {
            let fields = line.split(separator: ":", omittingEmptySubsequences: false)
            guard fields.count >= 7, let uid = UInt32(fields[2]), let gid = UInt32(fields[3]), (1000 ..< 65_534).contains(uid),
                  !fields[6].hasSuffix("nologin"), !fields[6].hasSuffix("false") else { continue }
            return UnprivilegedUser(name: String(fields[0]), uid: uid, gid: gid)
        }
        return nil
    }()

    /// `setpriv` arguments that run the rest of the command line as this user.
    var setprivArguments: [String] { ["--reuid=\(uid)", "--regid=\(gid)", "--init-groups", "--"] }

    /// Gives this user everything under `path` (made by the test as root).
    func own(_ path: URL) throws {
        let result = try Process.run(URL(fileURLWithPath: "/bin/chown"), arguments: ["-R", "\(uid):\(gid)", path.path])
        result.waitUntilExit()
        guard result.terminationStatus == 0 else { throw PosixError(0, "chown -R \(uid):\(gid) \(path.path)") }
    }
}
