#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A failed system call: which one and its `errno`. Internal; the public error types wrap it.
struct SystemCallError: Error, Sendable, Hashable, CustomStringConvertible {
    let call: String
    let errno: Int32

    init(_ call: String, errno: Int32 = currentErrno()) {
        self.call = call
        self.errno = errno
    }

    /// The system's wording for `errno` ("Connection refused").
    var reason: String { String(cString: strerror(errno)) }

    var description: String { "\(call): \(reason)" }
}

/// `errno` of the calling thread.
func currentErrno() -> Int32 {
    errno
}
