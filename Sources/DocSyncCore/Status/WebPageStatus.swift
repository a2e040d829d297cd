/// Where the daemon's status page is, or why it is not served (SPEC §15).
public struct WebPageStatus: Codable, Sendable, Hashable {
    /// The page's address (`http://127.0.0.1:8385`) while it is served.
    public var address: String?
    /// Why the page is not served (`web_listen = "off"`, a port another program holds), for a person.
    public var message: String?

    public init(address: String? = nil, message: String? = nil) {
        self.address = address
        self.message = message
    }
}
