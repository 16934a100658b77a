/// A frame queued for one connection's writer.
enum SocketOutgoing: Sendable {
    case text(String)
    case close
}
