import PiRelaySDK
import Testing

/// The one rule for a session's files that must not leave the machine (the attachments plugin's
/// uploads, a viewer of the working tree), case-insensitive on every component.
@Suite struct SecretPatternTests {
    @Test(arguments: [
        ".env", "app/.env.local", ".SSH/config", "keys/ID_RSA", "certs/server.pem", "a/tls.key", "store.p12", ".git/config",
        "home/.netrc", ".aws/credentials", ".config/gcloud/token.json", ".kube/config", ".docker/config.json", "x/../.env",
    ])
    func credentialsAreNamed(_ path: String) {
        #expect(SecretPattern.match(path) != nil, "\(path)")
    }

    @Test(arguments: ["README.md", "src/env.swift", "docs/keys.md", "config/app.yaml", "aws/credentials.md", "identity.txt"])
    func ordinaryFilesPass(_ path: String) {
        #expect(SecretPattern.match(path) == nil, "\(path)")
    }
}
