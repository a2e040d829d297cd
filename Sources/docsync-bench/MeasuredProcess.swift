import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A child process run to its end with its exit status, its peak resident memory and its
/// output.
///
/// The peak is the child's own `VmHWM`, read every 10 ms while it runs (so a peak in its
/// last moments may be missed): `ru_maxrss` would not do, because a child started from this
/// process carries this process's peak across its `exec`.
struct MeasuredProcess {
    let status: Int32
    let peakResidentMegabytes: Double
    let seconds: Double
    let output: String

    /// Runs `executable` with `arguments`, its stdout to a temporary file, stderr to ours.
    static func run(_ executable: URL, _ arguments: [String]) throws -> MeasuredProcess {
        let outputPath = FileManager.default.temporaryDirectory.appendingPathComponent("docsync-bench-\(UUID().uuidString.prefix(8)).out").path
        defer { unlink(outputPath) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 1, outputPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        let argv = ([executable.path] + arguments).map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        var pid: pid_t = 0
        let start = ContinuousClock.now
        let code = posix_spawn(&pid, executable.path, &actions, nil, argv, environ)
        guard code == 0 else { throw BenchError("cannot start \(executable.path): \(String(cString: strerror(code)))") }
        var status: Int32 = 0
        var peakKilobytes = 0.0
        while true {
            peakKilobytes = max(peakKilobytes, highWaterKilobytes(of: pid) ?? 0)
            let reaped = waitpid(pid, &status, WNOHANG)
            if reaped == pid { break }
            guard reaped == 0 || errno == EINTR else { throw BenchError("waitpid for \(executable.lastPathComponent) failed: \(String(cString: strerror(errno)))") }
            usleep(10_000)
        }
        let seconds = (ContinuousClock.now - start) / .seconds(1)
        let output = (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? ""
        let exit = (status & 0x7f) == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
        return MeasuredProcess(status: exit, peakResidentMegabytes: peakKilobytes / 1024, seconds: seconds, output: output)
    }

    /// The `VmHWM` of process `pid` in kB, while it runs.
    static func highWaterKilobytes(of pid: pid_t) -> Double? {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
              let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") })
        else { return nil }
        return Double(line.split(whereSeparator: { $0 == " " || $0 == "\t" }).dropFirst().first ?? "")
    }
}
