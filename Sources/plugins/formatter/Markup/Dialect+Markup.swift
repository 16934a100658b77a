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
            // Slack's mrkdwn has no renderer of its own yet: it gets Discord's markdown, which
            // Slack shows mostly legible. A `SlackMrkdwn: Markup` slots in here.
            return DiscordMarkdown()
        case .ansi:
            return ANSITerminal()
        }
    }
}
