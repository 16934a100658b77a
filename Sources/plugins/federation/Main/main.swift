// The pi-relay-federation executable. The plugin lives in the FederationPlugin library, so tests
// can import it.
import FederationPlugin

await FederationRelay.main()
