import DocSyncCore
import DocSyncTestSupport
import Foundation
import Glibc
import Testing

/// Open files through the mount (SPEC §14): a descriptor keeps the content it opened while
/// alpha replaces the file, and the next open sees the new version; trash folders file
/// managers make stay on the device; LibreOffice converts a document into the folder.
extension OnDemandMountSystemTests {
    @Test func aFileReplacedRemotelyWhileOpenKeepsTheOpenedContent() async throws {
        let first = seededBytes(3_000_000, seed: 80), second = seededBytes(2_500_000, seed: 81)
        let localFirst = Data("the local version, first\n".utf8), localSecond = Data("the local version, second and longer\n".utf8)
        try pair.alphaWrites(first, to: "remote.bin")
        try pair.alphaWrites(localFirst, to: "local.txt")
        try await pair.run {
            try #require(await pair.waitShownOnBeta(["remote.bin", "local.txt"]), "\(pair.logs)")
            #expect(try await beta.docsStatus(["download", beta.file("local.txt").path]).status == 0)
            #expect(docsyncStatus(beta.file("local.txt").path) == "local")

            // Both opened; the one not local is read in part (fetched as far as the read-ahead goes).
            let remote = open(beta.file("remote.bin").path, O_RDONLY | O_CLOEXEC), local = open(beta.file("local.txt").path, O_RDONLY | O_CLOEXEC)
            try #require(remote >= 0 && local >= 0, "open: errno \(errno)")
            defer { close(remote); close(local) }
            #expect(digest(readAll(remote, at: 0, count: 4096)) == digest(first.prefix(4096)))

            try pair.alphaWrites(second, to: "remote.bin")
            try pair.alphaWrites(localSecond, to: "local.txt")
            let replaced = await eventually(timeout: .seconds(60)) {
                lstatus(beta.file("remote.bin").path)?.st_size == off_t(second.count) && lstatus(beta.file("local.txt").path)?.st_size == off_t(localSecond.count)
            }
            try #require(replaced, "\(pair.logs)")
            #expect(try await beta.waitSettled())

            // The open descriptors read what they opened, all of it; a new open reads the new version.
            let stillOpen = readAll(remote, at: 0, count: first.count + 10)
            #expect(stillOpen.count == first.count && digest(stillOpen) == digest(first), "the open descriptor of the file not local kept its version (read \(stillOpen.count) bytes)")
            #expect(readAll(local, at: 0, count: 100) == localFirst, "the open descriptor of the local file kept its version")
            #expect(FileManager.default.contents(atPath: beta.file("remote.bin").path).map(digest) == digest(second))
            #expect(FileManager.default.contents(atPath: beta.file("local.txt").path) == localSecond)
        }
    }

    @Test func trashFoldersAtTheTopOfTheMountStayOnTheDevice() async throws {
        try await pair.run {
            let trash = beta.file(".Trash-1000/files")
            try FileManager.default.createDirectory(at: trash, withIntermediateDirectories: true)
            try Data("deleted by a file manager\n".utf8).write(to: trash.appendingPathComponent("old.txt"))
            try Data("after the trash\n".utf8).write(to: beta.file("after.txt"))
            let arrived = await eventually(timeout: .seconds(60)) { FileManager.default.fileExists(atPath: alpha.file("after.txt").path) }
            try #require(arrived, "\(pair.logs)")
            #expect(try await beta.waitSettled())
            #expect(try await alpha.waitSettled())
            #expect(!FileManager.default.fileExists(atPath: alpha.file(".Trash-1000").path), "the trash folder was synced")
            #expect(FileManager.default.contents(atPath: trash.appendingPathComponent("old.txt").path) == Data("deleted by a file manager\n".utf8))
        }
    }

    /// LibreOffice (headless, Debian's `libreoffice-writer-nogui`) converting a document that
    /// is not local into the folder: it reads it through the mount and writes the result
    /// with its lock and temporary files and a rename; alpha gets the converted document.
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/soffice"), "LibreOffice (libreoffice-writer-nogui) is not installed"))
    func libreOfficeConvertsADocumentIntoTheFolder() async throws {
        try pair.alphaWrites(Data("Dear reader,\nthis letter was converted through the mount.\n".utf8), to: "letters/letter.txt")
        try await pair.run {
            try #require(await pair.waitShownOnBeta(["letters/letter.txt"]), "\(pair.logs)")
            #expect(docsyncStatus(beta.file("letters/letter.txt").path) == "remote")
            let home = pair.scratch.appendingPathComponent("office-home")
            try FileManager.default.createDirectory(at: home, withIntermediateDirectories: true)
            let converted = try await sh("soffice --headless --norestore --convert-to odt --outdir '\(beta.file("letters").path)' '\(beta.file("letters/letter.txt").path)'",
                                         in: pair.scratch, home: home)
            #expect(converted.status == 0, "soffice: \(converted.output) \(converted.errors)")
            let odt = beta.file("letters/letter.odt")
            let written = try #require(FileManager.default.contents(atPath: odt.path), "no letter.odt in the mount: \(converted.output) \(converted.errors)")
            #expect(written.starts(with: Data("PK".utf8)), "an OpenDocument file is a zip")
            let arrived = await eventually(timeout: .seconds(60)) { FileManager.default.contents(atPath: alpha.file("letters/letter.odt").path) == written }
            #expect(arrived, "alpha did not get the converted document\n\(pair.logs)")
            #expect(try await beta.waitSettled())
            let leftovers = ((try? FileManager.default.contentsOfDirectory(atPath: alpha.file("letters").path)) ?? []).sorted()
            #expect(leftovers == ["letter.odt", "letter.txt"], "only the documents reach alpha, no lock or temporary file")
        }
    }
}

/// Up to `count` bytes read at `offset` from an open descriptor (`pread` until the end).
private func readAll(_ descriptor: Int32, at offset: Int, count: Int) -> Data {
    var data = Data(count: count)
    var got = 0
    while got < count {
        let result = data.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress! + got, count - got, off_t(offset + got)) }
        if result <= 0 { break }
        got += result
    }
    return data.prefix(got)
}
