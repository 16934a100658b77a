/// A request that produced no complete HTTP response. Descriptions are fixed phrases: never a
/// URL, header or token.
package enum TransportError: Error, Sendable, Equatable, CustomStringConvertible {
    case cancelled
    case timedOut
    /// The body passed the request's `maxBytes`.
    case tooLarge
    case tooManyRedirects
    /// The URL, or a redirect, has a scheme other than http or https.
    case disallowedScheme
    case malformedURL
    case connectionDropped
    case unresolvedHost
    case couldNotConnect
    case proxyFailed
    case secureConnectionFailed
    /// Any other failure: a fixed curl phrase (curl_easy_strerror).
    case failed(String)

    package var description: String {
        switch self {
        case .cancelled: "cancelled"
        case .timedOut: "timed out"
        case .tooLarge: "response too large"
        case .tooManyRedirects: "too many redirects"
        case .disallowedScheme: "not an http or https address"
        case .malformedURL: "malformed URL"
        case .connectionDropped: "connection closed early"
        case .unresolvedHost: "could not resolve host"
        case .couldNotConnect: "could not connect"
        case .proxyFailed: "proxy failed"
        case .secureConnectionFailed: "TLS connection failed"
        case .failed(let why): why
        }
    }
}
