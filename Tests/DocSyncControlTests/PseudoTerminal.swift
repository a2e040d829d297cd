#if canImport(Glibc)
import Glibc
#endif
import DocSyncTestSupport
import Foundation
import Testing

/// A pseudo-terminal for the tests that run `docs-status` on a terminal. glibc's calls for it
/// are looked up at run time: the Glibc module does not export them (they need `_XOPEN_SOURCE`).
struct PseudoTerminal {
    typealias OpenPT = @convention(c) (Int32) -> Int32
    typealias Grant = @convention(c) (Int32) -> Int32
    typealias Name = @convention(c) (Int32) -> UnsafeMutablePointer<CChar>?

    let openpt: OpenPT
    let grantpt: Grant
    let unlockpt: Grant
    let ptsname: Name

    static func functions() throws -> PseudoTerminal {
        let handle = dlopen(nil, RTLD_NOW)
        func symbol<T>(_ name: String, _ type: T.Type) throws -> T {
            unsafeBitCast(try #require(dlsym(handle, name), "\(name) not found"), to: type)
        }
        return PseudoTerminal(
            openpt: try symbol("posix_openpt", OpenPT.self), grantpt: try symbol("grantpt", Grant.self),
            unlockpt: try symbol("unlockpt", Grant.self), ptsname: try symbol("ptsname", Name.self)
        )
    }

    /// A new terminal, both sides open: hand `slave` to a child (then close it here) and read
    /// what it wrote from `master` (the caller closes it).
    static func make() throws -> (master: Int32, slave: Int32) {
        let pty = try functions()
        let master = pty.openpt(O_RDWR | O_NOCTTY)
        try #require(master >= 0)
        guard pty.grantpt(master) == 0, pty.unlockpt(master) == 0, let name = pty.ptsname(master) else {
            close(master)
            throw TerminalError()
        }
        let slave = open(String(cString: name), O_RDWR | O_NOCTTY)
        guard slave >= 0 else {
            close(master)
            throw TerminalError()
        }
        return (master, slave)
    }

    /// Everything written to the terminal until every copy of its slave side is closed.
    static func drain(_ master: Int32) async -> Data {
        await onOwnThread {
            var data = Data()
            var buffer = [UInt8](repeating: 0, count: 4096)
            while true {
                let count = read(master, &buffer, buffer.count)
                if count <= 0 { break }  // EIO once the child's side is closed
                data.append(contentsOf: buffer[..<count])
            }
            return data
        }
    }

    struct TerminalError: Error, CustomStringConvertible {
        var description: String { "a pseudo-terminal could not be set up (errno \(errno))" }
    }
}
