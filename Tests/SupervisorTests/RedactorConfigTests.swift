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

    /// pi's command line is logged when a session starts: a key given as one of its arguments
    /// is masked there, the other arguments are not.
    @Test func aSecretInPisArgumentsIsMasked() {
        Redactor.learn(arguments: ["--model", "RCT-args-model", "--api-key", "RCT-args-key-51c2", "--token=RCT-args-token-8e0f"])
        let line = "starting pi --mode rpc --model RCT-args-model --api-key RCT-args-key-51c2 --token=RCT-args-token-8e0f"
        #expect(Redactor.redact(line) == "starting pi --mode rpc --model RCT-args-model --api-key [redacted] --token=[redacted]")
    }

    /// A token kept in a variable of any name (`tokenEnv: MY_BOT`) and the password of a URL
    /// (the federation's `PI_RELAYD_DATABASE_URL`) are masked too: neither name looks secret.
    @Test func aVariableAnEnvKeyNamesAndAURLsPasswordAreMasked() {
        let token = "RedactorConfigTests-custom-7d1a"
        Redactor.learn(config: ["tokenEnv": "RCT_MY_BOT"], environment: ["RCT_MY_BOT": token, "RCT_OTHER": "RedactorConfigTests-other"])
        Redactor.learn(environment: ["RCT_DATABASE_URL": "postgres://relay:RCTpw-3c9e51@db.example.net:5432/relay?sslmode=require"])
        let line = "token \(token), postgres://relay:RCTpw-3c9e51@db.example.net/relay, RedactorConfigTests-other"
        #expect(Redactor.redact(line) == "token [redacted], postgres://relay:[redacted]@db.example.net/relay, RedactorConfigTests-other")
    }
}

/// A plugin's line that is not the protocol's is shown cut to its start (in the log, and in
/// `status` when it came instead of a hello): a secret crossing the cut is masked whole first,
/// never left as its first characters.
@Suite struct PluginLinePreviewTests {
    @Test func aSecretCrossingTheCutIsMaskedBeforeIt() {
        let secret = "PluginLinePreviewTests-secret-7d3a9c"
        Redactor.learn(secret: secret)
        let line = Array((String(repeating: "x", count: 100) + secret + " and more").utf8)
        let preview = PluginLink.preview(line)
        #expect(!preview.contains("PluginLinePreviewTests"), "\(preview)")
        #expect(preview == String(repeating: "x", count: 100) + "[redacted] and more")
        let hello = HelloCheck(first: .malformed(preview: preview, error: "not JSON"))
        #expect(hello == .rejected("expected a hello as the first line, got: " + preview))
    }
}
