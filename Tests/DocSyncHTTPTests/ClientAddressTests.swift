import DocSyncServer
import Testing

/// Whose address a request is limited by: `X-Forwarded-For` is believed from trusted proxies only.
@Suite struct ClientAddressTests {
    @Test(arguments: [
        // (peer, X-Forwarded-For values, trusted proxies, expected)
        ("10.0.0.5", [], [], "10.0.0.5"),
        ("10.0.0.5", ["1.2.3.4"], [], "10.0.0.5"),                              // an untrusted peer's header is ignored
        ("127.0.0.1", ["1.2.3.4"], ["127.0.0.1"], "1.2.3.4"),
        ("127.0.0.1", ["9.9.9.9, 1.2.3.4"], ["127.0.0.1"], "1.2.3.4"),            // the nearest hop the proxy saw
        ("127.0.0.1", ["9.9.9.9", "1.2.3.4, 10.0.0.2"], ["127.0.0.1", "10.0.0.2"], "1.2.3.4"),  // a chain of trusted proxies
        ("127.0.0.1", [], ["127.0.0.1"], "127.0.0.1"),                          // no header: the proxy itself
        ("127.0.0.1", [" , "], ["127.0.0.1"], "127.0.0.1"),
    ] as [(String, [String], Set<String>, String)])
    func resolves(_ peer: String, forwarded: [String], trusted: Set<String>, expected: String) {
        #expect(ClientAddress.resolve(peer: peer, forwardedFor: forwarded, trustedProxies: trusted) == expected)
    }

    @Test func noPeerNoAddress() {
        #expect(ClientAddress.resolve(peer: nil, forwardedFor: ["1.2.3.4"], trustedProxies: []) == nil)
    }
}
