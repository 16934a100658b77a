import Hummingbird
import HummingbirdCore
import HummingbirdTLS
import HummingbirdWebSocket
import Logging
import NIOConcurrencyHelpers
import NIOCore
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
        let app = Application(
            router: router, server: server,
            configuration: .init(address: .hostname(config.listen.host, port: config.listen.port), serverName: "pi-relay-web"),
            onServerRunning: { [port, logger, config] channel in
                let bound = channel.localAddress?.port ?? config.listen.port
                port.withLockedValue { $0 = bound }
                logger.notice("listening on \(config.usesTLS ? "https" : "http")://\(ListenAddress.urlHost(config.listen.host)):\(bound)")
            },
            eventLoopGroupProvider: .shared(WebLoop.group), logger: logger)
        // pi-relayd ends the plugin through its protocol, not with a signal to the server.
        try await app.runService(gracefulShutdownSignals: [])
    }
}
