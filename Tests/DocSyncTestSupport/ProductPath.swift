import DocSyncStorage
import Foundation

/// The path of an executable product built next to the test bundle (`.build/debug/NAME`).
public func builtProduct(_ name: String) -> URL {
    var directory = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
    // `swift test` runs `…/debug/docsyncPackageTests.xctest`; the products sit beside it.
    while !FileManager.default.isExecutableFile(atPath: directory.appendingPathComponent(name).path),
          directory.pathComponents.count > 1 {
        directory.deleteLastPathComponent()
    }
    return directory.appendingPathComponent(name)
}

/// Runs a process to completion and returns its exit status and output. `environment` is
/// added to this process's environment.
///
/// The blocking reads and the wait run on threads of their own, not on `DispatchQueue.global()`:
/// on Linux that queue shares its threads with Swift's cooperative pool, so blocking there
/// stalls every task of the test process (until Dispatch adds a thread, about a second
/// later) — including a server the child is talking to.
public func runProcess(
    _ executable: URL, _ arguments: [String], environment: [String: String] = [:]
) async throws -> (status: Int32, output: String, errors: String) {
    let process = Process()
    process.executableURL = executable
    process.arguments = arguments
    if !environment.isEmpty {
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
    }
    return try await runToEnd(process)
}

/// Runs a configured `process` to its end, reading its output and errors as they come
/// (so a large output never blocks it); returns its exit status and both texts.
public func runToEnd(_ process: Process) async throws -> (status: Int32, output: String, errors: String) {
    let output = Pipe(), errors = Pipe()
    process.standardOutput = output
    process.standardError = errors
    let exit = ProcessExit(of: process)
    try process.run()
    async let out = onOwnThread { output.fileHandleForReading.readDataToEndOfFile() }
    async let err = onOwnThread { errors.fileHandleForReading.readDataToEndOfFile() }
    let (outData, errData) = await (out, err)
    await exit.ended()
    return (process.terminationStatus, String(decoding: outData, as: UTF8.self), String(decoding: errData, as: UTF8.self))
}
