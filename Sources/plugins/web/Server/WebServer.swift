import Hummingbird
import HummingbirdCore
import HummingbirdTLS
import HummingbirdWebSocket
import Logging
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1
import NIOSSL
import PiRelaySDK

/// The dashboard's HTTP server: Hummingbird on `web.listen`, HTTPS when `web.tls` is set, every
/// route behind `WebGuard`.
struct WebServer: Sendable {
    let config: WebConfig
    let routes: WebRoutes
    let guardrail: WebGuard
    let logger: Logger
    /// The port the server got (`web.listen` may ask for 0), once it runs.
    let port: NIOLockedValueBox<Int?>

    func run() async throws {
        let router = Router(context: WebContext.self)
        router.add(middleware: guardrail)
        routes.register(on: router)
        var server: HTTPServerBuilder = .http1WebSocketUpgrade(webSocketRouter: router)
        if let certificate = config.tlsCertificate, let key = config.tlsKey {
            let tls: TLSConfiguration
            do {
                tls = TLSConfiguration.makeServerConfiguration(
                    certificateChain: try NIOSSLCertificate.fromPEMFile(certificate).map { .certificate($0) },
                    privateKey: .privateKey(try NIOSSLPrivateKey(file: key, format: .pem)))
            } catch {
                throw PluginExit.notConfigured("web.tls: cannot read \(certificate) and \(key) as a PEM certificate and key: \(error)")
            }
            server = try .tls(server, tlsConfiguration: tls)
        }
        // Hummingbird's server without its `Application`: the same responder, but the Date header
        // made when a response needs it (`HTTPDate`), not by a timer a second.
        let responder = router.buildResponder()
        let dates = HTTPDate()
        let service = try server.buildServer(
            configuration: ServerConfiguration(address: .hostname(config.listen.host, port: config.listen.port), serverName: "pi-relay-web"),
            eventLoopGroup: WebLoop.group, logger: logger,
            responder: { [logger] request, writer, channel in
                let context = WebContext(source: ApplicationRequestContextSource(channel: channel, logger: logger))
                var response: Response
                do {
                    response = try await responder.respond(to: request, context: context)
                } catch let error as HTTPParserError {
                    // A body that is not HTTP (a broken chunk): the server answers 400 and closes
                    // the connection, as Hummingbird's `Application` has it do.
                    throw error
                } catch {
                    // The router answers its own errors (`HTTPError`); anything else is ours.
                    logger.error("request \(request.method) \(request.uri.path) failed: \(error)")
                    response = Response(status: .internalServerError)
                }
                response.headers[.date] = dates.now()
                response.headers[.server] = "pi-relay-web"
                do {
                    try await writer.write(response: response.head, body: response.body)
                } catch is HTTPParserError {
                    // Part of the response is out: no 400 may follow it, only the close.
                    throw BrokenRequest()
                }
            },
            onServerRunning: { [port, logger, config] channel in
                let bound = channel.localAddress?.port ?? config.listen.port
                port.withLockedValue { $0 = bound }
                logger.notice("listening on \(config.usesTLS ? "https" : "http")://\(ListenAddress.urlHost(config.listen.host)):\(bound)")
            })
        // pi-relayd ends the plugin through its protocol, not with a signal to the server.
        try await service.run()
    }
}
