import DocSyncControl
import DocSyncCore
import Synchronization

/// The status page's place in the daemon (SPEC §15): whether it is served and where, and
/// its sign-ins. Shared by the page's service (which says where it listens, or why it
/// cannot) and the control handler (status, `docs-status web`).
final class WebPageState: Sendable {
    enum Phase: Sendable, Hashable {
        /// Not listening yet.
        case starting
        /// Accepting connections on `port` (the real one when `web_listen` asked for 0).
        case listening(port: Int)
        /// Not served, and why (for a person).
        case off(String)
    }

    let listen: WebListen
    let sessions = WebSessions()
    private let phase: Mutex<Phase>

    init(listen: WebListen) {
        self.listen = listen
        phase = Mutex(listen == .off ? .off(#"off: web_listen = "off" in the configuration"#) : .starting)
    }

    var current: Phase {
        get { phase.withLock { $0 } }
        set { phase.withLock { $0 = newValue } }
    }

    /// The port connections come in on, while listening.
    var port: Int? {
        if case .listening(let port) = current { return port }
        return nil
    }

    /// `http://HOST:PORT` while listening.
    var address: String? {
        guard let port, case .loopback(let host, _) = listen else { return nil }
        return "http://\(host.contains(":") ? "[\(host)]" : host):\(port)"
    }

    var status: WebPageStatus {
        switch current {
        case .starting: WebPageStatus(message: "starting")
        case .listening: WebPageStatus(address: address)
        case .off(let why): WebPageStatus(message: why)
        }
    }

    /// A one-time address that signs a browser in (`docs-status web`).
    func signInURL() throws(HandlerFailure) -> String {
        guard let address else {
            let why = if case .off(let reason) = current { reason } else { "starting; try again in a moment" }
            throw HandlerFailure(ControlResponse.FailureCode.pageOff, "the status page is not served: \(why)")
        }
        return "\(address)/signin?token=\(sessions.issueSignIn())"
    }
}
