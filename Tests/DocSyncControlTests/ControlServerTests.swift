import DocSyncCore
import DocSyncTestSupport
import Foundation
import Logging
import Testing

@testable import DocSyncControl

@Suite struct ControlServerTests {
    @Test func statusRoundTrip() async throws {
        let handler = TestHandler()
        let running = try RunningServer(handler: handler)
        #expect(try await running.client.send(.status) == .status(handler.status))
        try await running.stop()
    }

    @Test func severalClientsAtOnce() async throws {
        let handler = TestHandler()
        let running = try RunningServer(handler: handler)
        let client = running.client
        let responses = try await withThrowingTaskGroup(of: ControlResponse.self) { group in
            for _ in 0..<24 { group.addTask { try await client.send(.status) } }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(responses.count == 24)
        #expect(responses.allSatisfy { $0 == .status(handler.status) })
        try await running.stop()
    }

    @Test func aSlowCallDoesNotHoldUpAnotherConnection() async throws {
        let handler = TestHandler()
        let running = try RunningServer(handler: handler)
        let client = running.client
        let waiting = Task { try await client.send(.wait(timeoutSeconds: 600)) }
        #expect(await eventually(timeout: patience) { handler.waitCalls == 1 })
        // Were connections served one at a time, this would wait for the release below.
        #expect(try await client.send(.status, timeout: patience) == .status(handler.status))
        handler.release()
        #expect(try await waiting.value == .settled(handler.status))
        try await running.stop()
    }

    @Test func badLinesAreAnsweredAndTheConnectionStaysUsable() async throws {
        let running = try RunningServer(handler: TestHandler())
        let raw = try RawConnection(running.socketPath)
        try await raw.send("this is not json\n")
        #expect(try await raw.response()?.failureCode == "badRequest")
        try await raw.send("{\"fly\":{\"to\":\"moon\"}}\n")
        let unknown = try await raw.response()
        #expect(unknown?.failureCode == "unknownRequest")
        if case .failure(_, let message)? = unknown { #expect(message.contains("\"fly\"")) }
        try await raw.send("{\"wait\":{}}\n")
        #expect(try await raw.response()?.failureCode == "badRequest")
        // Blank lines are ignored; two requests in one write are answered in order.
        try await raw.send("\n  \n{\"status\":{}}\n{\"wait\":{\"timeoutSeconds\":0}}\n")
        guard case .status? = try await raw.response() else { Issue.record("expected status"); return }
        #expect(try await raw.response()?.failureCode == "timeout")
        try await running.stop()
    }

    @Test func anOverlongLineIsAnsweredThenTheConnectionCloses() async throws {
        let running = try RunningServer(handler: TestHandler(), lineLimit: 100_000)
        let raw = try RawConnection(running.socketPath)
        try await raw.send([UInt8](repeating: UInt8(ascii: "a"), count: 100_001))
        let response = try await raw.response()
        #expect(response?.failureCode == "badRequest")
        #expect(try await raw.response() == nil)
        #expect(try await running.client.send(.status) == .status(ControlFramingTests.status), "the server carries on")
        try await running.stop()
    }

    @Test func socketIsPrivateAndItsDirectoryCreated() async throws {
        let running = try RunningServer(handler: TestHandler(), socketName: "new/dir/control.sock")
        #expect(try fileMode(running.socketPath) == 0o600)
        #expect(try fileMode("\(running.directory.path)/new/dir") == 0o700)
        #expect(try fileMode("\(running.directory.path)/new") == 0o700)
        try await running.stop()
    }

    @Test func stopRemovesTheSocketAndEndsCallsInFlight() async throws {
        let handler = TestHandler()
        let running = try RunningServer(handler: handler)
        let client = running.client
        let waiting = Task { try await client.send(.wait(timeoutSeconds: 60)) }
        #expect(await eventually(timeout: patience) { handler.waitCalls == 1 })
        try await running.stop()
        #expect(!FileManager.default.fileExists(atPath: running.socketPath))
        #expect(handler.cancelledCalls.value == 1)
        #expect(try await waiting.value == .failure(code: "cancelled", message: "cancelled"), "what the cancelled handler answers is still sent")
        await #expect(throws: ControlClientError.daemonNotRunning(socketPath: running.socketPath)) { try await client.send(.status) }
    }

    @Test func aClientHangingUpCancelsItsCall() async throws {
        let handler = TestHandler()
        let running = try RunningServer(handler: handler)
        var raw: RawConnection? = try RawConnection(running.socketPath)
        try await raw?.send("{\"wait\":{\"timeoutSeconds\":60}}\n")
        #expect(await eventually(timeout: patience) { handler.waitCalls == 1 })
        raw = nil
        #expect(await eventually(timeout: patience) { handler.cancelledCalls.value == 1 })
        try await running.stop()
    }

    @Test func aClientThatOnlyStopsSendingStillGetsItsAnswer() async throws {
        let handler = TestHandler()
        let running = try RunningServer(handler: handler)
        let raw = try RawConnection(running.socketPath)
        try await raw.send("{\"wait\":{\"timeoutSeconds\":60}}\n")
        raw.finishSending()
        #expect(await eventually(timeout: patience) { handler.waitCalls == 1 })
        handler.release()
        #expect(try await raw.response() == .settled(handler.status))
        #expect(handler.cancelledCalls.value == 0)
        #expect(try await raw.response() == nil, "then the server closes too")
        try await running.stop()
    }

    @Test func theClientGivesUpAfterItsTimeout() async throws {
        let handler = TestHandler()
        let running = try RunningServer(handler: handler)
        let started = ContinuousClock.now
        await #expect(throws: ControlClientError.timedOut(socketPath: running.socketPath, after: .milliseconds(200))) {
            try await running.client.send(.wait(timeoutSeconds: 60), timeout: .milliseconds(200))
        }
        #expect(ContinuousClock.now - started < patience)
        #expect(await eventually(timeout: patience) { handler.cancelledCalls.value == 1 }, "the daemon notices the client left")
        #expect(ControlClientError.timedOut(socketPath: "/s", after: .milliseconds(250)).description == "docsyncd did not answer within 0.25 s (/s)")
        try await running.stop()
    }

    @Test func aStaleSocketFileIsReplaced() async throws {
        let directory = try TemporaryDirectory("ctl")
        try FileManager.default.createDirectory(atPath: "\(directory.path)/run", withIntermediateDirectories: true)
        try makeStaleSocket(at: "\(directory.path)/run/control.sock")
        #expect(FileManager.default.fileExists(atPath: "\(directory.path)/run/control.sock"))
        let running = try RunningServer(handler: TestHandler(), directory: directory)
        #expect(try await running.client.send(.status) == .status(ControlFramingTests.status))
        try await running.stop()
    }

    @Test func aSecondServerOnALiveSocketIsRefused() async throws {
        let running = try RunningServer(handler: TestHandler())
        #expect(throws: ControlServerError.alreadyInUse(path: running.socketPath)) {
            try ControlServer(socketPath: running.socketPath, handler: TestHandler(), logger: quietLogger)
        }
        #expect(ControlServerError.alreadyInUse(path: "/s").description.contains("another docsyncd is already running"))
        #expect(try await running.client.send(.status) == .status(ControlFramingTests.status), "the first one still answers")
        try await running.stop()
    }

    @Test func somethingElseAtTheSocketPathIsLeftAlone() throws {
        let directory = try TemporaryDirectory("ctl")
        let path = "\(directory.path)/control.sock"
        try Data("notes".utf8).write(to: URL(fileURLWithPath: path))
        #expect(throws: ControlServerError.notASocket(path: path)) { try ControlServer(socketPath: path, handler: TestHandler(), logger: quietLogger) }
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "notes")
    }

    @Test func anUnusedServerRemovesItsSocketWhenClosedOrReleased() throws {
        let directory = try TemporaryDirectory("ctl")
        let path = "\(directory.path)/control.sock"
        let server = try ControlServer(socketPath: path, handler: TestHandler(), logger: quietLogger)
        #expect(FileManager.default.fileExists(atPath: path))
        server.close()
        #expect(!FileManager.default.fileExists(atPath: path))
        do {
            _ = try ControlServer(socketPath: path, handler: TestHandler(), logger: quietLogger)
        }
        #expect(!FileManager.default.fileExists(atPath: path))
    }

    @Test func theClientSaysWhenNoDaemonIsRunning() async throws {
        let directory = try TemporaryDirectory("ctl")
        let missing = "\(directory.path)/none/control.sock"
        await #expect(throws: ControlClientError.daemonNotRunning(socketPath: missing)) { try await ControlClient(socketPath: missing).send(.status) }
        let stale = "\(directory.path)/stale.sock"
        try makeStaleSocket(at: stale)
        await #expect(throws: ControlClientError.daemonNotRunning(socketPath: stale)) { try await ControlClient(socketPath: stale).send(.status) }
        #expect(ControlClientError.daemonNotRunning(socketPath: "/run/user/1000/docsync/control.sock").description
            == "docsyncd is not running (no daemon answers on /run/user/1000/docsync/control.sock)")
    }

    @Test func socketPathsThatDoNotFitAreRefused() async throws {
        let long = "/tmp/" + String(repeating: "x", count: 120) + "/control.sock"
        #expect(throws: ControlServerError.socketPathTooLong(path: long, limit: 107)) { try ControlServer(socketPath: long, handler: TestHandler(), logger: quietLogger) }
        await #expect(throws: ControlClientError.socketPathTooLong(socketPath: long, limit: 107)) { try await ControlClient(socketPath: long).send(.status) }
    }
}
