// The pi-relay-telegram executable. The plugin lives in the TelegramPlugin library, so tests can
// import it.
import TelegramPlugin

await TelegramRelay.main()
