import Foundation

/// Instruction counts under `valgrind --tool=callgrind`: the same work gives the same count
/// whatever else the machine does, where CPU-seconds drift with it.
///
/// Two things keep Debian's valgrind 3.19 from running our programs as built, both worked
/// around here rather than in the programs:
/// - it cannot read the DWARF 5 the Swift toolchain writes ("unhandled dwarf2 abbrev form"),
///   so the programs run as copies without debug information (`strip --strip-debug`);
/// - its `rt_sigsuspend` writes into the caller's signal set, which libdispatch's main
///   thread passes from read-only memory: valgrind then faults on its own. A preloaded
///   `sigsuspend` hands the kernel a copy on the stack instead.
enum Callgrind {
    static let valgrind = "/usr/bin/valgrind"
    static let controlProgram = "/usr/bin/callgrind_control"

    static var isInstalled: Bool {
        FileManager.default.isExecutableFile(atPath: valgrind) && FileManager.default.isExecutableFile(atPath: controlProgram)
    }

    /// What runs a program under callgrind, its counts written to `output` (a dump asked for
    /// with `callgrind_control -d` goes to `output.1`, the next to `output.2`, …), with the
    /// `sigsuspend` of `shim` (`prepare(in:)`) preloaded.
    static func wrapper(output: URL, shim: URL) -> [String] {
        ["/usr/bin/env", "LD_PRELOAD=\(shim.path)",
         valgrind, "--tool=callgrind", "--callgrind-out-file=\(output.path)", "--dump-line=no", "--compress-strings=no"]
    }

    /// The preloaded `sigsuspend` (see above).
    static let shimSource = """
        #define _GNU_SOURCE
        #include <signal.h>
        #include <unistd.h>
        #include <sys/syscall.h>
        int sigsuspend(const sigset_t *mask) {
            sigset_t copy = *mask;
            return (int)syscall(SYS_rt_sigsuspend, &copy, (size_t)8);
        }
        """

    /// Compiles the shim into `directory` (with `cc`) and returns it.
    static func prepareShim(in directory: URL) throws -> URL {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let source = directory.appendingPathComponent("sigsuspend-copy.c")
        let library = directory.appendingPathComponent("sigsuspend-copy.so")
        try Data(shimSource.utf8).write(to: source)
        _ = try SyncBench.timed("cc", ["-O2", "-shared", "-fPIC", "-o", library.path, source.path])
        return library
    }

    /// Copies of `build`'s `docsyncd` and `docsync-server` without debug information, in
    /// `directory`: a build valgrind can read.
    static func strippedCopy(of binaries: URL, into directory: URL) throws -> URL {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        for program in ["docsyncd", "docsync-server"] {
            _ = try SyncBench.timed("strip", ["--strip-debug", "-o", directory.appendingPathComponent(program).path,
                                              binaries.appendingPathComponent(program).path])
        }
        return directory
    }

    /// Runs `callgrind_control` with `arguments` (`-z PID` zeroes the counts, `-d PID` dumps them).
    static func control(_ arguments: [String]) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: controlProgram)
        process.arguments = arguments
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.runUntilExit()
        guard process.terminationStatus == 0 else { throw BenchError("callgrind_control \(arguments.joined(separator: " ")) failed") }
    }

    /// The instructions in the newest dump of a program run with `wrapper(output:)`: the
    /// `summary:` line of `output.N` for the largest N.
    static func instructions(inDumpOf output: URL) throws -> Int {
        let directory = output.deletingLastPathComponent()
        let prefix = output.lastPathComponent + "."
        let dumps = try FileManager.default.contentsOfDirectory(atPath: directory.path)
            .filter { $0.hasPrefix(prefix) }
            .compactMap { name in Int(name.dropFirst(prefix.count)).map { ($0, name) } }
        guard let newest = dumps.max(by: { $0.0 < $1.0 }) else { throw BenchError("callgrind wrote no dump for \(output.path)") }
        return try summary(of: directory.appendingPathComponent(newest.1))
    }

    /// The `summary:` (else `totals:`) count of a callgrind output file.
    static func summary(of file: URL) throws -> Int {
        let text = try String(contentsOf: file, encoding: .utf8)
        for key in ["summary: ", "totals: "] {
            if let line = text.split(separator: "\n").first(where: { $0.hasPrefix(key) }),
               let count = Int(line.dropFirst(key.count).split(separator: " ").first ?? "") {
                return count
            }
        }
        throw BenchError("no instruction count in \(file.path)")
    }

    /// `rsync -a` of `source` into `target` under callgrind, every process it starts too: the
    /// sum of their instructions.
    static func rsync(_ source: URL, into target: URL) throws -> Int {
        let outputs = target.deletingLastPathComponent().appendingPathComponent("callgrind-rsync-out")
        try FileManager.default.createDirectory(at: outputs, withIntermediateDirectories: true)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: valgrind)
        process.arguments = ["--tool=callgrind", "--trace-children=yes", "--dump-line=no", "--callgrind-out-file=\(outputs.path)/rsync.%p",
                             "/usr/bin/rsync", "-a", source.path + "/", target.path + "/"]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.runUntilExit()
        guard process.terminationStatus == 0 else { throw BenchError("rsync under callgrind failed") }
        return try FileManager.default.contentsOfDirectory(atPath: outputs.path).reduce(0) {
            $0 + (try summary(of: outputs.appendingPathComponent($1)))
        }
    }
}
