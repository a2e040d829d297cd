import CDBus
import Foundation

/// A private connection to one D-Bus message bus through libdbus-1, and the freedesktop
/// Notifications `Notify` call over it. Blocking: used on `DesktopNotifier`'s thread only
/// (hence `@unchecked Sendable`), never on a thread of the cooperative pool.
///
/// Opens lazily (`open`), registers with the bus itself (`Hello`, within `timeout`, where
/// `dbus_bus_register` would wait up to 25 s), and never exits the process when the bus
/// goes away: a lost connection is closed and opened again by the next call.
final class BusConnection: @unchecked Sendable {
    /// What became of one call.
    enum Outcome: Sendable, Equatable {
        /// The callee answered: the reply's first argument when it is a `uint32` (0 otherwise).
        case answered(UInt32)
        /// The bus took the call and an error came back: no one owns the name (no notification
        /// server), or the callee failed or did not answer in time. The D-Bus error's name and message.
        case failed(String)
        /// The call was not sent: the bus cannot be reached (or is gone).
        case notSent(String)
    }

    let address: String
    /// How long a call waits for its reply, in milliseconds.
    let timeoutMilliseconds: Int32
    /// A `DBusConnection *`, while open.
    private var connection: OpaquePointer?

    init(address: String, timeout: Duration) {
        self.address = address
        let milliseconds = timeout.components.seconds * 1000 + timeout.components.attoseconds / 1_000_000_000_000_000
        timeoutMilliseconds = Int32(clamping: max(1, milliseconds))
        _ = Self.threadsReady
    }

    /// libdbus's locks (a no-op with libdbus 1.7 and later, where they are always on).
    private static let threadsReady: Bool = dbus_threads_init_default() != 0

    /// Opens and registers the connection if it is not open; `nil` when it is open, else why not.
    func open() -> String? {
        if let connection {
            if dbus_connection_get_is_connected(connection) != 0 { return nil }
            close()
        }
        var error = DBusError()
        dbus_error_init(&error)
        defer { dbus_error_free(&error) }
        guard let opened = dbus_connection_open_private(address, &error) else {
            return "cannot connect to \(address): \(Self.describe(error))"
        }
        dbus_connection_set_exit_on_disconnect(opened, 0)
        connection = opened
        switch call(destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus", method: "Hello",
                    arguments: { _ in true }, reading: Self.firstString) {
        case .success(let name?):
            _ = name.withCString { dbus_bus_set_unique_name(opened, $0) }
            return nil
        case .success(nil):
            close()
            return "the bus at \(address) gave no name for this connection"
        case .failure(let reason):
            close()
            return "cannot register with the bus at \(address): \(reason.text)"
        }
    }

    /// Closes the connection (if open).
    func close() {
        guard let connection else { return }
        dbus_connection_close(connection)
        dbus_connection_unref(connection)
        self.connection = nil
    }

    /// `org.freedesktop.Notifications.Notify` (signature `susssasa{sv}i`): `app_name`,
    /// `replaces_id`, `app_icon`, `summary`, `body`, no actions, the `urgency` hint and the
    /// server's default expiry. Opens the connection first when it is not open.
    func notify(appName: String, replacesID: UInt32, icon: String, summary: String, body: String, urgency: UInt8) -> Outcome {
        if let reason = open() { return .notSent(reason) }
        let result = call(
            destination: "org.freedesktop.Notifications", path: "/org/freedesktop/Notifications",
            interface: "org.freedesktop.Notifications", method: "Notify",
            arguments: { message in
                MessageWriter.appendNotify(to: message, appName: appName, replacesID: replacesID, icon: icon,
                                           summary: summary, body: body, urgency: urgency, expireTimeout: -1)
            },
            reading: Self.firstUInt32)
        switch result {
        case .success(let id): return .answered(id ?? 0)
        case .failure(let failure) where failure.sent: return .failed(failure.text)
        case .failure(let failure): return .notSent(failure.text)
        }
    }

    // MARK: calls

    struct CallFailure: Error {
        var text: String
        /// The message went out (an error reply or a timeout), as opposed to never leaving.
        var sent: Bool
    }

    /// Sends a method call and waits up to the timeout for its reply, whose first argument
    /// `reading` takes; messages that arrived meanwhile (signals) are dropped, never kept.
    private func call<T>(
        destination: String, path: String, interface: String, method: String,
        arguments: (OpaquePointer) -> Bool, reading: (OpaquePointer) -> T?
    ) -> Result<T?, CallFailure> {
        guard let connection else { return .failure(CallFailure(text: "not connected", sent: false)) }
        guard let message = dbus_message_new_method_call(destination, path, interface, method) else {
            return .failure(CallFailure(text: "out of memory", sent: false))
        }
        defer { dbus_message_unref(message) }
        guard arguments(message) else { return .failure(CallFailure(text: "cannot write the call's arguments", sent: false)) }
        var error = DBusError()
        dbus_error_init(&error)
        defer { dbus_error_free(&error) }
        let reply = dbus_connection_send_with_reply_and_block(connection, message, timeoutMilliseconds, &error)
        defer { dropIncoming() }
        guard let reply else {
            let text = Self.describe(error)
            if dbus_connection_get_is_connected(connection) == 0 {
                close()
                return .failure(CallFailure(text: "the connection to \(address) was lost: \(text)", sent: false))
            }
            return .failure(CallFailure(text: text, sent: true))
        }
        defer { dbus_message_unref(reply) }
        return .success(reading(reply))
    }

    /// Reads what has arrived without waiting and drops it: this connection asks for no
    /// signals, and none must pile up in its queue.
    private func dropIncoming() {
        guard let connection else { return }
        _ = dbus_connection_read_write(connection, 0)
        while let message = dbus_connection_pop_message(connection) { dbus_message_unref(message) }
    }

    private static func firstString(_ message: OpaquePointer) -> String? {
        var iterator = DBusMessageIter()
        guard dbus_message_iter_init(message, &iterator) != 0, dbus_message_iter_get_arg_type(&iterator) == MessageWriter.typeString else { return nil }
        var value: UnsafePointer<CChar>?
        dbus_message_iter_get_basic(&iterator, &value)
        return value.map { String(cString: $0) }
    }

    private static func firstUInt32(_ message: OpaquePointer) -> UInt32? {
        var iterator = DBusMessageIter()
        guard dbus_message_iter_init(message, &iterator) != 0, dbus_message_iter_get_arg_type(&iterator) == MessageWriter.typeUInt32 else { return nil }
        var value: UInt32 = 0
        dbus_message_iter_get_basic(&iterator, &value)
        return value
    }

    /// "org.freedesktop.DBus.Error.ServiceUnknown: The name … was not provided …".
    private static func describe(_ error: DBusError) -> String {
        let name = error.name.map { String(cString: $0) } ?? "unknown error"
        let message = error.message.map { String(cString: $0) } ?? ""
        return message.isEmpty ? name : "\(name): \(message)"
    }
}
