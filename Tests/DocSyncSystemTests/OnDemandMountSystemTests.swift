import DocSyncCore
import DocSyncTestSupport
import Foundation
import Glibc
import Testing

/// The on-demand folder's real FUSE mount (SPEC §14), used as programs use a disk: two real
/// daemons on one `file://` backend, "alpha" a mirror and "beta" on demand, fresh for each
/// case (see `OnDemandMountPair`). The cases run one at a time: each mounts, syncs and
/// reads megabytes, and the machines that run them have two cores.
///
/// Skipped where `/dev/fuse` is missing (a container without the FUSE device); tests run
/// as root here and in CI, which FUSE allows without `fusermount3`'s setuid.
@Suite("on-demand folders through a real FUSE mount", .serialized, .enabled(if: fuseAvailable, "/dev/fuse is missing: FUSE cannot mount here"))
struct OnDemandMountSystemTests {
    let pair: OnDemandMountPair
    var alpha: DaemonProcess { pair.alpha }
    var beta: DaemonProcess { pair.beta }

    init() throws { pair = try OnDemandMountPair() }

    /// Listing and `stat` read no content: every file shows with alpha's size, mode and
    /// modification time (to the nanosecond), while the content directory holds only
    /// placeholders (holes) and nothing is in the partial cache.
    @Test func listingAndStatReadNoContent() async throws {
        // 2,000 small files in 50 directories, with modes and (past) times of their own.
        for directory in 0 ..< 50 {
            let name = String(format: "dir%02d", directory)
            try FileManager.default.createDirectory(at: alpha.file(name), withIntermediateDirectories: true)
            for index in 0 ..< 40 {
                let path = alpha.file("\(name)/file\(index).txt").path
                try Data("file \(index) of \(name)\n".utf8).write(to: URL(fileURLWithPath: path))
                #expect(chmod(path, [0o644, 0o600, 0o755, 0o640][index % 4]) == 0)
                let time = timespec(tv_sec: 1_500_000_000 + directory * 100_000 + index * 7, tv_nsec: 250_000_000)
                #expect(utimensat(AT_FDCWD, path, [time, time], 0) == 0)
            }
        }
        try pair.alphaWrites(seededBytes(20_000_000, seed: 1), to: "large.bin")

        try await pair.run {
            let shownAll = await eventually(timeout: .seconds(90), pollEvery: .milliseconds(200)) {
                walk(beta.folder).values.filter { $0.st_mode & S_IFMT == S_IFREG }.count == 2_001
            }
            try #require(shownAll, "beta's mount shows \(walk(beta.folder).count) items\n\(pair.logs)")
            #expect(try await alpha.waitSettled(), "alpha settles")
            #expect(try await beta.waitSettled(), "beta settles")

            // Every file as alpha has it.
            let original = walk(alpha.folder), shown = walk(beta.folder)
            #expect(Set(shown.keys) == Set(original.keys))
            var mismatches: [String] = []
            for (path, expected) in original {
                guard let status = shown[path] else { continue }
                if status.st_mode != expected.st_mode || status.st_size != expected.st_size
                    || (expected.st_mode & S_IFMT == S_IFREG && (status.st_mtim.tv_sec != expected.st_mtim.tv_sec || status.st_mtim.tv_nsec != expected.st_mtim.tv_nsec)) {
                    mismatches.append("\(path): mode \(String(status.st_mode, radix: 8)) size \(status.st_size) mtime \(status.st_mtim.tv_sec).\(status.st_mtim.tv_nsec)"
                        + " vs alpha's \(String(expected.st_mode, radix: 8)) \(expected.st_size) \(expected.st_mtim.tv_sec).\(expected.st_mtim.tv_nsec)")
                }
            }
            #expect(mismatches.isEmpty, "\(mismatches.count) items differ, e.g.:\n\(mismatches.sorted().prefix(10).joined(separator: "\n"))")

            // Nothing was fetched: only placeholders (holes) in the content directory, nothing partial.
            let content = walk(beta.contentDirectory)
            let realFiles = content.filter { path, status in
                status.st_mode & S_IFMT != S_IFDIR && !isPlaceholder(path)
            }
            #expect(realFiles.isEmpty, "files in beta's content directory: \(realFiles.keys.sorted().prefix(10))")
            #expect(content.keys.filter(isPlaceholder).count == 2_001)
            let allocated = content.values.filter { $0.st_mode & S_IFMT == S_IFREG }.reduce(0) { $0 + Int($1.st_blocks) * 512 }
            #expect(allocated == 0, "placeholders take no space")
            let partial = try FileManager.default.contentsOfDirectory(atPath: beta.partialDirectory.path)
            #expect(partial.isEmpty, "the partial cache holds \(partial)")
            #expect(docsyncStatus(beta.file("dir07/file3.txt").path) == "remote")
            #expect(docsyncStatus(beta.file("large.bin").path) == "remote")
        }
    }

    /// A read in the middle of a large file fetches the chunks it covers and at most 4 MiB
    /// ahead; reading all of it then gives alpha's bytes.
    @Test func aReadAtAnOffsetFetchesOnlyWhatItCoversAndReadAhead() async throws {
        let bytes = seededBytes(52_000_000, seed: 2)
        try pair.alphaWrites(bytes, to: "video/large.bin")
        try await pair.run {
            try #require(await pair.waitShownOnBeta(["video/large.bin"]), "large.bin did not show on beta\n\(pair.logs)")
            #expect(docsyncStatus(beta.file("video/large.bin").path) == "remote")

            let offset = 30_000_000, count = 4_096
            let read = try readBytes(beta.file("video/large.bin").path, at: offset, count: count)
            #expect(read == bytes[offset ..< offset + count], "the bytes at 30 MB are alpha's")
            let cached = try FileManager.default.contentsOfDirectory(atPath: beta.partialDirectory.path)
            #expect(cached.count == 1, "one partial file: \(cached)")
            let allocated = cached.compactMap { lstatus(beta.partialDirectory.appendingPathComponent($0).path) }
                .reduce(0) { $0 + Int($1.st_blocks) * 512 }
            #expect(allocated >= count, "the chunks read are kept")
            #expect(allocated <= (4 << 20) + (2 << 20) + count, "fetched \(allocated) bytes for a read of \(count)")
            #expect(docsyncStatus(beta.file("video/large.bin").path) == "partial")

            let whole = try #require(FileManager.default.contents(atPath: beta.file("video/large.bin").path))
            #expect(whole.count == bytes.count)
            #expect(digest(whole) == digest(bytes), "the whole file read through the mount is alpha's")
        }
    }

    /// A file that is not local, mapped read-only, shows alpha's bytes.
    @Test func mmapOfAFileNotLocal() async throws {
        let bytes = seededBytes(3_000_000, seed: 3)
        try pair.alphaWrites(bytes, to: "mapped.bin")
        try await pair.run {
            try #require(await pair.waitShownOnBeta(["mapped.bin"]), "mapped.bin did not show on beta\n\(pair.logs)")
            let path = beta.file("mapped.bin").path
            #expect(docsyncStatus(path) == "remote")
            let descriptor = open(path, O_RDONLY | O_CLOEXEC)
            try #require(descriptor >= 0, "open: errno \(errno)")
            defer { close(descriptor) }
            let mapping = mmap(nil, bytes.count, PROT_READ, MAP_SHARED, descriptor, 0)
            try #require(mapping != MAP_FAILED, "mmap: errno \(errno)")
            defer { munmap(mapping, bytes.count) }
            let mapped = Data(bytes: mapping!, count: bytes.count)
            #expect(digest(mapped) == digest(bytes), "the mapped bytes are alpha's")
            #expect(mapped.prefix(64) == bytes.prefix(64) && mapped.suffix(64) == bytes.suffix(64))
        }
    }
}

/// Whether the content directory's `relative` is a placeholder (`.NAME.docsync`).
func isPlaceholder(_ relative: String) -> Bool {
    let name = relative.split(separator: "/").last.map(String.init) ?? relative
    return name.hasPrefix(".") && name.hasSuffix(IgnoreRules.placeholderSuffix) && name.count > 1 + IgnoreRules.placeholderSuffix.count
}
