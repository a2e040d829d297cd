import DocSyncControl
import DocSyncCore
import Foundation
import HTTPTypes
import Hummingbird
import ServiceLifecycle

/// The status page's live feed (`GET /api/stream`, server-sent events), so the page never
/// polls:
/// - `status`: the daemon's status (`DaemonStatus` JSON) at once, then whenever it changes;
///   it is built from the statuses the event recorder takes every half second, so an open
///   page costs no index query of its own;
/// - `event`: each `DaemonEvent` (with its id, so a reconnecting browser's `Last-Event-ID`
///   resumes after it): the last 20 at once, then each as it comes;
/// - a comment every 15 s keeps proxies and the browser from closing an idle stream.
/// The stream ends when the browser goes or the daemon stops.
struct WebEventStream: Sendable {
    let handler: DaemonControlHandler
    let latest: LatestFolderStatuses

    static let lastEventIDHeader = HTTPField.Name("Last-Event-ID")!
    static let statusInterval: Duration = .milliseconds(250)
    static let heartbeatInterval: Duration = .seconds(15)
    static let backlog: Int64 = 20

    func response(lastEventID: String?) -> Response {
        let handler = self.handler, latest = self.latest
        return Response(status: .ok, headers: [.contentType: "text/event-stream", .cacheControl: "no-store"], body: ResponseBody { writer in
            let (lines, sink) = AsyncStream.makeStream(of: String.self, bufferingPolicy: .bufferingNewest(1024))
            let live = handler.events.live()
            let after = lastEventID.flatMap(Int64.init) ?? max(0, handler.events.lastID() - Self.backlog)
            await withGracefulShutdownHandler {
                await withTaskGroup(of: Void.self) { group in
                    group.addTask {
                        var last = after
                        for event in (try? handler.events.events(after: after)) ?? [] {
                            sink.yield(Self.frame(event))
                            last = max(last, event.id)
                        }
                        for await event in live where event.id > last {
                            sink.yield(Self.frame(event))
                            last = event.id
                        }
                    }
                    group.addTask {
                        var sent: Data?
                        let encoder = ControlFraming.makeEncoder()
                        while !Task.isCancelled {
                            let folders = latest.current
                            let status = folders.isEmpty ? handler.status() : handler.status(of: folders)
                            if let json = try? encoder.encode(status), json != sent {
                                sent = json
                                sink.yield("event: status\ndata: \(String(decoding: json, as: UTF8.self))\n\n")
                            }
                            try? await Task.sleep(for: Self.statusInterval)
                        }
                    }
                    group.addTask {
                        while !Task.isCancelled {
                            try? await Task.sleep(for: Self.heartbeatInterval)
                            sink.yield(": still here\n\n")
                        }
                    }
                    do {
                        for await line in lines { try await writer.write(ByteBuffer(string: line)) }
                    } catch {
                        // The browser went away.
                    }
                    group.cancelAll()
                }
            } onGracefulShutdown: {
                sink.finish()
            }
            try await writer.finish(nil)
        })
    }

    static func frame(_ event: DaemonEvent) -> String {
        let json = (try? ControlFraming.makeEncoder().encode(event)).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
        return "id: \(event.id)\nevent: event\ndata: \(json)\n\n"
    }
}
