import Hummingbird

/// The request context of docsync-server: Hummingbird's core storage and the user that the
/// request's bearer token authenticated (set by `AuthenticationMiddleware`).
public struct ServerRequestContext: RequestContext {
    public var coreContext: CoreRequestContextStorage
    /// The authenticated user; `nil` only before `AuthenticationMiddleware` ran.
    public var user: String?

    public init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
    }
}
