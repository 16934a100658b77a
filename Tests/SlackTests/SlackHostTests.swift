import Testing

@testable import SlackPlugin

/// The bot token goes with a file download only to Slack's own hosts (slack-api.md §10), read as
/// curl reads a URL's host: `#`, `\`, `@` and `%` cannot make another host look like Slack's.
@Suite struct SlackHostTests {
    @Test func onlySlacksHostsGetTheToken() {
        let api = "http://127.0.0.1:4000/api"
        for url in [
            "https://files.slack.com/files-pri/T1-F1/a.png", "https://slack.com/x", "https://a.slack-edge.com/y",
            "https://files.slack.com:443/x", "http://127.0.0.1:4000/files/x",
        ] {
            #expect(WebAPI.isSlackHost(url, apiBase: api), "\(url)")
        }
        for url in [
            "https://evil.example#.slack.com/files-pri/x", "https://evil.example\\.slack.com/x", "https://evil.example%23.slack.com/x",
            "https://files.slack.com\\@evil.example/x", "https://files.slack.com\\/x",
            "https://user@files.slack.com.evil.example/x", "https://files.slack.com@evil.example/x", "https://slack.com.evil.example/x",
            "ftp://files.slack.com/x", "files.slack.com/x", "https://:443/x", "https://files.slack.com:/x", "http://127.0.0.1:4001/x",
        ] {
            #expect(!WebAPI.isSlackHost(url, apiBase: api), "\(url)")
        }
    }
}
