import DocSyncCore
@testable import DocSyncEngine
import DocSyncTestSupport
import GRDB
import Testing

/// SQLite, running compiled predicates over a real index, selects exactly the items the
/// evaluator selects: random items, random predicates, one seed.
@Suite struct PredicateSQLAgreementTests {
    let directory: TemporaryDirectory
    init() throws { directory = try TemporaryDirectory("docsync-query") }

    // MARK: random items

    static let words = [
        "report", "Report", "REPORT", "café", "cafe\u{301}", "CAFÉ", "Cafe", "résumé", "Résumé", "RESUME", "naïve", "Ångström",
        "straße", "STRASSE", "İstanbul", "istanbul", "Ελληνικά", "日本語", "😀", "a*b", "what?", "[draft]", "x]y", "a\\b",
        "notes", "IMG_0001", "data-2026", "o", "e\u{301}\u{301}", "ǅ", "ﬁle",
    ]
    static let extensions = [".pdf", ".PDF", ".txt", ".md", "", ".tar.gz", ".Pdf", ".é"]
    static let errors = ["Quota exceeded", "quota", "network unreachable", "NÉTWORK", "é", "", "*", "disk full?"]
    static let statuses = ["notDownloaded", "downloaded", "current"]
    static let percents: [Double] = [0, 12.5, 42.5, 50, 99.99, 100]
    static let sizes: [Int64] = [0, 1, 12, 512, 999_999, 1_000_000, 1_048_576, 4_096, 10_000_000, 1 << 62, 9_007_199_254_740_993]
    static let dates: [Int64] = [
        1_767_225_600_000_000_000, 1_767_225_600_000_000_001, 1_767_225_599_999_999_999, 0, -1, -86_400_000_000_000,
        1_700_000_000_123_456_789,
    ]

    static func randomName(_ random: inout SeededRandom) -> String {
        var name = ""
        for index in 0..<Int.random(in: 1...3, using: &random) {
            if index > 0 { name += [" ", "-", "_", ".", ""].randomElement(using: &random)! }
            name += words.randomElement(using: &random)!
        }
        return name + extensions.randomElement(using: &random)!
    }

    static func randomItem(_ number: Int, _ random: inout SeededRandom) -> IndexItem {
        var path = ""
        for _ in 0..<Int.random(in: 0...2, using: &random) { path += randomName(&random) + "/" }
        path += randomName(&random)
        let kind = [RecordType.document, .document, .document, .folder, .symlink].randomElement(using: &random)!
        let size = Bool.random(using: &random) ? sizes.randomElement(using: &random)! : Int64.random(in: 0...20_000_000, using: &random)
        let modified = Bool.random(using: &random) ? dates.randomElement(using: &random)!
            : Int64.random(in: 1_577_836_800_000_000_000...1_893_456_000_000_000_000, using: &random)
        let stat = FileStat(kind: .file, size: size, modified: Timestamp(nanosecondsSince1970: modified), inode: UInt64(number),
                            device: 1, mode: 0o644)
        var item = IndexItem(recordName: "r\(number)", path: RelativePath(path), kind: kind, stat: stat)
        item.size = size
        item.pending = Int.random(in: 0..<10, using: &random) == 0 ? .delete : .none
        item.status.downloadingStatus = statuses.randomElement(using: &random)!
        item.status.isDownloading = Bool.random(using: &random)
        item.status.percentDownloaded = Bool.random(using: &random) ? percents.randomElement(using: &random)! : Double.random(in: 0...100, using: &random)
        item.status.isUploading = Bool.random(using: &random)
        item.status.isUploaded = Bool.random(using: &random)
        item.status.percentUploaded = percents.randomElement(using: &random)!
        item.status.downloadingError = Int.random(in: 0..<3, using: &random) == 0 ? errors.randomElement(using: &random)! : nil
        item.status.uploadingError = Int.random(in: 0..<3, using: &random) == 0 ? errors.randomElement(using: &random)! : nil
        item.status.hasUnresolvedConflicts = Int.random(in: 0..<4, using: &random) == 0
        // Two in three saved by a server that names accounts: `lastEditorName` is the
        // acknowledged record's, and the column the index keeps beside it.
        if Int.random(in: 0..<3, using: &random) > 0 {
            var acked = item.record(zone: ZoneID("Documents"), device: "laptop")
            acked.changeTag = ChangeTag("1")
            acked.lastEditorName = Bool.random(using: &random) ? words.randomElement(using: &random)! : randomName(&random)
            item.acked = acked
        }
        return item
    }

    // MARK: random predicates

    /// Writes random predicates whose values are drawn from the items, so that they select
    /// some items and not others.
    struct PredicateWriter {
        var random: SeededRandom
        let items: [IndexItem]

        mutating func pick<T>(_ values: [T]) -> T { values.randomElement(using: &random)! }
        mutating func chance(_ percent: Int) -> Bool { Int.random(in: 0..<100, using: &random) < percent }

        mutating func predicate(depth: Int = 0) -> String {
            if depth >= 3 || chance(40) { return comparison() }
            switch Int.random(in: 0..<5, using: &random) {
            case 0: return "NOT " + (chance(50) ? "(\(predicate(depth: depth + 1)))" : comparison())
            case 1: return "(\(predicate(depth: depth + 1)) \(pick(["AND", "&&", "and"])) \(predicate(depth: depth + 1)))"
            case 2: return "(\(predicate(depth: depth + 1)) \(pick(["OR", "||", "or"])) \(predicate(depth: depth + 1)))"
            case 3: return "\(predicate(depth: depth + 1)) AND \(predicate(depth: depth + 1)) OR \(predicate(depth: depth + 1))"
            default: return "\(predicate(depth: depth + 1)) OR NOT \(predicate(depth: depth + 1)) AND \(predicate(depth: depth + 1))"
            }
        }

        mutating func comparison() -> String {
            let attribute = pick(MetadataAttribute.allCases)
            switch attribute.type {
            case .string: return stringComparison(attribute)
            case .bool:
                if chance(20) { return attribute.rawValue }
                return "\(attribute) \(pick(["==", "!=", "="])) \(pick(["true", "false", "YES", "NO"]))"
            case .number, .date:
                let op = pick(["==", "!=", "<", "<=", ">", ">=", "IN", "BETWEEN"])
                switch op {
                case "IN": return "\(attribute) IN {\((0..<Int.random(in: 0...3, using: &random)).map { _ in value(attribute) }.joined(separator: ", "))}"
                case "BETWEEN": return "\(attribute) BETWEEN {\(value(attribute)), \(value(attribute))}"
                default: return chance(20) ? "\(value(attribute)) \(op) \(attribute)" : "\(attribute) \(op) \(value(attribute))"
                }
            }
        }

        /// A value of the attribute's type, usually one an item has (or next to it).
        mutating func value(_ attribute: MetadataAttribute) -> String {
            let item = pick(items)
            switch attribute {
            case .size:
                if chance(30) { return pick(["1MB", "1MiB", "0.5KB", "10MB", "4KiB", "1.5GB", "100B", "999999", "1e6", "4095.5"]) }
                return String(item.size + Int64(pick([-1, 0, 0, 1])))
            case .percentDownloaded, .percentUploaded:
                if chance(50) { return pick(["0", "12.5", "42.5", "50", "99.99", "100", "100.0", "-1", "42"]) }
                return String(item.value(of: attribute) == .null ? 0 : (attribute == .percentUploaded ? item.status.percentUploaded : item.status.percentDownloaded))
            case .modified, .deletedAt:  // no live item is deleted: deletedAt compares with nil
                if chance(25) { return pick(["2026-01-01", "2026-01-01T00:00:00.000000001Z", "1970-01-01", "2025-12-31T23:59:59.999999999Z",
                                             "2026-01-01T01:00:00+01:00", "'2024-06-01'"]) }
                let nanoseconds = item.modified.nanosecondsSince1970 + Int64(pick([-1, 0, 0, 1]))
                return ISO8601Timestamp.format(Timestamp(nanosecondsSince1970: nanoseconds))
            default:
                return "?"
            }
        }

        /// A string an item's attribute has, changed a little (case, accents, cut).
        mutating func text(_ attribute: MetadataAttribute) -> String {
            let item = pick(items)
            var text: String
            switch item.value(of: attribute) {
            case .string(let string): text = string
            default: text = pick(PredicateSQLAgreementTests.errors)
            }
            let scalars = Array(text.unicodeScalars)
            switch Int.random(in: 0..<8, using: &random) {
            case 0: text = text.uppercased()
            case 1: text = text.lowercased()
            case 2: text = TextFolding.fold(text, .diacriticInsensitive)
            case 3 where !scalars.isEmpty:
                let cut = Int.random(in: 0...scalars.count, using: &random)
                text = String(String.UnicodeScalarView(scalars[..<cut]))
            case 4 where !scalars.isEmpty:
                let cut = Int.random(in: 0...scalars.count, using: &random)
                text = String(String.UnicodeScalarView(scalars[cut...]))
            case 5: text = pick(PredicateSQLAgreementTests.words)
            default: break
            }
            return text
        }

        /// A LIKE pattern made from an item's string: some scalars become `?`, some runs `*`,
        /// literal `*`, `?` and `\` are escaped.
        mutating func likePattern(_ attribute: MetadataAttribute) -> String {
            var pattern = ""
            var skipping = false
            for scalar in text(attribute).unicodeScalars {
                if skipping {
                    if chance(30) { skipping = false } else { continue }
                }
                switch Int.random(in: 0..<12, using: &random) {
                case 0: pattern += "?"
                case 1:
                    pattern += "*"
                    skipping = true
                default:
                    if scalar == "*" || scalar == "?" || scalar == "\\" { pattern += "\\" }
                    pattern.unicodeScalars.append(scalar)
                }
            }
            if chance(20) { pattern = "*" + pattern }
            if chance(20) { pattern += "*" }
            return pattern
        }

        mutating func regex(_ attribute: MetadataAttribute) -> String {
            if chance(50) {
                return pick([".*\\.pdf", ".*", "[a-z]+.*", "(?i)report.*", "caf.*", ".*é.*", "\\Q*\\E.*", "re.*|.*PDF", "\\w+", ".",
                             ".*[?*].*", "(?x) r e .*", "\\Qa*b", ".*\\d{4}.*", "[^/]*", ".*/.*"])
            }
            // An item's string, quoted, with a wildcard at either end.
            var pattern = NSRegularExpressionEscape.escape(text(attribute))
            if chance(50) { pattern = ".*" + pattern }
            if chance(50) { pattern += ".*" }
            return pattern
        }

        mutating func stringComparison(_ attribute: MetadataAttribute) -> String {
            let modifier = pick(["", "", "[c]", "[d]", "[cd]"])
            func quoted(_ string: String) -> String { MetadataValue.string(string).description }
            switch Int.random(in: 0..<11, using: &random) {
            case 0, 1:
                let op = pick(["==", "!=", "<", "<=", ">", ">=", "=", "<>"])
                if attribute.isOptional, chance(25) { return chance(50) ? "\(attribute) \(pick(["==", "!="])) nil" : "nil \(pick(["==", "!="])) \(attribute)" }
                return chance(20) ? "\(quoted(text(attribute))) \(op)\(modifier) \(attribute)" : "\(attribute) \(op)\(modifier) \(quoted(text(attribute)))"
            case 2: return "\(attribute) BEGINSWITH\(modifier) \(quoted(text(attribute)))"
            case 3: return "\(attribute) ENDSWITH\(modifier) \(quoted(text(attribute)))"
            case 4: return "\(attribute) CONTAINS\(modifier) \(quoted(text(attribute)))"
            case 5, 6, 7: return "\(attribute) LIKE\(modifier) \(quoted(likePattern(attribute)))"
            case 8: return "\(attribute) MATCHES\(modifier) \(quoted(regex(attribute)))"
            case 9: return "\(attribute) IN\(modifier) {\((0..<Int.random(in: 0...3, using: &random)).map { _ in quoted(text(attribute)) }.joined(separator: ", "))}"
            default: return "\(attribute) BETWEEN\(modifier) {\(quoted(text(attribute))), \(quoted(text(attribute)))}"
            }
        }
    }

    // MARK: the test

    /// A few items, with the values of the attributes `text` names.
    static func show(_ items: [IndexItem], _ text: String) -> String {
        let named = MetadataAttribute.allCases.filter { text.contains($0.rawValue) }
        return items.prefix(3).map { item in
            "\(item.recordName) {" + named.map { "\($0): \(item.value(of: $0))" }.joined(separator: ", ") + "}"
        }.joined(separator: "; ") + (items.count > 3 ? " and \(items.count - 3) more" : "")
    }

    /// Half a minute of work in a debug build: it yields after each predicate, so that it
    /// never holds one of the test run's few threads for long (engine tests wait on them).
    @Test func sqliteSelectsWhatTheEvaluatorSelects() async throws {
        let seed: UInt64 = 0xD0C5_2026
        var random = SeededRandom(seed: seed)
        let items = (0..<2_000).map { Self.randomItem($0, &random) }
        let index = try LocalIndex(url: directory.url.appendingPathComponent("index.sqlite"))
        try index.write { db in
            for item in items { try item.insert(db) }
        }
        // Evaluate what the index holds, as read back.
        let stored = try index.read { db in try db.items(under: nil) }
        #expect(Set(stored) == Set(items))
        let live = stored.filter { $0.pending != .delete }
        // A metadata query's narrow rows carry what the whole rows do.
        let metadata = try index.metadata(matching: MetadataPredicate(parsing: "TRUEPREDICATE"))
        #expect(Set(metadata) == Set(live.map { MetadataItem($0) }))
        #expect(metadata.contains { $0.lastEditorName != nil } && metadata.contains { $0.lastEditorName == nil })

        var writer = PredicateWriter(random: random, items: items)
        var selectedSomething = 0, selectedNotEverything = 0
        for number in 0..<500 {
            await Task.yield()
            let text = writer.predicate()
            let predicate: MetadataPredicate
            do {
                predicate = try MetadataPredicate(parsing: text)
            } catch {
                Issue.record("seed \(seed) #\(number): \(text) does not parse: \(error)")
                continue
            }
            let expected = Set(live.filter { predicate.evaluate($0) }.map(\.recordName))
            let selected = try index.items(matching: predicate).map(\.recordName)
            #expect(selected.count == Set(selected).count)
            let got = Set(selected)
            let agree = got == expected
            #expect(agree, """
                seed \(seed) #\(number): \(text)
                parsed as \(predicate)
                SQL: \(Database.query("*", predicate, limit: nil).0)
                only SQL: \(Self.show(live.filter { got.subtracting(expected).contains($0.recordName) }, text))
                only the evaluator: \(Self.show(live.filter { expected.subtracting(got).contains($0.recordName) }, text))
                """)
            if !expected.isEmpty { selectedSomething += 1 }
            if expected.count < live.count { selectedNotEverything += 1 }
        }
        // The predicates discriminate: most select some items and leave others.
        #expect(selectedSomething > 250 && selectedNotEverything > 250, "\(selectedSomething) / \(selectedNotEverything)")
    }
}

/// `NSRegularExpression.escapedPattern(for:)` without Foundation's name clash worries.
enum NSRegularExpressionEscape {
    static func escape(_ text: String) -> String {
        var pattern = ""
        for scalar in text.unicodeScalars {
            if "\\^$.|?*+()[]{}".unicodeScalars.contains(scalar) { pattern += "\\" }
            pattern.unicodeScalars.append(scalar)
        }
        return pattern
    }
}
