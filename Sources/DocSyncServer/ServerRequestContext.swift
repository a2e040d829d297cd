import Hummingbird

/// The request context of docsync-server: Hummingbird's core storage and the user (and
/// device) that the request's bearer token authenticated (set by `AuthenticationMiddleware`).
public struct ServerRequestContext: RequestContext {
    public var coreContext: CoreRequestContextStorage
    /// The authenticated user; `nil` only before `AuthenticationMiddleware` ran.
    public var user: String?
    /// The device the token was issued for; `nil` when it was issued without a name.
    public var device: String?
    /// The address of the connection's peer (a client, or the load balancer in front).
    public let peerAddress: String?

    public init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        peerAddress = source.channel.remoteAddress?.ipAddress
    }
}
