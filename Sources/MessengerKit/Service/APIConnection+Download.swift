import FoundationEssentials
import PiRelayHTTP

extension APIConnection {
    /// GETs `url` into `destination`, a file only this user can read (0600). `mask` hides the
    /// token in any text; `error` makes the client's error from an HTTP status (0 without one)
    /// and a text; `refusal` names why a 200 answer is not the file (Slack's sign-in page). A
    /// failure on the way that may pass or on the service's side (5xx) is tried again, twice, after 1
    /// and 2 s (`performRetrying`): given up, the user's picture or voice note never reached pi.
    package func download(
        _ url: SecretURL, headers: [String] = [], to destination: String, maxBytes: Int, mask: (String) -> String,
        error: (_ status: Int, _ text: String) -> any Error, refusal: (HTTPResponse) -> String? = { _ in nil }
    ) async throws {
        let request = HTTPRequest(url: url, headers: headers, timeout: .seconds(120), proxy: proxy, maxBytes: maxBytes)
        switch await loop.performRetrying(request) {
        case .success(let response) where response.status == 200:
            if let why = refusal(response) { throw error(200, why) }
            guard FileManager.default.createFile(atPath: destination, contents: Data(response.body), attributes: [.posixPermissions: 0o600])
            else {
                throw error(0, "cannot write \(destination)")
            }
        case .success(let response):
            throw error(response.status, "HTTP \(response.status)")
        case .failure(let failure):
            throw error(0, mask(failure.description))
        }
    }
}
