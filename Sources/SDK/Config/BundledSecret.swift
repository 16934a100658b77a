/// The variables the bundled plugins read their secrets from when their section names no other.
/// pi-relayd keeps them from every pi it starts from the start, not only once the plugin's hello
/// declared them: a plugin that is disabled, not started yet or that failed before its hello
/// says nothing, and its token, still in `.env`, would reach the agent.
public enum BundledSecret {
    public static let discordToken = "DISCORD_BOT_TOKEN"
    public static let telegramToken = "TELEGRAM_BOT_TOKEN"
    public static let slackBotToken = "SLACK_BOT_TOKEN"
    public static let slackAppToken = "SLACK_APP_TOKEN"
    public static let transcribeKey = "TRANSCRIBE_API_KEY"
    public static let databaseURL = "PI_RELAYD_DATABASE_URL"

    public static let variables: Set<String> = [discordToken, telegramToken, slackBotToken, slackAppToken, transcribeKey, databaseURL]
}
