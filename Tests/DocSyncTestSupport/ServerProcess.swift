import Foundation

/// A real `docsync-server serve` process on a loopback port, for tests: started on
/// `127.0.0.1:0` (or a given address) with a data directory (or on a scale-out store, when
/// `storeArguments` name one: the data directory then holds only the log), ready once it
/// printed its `listening on URL` line. Its log goes to `log` in the data directory.
/// Killed when the last reference goes away.
public final class ServerProcess: @unchecked Sendable {
    public let dataDirectory: URL
    /// `http(s)://127.0.0.1:PORT`.
    public let url: URL
    public let arguments: [String]
    /// The flags that name the store (`--data DIR`, or `--records … --chunks …`).
    public let storeArguments: [String]
    /// What the process's environment adds (the S3 keys of a scale-out store).
    public let environment: [String: String]
    private let process: Process
    private let lock = NSLock()

    /// Starts the server and waits (at most `timeout`) for its `listening on` line.
    public init(
        dataDirectory: URL, listen: String = "127.0.0.1:0", extraArguments: [String] = [], storeArguments: [String]? = nil,
        environment: [String: String] = [:], timeout: Duration = .seconds(60)
    ) async throws {
        self.dataDirectory = dataDirectory
        try FileManager.default.createDirectory(at: dataDirectory, withIntermediateDirectories: true)
        self.storeArguments = storeArguments ?? ["--data", dataDirectory.path]
        self.environment = environment
        arguments = ["serve"] + self.storeArguments + ["--listen", listen] + extraArguments
        process = Process()
        process.executableURL = builtProduct("docsync-server")
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        let output = Pipe()
        process.standardOutput = output
        let logPath = dataDirectory.appendingPathComponent("log").path
        _ = FileManager.default.createFile(atPath: logPath, contents: nil)
        process.standardError = FileHandle(forWritingAtPath: logPath)
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let process = self.process
        let timer = Task {
            try await Task.sleep(for: timeout)
            process.terminate()
        }
        defer { timer.cancel() }
        let line = await Self.firstLine(of: output.fileHandleForReading)
        guard let line, line.hasPrefix("listening on "), let url = URL(string: String(line.dropFirst("listening on ".count))) else {
            process.terminate()
            let log = (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? ""
            throw ServerProcessError("docsync-server did not report listening (first line \(line.debugDescription)); log:\n\(log)")
        }
        self.url = url
    }

    /// The server's port.
    public var port: Int { url.port ?? 0 }

    /// Sends `signal` to the server (`SIGSTOP`: it stops answering, connections hang, as a
    /// server behind a dead link; `SIGCONT`: it goes on).
    public func signal(_ signal: Int32) { kill(process.processIdentifier, signal) }

    /// The directory of `user`'s LocalBackend.
    public func userDirectory(_ user: String) -> URL {
        dataDirectory.appendingPathComponent("users").appendingPathComponent(user)
    }

    /// Creates `user` with `docsync-server user add` and returns its token.
    public func addUser(_ user: String) async throws -> String {
        try await userCommand(["add", user])
    }

    /// Runs `docsync-server user ARGUMENTS` on this server's store and returns its one line of output.
    public func userCommand(_ arguments: [String]) async throws -> String {
        try await Self.userCommand(arguments, storeArguments: storeArguments, environment: environment)
    }

    /// Runs `docsync-server user ARGUMENTS --data DIR` and returns its one line of output.
    public static func userCommand(_ arguments: [String], dataDirectory: URL) async throws -> String {
        try await userCommand(arguments, storeArguments: ["--data", dataDirectory.path], environment: [:])
    }

    /// Runs `docsync-server user ARGUMENTS STORE-ARGUMENTS` with `environment` added.
    public static func userCommand(_ arguments: [String], storeArguments: [String], environment: [String: String]) async throws -> String {
        let result = try await runProcess(builtProduct("docsync-server"), ["user"] + arguments + storeArguments, environment: environment)
        guard result.status == 0 else {
            throw ServerProcessError("docsync-server user \(arguments.joined(separator: " ")) exited \(result.status): \(result.errors)")
        }
        return result.output.trimmingCharacters(in: .newlines)
    }

    /// Runs `docsync-server gc --data DIR [--user USER] EXTRA…` while the server runs, and
    /// returns its output (one line per user collected). Throws when it exits non-zero.
    public func collectGarbage(user: String? = nil, extraArguments: [String] = []) async throws -> String {
        let arguments = ["gc", "--data", dataDirectory.path] + (user.map { ["--user", $0] } ?? []) + extraArguments
        let result = try await runProcess(builtProduct("docsync-server"), arguments)
        guard result.status == 0 else {
            throw ServerProcessError("docsync-server \(arguments.joined(separator: " ")) exited \(result.status): \(result.errors)")
        }
        return result.output
    }

    /// Sends `signal` (SIGTERM by default) and waits (at most `timeout`) for the exit status.
    public func stop(signal: Int32 = SIGTERM, timeout: Duration = .seconds(30)) async throws -> Int32 {
        kill(process.processIdentifier, signal)
        let process = self.process
        let exited = await eventually(timeout: timeout, pollEvery: .milliseconds(20)) { !process.isRunning }
        guard exited else {
            process.interrupt()
            kill(process.processIdentifier, SIGKILL)
            throw ServerProcessError("docsync-server did not exit within \(timeout) of signal \(signal)")
        }
        return process.terminationStatus
    }

    /// The server's log so far (its stderr).
    public var log: String {
        (try? String(contentsOf: dataDirectory.appendingPathComponent("log"), encoding: .utf8)) ?? ""
    }

    public var isRunning: Bool { process.isRunning }

    deinit {
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
    }

    /// Reads until the first newline on a thread of its own; `nil` at end of file first.
    private static func firstLine(of handle: FileHandle) async -> String? {
        await withCheckedContinuation { continuation in
            Thread {
                var buffer = Data()
                while true {
                    let data = handle.availableData
                    if data.isEmpty { continuation.resume(returning: nil); return }
                    buffer.append(data)
                    if let newline = buffer.firstIndex(of: UInt8(ascii: "\n")) {
                        continuation.resume(returning: String(decoding: buffer[buffer.startIndex ..< newline], as: UTF8.self))
                        return
                    }
                }
            }.start()
        }
    }
}

public struct ServerProcessError: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}
