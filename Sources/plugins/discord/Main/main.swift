// The pi-relay-discord executable. The plugin lives in the DiscordPlugin library, so tests and fuzz
// targets can import it.
import DiscordPlugin

await DiscordRelay.main()
