import ArgumentParser
import DocSyncCore
import DocSyncServer
import Foundation

/// `docsync-server user add|token|list`: accounts and device tokens in the data directory.
/// Works while the server runs.
struct UserCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "user",
        abstract: "Create users and issue device tokens.",
        subcommands: [AddUser.self, IssueToken.self, ListUsers.self]
    )
}

/// Where the user commands find the data directory: `--data`, or the configuration file's `data`.
struct DataOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp("The data directory (as given to serve).", valueName: "dir"))
    var data: String?

    @Option(name: .long, help: ArgumentHelp("A configuration file whose `data` key names the data directory.", valueName: "file"))
    var config: String?

    func store() throws -> UserStore {
        do {
            var overrides = ServerConfiguration.Overrides(data: data)
            // Only the data directory matters here: keep a non-loopback listen from refusing.
            overrides.listen = "127.0.0.1:0"
            overrides.tlsCertificate = nil
            let configuration = try ServerConfiguration.load(file: config, overrides: overrides)
            return try UserStore(dataDirectory: configuration.dataDirectory)
        } catch let error as ServerConfigurationError {
            complain(error.message)
            throw ExitCode(2)
        } catch {
            complain("\(error)")
            throw ExitCode(1)
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

    @OptionGroup var options: DataOptions

    func run() throws {
        try options.perform { (store) throws(SyncError) in [try store.addUser(name)] }
    }
}

struct IssueToken: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "token", abstract: "Issue another device token for an existing user (one line on stdout).")

    @Argument(help: "The user's name.")
    var name: String

    @OptionGroup var options: DataOptions

    func run() throws {
        try options.perform { (store) throws(SyncError) in [try store.addToken(for: name)] }
    }
}

struct ListUsers: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "list", abstract: "List the users and how many tokens each has.")

    @OptionGroup var options: DataOptions

    func run() throws {
        try options.perform { (store) throws(SyncError) in
            try store.users().map { "\($0.name)\t\($0.tokens) token\($0.tokens == 1 ? "" : "s")" }
        }
    }
}
