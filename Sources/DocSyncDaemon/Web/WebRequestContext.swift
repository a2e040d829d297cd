import Hummingbird

/// A status-page request's context: the session it came with, once `WebGuard` found it.
struct WebRequestContext: RequestContext {
    var coreContext: CoreRequestContextStorage
    /// The browser's session; `nil` on the routes open without one (sign-in, the page's
    /// script and style, `/metrics` with its bearer token).
    var session: WebSessions.Session?

    init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
    }
}
