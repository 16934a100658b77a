import PiRelayHTTP
import PiRelaySDK

extension RateLimitInfo {
    init(_ response: HTTPResponse) {
        self.init(status: response.status)
        bucket = response[header: "x-ratelimit-bucket"]
        limit = response[header: "x-ratelimit-limit"].flatMap { Int($0) }
        remaining = response[header: "x-ratelimit-remaining"].flatMap { Int($0) }
        resetAfter = response[header: "x-ratelimit-reset-after"].flatMap { Double($0) }
        global = response[header: "x-ratelimit-global"]?.lowercased() == "true"
        guard response.status == 429 else { return }
        // The body's retry_after is a float; the header is rounded up to whole seconds.
        let body = try? JSONValue.parse(bytes: response.body)
        retryAfter = body?["retry_after"]?.doubleValue ?? response[header: "retry-after"].flatMap { Double($0) }
        if body?["global"]?.boolValue == true { global = true }
    }
}
