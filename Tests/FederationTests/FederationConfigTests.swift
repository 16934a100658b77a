import PiRelaySDK
import Testing

@testable import FederationPlugin

/// No database URL: the plugin is not configured, and says where to set it, in the home the
/// daemon runs with.
@Suite struct FederationConfigTests {
    @Test func noDatabaseNamesTheDotEnvOfTheHomeInUse() {
        for (environment, dotenv) in [(["PI_RELAYD_HOME": "/srv/relay"], "/srv/relay/.env"), ([:], "~/.pi-relayd/.env")] {
            do {
                _ = try FederationConfig.load([:], environment: environment)
                Issue.record("no URL must not load")
            } catch PluginExit.notConfigured(let why) {
                #expect(why.contains("set PI_RELAYD_DATABASE_URL in \(dotenv) to a postgres:// URL"), "\(why)")
            } catch {
                Issue.record("\(error)")
            }
        }
    }
}
