import AsyncHTTPClient
import DocSyncCore
import DocSyncHTTP
import DocSyncStorage
import DocSyncTestSupport
import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import NIOHTTP1
import ServiceLifecycle
import Synchronization

/// A malicious docsync-server for real daemons (SPEC §13): an HTTP relay on a loopback port in
/// front of a real server. It forwards every request and streams every answer back (the push
/// stream too) and, once armed, rewrites the pages of changes it forwards (`Attack`). It keeps
/// every request a device sent through it, so a test can search what reached "the server", and
/// every sealed record it saw in a page, so it can replay one.
final class TamperingRelay: Sendable {
    /// What the relay does to the pages of changes it forwards.
    enum Attack: Sendable {
        /// The next page of an encrypted zone that holds a new version of a record the relay
        /// saw before serves it with the sealed blob (and chunk list and size) of another record
        /// it saw; once.
        case swapBlobs
        /// The next page of an encrypted zone that holds a new version of a record the relay
        /// saw before serves the oldest version it saw instead; once.
        case replayOlderVersion
        /// Every page of the key directory (`~docsync.keys`) is served empty: the account looks
        /// as if it had never been encrypted.
        case hideKeyDirectory
        /// Every device announcement in the key directory that no trust entry names is served
        /// as the announcement of `impostor`, named `name` (sealed for the account's public key,
        /// which anyone can): a trusted device then computes the impostor's approval code.
        case substituteNewDevices(impostor: PublicKeys, name: String)
        /// Every page of an account's public key store (`~docsync.public`, its own or another
        /// account's) serves `impostor`'s account statement in place of the account's: a
        /// participant sees the impostor as the owner, an owner the impostor as the participant.
        case substitutePublicKeys(impostor: AccountKeys)
    }

    /// A request a device sent through the relay.
    struct Exchange: Sendable {
        var method: String
        /// The path and query.
        var target: String
        var body: Data
    }

    private struct State {
        var attack: Attack?
        /// Pages the armed attack changed.
        var tampered = 0
        /// Every sealed record seen in a page of an encrypted zone, by record name, oldest first.
        var history: [String: [Record]] = [:]
        var exchanges: [Exchange] = []
    }

    /// `http://127.0.0.1:PORT`: what a daemon is given as its backend.
    let url: URL
    let upstream: URL
    private let state = Mutex(State())
    private let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: .init(redirectConfiguration: .disallow))
    private let running = Mutex<(group: ServiceGroup, task: Task<Void, any Error>)?>(nil)

    private init(url: URL, upstream: URL) {
        self.url = url
        self.upstream = upstream
    }

    /// Starts a relay to `upstream` on a free loopback port.
    static func start(upstream: URL) async throws -> TamperingRelay {
        let (ports, port) = AsyncStream.makeStream(of: Int.self)
        // The relay answers on a port not known before it listens; the responder reaches it
        // through this box, filled before the first request can arrive.
        let box = Synchronized<TamperingRelay?>(nil)
        let responder = CallbackResponder<BasicRequestContext> { request, _ in
            guard let relay = box.value else { return Response(status: .serviceUnavailable) }
            return try await relay.relay(request)
        }
        var logger = Logger(label: "test.tampering-relay")
        logger.logLevel = .warning
        let app = Application(responder: responder, configuration: .init(address: .hostname("127.0.0.1", port: 0), serverName: "tampering-relay"),
                              onServerRunning: { channel in
                                  port.yield(channel.localAddress?.port ?? 0)
                                  port.finish()
                              }, logger: logger)
        let group = ServiceGroup(configuration: .init(services: [app], gracefulShutdownSignals: [], logger: logger))
        let task = Task { try await group.run() }
        var iterator = ports.makeAsyncIterator()
        guard let bound = await iterator.next(), bound > 0 else {
            await group.triggerGracefulShutdown()
            _ = try? await task.value
            throw ServerProcessError("the tampering relay did not start listening")
        }
        let relay = TamperingRelay(url: URL(string: "http://127.0.0.1:\(bound)")!, upstream: upstream)
        box.update { $0 = relay }
        relay.running.withLock { $0 = (group, task) }
        return relay
    }

    /// Arms `attack` (`nil`: relays faithfully from now on).
    func arm(_ attack: Attack?) { state.withLock { $0.attack = attack } }

    /// How many pages the attacks armed so far changed.
    var tampered: Int { state.withLock { $0.tampered } }

    /// Every request sent through the relay so far, oldest first.
    var exchanges: [Exchange] { state.withLock { $0.exchanges } }

    /// Stops relaying: the upstream requests under way (push streams) end, then the listener.
    func stop() async {
        try? await client.shutdown()
        guard let run = running.withLock({ running in defer { running = nil }; return running }) else { return }
        await run.group.triggerGracefulShutdown()
        _ = try? await run.task.value
    }

    // MARK: relaying

    /// Headers that belong to one connection, not to the request or answer relayed.
    private static let hopByHop: Set<String> = ["connection", "keep-alive", "transfer-encoding", "content-length", "host", "te", "trailer", "upgrade",
                                                "proxy-connection"]

    private func relay(_ request: Request) async throws -> Response {
        let target = request.uri.description
        var outgoing = HTTPClientRequest(url: upstream.absoluteString + target)
        outgoing.method = HTTPMethod(rawValue: request.method.rawValue)
        for field in request.headers where !Self.hopByHop.contains(field.name.canonicalName) {
            outgoing.headers.add(name: field.name.rawName, value: field.value)
        }
        let body = try await request.body.collect(upTo: 1 << 30)
        if body.readableBytes > 0 { outgoing.body = .bytes(body) }
        state.withLock { $0.exchanges.append(Exchange(method: request.method.rawValue, target: target, body: Data(body.readableBytesView))) }
        let streaming = request.uri.path == WireRoute.notifications
        let answer = try await client.execute(outgoing, timeout: streaming ? .hours(1) : .minutes(5))
        var headers = HTTPFields()
        for (name, value) in answer.headers where !Self.hopByHop.contains(name.lowercased()) {
            if let field = HTTPField.Name(name) { headers.append(HTTPField(name: field, value: value)) }
        }
        let status = HTTPResponse.Status(code: Int(answer.status.code))
        if request.method == .get, answer.status == .ok, let zone = Self.changesZone(request.uri.path) {
            let page = try await answer.body.collect(upTo: 1 << 30)
            return Response(status: status, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: tamper(Data(page.readableBytesView), in: zone))))
        }
        return Response(status: status, headers: headers, body: ResponseBody(asyncSequence: answer.body))
    }

    /// The zone of a `GET` of a zone's changes: the caller's own (`/v1/zones/ZONE/changes`) or
    /// another account's (`/v1/shared/OWNER/zones/ZONE/changes`).
    private static func changesZone(_ path: String) -> ZoneID? {
        var parts = path.split(separator: "/")
        if parts.count == 6, parts[0] == "v1", parts[1] == "shared" { parts.removeSubrange(1 ... 2) }
        guard parts.count == 4, parts[0] == "v1", parts[1] == "zones", parts[3] == "changes",
              let name = String(parts[2]).removingPercentEncoding else { return nil }
        return ZoneID(name)
    }

    // MARK: attacks

    /// The page `body` of `zone` as the armed attack serves it (noting its sealed records first).
    private func tamper(_ body: Data, in zone: ZoneID) -> Data {
        guard let page = try? WireCoding.decoder.decode(ChangeSet.self, from: body) else { return body }
        let forged = state.withLock { state -> ChangeSet? in
            if zone.name.hasPrefix("e.") {
                for record in page.changed where record.type == .sealed && state.history[record.id.recordName]?.last != record {
                    state.history[record.id.recordName, default: []].append(record)
                }
            }
            guard let attack = state.attack, let forged = Self.forge(page, in: zone, by: attack, history: state.history) else { return nil }
            state.tampered += 1
            switch attack {
            case .swapBlobs, .replayOlderVersion: state.attack = nil
            case .hideKeyDirectory, .substituteNewDevices, .substitutePublicKeys: break
            }
            return forged
        }
        guard let forged else { return body }
        return (try? WireCoding.encoder.encode(forged)) ?? body
    }

    /// `page` as `attack` serves it, `nil` when the attack leaves it as it is.
    private static func forge(_ page: ChangeSet, in zone: ZoneID, by attack: Attack, history: [String: [Record]]) -> ChangeSet? {
        var forged = page
        switch attack {
        case .swapBlobs, .replayOlderVersion:
            guard zone.name.hasPrefix("e.") else { return nil }
            // A new version of a record seen before (the page's own version is noted already).
            let known = page.changed.indices.filter { (history[page.changed[$0].id.recordName]?.count ?? 0) >= 2 }
            guard !known.isEmpty else { return nil }
            for index in known {
                let victim = page.changed[index]
                if case .replayOlderVersion = attack {
                    forged.changed[index] = history[victim.id.recordName]![0]
                    continue
                }
                guard let source = history.first(where: { $0.key != victim.id.recordName })?.value.last else { return nil }
                forged.changed[index].sealed = source.sealed
                forged.changed[index].asset = source.asset
                forged.changed[index].size = source.size
            }
        case .hideKeyDirectory:
            guard zone.name == "~" + KeyDirectory.storeName, !(page.changed.isEmpty && page.deleted.isEmpty) else { return nil }
            forged.changed = []
            forged.deleted = []
        case let .substituteNewDevices(impostor, name):
            guard zone.name == "~" + KeyDirectory.storeName else { return nil }
            var values: [String: JSONValue] = [:]
            for record in page.changed { if let key = record.keyValueKey, let value = record.jsonValue { values[key.name] = value } }
            guard let account = try? KeyDirectory(values: values).accountPublicKeys(),
                  let announcement = try? AccountKeys.announcing(impostor, name: name, to: account).values.first,
                  let value = announcement.value else { return nil }
            return replacing(in: page, store: KeyDirectory.storeName, with: (announcement.key, value)) { key in
                key.hasPrefix("d.") && values["t." + String(key.dropFirst(2))] == nil
            }
        case let .substitutePublicKeys(impostor):
            guard zone.name == "~" + KeyDirectory.publicStoreName,
                  let statement = try? impostor.enabling(recoveryKey: RecoveryKey(), device: EncryptionKeyPair().publicKeys, name: "impostor")
                  .values[KeyDirectory.accountKey], let value = statement else { return nil }
            return replacing(in: page, store: KeyDirectory.publicStoreName, with: (KeyDirectory.accountKey, value)) { $0 == KeyDirectory.accountKey }
        }
        return forged
    }

    /// `page` of the key-value store `store` with every value whose key `matches` served as
    /// `substitute` (its key and value, under the replaced record's change tag); `nil` when
    /// no key matches.
    private static func replacing(in page: ChangeSet, store: String, with substitute: (key: String, value: JSONValue),
                                  where matches: (String) -> Bool) -> ChangeSet? {
        var forged = page, changed = false
        forged.changed = page.changed.map { record in
            guard let key = record.keyValueKey?.name, matches(key) else { return record }
            changed = true
            var replaced = Record.value(substitute.value, for: KeyValueKey(substitute.key), in: KeyValueStoreID(store),
                                        modified: record.modified, device: record.lastModifiedBy)
            replaced.changeTag = record.changeTag
            return replaced
        }
        return changed ? forged : nil
    }
}
