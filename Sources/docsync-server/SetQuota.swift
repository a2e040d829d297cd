import ArgumentParser
import DocSyncCore
import DocSyncServer
import DocSyncStorage
import Foundation

/// `docsync-server user quota NAME [SIZE|none]`: how much a user may store — live files,
/// Recently Deleted and replaced versions. Without SIZE it prints the quota and the usage.
/// Takes effect at once, also while the server runs.
struct SetQuota: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "quota",
        abstract: "Set a user's storage quota (e.g. 10GB, 500MiB; none removes it), or show it with the usage.",
        discussion: "What counts is everything the user's storage keeps: live files, Recently Deleted and replaced versions. Over it, uploads and saves are answered 507 quotaExceeded.")

    @Argument(help: "The user's name.")
    var name: String

    @Argument(help: ArgumentHelp("The quota: a number with B, KB, MB, GB, TB (powers of 1000) or KiB, MiB, GiB, TiB; `none` for no limit.", valueName: "size"))
    var size: String?

    @OptionGroup var options: DataOptions

    func run() async throws {
        var bytes: Int64??
        if let size {
            if size.lowercased() == "none" {
                bytes = .some(nil)
            } else if let parsed = QuotaSize.parse(size) {
                bytes = parsed
            } else {
                complain("\(size.debugDescription) is not a size; write e.g. 10GB, 500MiB or none")
                throw ExitCode(2)
            }
        }
        let name = self.name
        try await options.perform { (store) async throws(SyncError) in
            if let bytes { try await store.setQuota(bytes, for: name) }
            guard try await store.users().contains(where: { $0.name == name }) else {
                throw SyncError(.invalidArguments, "there is no user \(name.debugDescription); create it with `docsync-server user add \(name)`")
            }
            let used = try await store.storedBytes(of: name)
            let quota = try await store.quota(of: name)
            return ["\(name): \(StorageSizeText.describe(used)) used of \(quota.map(StorageSizeText.describe) ?? "no quota")"]
        }
    }
}

/// Quota sizes as `user quota` takes them: a number (fractions allowed) and a unit, or bytes.
enum QuotaSize {
    static let multipliers: [(unit: String, bytes: Double)] = [
        ("KIB", 1024), ("MIB", 1_048_576), ("GIB", 1_073_741_824), ("TIB", 1_099_511_627_776),
        ("KB", 1e3), ("MB", 1e6), ("GB", 1e9), ("TB", 1e12), ("B", 1),
    ]

    static func parse(_ text: String) -> Int64? {
        let compact = text.uppercased().filter { $0 != " " }
        let (number, factor) = multipliers.first { compact.hasSuffix($0.unit) }.map { (compact.dropLast($0.unit.count), $0.bytes) } ?? (Substring(compact), 1)
        guard !number.isEmpty, number.allSatisfy({ $0.isNumber || $0 == "." }), let value = Double(number) else { return nil }
        let bytes = (value * factor).rounded()
        guard bytes >= 0, bytes < 9e18 else { return nil }
        return Int64(bytes)
    }
}
