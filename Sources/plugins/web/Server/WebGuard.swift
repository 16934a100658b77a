import HTTPTypes
import Hummingbird
import PiRelaySDK

/// Every request passes here first, and fails closed:
/// - a Host that is not this machine's loopback or a configured name gets 421 (DNS rebinding);
/// - a POST or a WebSocket upgrade whose Origin is not the request's own scheme://Host gets 403
///   (cross-site requests and WebSocket hijacking); there is no CORS;
/// - the cookie is read, and everything but the pairing link, the sign-in page and the static
///   files needs a signed-in user (401);
/// - every answer carries a CSP with no inline script and no framing.
struct WebGuard: RouterMiddleware {
    typealias Context = WebContext

    static let policy =
        "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data: blob:; connect-src 'self'; "
        + "object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"

    let rules: RequestRules
    let signIns: SignIns
    let allowlist: Allowlist
    let cookieName: String

    func handle(_ request: Request, context: WebContext, next: (Request, WebContext) async throws -> Response) async throws -> Response {
        let host = request.head.authority
        guard rules.allowsHost(host) else { return Self.secured(Self.plain(.misdirectedRequest, "Unknown host name.")) }
        // Every request to the socket's path, whatever its Upgrade header says, is checked as one.
        let upgrade = request.uri.path == "/ws" || request.headers[.upgrade] != nil
        if request.method != .get || upgrade {
            guard rules.allowsOrigin(request.headers[.origin], host: host) else {
                return Self.secured(Self.plain(.forbidden, "Cross-origin requests are refused."))
            }
        }
        var context = context
        if let token = request.cookies[cookieName]?.value, let user = await signIns.user(token: token, allowlist: allowlist) {
            context.user = user
            context.token = token
        }
        if context.user == nil, !Self.isPublic(request.uri.path) {
            return Self.secured(Self.plain(.unauthorized, "Not signed in: run pi-relayd pair web and open the link it prints."))
        }
        do {
            return Self.secured(try await next(request, context))
        } catch let error as HTTPError {
            let why = error.body ?? error.status.reasonPhrase
            // The page's scripts read an API answer as JSON and show its `error`; as plain text
            // it read as `{}`, and an unknown session's diff showed "0 files changed".
            if request.uri.path.hasPrefix("/api/") { return Self.secured(WebRoutes.json(["error": .string(why)], status: error.status)) }
            return Self.secured(Self.plain(error.status, why))
        }
    }

    /// Open without a cookie: the pairing link, the pages (which show how to sign in), the
    /// static files.
    static func isPublic(_ path: String) -> Bool {
        path == "/" || path.hasPrefix("/pair/") || path.hasPrefix("/assets/") || path.hasPrefix("/s/") || path == "/status" || path == "/approvals"
    }

    static func plain(_ status: HTTPResponse.Status, _ text: String) -> Response {
        var headers = HTTPFields()
        headers[.contentType] = "text/plain; charset=utf-8"
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(string: text + "\n")))
    }

    static let referrerPolicy = HTTPField.Name("Referrer-Policy")!
    static let frameOptions = HTTPField.Name("X-Frame-Options")!

    static func secured(_ response: Response) -> Response {
        var response = response
        response.headers[.contentSecurityPolicy] = policy
        response.headers[.xContentTypeOptions] = "nosniff"
        // Not no-referrer: with it, a browser sends `Origin: null` on a form POST (sign-in, sign-out),
        // which the Origin check must refuse. Links to other sites carry rel="noreferrer" anyway.
        response.headers[Self.referrerPolicy] = "same-origin"
        response.headers[Self.frameOptions] = "DENY"
        if response.headers[.cacheControl] == nil { response.headers[.cacheControl] = "no-store" }
        return response
    }
}
