import ArgumentParser
import DocSyncCore
import DocSyncScaleOut
import DocSyncServer
import Foundation

/// `docsync-server migrate --from DATA_DIR --to CONFIG`: moves a one-machine server onto
/// the scale-out store its configuration names (`ServerMigration`). Run it with the
/// one-machine server stopped, then start instances on the new store: devices go on where
/// they were.
struct MigrateCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "migrate",
        abstract: "Move a one-machine server's data directory onto a scale-out store (PostgreSQL + S3).",
        discussion: """
            Copies users, token hashes, quotas, zones, records, history, Recently Deleted, kept versions and chunks, \
            keeping change tags and positions, so devices continue without refetching or uploading again. \
            Stop the one-machine server first. The destination must be a store no server has used.
            Exit codes: 0 copied, 1 the copy failed (the line says why), 2 usage or configuration error.
            """)

    @Option(help: ArgumentHelp("The one-machine server's data directory.", valueName: "dir"))
    var from: String

    @Option(help: ArgumentHelp("A configuration file whose [storage] table names the scale-out store.", valueName: "file"))
    var to: String?

    @OptionGroup var scaleOut: ScaleOutOptions

    func run() async throws {
        let source = ServerConfiguration.url(from)
        guard FileManager.default.fileExists(atPath: source.appendingPathComponent("users.sqlite").path) else {
            complain("\(source.path) is not a docsync-server data directory (it has no users.sqlite)")
            throw ExitCode(2)
        }
        let configuration: ServerConfiguration
        do {
            configuration = try ServerConfiguration.load(file: to, overrides: .init(
                records: scaleOut.records, chunks: scaleOut.chunks, credentials: scaleOut.s3Credentials, listen: "127.0.0.1:0"))
        } catch {
            complain(error.message)
            throw ExitCode(2)
        }
        guard configuration.scaleOut != nil else {
            complain("the destination names no scale-out store; give --to FILE with a [storage] table (records and chunks), or --records and --chunks")
            throw ExitCode(2)
        }
        let store: any ServerStore
        do { store = try await configuration.openStore() } catch {
            complain(error.message)
            throw ExitCode(error.code == .invalidArguments ? 2 : 1)
        }
        guard let destination = (store as? ScaleOutServerStore)?.store else { throw ExitCode(2) }
        do throws(SyncError) {
            let report = try await ServerMigration(dataDirectory: source, destination: destination).run { say($0) }
            say("migrated \(report.summary)")
        } catch {
            await store.shutdown()
            complain(error.message)
            throw ExitCode(1)
        }
        await store.shutdown()
    }
}
