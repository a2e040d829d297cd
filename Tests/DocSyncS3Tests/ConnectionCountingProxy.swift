import NIOCore
import NIOPosix
import Synchronization

/// A TCP forwarder on a loopback port of its own that counts the connections clients open
/// through it: a client pointed at `port` instead of the real endpoint reaches the same
/// store, and `connections` says how many TCP connections its requests took — this client's
/// only, whatever else talks to the store meanwhile.
///
/// Bytes pass unchanged both ways; when either side closes, both are closed. `stop()`
/// closes the listening socket and every forwarded connection.
final class ConnectionCountingProxy: Sendable {
    /// The loopback port clients connect to.
    let port: Int
    private let accepted = Atomic<Int>(0)
    private let listener: Mutex<Task<Void, Never>?> = Mutex(nil)
    private let channel: any Channel

    private init(port: Int, channel: any Channel) {
        self.port = port
        self.channel = channel
    }

    /// Connections accepted so far.
    var connections: Int { accepted.load(ordering: .relaxed) }

    /// Listens on `127.0.0.1:0` and forwards each connection to `host:port`.
    static func start(forwardingTo host: String, port upstreamPort: Int) async throws -> ConnectionCountingProxy {
        let group = MultiThreadedEventLoopGroup.singleton
        let server = try await ServerBootstrap(group: group)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .bind(host: "127.0.0.1", port: 0) { channel in
                channel.eventLoop.makeCompletedFuture {
                    try NIOAsyncChannel<ByteBuffer, ByteBuffer>(wrappingChannelSynchronously: channel)
                }
            }
        let proxy = ConnectionCountingProxy(port: server.channel.localAddress?.port ?? 0, channel: server.channel)
        let task = Task {
            await withDiscardingTaskGroup { connections in
                try? await server.executeThenClose { inbound in
                    for try await client in inbound {
                        proxy.accepted.add(1, ordering: .relaxed)
                        connections.addTask { await forward(client, to: host, port: upstreamPort, group: group) }
                    }
                }
                connections.cancelAll()
            }
        }
        proxy.listener.withLock { $0 = task }
        return proxy
    }

    /// Closes the listening socket and every forwarded connection, and waits for them.
    func stop() async {
        try? await channel.close()
        let task = listener.withLock { $0 }
        task?.cancel()
        await task?.value
    }

    private static func forward(_ client: NIOAsyncChannel<ByteBuffer, ByteBuffer>, to host: String, port: Int, group: any EventLoopGroup) async {
        do {
            let upstream = try await ClientBootstrap(group: group).connect(host: host, port: port) { channel in
                channel.eventLoop.makeCompletedFuture {
                    try NIOAsyncChannel<ByteBuffer, ByteBuffer>(wrappingChannelSynchronously: channel)
                }
            }
            try await client.executeThenClose { clientIn, clientOut in
                try await upstream.executeThenClose { upstreamIn, upstreamOut in
                    await withTaskGroup(of: Void.self) { pumps in
                        pumps.addTask { try? await pump(clientIn, into: upstreamOut) }
                        pumps.addTask { try? await pump(upstreamIn, into: clientOut) }
                        await pumps.next()  // one side closed: close both
                        pumps.cancelAll()
                    }
                }
            }
        } catch {
            try? await client.channel.close()
        }
    }

    private static func pump(_ from: NIOAsyncChannelInboundStream<ByteBuffer>, into to: NIOAsyncChannelOutboundWriter<ByteBuffer>) async throws {
        for try await bytes in from { try await to.write(bytes) }
    }
}
