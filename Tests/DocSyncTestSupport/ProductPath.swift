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

/// Runs a process to completion off the cooperative pool; returns its exit status and output.
public func runProcess(_ executable: URL, _ arguments: [String]) async throws -> (status: Int32, output: String, errors: String) {
    try await withCheckedThrowingContinuation { continuation in
        DispatchQueue.global().async {
            do {
                let process = Process()
                process.executableURL = executable
                process.arguments = arguments
                let output = Pipe(), errors = Pipe()
                process.standardOutput = output
                process.standardError = errors
                try process.run()
                let out = output.fileHandleForReading.readDataToEndOfFile()
                let err = errors.fileHandleForReading.readDataToEndOfFile()
                process.waitUntilExit()
                continuation.resume(returning: (process.terminationStatus, String(decoding: out, as: UTF8.self), String(decoding: err, as: UTF8.self)))
            } catch {
                continuation.resume(throwing: error)
            }
        }
    }
}
