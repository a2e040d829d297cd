import ArgumentParser
import DocSyncCore
import DocSyncServer
import DocSyncStorage
import Foundation

/// `docsync-server user add|token|quota|list`: accounts, device tokens and quotas in the
/// data directory. Works while the server runs.
struct UserCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "user",
        abstract: "Create users, issue device tokens, set storage quotas.",
        subcommands: [AddUser.self, IssueToken.self, SetQuota.self, ListUsers.self]
    )
}

/// Where the user commands find the data directory: `--data`, or the configuration file's `data`.
struct DataOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp("The data directory (as given to serve).", valueName: "dir"))
    var data: String?

    @Option(name: .long, help: ArgumentHelp("A configuration file whose `data` key names the data directory.", valueName: "file"))
    var config: String?

    func store() throws -> UserStore {
        let configuration = try configuration()
        do {
            return try UserStore(dataDirectory: configuration.dataDirectory)
        } catch {
            complain("\(error)")
            throw ExitCode(1)
        }
    }

    /// The configuration (file, then `store` flags by key): what matters here is the data
    /// directory and the store settings. A configuration error exits with 2.
    func configuration(store: [String: String] = [:]) throws -> ServerConfiguration {
        do {
            var overrides = ServerConfiguration.Overrides(data: data, store: store)
            // Only the data directory matters here: keep a non-loopback listen from refusing.
            overrides.listen = "127.0.0.1:0"
            overrides.tlsCertificate = nil
            return try ServerConfiguration.load(file: config, overrides: overrides)
        } catch {
            complain(error.message)
            throw ExitCode(2)
        }
    }
}

extension DataOptions {
    /// Opens the store, runs `body` and prints its lines on stdout; a `SyncError` goes to
    /// stderr with exit status 1.
    func perform(_ body: (UserStore) throws(SyncError) -> [String]) throws {
        let store = try store()
        do {
            for line in try body(store) { say(line) }
        } catch {
            complain(error.message)
            throw ExitCode(1)
        }
    }
}

struct AddUser: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "add", abstract: "Create a user; prints its first device token (one line on stdout).")

    @Argument(help: "The user's name: lowercase letters, digits, '.', '_' and '-'.")
    var name: String

    @Option(help: ArgumentHelp("The device the token is for: what Recently Deleted names as the deleting device.", valueName: "name"))
    var device: String?

    @OptionGroup var options: DataOptions

    func run() throws {
        try options.perform { (store) throws(SyncError) in [try store.addUser(name, device: device)] }
    }
}

struct IssueToken: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "token", abstract: "Issue another device token for an existing user (one line on stdout).")

    @Argument(help: "The user's name.")
    var name: String

    @Option(help: ArgumentHelp("The device the token is for: what Recently Deleted names as the deleting device.", valueName: "name"))
    var device: String?

    @OptionGroup var options: DataOptions

    func run() throws {
        try options.perform { (store) throws(SyncError) in [try store.addToken(for: name, device: device)] }
    }
}

struct ListUsers: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "list", abstract: "List the users and how many tokens each has.")

    @OptionGroup var options: DataOptions

    func run() throws {
        try options.perform { (store) throws(SyncError) in
            try store.users().map { user in
                let quota = user.quotaBytes.map { "quota \(StorageSizeText.describe($0))" } ?? "no quota"
                return "\(user.name)\t\(user.tokens) token\(user.tokens == 1 ? "" : "s")\t\(quota)"
            }
        }
    }
}
