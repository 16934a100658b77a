import PiRelayHTTP

extension TransferLoop {
    /// Fetches an attachment within its limits, following redirects to http and https only.
    func fetch(_ request: DownloadRequest) async -> Result<Download, DownloadFailure> {
        if let scheme = request.disallowedScheme { return .failure(.disallowedScheme(scheme)) }
        let exchange = HTTPRequest(
            url: SecretURL(request.url), headers: ["User-Agent: pi-relay-attachments/0.1"], timeout: request.timeout,
            connectTimeout: .seconds(10), proxy: request.proxy, maxRedirects: request.maxRedirects,
            maxBytes: request.maxBytes, skipsErrorBody: true)
        switch await perform(exchange) {
        case .success(let response):
            guard (200..<300).contains(response.status) else { return .failure(.httpStatus(response.status)) }
            return .success(Download(bytes: response.body, contentType: response[header: "content-type"]))
        case .failure(let error):
            return .failure(DownloadFailure(error, request: request))
        }
    }
}
