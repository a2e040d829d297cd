import DocSyncCore
import DocSyncStorage
import DocSyncTestSupport
import Foundation
import Testing

/// `store.toml`: the embedded store's settings in its directory.
@Suite struct StoreSettingsTests {
    @Test(arguments: [("30d", 2_592_000.0), ("12h", 43_200), ("90m", 5_400), ("45s", 45), ("2w", 1_209_600), ("1.5h", 5_400),
                      ("3600", 3_600), ("0", 0), (" 7D ", 604_800)])
    func durationsAreANumberAndAUnit(_ text: String, _ seconds: Double) {
        #expect(StoreDuration.parse(text) == seconds)
    }

    @Test(arguments: ["", "d", "-1d", "1x", "1 day", "1e3", "nan", "1.2.3h"])
    func otherTextIsNoDuration(_ text: String) {
        #expect(StoreDuration.parse(text) == nil)
    }

    @Test func durationsAreDescribedInTheirLargestWholeUnit() {
        #expect(StoreDuration.describe(2_592_000) == "30d")
        #expect(StoreDuration.describe(5_400) == "90m")
        #expect(StoreDuration.describe(1_209_600) == "2w")
        #expect(StoreDuration.describe(1.5) == "1.5s")
    }

    @Test func aFileSetsWhatItNamesAndLeavesTheRestToTheDefaults() throws {
        let settings = try StoreSettingsFile.parse("""
            # comment
            deleted_retention = "7d"   # a week
            gc_grace = 600

            """, source: "store.toml")
        #expect(settings == StoreSettings(deletedRetention: 604_800, collectionGrace: 600))
        #expect(try StoreSettingsFile.parse(StoreSettingsFile.template, source: "t") == StoreSettings(), "the template sets nothing")
    }

    @Test(arguments: [
        ("retention = \"7d\"", "store.toml:2: unknown key retention"),
        ("gc_interval = \"soon\"", "store.toml:2: gc_interval = \"soon\" is not a duration"),
        ("gc_grace = true", "store.toml:2: gc_grace must be a duration"),
        ("gc_grace = \"1h\"\ngc_grace = \"2h\"", "store.toml:3: gc_grace is set twice"),
        ("[store]", "store.toml:2: \"[store]\" is not `key = value`"),
    ])
    func aBadLineIsRefusedNamingTheLineAndTheKey(_ line: String, _ message: String) {
        let error = #expect(throws: SyncError.self) { try StoreSettingsFile.parse("# settings\n" + line, source: "store.toml") }
        #expect(error?.code == .invalidArguments)
        #expect(error?.message.hasPrefix(message) == true, "\(error?.message ?? "")")
    }

    @Test func aNewStoreGetsTheTemplateAndReadsItsFile() throws {
        let directory = try TemporaryDirectory("docsync-store-settings")
        let first = try LocalBackend(directory: directory.url, options: .init(collectsOnSchedule: false))
        #expect(first.settings == StoreSettings())
        let file = directory.url.appendingPathComponent(StoreSettingsFile.name)
        #expect(try String(contentsOf: file, encoding: .utf8) == StoreSettingsFile.template)
        try Data("deleted_retention = \"2h\"\ngc_interval = \"0\"\n".utf8).write(to: file)
        let second = try LocalBackend(directory: directory.url, options: .init(collectsOnSchedule: false))
        #expect(second.settings == StoreSettings(deletedRetention: 7_200, collectionInterval: 0))
        try Data("deleted_retention = \"forever\"\n".utf8).write(to: file)
        let error = #expect(throws: SyncError.self) { try LocalBackend(directory: directory.url) }
        #expect(error?.code == .invalidArguments && error?.message.contains("store.toml:1: deleted_retention") == true, "\(String(describing: error))")
        // Settings given by the opener (docsync-server's) win over the file.
        let given = try LocalBackend(directory: directory.url, options: .init(settings: StoreSettings(deletedRetention: 60), collectsOnSchedule: false))
        #expect(given.settings.deletedRetention == 60)
    }
}
