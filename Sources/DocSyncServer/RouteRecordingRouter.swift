import HTTPTypes
import Hummingbird

/// Registers routes on `router` and records each one in `table`: a `Router` that keeps a
/// list of what it serves. Groups made from it (`group(_:)`) record theirs too, with the
/// group's prefix, since a group registers its routes on its parent. A middleware added to
/// it is the router's: it applies to every route registered after it.
struct RouteRecordingRouter<Context: RequestContext>: RouterMethods {
    let router: Router<Context>
    let table: RouteTable

    @discardableResult func on<Responder: HTTPResponder>(
        _ path: RouterPath, method: HTTPRequest.Method, responder: Responder
    ) -> Self where Responder.Context == Context {
        table.add(path, method)
        router.on(path, method: method, responder: responder)
        return self
    }

    @discardableResult func add(middleware: any MiddlewareProtocol<Request, Response, Context>) -> Self {
        router.add(middleware: middleware)
        return self
    }
}
