import DocSyncControl
import DocSyncCore
import Foundation
import Hummingbird

/// The status page's routes (SPEC §15). Every answer comes from the daemon's control
/// handler, so the page and `docs-status` show and do the same things:
///
/// | route | what |
/// |---|---|
/// | `GET /` , `/app.js`, `/app.css`, `/favicon.ico` | the page |
/// | `GET /signin?token=T` | spends a `docs-status web` token: sets the session cookie, sends the browser to `/` |
/// | `GET /api/status` | `DaemonStatus` |
/// | `GET /api/stream` | server-sent events: `status` (a `DaemonStatus`, when it changes) and `event` (a `DaemonEvent`) |
/// | `GET /api/held`, `POST /api/held/restore`, `POST /api/held/confirm` `{folder}` | what the brake or a held folder keeps back |
/// | `GET /api/conflicts`, `POST /api/conflicts/resolve` `{folder, path, keep}` | conflicts, `keep` = `local`, `remote` or `both` |
/// | `GET /api/deleted`, `POST /api/deleted/recover` `{folder, path}` | Recently Deleted (the newest 500) |
/// | `GET /api/conflict-log` | the last 200 conflicts and how they ended |
/// | `GET /api/events` | the last 100 events |
/// | `GET /api/devices`, `GET /api/shares` | the account's devices and shares (`{"unavailable": why}` from a backend without shares) |
/// | `POST /api/pause`, `POST /api/resume` `{folder}` (no folder: all) | pause and resume |
/// | `GET /metrics` | Prometheus text |
struct WebRoutes: Sendable {
    let handler: DaemonControlHandler
    let page: WebPageState
    let latest: LatestFolderStatuses
    let metrics: @Sendable () -> String
    /// What `/metrics` also accepts as a bearer token (`STATE_DIR/metrics-token`).
    let metricsToken: String

    /// How many Recently Deleted entries and conflict-log entries the page lists.
    static let listedDeleted = 500
    static let listedConflictLog = 200

    struct FolderArgument: Decodable { var folder: String? }
    struct ItemArgument: Decodable {
        var folder: String
        var path: String
        var keep: ConflictKeep?
    }

    func router() -> Router<WebRequestContext> {
        let router = Router(context: WebRequestContext.self)
        router.add(middleware: WebGuard(page: page, metricsToken: metricsToken))
        router.get("/") { _, context in
            WebResponses.text(WebAssets.page(csrfToken: context.session?.csrfToken ?? ""), type: "text/html; charset=utf-8")
        }
        router.get("/app.js") { _, _ in WebResponses.text(WebAssets.script, type: "text/javascript; charset=utf-8") }
        router.get("/app.css") { _, _ in WebResponses.text(WebAssets.style, type: "text/css; charset=utf-8") }
        router.get("/favicon.ico") { _, _ in WebResponses.text(WebAssets.icon, type: "image/svg+xml") }
        router.get("/signin") { request, _ in signIn(request) }
        router.get("/metrics") { _, _ in WebResponses.text(metrics(), type: "text/plain; version=0.0.4; charset=utf-8") }
        router.get("/api/status") { _, _ in WebResponses.json(handler.status()) }
        router.get("/api/stream") { request, _ in
            WebEventStream(handler: handler, latest: latest).response(lastEventID: request.headers[WebEventStream.lastEventIDHeader])
        }
        router.get("/api/held") { _, _ in await call(.deletions(folder: nil, choice: nil)) }
        router.post("/api/held/restore") { request, _ in await held(request, .restore) }
        router.post("/api/held/confirm") { request, _ in await held(request, .confirm) }
        router.get("/api/conflicts") { _, _ in await call(.conflicts) }
        router.post("/api/conflicts/resolve") { request, _ in
            await item(request) { path, argument in .resolve(paths: [path], all: false, predicate: nil, keep: argument.keep ?? .both) }
        }
        router.get("/api/deleted") { _, _ in
            await call(.deleted(selection: DeletedSelection(), purge: false)) { response in
                guard case .deleted(let entries) = response else { return nil }
                return WebResponses.json(Array(entries.sorted { $0.deletedAt > $1.deletedAt }.prefix(Self.listedDeleted)))
            }
        }
        router.post("/api/deleted/recover") { request, _ in
            await item(request) { path, _ in .recover(selection: DeletedSelection(paths: [path])) }
        }
        router.get("/api/conflict-log") { _, _ in
            await call(.conflictLog(since: nil)) { response in
                guard case .conflictLog(let entries) = response else { return nil }
                return WebResponses.json(Array(entries.suffix(Self.listedConflictLog).reversed()))
            }
        }
        router.get("/api/events") { _, _ in await call(.events(since: nil, follow: false), collecting: true) }
        router.get("/api/devices") { _, _ in await call(.devices(action: nil)) }
        // A backend without shares (file://) is no failure of the page: `{"unavailable": why}`.
        router.get("/api/shares") { _, _ in
            await call(.shares) { response in
                guard case .failure(let code, let message) = response, code == ControlResponse.FailureCode.unsupported else { return nil }
                return WebResponses.json(["unavailable": message])
            }
        }
        router.post("/api/pause") { request, _ in
            await call(.pause(folder: await decode(FolderArgument.self, request)?.folder, seconds: nil))
        }
        router.post("/api/resume") { request, _ in
            await call(.resume(folder: await decode(FolderArgument.self, request)?.folder))
        }
        return router
    }

    private func signIn(_ request: Request) -> Response {
        guard let port = page.port, let token = request.uri.queryParameters.get("token"),
              let (id, _) = page.sessions.signIn(token) else {
            return WebResponses.text(WebAssets.signInSpentPage, type: "text/html; charset=utf-8", status: .unauthorized)
        }
        var response = Response(status: .seeOther, headers: [.location: "/"])
        response.setCookie(Cookie(name: WebGuard.cookieName(port: port), value: id, path: "/", httpOnly: true, sameSite: .strict))
        return response
    }

    private func held(_ request: Request, _ choice: HeldChoice) async -> Response {
        guard let argument = await decode(FolderArgument.self, request), let folder = argument.folder else {
            return WebResponses.problem(.badRequest, #"send {"folder": ID} as JSON"#)
        }
        return await call(.deletions(folder: folder, choice: choice))
    }

    /// A call on one item, named by its folder's id and its path in the folder.
    private func item(_ request: Request, _ make: (String, ItemArgument) -> ControlRequest) async -> Response {
        guard let argument = await decode(ItemArgument.self, request) else {
            return WebResponses.problem(.badRequest, #"send {"folder": ID, "path": PATH} as JSON"#)
        }
        // Named as the status names it: the zone's name (an encrypted folder's is opaque), or the configured id.
        let folder = handler.folders.first { $0.engine.configuration.zone.name == argument.folder } ?? handler.folders.first { $0.folder.id == argument.folder }
        guard let root = folder?.status().path else {
            return WebResponses.problem(.notFound, "no folder \(argument.folder)")
        }
        let relative = argument.path.split(separator: "/").filter { $0 != "." && !$0.isEmpty }
        guard !relative.isEmpty, !relative.contains("..") else {
            return WebResponses.problem(.badRequest, "\(argument.path) is not a path inside the folder")
        }
        return await call(make(root + "/" + relative.joined(separator: "/"), argument))
    }

    /// Answers with the handler's response: its payload as JSON (`shaped`, when given, picks
    /// it), or its failure as an HTTP error. With `collecting`, non-final responses (events)
    /// are gathered into a list.
    private func call(_ request: ControlRequest, collecting: Bool = false, shaped: (ControlResponse) -> Response? = { _ in nil }) async -> Response {
        let gathered = Gathered()
        let response = await handler.handle(request) { partial in
            if collecting, case .event(let event) = partial { gathered.append(event) }
        }
        if let shaped = shaped(response) { return shaped }
        switch response {
        case .failure(let code, let message): return WebResponses.failure(code: code, message: message)
        case .status(let status), .settled(let status): return WebResponses.json(status)
        case .items(let items): return WebResponses.json(items)
        case .actions(let outcomes): return WebResponses.json(outcomes)
        case .held(let folders): return WebResponses.json(folders)
        case .deleted(let entries): return WebResponses.json(entries)
        case .conflictLog(let entries): return WebResponses.json(entries)
        case .shares(let entries): return WebResponses.json(entries)
        case .encryption(let status): return WebResponses.json(status)
        case .eventsEnd: return WebResponses.json(gathered.events)
        default: return WebResponses.problem(.internalServerError, "unexpected answer \(response)")
        }
    }

    private func decode<T: Decodable>(_ type: T.Type, _ request: Request) async -> T? {
        guard let body = try? await request.body.collect(upTo: 64 * 1024), body.readableBytes > 0 else { return nil }
        return try? JSONDecoder().decode(T.self, from: Data(body.readableBytesView))
    }
}

/// Events a call streamed, gathered for one answer.
private final class Gathered: @unchecked Sendable {
    private let lock = NSLock()
    private var list: [DaemonEvent] = []
    func append(_ event: DaemonEvent) { lock.withLock { list.append(event) } }
    var events: [DaemonEvent] { lock.withLock { list } }
}
