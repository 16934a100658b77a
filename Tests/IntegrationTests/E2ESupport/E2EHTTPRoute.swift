/// What the test HTTP server answers for one path: a file, or one of the ways a download goes
/// wrong in real life.
enum E2EHTTPRoute: Sendable {
    /// 200 with the body at once.
    case file(body: [UInt8], contentType: String)
    /// 200 with the body trickled out in ten pieces over `duration`.
    case slow(body: [UInt8], contentType: String, duration: Duration)
    /// A status code with a short text body.
    case status(Int)
    /// Headers promising `declaredLength` bytes, then silence until the server stops.
    case stall(declaredLength: Int)
    /// Headers promising `declaredLength` bytes, then only `body` and a closed connection.
    case drop(body: [UInt8], declaredLength: Int)
}
