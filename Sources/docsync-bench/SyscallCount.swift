import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// The system calls a running process makes while it is watched, counted by `perf stat` on
/// the kernel's `syscalls` tracepoints (every thread, those started later too).
///
/// Attaching takes a few milliseconds: calls before it are not counted. Counting costs the
/// process a little system time on each call, the same for every build measured.
final class SyscallCount {
    /// The calls counted, by name (`openat`, `write`, …), and their total.
    struct Counts: Encodable {
        let total: Int
        let byName: [String: Int]

        /// The `count` most frequent, most first.
        func top(_ count: Int) -> [(name: String, calls: Int)] {
            byName.sorted { $0.value != $1.value ? $0.value > $1.value : $0.key < $1.key }.prefix(count).map { ($0.key, $0.value) }
        }
    }

    private var perf: pid_t = 0
    private let output: URL

    /// Starts counting the calls of process `pid`; `nil` when `perf` is not installed.
    ///
    /// perf is started with no signal blocked: it stops on SIGINT, and a child started
    /// from a thread of the cooperative pool (as `Process` does) inherits that thread's mask,
    /// which blocks SIGINT and SIGTERM.
    init?(pid: Int32, scratch: URL) {
        guard let perfPath = SyscallCount.perfPath else { return nil }
        output = scratch.appendingPathComponent("perf-\(pid)-\(UUID().uuidString.prefix(6)).csv")
        let arguments = [perfPath, "stat", "-x", ",", "-o", output.path, "-e", "raw_syscalls:sys_enter", "-e", "syscalls:sys_enter_*", "-p", String(pid)]
        guard let started = Self.spawnUnblocked(arguments) else { return nil }
        perf = started
        // perf opens its counters within a few milliseconds.
        usleep(100_000)
    }

    /// Stops counting; returns what was counted (`nil` when perf wrote nothing readable).
    func stop() -> Counts? {
        if perf > 0 {
            kill(perf, SIGINT)
            var status: Int32 = 0
            while waitpid(perf, &status, 0) < 0, errno == EINTR {}
            perf = 0
        }
        defer { try? FileManager.default.removeItem(at: output) }
        return (try? String(contentsOf: output, encoding: .utf8)).flatMap(Self.parse)
    }

    /// `perf stat -x,` lines: `COUNT,UNIT,EVENT,…`.
    static func parse(_ text: String) -> Counts? {
        var total: Int?
        var byName: [String: Int] = [:]
        for line in text.split(separator: "\n") where !line.hasPrefix("#") {
            let fields = line.split(separator: ",", omittingEmptySubsequences: false)
            guard fields.count > 2, let count = Int(fields[0]) else { continue }
            let event = fields[2]
            if event == "raw_syscalls:sys_enter" {
                total = count
            } else if event.hasPrefix("syscalls:sys_enter_"), count > 0 {
                byName[String(event.dropFirst("syscalls:sys_enter_".count))] = count
            }
        }
        return total.map { Counts(total: $0, byName: byName) }
    }

    /// Starts `arguments[0]` with `arguments` and an empty signal mask, its output and errors
    /// discarded; its pid, or `nil` when it cannot start. The caller reaps it (`waitpid`).
    static func spawnUnblocked(_ arguments: [String]) -> pid_t? {
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var none = sigset_t()
        sigemptyset(&none)
        posix_spawnattr_setsigmask(&attributes, &none)
        var defaults = sigset_t()
        sigemptyset(&defaults)
        sigaddset(&defaults, SIGINT)
        sigaddset(&defaults, SIGTERM)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        let argv = arguments.map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        var pid: pid_t = 0
        guard posix_spawn(&pid, arguments[0], &actions, &attributes, argv, environ) == 0 else { return nil }
        return pid
    }

    static let perfPath: String? = ["/usr/bin/perf", "/usr/local/bin/perf"].first { FileManager.default.isExecutableFile(atPath: $0) }
}
