import DocSyncStorage
import DocSyncTestSupport
import Foundation
import Testing

/// Waiting for a child process blocks the waiter without spinning it.
@Suite struct ProcessExitTests {
    /// Started on one thread and waited for on another, where Foundation's `waitUntilExit()`
    /// spins for the whole half second.
    @Test func waitingOnAnotherThreadUsesNoCPUAndSeesTheStatus() async throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", "sleep 0.5; exit 3"]
        let exit = ProcessExit(of: process)
        try process.run()
        let started = ContinuousClock.now
        let cpu = await onOwnThread {
            let before = threadCPUSeconds()
            exit.wait()
            return threadCPUSeconds() - before
        }
        #expect(ContinuousClock.now - started >= .milliseconds(400), "it waited for the child")
        #expect(!process.isRunning && process.terminationStatus == 3)
        #expect(cpu < 0.1, "the waiting thread used \(cpu) s of CPU")
    }

    @Test func runUntilExitWaitsForTheEnd() throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", "sleep 0.2; exit 4"]
        try process.runUntilExit()
        #expect(!process.isRunning && process.terminationStatus == 4)
    }

    @Test func aProcessThatEndedIsWaitedForAtOnceAsOftenAsAsked() async throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/true")
        let exit = ProcessExit(of: process)
        try process.run()
        await exit.ended()
        exit.wait()
        await exit.ended()
        #expect(process.terminationStatus == 0)
    }
}
