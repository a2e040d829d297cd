import DocSyncStorage
import Foundation

/// A D-Bus message bus of a test's own (`dbus-daemon`, Debian package dbus-daemon) on a
/// socket in a temporary directory, with a `dbus-monitor` (package dbus-bin) recording every
/// call of the freedesktop Notifications interface on it: what a desktop session's bus would
/// see, without a desktop. No notification server runs on it (and its configuration names no
/// service directory, so none is started on demand): a `Notify` call gets an error reply.
///
/// Ready when `start` returns (the bus listening, the monitor attached); both processes are
/// killed when the last reference goes away.
public final class PrivateSessionBus: @unchecked Sendable {
    /// `unix:path=…` (without the bus's guid, so that it names a bus started again at the
    /// same path too), for `DBUS_SESSION_BUS_ADDRESS`.
    public let address: String
    public let directory: TemporaryDirectory
    private let daemon: Process
    private let monitor: Process
    private let monitorOutput: URL

    private init(address: String, directory: TemporaryDirectory, daemon: Process, monitor: Process, monitorOutput: URL) {
        self.address = address
        self.directory = directory
        self.daemon = daemon
        self.monitor = monitor
        self.monitorOutput = monitorOutput
    }

    /// Starts the bus and the monitor, waiting at most `timeout` for each to be ready.
    public static func start(timeout: Duration = .seconds(30)) async throws -> PrivateSessionBus {
        // sun_path holds 108 bytes: a short directory.
        try await start(in: TemporaryDirectory("dbus"), timeout: timeout)
    }

    /// Kills `bus` (its clients lose their connections) and starts another at its address.
    public static func restarting(_ bus: PrivateSessionBus, timeout: Duration = .seconds(30)) async throws -> PrivateSessionBus {
        for process in [bus.monitor, bus.daemon] where process.isRunning { kill(process.processIdentifier, SIGKILL) }
        _ = await eventually(timeout: timeout) { !bus.daemon.isRunning && !bus.monitor.isRunning }
        for file in ["bus", "address", "monitor.txt"] { try? FileManager.default.removeItem(at: bus.directory.url.appendingPathComponent(file)) }
        return try await start(in: bus.directory, timeout: timeout)
    }

    private static func start(in directory: TemporaryDirectory, timeout: Duration) async throws -> PrivateSessionBus {
        let socket = directory.url.appendingPathComponent("bus").path
        let configuration = directory.url.appendingPathComponent("bus.conf")
        try """
            <!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
             "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
            <busconfig>
              <type>session</type>
              <listen>unix:path=\(socket)</listen>
              <auth>EXTERNAL</auth>
              <policy context="default">
                <allow send_destination="*" eavesdrop="true"/>
                <allow eavesdrop="true"/>
                <allow own="*"/>
              </policy>
            </busconfig>
            """.write(to: configuration, atomically: true, encoding: .utf8)

        let printed = directory.url.appendingPathComponent("address")
        let daemon = try launch("dbus-daemon", ["--config-file=\(configuration.path)", "--nofork", "--print-address"],
                                output: printed, errors: directory.url.appendingPathComponent("dbus-daemon.log"))
        // The address is printed once the bus listens.
        let listening = await eventually(timeout: timeout) { read(printed).contains("unix:path=") }
        guard listening else {
            daemon.terminate()
            throw PrivateSessionBusError("dbus-daemon did not print its address: \(read(directory.url.appendingPathComponent("dbus-daemon.log")))")
        }
        let address = "unix:path=\(socket)"

        let monitorOutput = directory.url.appendingPathComponent("monitor.txt")
        let monitor = try launch("dbus-monitor", ["--address", address, "interface='org.freedesktop.Notifications'"],
                                 output: monitorOutput, errors: directory.url.appendingPathComponent("dbus-monitor.log"))
        let bus = PrivateSessionBus(address: address, directory: directory, daemon: daemon, monitor: monitor, monitorOutput: monitorOutput)
        // A monitor gives up its name when it becomes one (BecomeMonitor): then it records.
        guard await eventually(timeout: timeout, { read(monitorOutput).contains("member=NameLost") }) else {
            throw PrivateSessionBusError("dbus-monitor did not attach: \(read(monitorOutput)) \(read(directory.url.appendingPathComponent("dbus-monitor.log")))")
        }
        return bus
    }

    deinit {
        for process in [monitor, daemon] where process.isRunning { kill(process.processIdentifier, SIGKILL) }
    }

    /// Everything the monitor printed so far.
    public var monitorText: String { Self.read(monitorOutput) }

    /// The `Notify` calls the monitor saw so far, in order.
    public var notifyCalls: [ObservedNotify] { ObservedNotify.parse(monitorText) }

    private static func launch(_ tool: String, _ arguments: [String], output: URL, errors: URL) throws -> Process {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/\(tool)")
        process.arguments = arguments
        _ = FileManager.default.createFile(atPath: output.path, contents: nil)
        _ = FileManager.default.createFile(atPath: errors.path, contents: nil)
        process.standardOutput = try FileHandle(forWritingTo: output)
        process.standardError = try FileHandle(forWritingTo: errors)
        process.standardInput = FileHandle.nullDevice
        try process.run()
        return process
    }

    private static func read(_ file: URL) -> String {
        (try? String(contentsOf: file, encoding: .utf8)) ?? ""
    }
}

/// One `org.freedesktop.Notifications.Notify` call as `dbus-monitor` printed it.
public struct ObservedNotify: Sendable, Hashable, CustomStringConvertible {
    public var appName: String
    public var replacesID: UInt32
    public var icon: String
    public var summary: String
    public var body: String
    /// The `urgency` hint, when given.
    public var urgency: UInt8?
    public var expireTimeout: Int32?

    public var description: String { "\(summary) — \(body) (urgency \(urgency.map(String.init) ?? "none"), replaces \(replacesID))" }

    public init(appName: String, replacesID: UInt32, icon: String, summary: String, body: String, urgency: UInt8?, expireTimeout: Int32?) {
        self.appName = appName
        self.replacesID = replacesID
        self.icon = icon
        self.summary = summary
        self.body = body
        self.urgency = urgency
        self.expireTimeout = expireTimeout
    }

    /// The `Notify` method calls in dbus-monitor's output: a `method call … member=Notify`
    /// line, then its arguments indented, one value to a line (`string "…"`, `uint32 0`,
    /// `variant             byte 2`…).
    public static func parse(_ text: String) -> [ObservedNotify] {
        var calls: [ObservedNotify] = []
        var arguments: [Substring]?
        func finish() {
            if let arguments, let call = ObservedNotify(arguments) { calls.append(call) }
            arguments = nil
        }
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.first == " " {
                arguments?.append(line.drop { $0 == " " })
            } else {
                finish()
                if line.hasPrefix("method call ") && line.contains("member=Notify") { arguments = [] }
            }
        }
        finish()
        return calls
    }

    init?(_ lines: [Substring]) {
        var strings: [String] = []
        var numbers: [String: String] = [:]
        for line in lines {
            if line.hasPrefix("string \"") && line.hasSuffix("\"") {
                strings.append(String(line.dropFirst("string \"".count).dropLast()))
            } else if line.hasPrefix("variant ") {
                // `variant             byte 2`
                let parts = line.split(separator: " ")
                if parts.count == 3 { numbers["variant " + parts[1]] = String(parts[2]) }
            } else {
                let parts = line.split(separator: " ")
                if parts.count == 2, numbers[String(parts[0])] == nil { numbers[String(parts[0])] = String(parts[1]) }
            }
        }
        // app_name, app_icon, summary, body, then the hints' keys.
        guard strings.count >= 4 else { return nil }
        appName = strings[0]
        icon = strings[1]
        summary = strings[2]
        body = strings[3]
        replacesID = numbers["uint32"].flatMap { UInt32($0) } ?? 0
        urgency = numbers["variant byte"].flatMap { UInt8($0) }
        expireTimeout = numbers["int32"].flatMap { Int32($0) }
    }
}

public struct PrivateSessionBusError: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}
