import Logging
import PiRelayHTTP
import PiRelaySDK

/// A messenger's way to its API: the transfer loop, the proxy, the log and the tally of calls.
/// `exchange` makes one try of a call to an API that answers every call with a JSON object
/// carrying `ok` (Telegram's Bot API, Slack's Web API): a dropped connection and an answer that
/// is no such object are failed tries that `APIAttempts` retries; what `ok: false` means (a 429,
/// a refusal) is the client's to say.
package struct APIConnection: Sendable {
    package enum Reply: Sendable {
        /// The service answered: its whole object, and whether it said `ok`.
        case answered(JSONValue, ok: Bool, HTTPResponse)
        /// A failed try; `error` is what the call throws if it was the last.
        case failed(APIAttempts.Failure, any Error)
    }

    package let loop: TransferLoop
    package let proxy: ProxySetting
    package let logger: Logger
    package let tally = APITally()

    package init(loop: TransferLoop, proxy: ProxySetting, logger: Logger) {
        self.loop = loop
        self.proxy = proxy
        self.logger = logger
    }

    /// POSTs `body` to `url` once, for try `attempt` of `method`. `mask` hides the token in any
    /// text; `error` makes the client's error from an HTTP status (0 without one) and a text;
    /// `intercept` sees a response before its body is read (Slack's 429 carries its wait in a
    /// header, whatever the body).
    package func exchange(
        _ method: String, url: SecretURL, headers: [String] = [], body: HTTPBody, timeout: Duration, attempt: Int,
        mask: (String) -> String, notAnAnswer: String, error: (_ status: Int, _ text: String) -> any Error,
        intercept: (HTTPResponse) async -> Reply? = { _ in nil }
    ) async throws -> Reply {
        tally.request()
        let request = HTTPRequest(method: "POST", url: url, headers: headers, body: body, timeout: timeout, proxy: proxy, maxBytes: 16 << 20)
        let response: HTTPResponse
        switch await loop.perform(request) {
        case .success(let answer): response = answer
        case .failure(.cancelled): throw CancellationError()
        case .failure(let failure):
            tally.failure()
            logger.debug("\(method): \(mask(failure.description)) (try \(attempt))")
            return .failed(.transport, error(0, mask(failure.description)))
        }
        if let early = await intercept(response) { return early }
        guard let json = try? JSONValue.parse(bytes: response.body), let ok = json["ok"]?.boolValue else {
            tally.failure()
            return .failed(.notAnAnswer(status: response.status), error(response.status, "HTTP \(response.status), \(notAnAnswer)"))
        }
        return .answered(json, ok: ok, response)
    }
}
