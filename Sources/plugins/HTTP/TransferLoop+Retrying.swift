import FoundationEssentials

extension TransportError {
    /// A failure on the way that another try may not meet: the connection, the name or the time.
    /// A file too large, a bad address or a refused certificate stays so.
    package var mayPassNextTime: Bool {
        switch self {
        case .timedOut, .connectionDropped, .unresolvedHost, .couldNotConnect, .proxyFailed, .failed: true
        case .cancelled, .tooLarge, .tooManyRedirects, .disallowedScheme, .malformedURL, .secureConnectionFailed: false
        }
    }
}

extension TransferLoop {
    /// `request`, tried again, twice, after 1 and 2 s, when it failed on the way in a way that
    /// may pass (`mayPassNextTime`) or the service answered a status `again` says is passing
    /// (its trouble, or a rate limit). With a `deadline`, every try and wait fits before it: each
    /// try's timeout is what is left, and no try starts after it. The last result otherwise.
    package func performRetrying(
        _ request: HTTPRequest, deadline: ContinuousClock.Instant? = nil, again: (Int) -> Bool = { $0 >= 500 }
    ) async -> Result<HTTPResponse, TransportError> {
        var attempt = 1
        while true {
            var tried = request
            if let deadline { tried.timeout = min(request.timeout, deadline - .now) }
            let result = await perform(tried)
            let passing: Bool
            switch result {
            case .success(let response): passing = again(response.status)
            case .failure(let failure): passing = failure.mayPassNextTime
            }
            let wait = Duration.seconds(attempt)
            guard passing, attempt < 3, deadline.map({ .now + wait < $0 - .seconds(1) }) ?? true else { return result }
            do { try await Task.sleep(for: wait) } catch { return result }
            attempt += 1
        }
    }
}
