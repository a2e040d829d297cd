import ArgumentParser
import DocSyncCore
import DocSyncServer
import DocSyncStorage
import Foundation

/// `docsync-server gc [--user NAME]`: collects every user's storage now (or one user's),
/// as the server's schedule would: expired deleted records and versions, then chunks
/// nothing keeps, then sparse packs. Works while the server runs; a store another
/// collector is working on is waited for. Prints one line per user (`nothing stored yet`
/// for one whose devices never connected).
struct CollectCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "gc",
        abstract: "Collect garbage now: expired Recently Deleted and versions, unreferenced chunks, sparse packs.",
        discussion: "Exit codes: 0 every store collected, 1 a collection failed or stopped early (the line says why), 2 usage or configuration error.")

    @Option(help: ArgumentHelp("Collect only this user's storage.", valueName: "name"))
    var user: String?

    @Option(help: ArgumentHelp("How long to wait for another collector of the same store before giving up.", valueName: "seconds"))
    var wait: Double = 600

    @Flag(help: "Print each user's report as one line of JSON ({\"user\": …, \"report\": …}) instead of a sentence.")
    var json = false

    @OptionGroup var options: DataOptions

    @OptionGroup var store: StoreOptions

    func run() async throws {
        let server = try await options.store(settings: store.overrides)
        var failed = false
        do {
            let reports = try await server.collect(user: user, waiting: wait)
            for (name, report) in reports {
                guard let report else {
                    say("\(name): nothing stored yet")
                    continue
                }
                say(json ? try Self.jsonLine(user: name, report) : "\(name): \(report.summary)")
                if report.stoppedBecause != nil || !report.ran { failed = true }
            }
        } catch {
            await server.shutdown()
            complain(error.message)
            throw ExitCode(error.code == .invalidArguments ? 2 : 1)
        }
        await server.shutdown()
        if failed { throw ExitCode(1) }
    }

    static func jsonLine(user: String, _ report: GarbageCollectionReport) throws(SyncError) -> String {
        struct Line: Encodable { let user: String; let report: GarbageCollectionReport }
        do { return String(decoding: try WireCoding.encoder.encode(Line(user: user, report: report)), as: UTF8.self) } catch {
            throw SyncError(.internalError, "cannot encode the report of \(user): \(error)")
        }
    }
}
