import HTTPTypes
import Hummingbird
import Synchronization

/// The routes a router serves, by path template and method, as its `routes` lists them. It answers which methods the route of a request's
/// path has, matching the path as Hummingbird's router does, so a request the router did
/// not serve can be told apart: a path no route has (404) from a method its route lacks
/// (405 with `Allow`, `MethodNotAllowedMiddleware`).
final class RouteTable: Sendable {
    private struct Route: Sendable {
        let path: RouterPath
        var methods: Set<HTTPRequest.Method>
    }

    /// Keyed by the template's text (`/v1/zones/{zone}`).
    private let routes = Mutex<[String: Route]>([:])

    init() {}

    /// Records that `method` is served at `path` (a template, as the router was given it).
    func add(_ path: RouterPath, _ method: HTTPRequest.Method) {
        routes.withLock { routes in
            _ = routes[path.description, default: Route(path: path, methods: [])].methods.insert(method)
        }
    }

    /// The methods of the route serving `path` (a request's path, as it arrived), or `nil`
    /// when no route matches it. Matching follows the router: `/`-separated segments,
    /// empty ones ignored; a literal segment matches itself, a `{parameter}` any segment;
    /// of several routes that match, the router takes the one with a literal where the
    /// other has a parameter, from the first segment on — and so does this.
    func methods(at path: String) -> Set<HTTPRequest.Method>? {
        let segments = path.split(separator: "/", omittingEmptySubsequences: true)
        let matching = routes.withLock { routes in
            routes.values.filter { route in
                route.path.components.count == segments.count
                    && zip(route.path.components, segments).allSatisfy { $0 ~= $1 }
            }
        }
        return matching.max { Self.literals($0.path).lexicographicallyPrecedes(Self.literals($1.path)) }?.methods
    }

    /// 1 for each literal segment of `path`, 0 for each parameter: the router's preference.
    private static func literals(_ path: RouterPath) -> [Int] {
        path.components.map { $0 == $0.description ? 1 : 0 }
    }
}
