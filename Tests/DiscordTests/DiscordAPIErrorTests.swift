import Testing

@testable import DiscordPlugin

/// discord-api.md §6: stop using a token after 401, and keep what it refused; a 401 about an
/// interaction's webhook token (code 50027) says nothing of the bot's token.
@Suite struct DiscordAPIErrorTests {
    @Test func aRefusedBotTokenIsNotAPermanentFailure() {
        for code in [nil, 0] as [Int?] {
            let refused = DiscordAPIError(endpoint: "POST /channels/{channel_id}/messages", status: 401, code: code, message: "401: Unauthorized")
            #expect(refused.refusesBotToken && !refused.isPermanent, "\(refused)")
        }
        let webhook = DiscordAPIError(
            endpoint: "PATCH /webhooks/{application_id}/{token}/messages/@original", status: 401, code: 50027, message: "Invalid Webhook Token")
        #expect(!webhook.refusesBotToken && webhook.isPermanent)
        #expect(
            DiscordAPIError(endpoint: "POST /channels/{channel_id}/messages", status: 403, code: 50013, message: "Missing Permissions").isPermanent)
        #expect(!DiscordAPIError(endpoint: "POST /channels/{channel_id}/messages", status: 429, code: nil, message: "").isPermanent)
    }
}
