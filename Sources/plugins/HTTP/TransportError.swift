/// A request that never produced an HTTP status.
enum TransportError: Error, Sendable, Equatable, CustomStringConvertible {
    case cancelled
    case timedOut
    /// A fixed curl phrase (curl_easy_strerror): never a URL, header or token.
    case failed(String)

    var description: String {
        switch self {
        case .cancelled: "cancelled"
        case .timedOut: "timed out"
        case .failed(let why): why
        }
    }
}
