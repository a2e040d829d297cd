import CDBus

/// Writes the arguments of a D-Bus method call through libdbus's `DBusMessageIter`s. The
/// iterators of one call live at fixed addresses while containers are open (libdbus's
/// documentation asks for no copies of an open iterator).
enum MessageWriter {
    /// D-Bus type codes (`DBUS_TYPE_…`, which are macros Swift does not import).
    static let typeByte = Int32(UInt8(ascii: "y"))
    static let typeInt32 = Int32(UInt8(ascii: "i"))
    static let typeUInt32 = Int32(UInt8(ascii: "u"))
    static let typeString = Int32(UInt8(ascii: "s"))
    static let typeArray = Int32(UInt8(ascii: "a"))
    static let typeVariant = Int32(UInt8(ascii: "v"))
    static let typeDictEntry = Int32(UInt8(ascii: "e"))

    /// The arguments of `org.freedesktop.Notifications.Notify`, signature `susssasa{sv}i`:
    /// no actions, and the `urgency` hint (a byte). False when libdbus refuses one (out of memory).
    static func appendNotify(
        to message: OpaquePointer, appName: String, replacesID: UInt32, icon: String, summary: String, body: String,
        urgency: UInt8, expireTimeout: Int32
    ) -> Bool {
        // [0] the arguments, [1] an array, [2] a dictionary entry, [3] a variant; zeroed, as
        // DBUS_MESSAGE_ITER_INIT_CLOSED (what `abandon_container_if_open` needs).
        let iterators = UnsafeMutablePointer<DBusMessageIter>.allocate(capacity: 4)
        iterators.initialize(repeating: DBusMessageIter(), count: 4)
        defer {
            iterators.deinitialize(count: 4)
            iterators.deallocate()
        }
        let top = iterators, list = iterators + 1, entry = iterators + 2, variant = iterators + 3
        dbus_message_iter_init_append(message, top)
        guard append(appName, to: top), append(replacesID, type: typeUInt32, to: top), append(icon, to: top),
              append(summary, to: top), append(body, to: top) else { return false }
        // actions: as (none)
        guard dbus_message_iter_open_container(top, typeArray, "s", list) != 0 else { return false }
        guard dbus_message_iter_close_container(top, list) != 0 else { return false }
        // hints: a{sv} = {"urgency": <byte>}
        guard dbus_message_iter_open_container(top, typeArray, "{sv}", list) != 0,
              dbus_message_iter_open_container(list, typeDictEntry, nil, entry) != 0,
              append("urgency", to: entry),
              dbus_message_iter_open_container(entry, typeVariant, "y", variant) != 0,
              append(urgency, type: typeByte, to: variant),
              dbus_message_iter_close_container(entry, variant) != 0,
              dbus_message_iter_close_container(list, entry) != 0,
              dbus_message_iter_close_container(top, list) != 0 else {
            dbus_message_iter_abandon_container_if_open(entry, variant)
            dbus_message_iter_abandon_container_if_open(list, entry)
            dbus_message_iter_abandon_container_if_open(top, list)
            return false
        }
        return append(expireTimeout, type: typeInt32, to: top)
    }

    /// Appends a string (`s`), which libdbus copies.
    static func append(_ text: String, to iterator: UnsafeMutablePointer<DBusMessageIter>) -> Bool {
        text.withCString { pointer in
            var value: UnsafePointer<CChar>? = pointer
            return dbus_message_iter_append_basic(iterator, typeString, &value) != 0
        }
    }

    /// Appends a fixed-size value of D-Bus `type` (`y`, `i`, `u`).
    static func append<T: FixedWidthInteger>(_ number: T, type: Int32, to iterator: UnsafeMutablePointer<DBusMessageIter>) -> Bool {
        var value = number
        return dbus_message_iter_append_basic(iterator, type, &value) != 0
    }
}
