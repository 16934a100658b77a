// The pi-relay-web executable. The plugin lives in the WebPlugin library, so tests can import it.
import WebPlugin

await WebRelay.main()
