import PiRelaySDK

/// Why an attachment could not be fetched, in words a chat user understands.
enum DownloadFailure: Error, Sendable, Equatable {
    case httpStatus(Int)
    case timedOut(Duration)
    case tooLarge(limit: Int)
    case tooManyRedirects(limit: Int)
    case disallowedScheme(String)
    case redirectedToDisallowedScheme
    case connectionDropped
    case unresolvedHost
    case couldNotConnect
    case proxyFailed
    case secureConnectionFailed
    case cancelled
    case notFound
    case notAFile
    case permissionDenied
    case other(String)

    var reason: String {
        switch self {
        case .httpStatus(let code): return "HTTP \(code)"
        case .timedOut(let duration): return "no complete answer within \(Self.seconds(duration))"
        case .tooLarge(let limit): return "larger than the \(ByteCount.describe(limit)) download limit"
        case .tooManyRedirects(let limit): return "more than \(limit) redirects"
        case .disallowedScheme(let scheme):
            return scheme.isEmpty ? "not a web address" : "\(scheme):// links are not fetched, only http and https"
        case .redirectedToDisallowedScheme: return "redirected to an address that is not http or https"
        case .connectionDropped: return "the connection closed before the whole file arrived"
        case .unresolvedHost: return "the server's name could not be resolved"
        case .couldNotConnect: return "could not connect to the server"
        case .proxyFailed: return "the proxy refused or failed the request"
        case .secureConnectionFailed: return "the secure (TLS) connection failed"
        case .cancelled: return "cancelled"
        case .notFound: return "no such file"
        case .notAFile: return "not a regular file"
        case .permissionDenied: return "permission denied"
        case .other(let what): return what
        }
    }

    private static func seconds(_ duration: Duration) -> String {
        let ms = duration.inMilliseconds
        if ms % 1000 == 0 { return "\(ms / 1000) s" }
        return "\(Double(ms) / 1000) s"
    }
}
