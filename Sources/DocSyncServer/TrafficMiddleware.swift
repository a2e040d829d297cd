import Hummingbird

/// Counts the bytes of request and response bodies (`docsync_request_bytes_total`,
/// `docsync_response_bytes_total`): those whose length is declared, which is every request
/// and answer of the API but the notification stream.
struct TrafficMiddleware: RouterMiddleware {
    typealias Context = ServerRequestContext

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        if let length = request.headers[.contentLength].flatMap(Int.init), length > 0 { ServerMetrics.requestBytes.increment(by: length) }
        let response = try await next(request, context)
        if let length = response.body.contentLength, length > 0 { ServerMetrics.responseBytes.increment(by: length) }
        return response
    }
}
