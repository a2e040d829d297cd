@testable import DocSyncDaemon
import Foundation
import Testing

/// The status page's rules that need no server (SPEC §15): where it may listen, who may use
/// it, and which `Host` names it.
@Suite struct WebPageDoorTests {
    @Test(arguments: [
        ("127.0.0.1:8385", WebListen.loopback(host: "127.0.0.1", port: 8385)),
        ("localhost:0", .loopback(host: "localhost", port: 0)),
        ("[::1]:9000", .loopback(host: "::1", port: 9000)),
        ("off", .off),
        ("0.0.0.0:8385", nil), ("192.168.1.4:8385", nil), ("example.com:80", nil), ("127.0.0.1", nil),
        ("127.0.0.1:70000", nil), ("::1:8385", nil), ("", nil), ("OFF", nil),
    ] as [(String, WebListen?)])
    func listenAddresses(text: String, expected: WebListen?) {
        #expect(WebListen(parsing: text) == expected)
        if let expected { #expect(WebListen(parsing: expected.description) == expected, "\(expected) reads back") }
    }

    @Test(arguments: [
        ("127.0.0.1:8385", true), ("localhost:8385", true), ("LOCALHOST:8385", true), ("[::1]:8385", true),
        ("127.0.0.1:8386", false), ("127.0.0.1", false), ("evil.example:8385", false), ("127.0.0.1.evil.example:8385", false),
        ("localhost.:8385", false), ("[::ffff:127.0.0.1]:8385", false), ("", false),
    ])
    func hostNames(authority: String, allowed: Bool) {
        #expect(WebGuard.hostAllowed(authority, port: 8385) == allowed)
    }

    @Test func aSignInTokenWorksOnceAndOnlyWhileFresh() throws {
        let sessions = WebSessions()
        let start = ContinuousClock.now
        let token = sessions.issueSignIn(now: start)
        #expect(token.count == 64 && token.allSatisfy(\.isHexDigit))
        #expect(sessions.signIn("0" + token.dropFirst(), now: start) == nil, "another token")
        let (id, session) = try #require(sessions.signIn(token, now: start + .seconds(5)))
        #expect(sessions.signIn(token, now: start + .seconds(6)) == nil, "spent")
        #expect(sessions.session(id) == session)
        #expect(sessions.session(token) == nil, "a token is no session")
        #expect(WebSessions.csrfMatches(session.csrfToken, session))
        #expect(!WebSessions.csrfMatches(nil, session) && !WebSessions.csrfMatches(id, session) && !WebSessions.csrfMatches("", session))

        let late = sessions.issueSignIn(now: start)
        #expect(sessions.signIn(late, now: start + WebSessions.signInLifetime) == nil, "expired")
    }

    @Test func waitingSignInsAndSessionsAreBounded() throws {
        let sessions = WebSessions()
        let start = ContinuousClock.now
        let tokens = (0..<(WebSessions.maximumSignIns + 4)).map { sessions.issueSignIn(now: start + .milliseconds($0)) }
        #expect(sessions.signIn(tokens[0], now: start + .seconds(1)) == nil, "the oldest waiting token is dropped")
        #expect(sessions.signIn(tokens.last!, now: start + .seconds(1)) != nil)

        var ids: [String] = []
        for index in 0..<(WebSessions.maximumSessions + 1) {
            let token = sessions.issueSignIn(now: start)
            ids.append(try #require(sessions.signIn(token, now: start + .seconds(2) + .milliseconds(index))).id)
        }
        #expect(sessions.session(ids[0]) == nil, "the least recently used session went")
        #expect(sessions.session(ids.last!) != nil)
    }

    @Test func theConfigurationAndTheFlagSetTheListener() throws {
        let loader = ConfigurationLoader(environment: ["XDG_RUNTIME_DIR": "/run/user/1000"], homeDirectory: "/home/ada", hostName: "ada", currentDirectory: "/work")
        let minimal = "[backend]\nurl = \"file:///srv/docsync\"\n\n[[folders]]\nid = \"Documents\"\npath = \"~/Documents\"\n"
        #expect(try loader.parse(minimal, source: "docsync.toml").webListen == .standard)
        #expect(try loader.parse("web_listen = \"off\"\n" + minimal, source: "docsync.toml").webListen == .off)
        #expect(try loader.parse("web_listen = \"localhost:9999\"\n" + minimal, source: "docsync.toml").webListen == .loopback(host: "localhost", port: 9999))
        var flag = ConfigurationOverrides()
        flag.webListen = "127.0.0.1:0"
        #expect(try loader.parse("web_listen = \"off\"\n" + minimal, source: "docsync.toml", overrides: flag).webListen == .loopback(host: "127.0.0.1", port: 0))
        #expect(throws: ConfigurationError.self) { try loader.parse("web_listen = \"0.0.0.0:8385\"\n" + minimal, source: "docsync.toml") }
        #expect(throws: ConfigurationError.self) { try loader.parse("web_listen = 8385\n" + minimal, source: "docsync.toml") }
        flag.webListen = "10.0.0.1:80"
        #expect(throws: ConfigurationError.self) { try loader.parse(minimal, source: "docsync.toml", overrides: flag) }
    }
}
