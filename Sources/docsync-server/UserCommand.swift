import ArgumentParser
import DocSyncCore
import DocSyncServer
import DocSyncStorage
import Foundation

/// `docsync-server user add|token|quota|list`: accounts, device tokens and quotas in the
/// server's store (the data directory, or the scale-out store). Works while the server runs.
struct UserCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "user",
        abstract: "Create users, issue device tokens, set storage quotas.",
        subcommands: [AddUser.self, IssueToken.self, SetQuota.self, ListUsers.self]
    )
}

/// Where the user commands find the store: `--data`, `--records`/`--chunks`, or the
/// configuration file's `data` or `[storage]`.
struct DataOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp("The data directory (as given to serve).", valueName: "dir"))
    var data: String?

    @OptionGroup var scaleOut: ScaleOutOptions

    @Option(name: .long, help: ArgumentHelp("A configuration file whose `data` key or [storage] table names the store.", valueName: "file"))
    var config: String?

    /// Opens the store the configuration names (exit 2 for a configuration error, 1 when
    /// the store cannot be opened).
    func store(settings store: [String: String] = [:]) async throws -> any ServerStore {
        let configuration = try configuration(store: store)
        do {
            return try await configuration.openStore()
        } catch {
            complain(error.message)
            throw ExitCode(error.code == .invalidArguments ? 2 : 1)
        }
    }

    /// The configuration (file, then flags): what matters here is where the store is and
    /// its settings. A configuration error exits with 2.
    func configuration(store: [String: String] = [:]) throws -> ServerConfiguration {
        do {
            var overrides = ServerConfiguration.Overrides(data: data, records: scaleOut.records, chunks: scaleOut.chunks,
                                                          credentials: scaleOut.s3Credentials, store: store)
            // Only the store matters here: keep a non-loopback listen from refusing.
            overrides.listen = "127.0.0.1:0"
            overrides.tlsCertificate = nil
            return try ServerConfiguration.load(file: config, overrides: overrides)
        } catch {
            complain(error.message)
            throw ExitCode(2)
        }
    }
}

/// The flags that name a scale-out store instead of a data directory.
struct ScaleOutOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp("The scale-out store's database: postgres://USER:PASSWORD@HOST:PORT/DB (the password may come from PGPASSWORD).", valueName: "url"))
    var records: String?

    @Option(name: .long, help: ArgumentHelp("The scale-out store's chunks: s3://BUCKET?endpoint=http://HOST:PORT&region=REGION.", valueName: "url"))
    var chunks: String?

    @Option(name: .customLong("s3-credentials"),
            help: ArgumentHelp("A file with the S3 access_key and secret_key (else S3_ACCESS_KEY/S3_SECRET_KEY or AWS_… from the environment).", valueName: "file"))
    var s3Credentials: String?
}

extension DataOptions {
    /// Opens the store, runs `body` and prints its lines on stdout; a `SyncError` goes to
    /// stderr with exit status 1.
    func perform(_ body: (any ServerStore) async throws(SyncError) -> [String]) async throws {
        let store = try await store()
        do {
            for line in try await body(store) { say(line) }
        } catch {
            await store.shutdown()
            complain(error.message)
            throw ExitCode(1)
        }
        await store.shutdown()
    }
}

struct AddUser: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "add", abstract: "Create a user; prints its first device token (one line on stdout).")

    @Argument(help: "The user's name: lowercase letters, digits, '.', '_' and '-'.")
    var name: String

    @Option(help: ArgumentHelp("The device the token is for: what Recently Deleted names as the deleting device.", valueName: "name"))
    var device: String?

    @OptionGroup var options: DataOptions

    func run() async throws {
        try await options.perform { (store) async throws(SyncError) in [try await store.addUser(name, device: device)] }
    }
}

struct IssueToken: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "token", abstract: "Issue another device token for an existing user (one line on stdout).")

    @Argument(help: "The user's name.")
    var name: String

    @Option(help: ArgumentHelp("The device the token is for: what Recently Deleted names as the deleting device.", valueName: "name"))
    var device: String?

    @OptionGroup var options: DataOptions

    func run() async throws {
        try await options.perform { (store) async throws(SyncError) in [try await store.addToken(for: name, device: device)] }
    }
}

struct ListUsers: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "list", abstract: "List the users and how many tokens each has.")

    @OptionGroup var options: DataOptions

    func run() async throws {
        try await options.perform { (store) async throws(SyncError) in
            try await store.users().map { user in
                let quota = user.quotaBytes.map { "quota \(StorageSizeText.describe($0))" } ?? "no quota"
                return "\(user.name)\t\(user.tokens) token\(user.tokens == 1 ? "" : "s")\t\(quota)"
            }
        }
    }
}
