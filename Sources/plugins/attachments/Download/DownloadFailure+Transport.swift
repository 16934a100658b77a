import PiRelayHTTP

extension DownloadFailure {
    /// The chat user's reason for a transfer that produced no response.
    init(_ error: TransportError, request: DownloadRequest) {
        switch error {
        case .cancelled: self = .cancelled
        case .timedOut: self = .timedOut(request.timeout)
        case .tooLarge: self = .tooLarge(limit: request.maxBytes)
        case .tooManyRedirects: self = .tooManyRedirects(limit: request.maxRedirects)
        // The request's own scheme was checked before it went out, so this was a redirect.
        case .disallowedScheme: self = .redirectedToDisallowedScheme
        case .malformedURL: self = .disallowedScheme("")
        case .connectionDropped: self = .connectionDropped
        case .unresolvedHost: self = .unresolvedHost
        case .couldNotConnect: self = .couldNotConnect
        case .proxyFailed: self = .proxyFailed
        case .secureConnectionFailed: self = .secureConnectionFailed
        case .failed(let why): self = .other(why)
        }
    }
}
