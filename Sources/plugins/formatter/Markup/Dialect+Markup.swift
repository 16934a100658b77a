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

    /// The markup for live views, reading each run's settled text once (`SettledTexts`).
    func liveMarkup(reusing settledTexts: SettledTexts) -> any Markup {
        switch self {
        case .telegramHTML: return TelegramHTML(settledTexts: settledTexts)
        case .slackMrkdwn: return SlackMrkdwn(settledTexts: settledTexts)
        case .html: return WebHTML(settledTexts: settledTexts)
        case .markdown, .ansi: return markup
        }
    }
}
