import FoundationEssentials
import PiRelayHTTP

extension APIConnection {
    /// A failure on the way that another try may not meet: the connection, the name or the time.
    /// A file too large, a bad address or a refused certificate stays so.
    static func mayPassNextTime(_ failure: TransportError) -> Bool {
        switch failure {
        case .timedOut, .connectionDropped, .unresolvedHost, .couldNotConnect, .proxyFailed, .failed: true
        case .cancelled, .tooLarge, .tooManyRedirects, .disallowedScheme, .malformedURL, .secureConnectionFailed: false
        }
    }

    /// GETs `url` into `destination`, a file only this user can read (0600). `mask` hides the
    /// token in any text; `error` makes the client's error from an HTTP status (0 without one)
    /// and a text; `refusal` names why a 200 answer is not the file (Slack's sign-in page). A
    /// failure on the way that may pass (`mayPassNextTime`) or on the service's side (5xx) is
    /// tried again, twice, after 1 and 2 s: given up, the user's picture or voice note never
    /// reached pi.
    package func download(
        _ url: SecretURL, headers: [String] = [], to destination: String, maxBytes: Int, mask: (String) -> String,
        error: (_ status: Int, _ text: String) -> any Error, refusal: (HTTPResponse) -> String? = { _ in nil }
    ) async throws {
        let request = HTTPRequest(url: url, headers: headers, timeout: .seconds(120), proxy: proxy, maxBytes: maxBytes)
        var attempt = 1
        while true {
            let result = await loop.perform(request)
            switch result {
            case .success(let response) where response.status == 200:
                if let why = refusal(response) { throw error(200, why) }
                guard FileManager.default.createFile(atPath: destination, contents: Data(response.body), attributes: [.posixPermissions: 0o600])
                else {
                    throw error(0, "cannot write \(destination)")
                }
                return
            case .success(let response) where response.status < 500 || attempt == 3:
                throw error(response.status, "HTTP \(response.status)")
            case .failure(let failure) where attempt == 3 || !Self.mayPassNextTime(failure):
                throw error(0, mask(failure.description))
            case .success, .failure:
                try await Task.sleep(for: .seconds(attempt))
                attempt += 1
            }
        }
    }
}
