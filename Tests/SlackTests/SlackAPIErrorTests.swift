import Testing

@testable import SlackPlugin

/// slack-api.md §9: a refused token stops the plugin and what it refused is kept, so it is not
/// a permanent failure (those are dropped); a channel that is not there is.
@Suite struct SlackAPIErrorTests {
    @Test func aRefusedTokenIsNotAPermanentFailure() {
        for error in ["token_revoked", "invalid_auth", "not_authed", "account_inactive", "token_expired"] {
            let refused = SlackAPIError(method: "chat.postMessage", status: 200, error: error)
            #expect(refused.isTokenProblem && !refused.isPermanent, "\(error)")
        }
        #expect(SlackAPIError(method: "chat.postMessage", status: 200, error: "channel_not_found").isPermanent)
        #expect(!SlackAPIError(method: "chat.postMessage", status: 200, error: "ratelimited").isPermanent)
    }

    /// slack-web-openapi.json lists `rate_limited` among chat.postMessage's and chat.update's
    /// errors, an HTTP 200 with no Retry-After: a throttled post, tried again, never dropped.
    @Test func aPostThrottledWithoutA429IsTriedAgain() {
        let throttled = SlackAPIError(method: "chat.postMessage", status: 200, error: "rate_limited")
        #expect(throttled.isTransient && !throttled.isPermanent)
    }
}
