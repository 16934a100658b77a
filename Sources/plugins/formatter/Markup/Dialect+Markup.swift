import PiRelaySDK

extension Dialect {
    /// The markup the formatter renders this dialect with.
    var markup: any Markup {
        switch self {
        case .markdown:
            return DiscordMarkdown()
        case .telegramHTML:
            return TelegramHTML()
        case .slackMrkdwn:
            return SlackMrkdwn()
        case .ansi:
            return ANSITerminal()
        case .html:
            return WebHTML()
        }
    }
}
