import PiRelaySDK
import Testing

@testable import Supervisor

/// Secrets written in a plugin's config section reach that plugin, which may print them: the
/// daemon learns every text value under a secret-named key, at any depth.
@Suite struct RedactorConfigTests {
    @Test func secretNamedValuesOfAPluginSectionAreMasked() {
        let token = "RedactorConfigTests-token-4f1c"
        let password = "RedactorConfigTests-password-9b2e"
        let section: JSONValue = [
            "botToken": .string(token),
            "accounts": [["name": "RedactorConfigTests-name", "password": .string(password)]],
            "tokenEnv": "RedactorConfigTests_VARIABLE",
        ]
        Redactor.learn(config: section)
        let line = "connecting with \(token), \(password), RedactorConfigTests-name and RedactorConfigTests_VARIABLE"
        #expect(Redactor.redact(line) == "connecting with [redacted], [redacted], RedactorConfigTests-name and RedactorConfigTests_VARIABLE")
    }
}
