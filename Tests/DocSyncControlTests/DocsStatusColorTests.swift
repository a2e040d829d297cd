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
        let (master, slave) = try PseudoTerminal.make()
        defer { close(master) }
        let process = makeDocsStatus(arguments, in: nil, environment: environment)
        if environment["NO_COLOR"] == nil { process.environment?["NO_COLOR"] = nil }  // even if the test runner has it
        process.standardOutput = FileHandle(fileDescriptor: slave, closeOnDealloc: false)
        process.standardError = FileHandle.nullDevice
        let exit = ProcessExit(of: process)
        try process.run()
        close(slave)  // the child has its own copy; reading the master ends when it exits
        let output = await PseudoTerminal.drain(master)
        await exit.ended()
        return (process.terminationStatus, String(decoding: output, as: UTF8.self))
    }
}
