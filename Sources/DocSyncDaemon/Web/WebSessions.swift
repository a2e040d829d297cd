import Crypto
import Foundation
import Synchronization

/// Who may use the status page (SPEC §15): one-time sign-in tokens that `docs-status web`
/// hands out, and the browser sessions they become.
///
/// What a caller may rely on:
/// - A sign-in token works once, within `signInLifetime` of being issued; at most
///   `maximumSignIns` wait at a time (older ones are dropped).
/// - A session lasts until the daemon stops; at most `maximumSessions` are kept (the least
///   recently used goes first). Each has its own CSRF token, which a state change must carry.
/// - Secrets are 256 random bits, hex; they are kept only as SHA-256 digests, and compared by
///   digest, so a lookup's timing says nothing about a secret.
final class WebSessions: Sendable {
    static let signInLifetime: Duration = .seconds(600)
    static let maximumSignIns = 16
    static let maximumSessions = 64

    struct Session: Sendable, Hashable {
        /// What a state change must send in `X-CSRF-Token`.
        let csrfToken: String
    }

    private struct State {
        var signIns: [String: ContinuousClock.Instant] = [:]
        var sessions: [String: (session: Session, used: ContinuousClock.Instant)] = [:]
    }

    private let state = Mutex(State())

    /// A new one-time sign-in token.
    func issueSignIn(now: ContinuousClock.Instant = .now) -> String {
        let token = Self.secret()
        state.withLock { state in
            state.signIns = state.signIns.filter { now - $0.value < Self.signInLifetime }
            while state.signIns.count >= Self.maximumSignIns, let oldest = state.signIns.min(by: { $0.value < $1.value }) {
                state.signIns[oldest.key] = nil
            }
            state.signIns[Self.digest(token)] = now
        }
        return token
    }

    /// Spends a sign-in token: the new session's id and the session, or `nil` when the
    /// token is unknown, spent or expired.
    func signIn(_ token: String, now: ContinuousClock.Instant = .now) -> (id: String, session: Session)? {
        let key = Self.digest(token)
        let issued = state.withLock { state in state.signIns.removeValue(forKey: key) }
        guard let issued, now - issued < Self.signInLifetime else { return nil }
        let id = Self.secret()
        let session = Session(csrfToken: Self.secret())
        state.withLock { state in
            while state.sessions.count >= Self.maximumSessions, let oldest = state.sessions.min(by: { $0.value.used < $1.value.used }) {
                state.sessions[oldest.key] = nil
            }
            state.sessions[Self.digest(id)] = (session, now)
        }
        return (id, session)
    }

    /// The session of a cookie's value, if it is one.
    func session(_ id: String, now: ContinuousClock.Instant = .now) -> Session? {
        let key = Self.digest(id)
        return state.withLock { state in
            guard let entry = state.sessions[key] else { return nil }
            state.sessions[key]?.used = now
            return entry.session
        }
    }

    /// True when `sent` is the session's CSRF token (compared by digest).
    static func csrfMatches(_ sent: String?, _ session: Session) -> Bool {
        guard let sent else { return false }
        return secretsMatch(sent, session.csrfToken)
    }

    /// True when `sent` is `secret` (compared by digest).
    static func secretsMatch(_ sent: String, _ secret: String) -> Bool {
        digest(sent) == digest(secret)
    }

    static func secret() -> String {
        var generator = SystemRandomNumberGenerator()
        return (0..<4).map { _ in String(format: "%016llx", generator.next() as UInt64) }.joined()
    }

    private static func digest(_ secret: String) -> String {
        SHA256.hash(data: Data(secret.utf8)).map { String(format: "%02x", $0) }.joined()
    }
}
