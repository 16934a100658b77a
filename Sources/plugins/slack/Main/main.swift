// The pi-relay-slack executable. The plugin lives in the SlackPlugin library, so tests can
// import it.
import SlackPlugin

await SlackRelay.main()
