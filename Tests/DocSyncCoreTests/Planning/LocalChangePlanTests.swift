import DocSyncCore
import Testing

/// Decision table: what changed in the folder, from what the walk found and what the index
/// holds for the examined scopes.
@Suite struct LocalChangePlanTests {
    typealias F = Fixture

    static func facts(_ type: RecordType = .document, size: Int64 = 10, at seconds: Int64 = 5, inode: UInt64, mode: UInt32 = 0o644) -> ItemFacts {
        ItemFacts(type: type, size: size, modified: F.time(seconds), inode: inode, mode: mode)
    }

    static func indexed(_ letter: String, _ path: RelativePath, _ facts: ItemFacts, acknowledged: Bool = true, digest: String? = nil,
                        placeholder: Bool = false, placeholderPresent: Bool = false, ignored: Bool = false) -> LocalScan.Indexed {
        LocalScan.Indexed(recordName: F.name(letter), path: path, facts: facts, acknowledged: acknowledged,
                          digest: digest.map { SHA256Digest(hashing: Array($0.utf8)) }, isPlaceholder: placeholder,
                          placeholderPresent: placeholderPresent, ignored: ignored)
    }

    struct Case: Sendable, CustomTestStringConvertible {
        var name: String
        var scan: LocalScan
        var toRead: [RelativePath]
        var expected: [LocalChange]
        var testDescription: String { name }
    }

    static let cases: [Case] = {
        let a = facts(inode: 1)
        let aEdited = facts(size: 12, at: 9, inode: 1)
        let aTouched = facts(at: 9, inode: 1)
        let aMode = facts(inode: 1, mode: 0o600)
        let aReplaced = facts(inode: 7)
        let folder = facts(.folder, size: 0, inode: 2, mode: 0o755)
        let folderTouched = facts(.folder, size: 0, at: 9, inode: 2, mode: 0o755)
        let link = facts(.symlink, size: 6, inode: 3, mode: 0o777)
        let copy = facts(inode: 8)
        let A = indexed("A", "a.txt", a)
        let contentOne = SHA256Digest(hashing: Array("one".utf8))
        let contentTwo = SHA256Digest(hashing: Array("two".utf8))
        return [
            Case(name: "nothing changed", scan: LocalScan(found: ["a.txt": a], indexed: [A]), toRead: [], expected: []),
            Case(name: "a new file", scan: LocalScan(found: ["a.txt": a], indexed: []), toRead: [], expected: [.created("a.txt", facts: a)]),
            Case(name: "a new folder and a file in it, in path order",
                 scan: LocalScan(found: ["d/x": a, "d": folder], indexed: []), toRead: [], expected: [.created("d", facts: folder), .created("d/x", facts: a)]),
            Case(name: "a new link", scan: LocalScan(found: ["l": link], indexed: []), toRead: [], expected: [.created("l", facts: link)]),
            Case(name: "edited: size and time changed", scan: LocalScan(found: ["a.txt": aEdited], indexed: [A]), toRead: [],
                 expected: [.modified(recordName: F.name("A"), facts: aEdited, contentChanged: true, replacedPlaceholder: false)]),
            Case(name: "touched: the content may have changed", scan: LocalScan(found: ["a.txt": aTouched], indexed: [A]), toRead: [],
                 expected: [.modified(recordName: F.name("A"), facts: aTouched, contentChanged: true, replacedPlaceholder: false)]),
            Case(name: "a new mode only: the content did not change", scan: LocalScan(found: ["a.txt": aMode], indexed: [A]), toRead: [],
                 expected: [.modified(recordName: F.name("A"), facts: aMode, contentChanged: false, replacedPlaceholder: false)]),
            Case(name: "replaced by another file (new inode): the content is read again", scan: LocalScan(found: ["a.txt": aReplaced], indexed: [A]), toRead: [],
                 expected: [.modified(recordName: F.name("A"), facts: aReplaced, contentChanged: true, replacedPlaceholder: false)]),
            Case(name: "a folder's time is not a change", scan: LocalScan(found: ["d": folderTouched], indexed: [indexed("A", "d", folder)]), toRead: [], expected: []),
            Case(name: "deleted, known to the server", scan: LocalScan(found: [:], indexed: [A]), toRead: [],
                 expected: [.vanished(recordName: F.name("A"), path: "a.txt", acknowledged: true)]),
            Case(name: "deleted, never sent", scan: LocalScan(found: [:], indexed: [indexed("A", "a.txt", a, acknowledged: false)]), toRead: [],
                 expected: [.vanished(recordName: F.name("A"), path: "a.txt", acknowledged: false)]),
            Case(name: "renamed: the same inode elsewhere", scan: LocalScan(found: ["b.txt": a], indexed: [A]), toRead: [],
                 expected: [.renamed(recordName: F.name("A"), to: "b.txt", facts: a, contentChanged: false)]),
            Case(name: "moved into a folder", scan: LocalScan(found: ["d": folder, "d/a.txt": a], indexed: [A, indexed("D", "d", folder)]), toRead: [],
                 expected: [.renamed(recordName: F.name("A"), to: "d/a.txt", facts: a, contentChanged: false)]),
            Case(name: "renamed and edited", scan: LocalScan(found: ["b.txt": aEdited], indexed: [A]), toRead: [],
                 expected: [.renamed(recordName: F.name("A"), to: "b.txt", facts: aEdited, contentChanged: true)]),
            Case(name: "a folder renamed", scan: LocalScan(found: ["e": folder], indexed: [indexed("D", "d", folder)]), toRead: [],
                 expected: [.renamed(recordName: F.name("D"), to: "e", facts: folder, contentChanged: false)]),
            Case(name: "a file replaced by a folder: the file vanished, the folder is new",
                 scan: LocalScan(found: ["a.txt": facts(.folder, size: 0, inode: 9, mode: 0o755)], indexed: [A]), toRead: [],
                 expected: [.created("a.txt", facts: facts(.folder, size: 0, inode: 9, mode: 0o755)),
                            .vanished(recordName: F.name("A"), path: "a.txt", acknowledged: true)]),
            Case(name: "an inode reused by another kind is no rename", scan: LocalScan(found: ["l": facts(.symlink, size: 6, inode: 1, mode: 0o777)], indexed: [A]), toRead: [],
                 expected: [.created("l", facts: facts(.symlink, size: 6, inode: 1, mode: 0o777)), .vanished(recordName: F.name("A"), path: "a.txt", acknowledged: true)]),
            Case(name: "two files swapped names", scan: LocalScan(found: ["a.txt": facts(inode: 2), "b.txt": a], indexed: [A, indexed("B", "b.txt", facts(inode: 2))]),
                 toRead: [], expected: [.modified(recordName: F.name("A"), facts: facts(inode: 2), contentChanged: true, replacedPlaceholder: false),
                                        .modified(recordName: F.name("B"), facts: a, contentChanged: true, replacedPlaceholder: false)]),
            Case(name: "copied and the original deleted: read, then the same item by its digest",
                 scan: LocalScan(found: ["b.txt": copy], indexed: [indexed("A", "a.txt", a, digest: "one")]), toRead: ["b.txt"], expected: [.created("b.txt", facts: copy),
                            .vanished(recordName: F.name("A"), path: "a.txt", acknowledged: true)]),
            Case(name: "copied and the original deleted, digest known: renamed by content",
                 scan: LocalScan(found: ["b.txt": copy], indexed: [indexed("A", "a.txt", a, digest: "one")], digests: ["b.txt": contentOne]), toRead: ["b.txt"],
                 expected: [.renamedByContent(recordName: F.name("A"), to: "b.txt", replacedPlaceholder: false)]),
            Case(name: "a copy of other content is new",
                 scan: LocalScan(found: ["b.txt": copy], indexed: [indexed("A", "a.txt", a, digest: "one")], digests: ["b.txt": contentTwo]), toRead: ["b.txt"],
                 expected: [.created("b.txt", facts: copy), .vanished(recordName: F.name("A"), path: "a.txt", acknowledged: true)]),
            Case(name: "a new file of another size is not read", scan: LocalScan(found: ["b.txt": facts(size: 99, inode: 8)], indexed: [indexed("A", "a.txt", a, digest: "one")]),
                 toRead: [], expected: [.created("b.txt", facts: facts(size: 99, inode: 8)), .vanished(recordName: F.name("A"), path: "a.txt", acknowledged: true)]),
            Case(name: "back where its deletion waits: revived", scan: LocalScan(found: ["a.txt": aReplaced], indexed: [], pendingDeletions: ["a.txt": [A]]), toRead: [],
                 expected: [.revived(recordName: F.name("A"), facts: aReplaced)]),
            Case(name: "another kind where a deletion waits is new", scan: LocalScan(found: ["a.txt": folder], indexed: [], pendingDeletions: ["a.txt": [A]]), toRead: [],
                 expected: [.created("a.txt", facts: folder)]),
            Case(name: "revived rather than read for a digest",
                 scan: LocalScan(found: ["a.txt": aReplaced], indexed: [indexed("B", "b.txt", facts(inode: 4), digest: "one")], pendingDeletions: ["a.txt": [A]]), toRead: [],
                 expected: [.revived(recordName: F.name("A"), facts: aReplaced), .vanished(recordName: F.name("B"), path: "b.txt", acknowledged: true)]),
            Case(name: "a directory made for remote items is not a new folder", scan: LocalScan(found: ["d": folder], indexed: [], createdDirectories: ["d"]), toRead: [],
                 expected: []),
            Case(name: "an ignored item not found stays", scan: LocalScan(found: [:], indexed: [indexed("A", "a.txt", a, ignored: true)]), toRead: [], expected: []),
            Case(name: "under an unreadable folder nothing is deleted", scan: LocalScan(found: [:], indexed: [indexed("A", "d/a.txt", a)], unreadable: ["d"]), toRead: [],
                 expected: []),
            Case(name: "an unreadable root deletes nothing", scan: LocalScan(found: [:], indexed: [A], unreadable: [""]), toRead: [], expected: []),
            Case(name: "a sibling of an unreadable folder is deleted", scan: LocalScan(found: [:], indexed: [indexed("A", "dx/a.txt", a)], unreadable: ["d"]), toRead: [],
                 expected: [.vanished(recordName: F.name("A"), path: "dx/a.txt", acknowledged: true)]),
            Case(name: "a placeholder present is there", scan: LocalScan(found: [:], indexed: [indexed("A", "a.txt", a, placeholder: true, placeholderPresent: true)]), toRead: [],
                 expected: []),
            Case(name: "a placeholder removed is a deletion", scan: LocalScan(found: [:], indexed: [indexed("A", "a.txt", a, placeholder: true)]), toRead: [],
                 expected: [.vanished(recordName: F.name("A"), path: "a.txt", acknowledged: true)]),
            Case(name: "a real file where a placeholder was makes it local", scan: LocalScan(found: ["a.txt": copy], indexed: [indexed("A", "a.txt", a, placeholder: true, placeholderPresent: true)]),
                 toRead: [], expected: [.modified(recordName: F.name("A"), facts: copy, contentChanged: true, replacedPlaceholder: true)]),
            Case(name: "a placeholder's item copied elsewhere keeps its record", scan: LocalScan(found: ["b.txt": copy], indexed: [indexed("A", "a.txt", a, digest: "one", placeholder: true)],
                                                                                                digests: ["b.txt": contentOne]), toRead: ["b.txt"],
                 expected: [.renamedByContent(recordName: F.name("A"), to: "b.txt", replacedPlaceholder: true)]),
            Case(name: "a placeholder moved (its file's inode at another item's path) moves its item, still not local",
                 scan: LocalScan(found: [:], indexed: [indexed("A", "a.txt", a, placeholder: true)], foundPlaceholders: ["d/b.txt": a]), toRead: [],
                 expected: [.renamed(recordName: F.name("A"), to: "d/b.txt", facts: a, contentChanged: false)]),
            Case(name: "a placeholder at its own path is no move", scan: LocalScan(found: [:], indexed: [indexed("A", "a.txt", a, placeholder: true, placeholderPresent: true)],
                                                                                  foundPlaceholders: ["a.txt": a]), toRead: [], expected: []),
            Case(name: "a real file with a removed placeholder's inode is new, not the placeholder moved",
                 scan: LocalScan(found: ["b.txt": a], indexed: [indexed("A", "a.txt", a, placeholder: true)]), toRead: [],
                 expected: [.created("b.txt", facts: a), .vanished(recordName: F.name("A"), path: "a.txt", acknowledged: true)]),
            Case(name: "a placeholder with a removed file's inode is not that file moved",
                 scan: LocalScan(found: [:], indexed: [A], foundPlaceholders: ["b.txt": a]), toRead: [],
                 expected: [.vanished(recordName: F.name("A"), path: "a.txt", acknowledged: true)]),
            Case(name: "a mass deletion: every item vanished, in path order",
                 scan: LocalScan(found: [:], indexed: (0..<5).map { indexed("\($0)", RelativePath("f\(4 - $0)"), facts(inode: UInt64(10 + $0))) }), toRead: [],
                 expected: (0..<5).map { .vanished(recordName: F.name("\(4 - $0)"), path: RelativePath("f\($0)"), acknowledged: true) }),
        ]
    }()

    @Test(arguments: cases) func plan(_ row: Case) {
        #expect(LocalChangePlanner.contentToRead(row.scan) == row.toRead, "\(row.name)")
        #expect(LocalChangePlanner.plan(row.scan) == row.expected, "\(row.name)")
    }

    /// SPEC §4a "Paths are bytes": names that differ only in Unicode normalization are two
    /// paths. (Built key by key: a dictionary literal with two keys a `String` hash folds
    /// would trap instead of failing.)
    static let normalizationCases: [Case] = {
        let nfc = RelativePath("caf\u{E9}.txt"), nfd = RelativePath("cafe\u{301}.txt")
        let one = facts(inode: 1), two = facts(size: 20, inode: 2)
        func found(_ pairs: [(RelativePath, ItemFacts)]) -> [RelativePath: ItemFacts] {
            var found: [RelativePath: ItemFacts] = [:]
            for (path, facts) in pairs { found[path] = facts }
            return found
        }
        let first = nfd < nfc ? nfd : nfc, second = nfd < nfc ? nfc : nfd
        return [
            Case(name: "two new files whose names differ only in normalization",
                 scan: LocalScan(found: found([(nfc, one), (nfd, two)]), indexed: []), toRead: [],
                 expected: [.created(first, facts: first == nfc ? one : two), .created(second, facts: second == nfc ? one : two)]),
            Case(name: "a new file beside one known whose name differs only in normalization",
                 scan: LocalScan(found: found([(nfc, one), (nfd, two)]), indexed: [indexed("A", nfc, one)]), toRead: [],
                 expected: [.created(nfd, facts: two)]),
            Case(name: "renamed from its NFC name to its NFD name",
                 scan: LocalScan(found: found([(nfd, one)]), indexed: [indexed("A", nfc, one)]), toRead: [],
                 expected: [.renamed(recordName: F.name("A"), to: nfd, facts: one, contentChanged: false)]),
            Case(name: "one of the two deleted",
                 scan: LocalScan(found: found([(nfd, two)]), indexed: [indexed("A", nfc, one), indexed("B", nfd, two)]), toRead: [],
                 expected: [.vanished(recordName: F.name("A"), path: nfc, acknowledged: true)]),
            Case(name: "beside an unreadable folder named in the other normalization, an item is deleted",
                 scan: LocalScan(found: [:], indexed: [indexed("A", RelativePath("cafe\u{301}/x"), one)], unreadable: ["caf\u{E9}"]), toRead: [],
                 expected: [.vanished(recordName: F.name("A"), path: RelativePath("cafe\u{301}/x"), acknowledged: true)]),
        ]
    }()

    @Test(arguments: normalizationCases) func planNamesDifferingInNormalization(_ row: Case) {
        let planned = LocalChangePlanner.plan(row.scan)
        // Compared path by path as bytes: `==` on the changes is only as good as the paths'.
        #expect(planned == row.expected && planned.map(\.pathBytes) == row.expected.map(\.pathBytes), "\(row.name): \(planned)")
    }
}

extension LocalChange {
    /// The bytes of the path the change names, if any.
    var pathBytes: [UInt8]? {
        switch self {
        case .created(let path, _), .renamed(_, let path, _, _), .renamedByContent(_, let path, _), .vanished(_, let path, _): Array(path.string.utf8)
        case .modified, .revived: nil
        }
    }
}
