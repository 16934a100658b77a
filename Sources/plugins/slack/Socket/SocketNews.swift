/// What a Socket Mode connection tells the loop that manages connections.
enum SocketNews: Sendable {
    /// Slack said `hello`: the connection is up.
    case hello(Int)
    /// Slack will close this connection soon (`warning`, `refresh_requested`): open the next now.
    case replace(Int, reason: String)
    /// Slack switched Socket Mode off for the app.
    case linkDisabled
    /// The app holds too many sockets: wait before dialling again.
    case tooMany(Int)
    /// The connection is gone.
    case ended(Int, why: String)
    /// A federation shares the app, and this machine is to stand by (the reason): close the socket.
    case standBy(String)
    /// This machine holds the app's ingress again: connect.
    case take
}
