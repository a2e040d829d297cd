import Foundation

/// The address of the client a request comes from: the connection's peer, or, when the peer
/// is one of the configured trusted proxies (the load balancer), the address that proxy put
/// in `X-Forwarded-For`. Only a trusted proxy's header is believed: anyone else could write
/// any address there.
public enum ClientAddress {
    /// Walks `X-Forwarded-For` (every value of the header, comma-separated, the nearest hop
    /// last) from the right while the hops are trusted proxies and returns the first that is
    /// not; the peer itself when it is not trusted or the header is absent; `nil` without a
    /// peer.
    public static func resolve(peer: String?, forwardedFor: [String], trustedProxies: Set<String>) -> String? {
        guard let peer else { return nil }
        guard trustedProxies.contains(peer) else { return peer }
        let hops = forwardedFor.flatMap { $0.split(separator: ",") }.map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        var client = peer
        for hop in hops.reversed() {
            client = hop
            if !trustedProxies.contains(hop) { break }
        }
        return client
    }
}
