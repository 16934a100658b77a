// The pi-relay-formatter executable. The plugin lives in the FormatterPlugin library, so tests and fuzz
// targets can import it.
import FormatterPlugin

await RelayFormatter.main()
