import DocSyncStorage
import Foundation

/// A `docsync-server` (the release build beside this benchmark) on a free loopback port with
/// a data directory of its own and one user, for the benchmarks that cross HTTP.
final class BenchServer {
    let data: URL
    /// The file holding the bench user's token, for `docsyncd --token-file`.
    let tokenFile: URL
    private(set) var port: UInt16 = 0
    private let process = Process()
    private let exit: ProcessExit
    private let executable: URL

    init(base: URL) throws {
        data = base.appendingPathComponent("server-data")
        tokenFile = base.appendingPathComponent("token")
        executable = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("docsync-server")
        try FileManager.default.createDirectory(at: data, withIntermediateDirectories: true)
        exit = ProcessExit(of: process)
    }

    /// Adds the user, starts the server and waits for the line naming its port.
    func start() throws {
        let token = try Self.output(of: executable, ["user", "add", "bench", "--data", data.path])
        try Data((token.trimmingCharacters(in: .whitespacesAndNewlines) + "\n").utf8).write(to: tokenFile)
        chmod(tokenFile.path, 0o600)
        process.executableURL = executable
        process.arguments = ["serve", "--data", data.path, "--listen", "127.0.0.1:0"]
        let output = Pipe()
        process.standardOutput = output
        let log = data.deletingLastPathComponent().appendingPathComponent("server.log")
        _ = FileManager.default.createFile(atPath: log.path, contents: nil)
        process.standardError = try FileHandle(forWritingTo: log)
        try process.run()
        var seen = Data()
        let handle = output.fileHandleForReading
        while port == 0 {
            let piece = handle.availableData
            guard !piece.isEmpty else { throw BenchError("docsync-server exited before listening; see \(log.path)") }
            seen.append(piece)
            let text = String(decoding: seen, as: UTF8.self)
            if let line = text.split(separator: "\n").first(where: { $0.hasPrefix("listening on ") }),
               let last = line.split(separator: ":").last, let number = UInt16(last.trimmingCharacters(in: .whitespaces)) {
                port = number
            }
        }
    }

    /// The server's process id (once started).
    var pid: Int32 { process.processIdentifier }

    func stop() {
        guard process.isRunning else { return }
        process.terminate()
        exit.wait()
    }

    deinit { stop() }

    private static func output(of executable: URL, _ arguments: [String]) throws -> String {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        let exit = ProcessExit(of: process)
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        exit.wait()
        guard process.terminationStatus == 0 else {
            throw BenchError("docsync-server \(arguments.joined(separator: " ")) failed with \(process.terminationStatus)")
        }
        return String(decoding: data, as: UTF8.self)
    }
}
