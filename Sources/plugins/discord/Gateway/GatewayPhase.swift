/// Where the gateway connection stands, for logs and `status`.
enum GatewayPhase: String, Sendable {
    case starting
    case connecting
    case waitingForHello = "waiting-for-hello"
    case identifying
    case resuming
    case ready
    case reconnecting
    case stopped
}
