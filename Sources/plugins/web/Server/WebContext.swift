import Hummingbird
import HummingbirdWebSocket
import NIOCore

/// A request as the dashboard's routes see it: Hummingbird's, plus who signed in.
struct WebContext: RequestContext, WebSocketRequestContext {
    var coreContext: CoreRequestContextStorage
    let webSocket: WebSocketHandlerReference<Self>
    /// The signed-in web user, set by `WebGuard` from the cookie.
    var user: String?
    /// The cookie's token, for sign-out.
    var token: String?
    /// The connection's event loop: a page's WebSocket writes run there.
    let eventLoop: any EventLoop

    init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        webSocket = .init()
        eventLoop = source.channel.eventLoop
    }

    /// Prompts and answers are small; an image upload is the largest body a page sends.
    var maxUploadSize: Int { 8 << 20 }
}
