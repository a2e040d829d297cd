#if canImport(Glibc)
import Glibc
#endif
import DocSyncControl
import DocSyncCore
import DocSyncStorage
import DocSyncTestSupport
import Foundation
import Testing

/// Colour only on a terminal: `docs-status` with its stdout on a pseudo-terminal.
@Suite struct DocsStatusColorTests {
    @Test func coloursOnATerminalUnlessNoColor() async throws {
        let handler = ScriptedHandler { _ in .items(items: [Fixtures.current, Fixtures.failing]) }
        let running = try RunningServer(handler: handler)
        let arguments = ["ls", "--socket", running.socketPath]
        let coloured = try await onTerminal(arguments)
        #expect(coloured.status == 0)
        #expect(coloured.output.contains("\u{1B}[32m✓ current\u{1B}[0m"), "\(coloured.output.debugDescription)")
        #expect(coloured.output.contains("\u{1B}[31m! error\u{1B}[0m"))
        #expect(coloured.output.contains("\u{1B}[1mSTATUS\u{1B}[0m"))
        let plain = try await onTerminal(arguments, environment: ["NO_COLOR": "1"])
        #expect(plain.status == 0)
        #expect(hasNoEscapes(plain.output), "\(plain.output.debugDescription)")
        #expect(plain.output.contains("✓ current"))
        // And never in a pipe.
        #expect(hasNoEscapes(try await docsStatus(arguments).output))
        try await running.stop()
    }

    /// Runs `docs-status` with stdout on a new pseudo-terminal; what it wrote there.
    private func onTerminal(_ arguments: [String], environment: [String: String] = [:]) async throws -> (status: Int32, output: String) {
        let pty = try PseudoTerminal.functions()
        let master = pty.openpt(O_RDWR | O_NOCTTY)
        try #require(master >= 0)
        defer { close(master) }
        try #require(pty.grantpt(master) == 0 && pty.unlockpt(master) == 0)
        let name = String(cString: try #require(pty.ptsname(master)))
        let slave = open(name, O_RDWR | O_NOCTTY)
        try #require(slave >= 0)
        let process = makeDocsStatus(arguments, in: nil, environment: environment)
        if environment["NO_COLOR"] == nil { process.environment?["NO_COLOR"] = nil }  // even if the test runner has it
        process.standardOutput = FileHandle(fileDescriptor: slave, closeOnDealloc: false)
        process.standardError = FileHandle.nullDevice
        let exit = ProcessExit(of: process)
        try process.run()
        close(slave)  // the child has its own copy; reading the master ends when it exits
        let output = await onOwnThread { [master] in
            var data = Data()
            var buffer = [UInt8](repeating: 0, count: 4096)
            while true {
                let count = read(master, &buffer, buffer.count)
                if count <= 0 { break }  // EIO once the child's side is closed
                data.append(contentsOf: buffer[..<count])
            }
            return data
        }
        await exit.ended()
        return (process.terminationStatus, String(decoding: output, as: UTF8.self))
    }
}

/// glibc's pseudo-terminal calls, which the Glibc module does not export (they need
/// `_XOPEN_SOURCE`), looked up at run time (for the tests that run docs-status on a terminal).
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
}
