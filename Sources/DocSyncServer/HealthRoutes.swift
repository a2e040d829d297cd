import Hummingbird

/// `GET /healthz`: 200 while the process serves, until it exits. `GET /readyz`: 200 when the
/// store answers (for the scale-out store: PostgreSQL answers and change notifications
/// arrive) and the server is not draining, 503 otherwise — from the moment a shutdown
/// signal arrives (`DrainState`) — so a load balancer sends requests only to instances
/// that can serve them and stops at once for one that is going away.
/// `GET /metrics`: the figures of `ServerMetrics` in Prometheus's text format.
/// None needs a token, and none says anything about any user.
struct HealthRoutes: Sendable {
    let store: any ServerStore
    let metrics: ServerMetrics
    let drain: DrainState

    func register(on router: some RouterMethods<ServerRequestContext>) {
        router.get("healthz") { _, _ in
            Response(status: .ok, body: ResponseBody(byteBuffer: ByteBuffer(string: "ok\n")))
        }
        router.get("readyz") { _, _ in
            if drain.isDraining {
                return Response(status: .serviceUnavailable, body: ResponseBody(byteBuffer: ByteBuffer(string: "draining\n")))
            }
            guard await store.isReady() else {
                return Response(status: .serviceUnavailable, body: ResponseBody(byteBuffer: ByteBuffer(string: "not ready\n")))
            }
            return Response(status: .ok, body: ResponseBody(byteBuffer: ByteBuffer(string: "ready\n")))
        }
        router.get("metrics") { _, _ in
            var headers = HTTPFields()
            headers[.contentType] = "text/plain; version=0.0.4; charset=utf-8"
            return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: metrics.exposition())))
        }
    }
}
