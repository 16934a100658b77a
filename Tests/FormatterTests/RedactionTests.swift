import PiRelaySDK
import Testing

@testable import FormatterPlugin

/// Real-shaped secrets, built at run time from random bodies (no real credential is in the
/// source), none of which may survive redaction.
@Suite struct RedactionTests {
    static func random(_ alphabet: String, _ count: Int, _ rng: inout SeededGenerator) -> String {
        let chars = Array(alphabet)
        return String((0..<count).map { _ in chars[rng.int(0...(chars.count - 1))] })
    }

    static func secrets(seed: UInt64) -> [Secret] {
        var rng = SeededGenerator(seed: seed)
        let alnum = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
        let b64url = alnum + "-_"
        let upper = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"
        // Ensure a digit where the rules want one.
        let anthropic = "api03-" + random(b64url, 86, &rng) + "7AA"
        let openai = "proj-" + random(b64url, 48, &rng) + "1"
        let ghp = random(alnum, 36, &rng)
        let gho = random(alnum, 36, &rng)
        let pat = random(alnum, 22, &rng) + "_" + random(alnum, 59, &rng)
        let xoxb = "2" + random("0123456789", 11, &rng) + "-" + random("0123456789", 13, &rng) + "-" + random(alnum, 24, &rng)
        let xoxp = "1" + random("0123456789", 11, &rng) + "-" + random(alnum, 40, &rng)
        let akia = random(upper, 16, &rng)
        let aiza = random(b64url, 35, &rng)
        let stripe = random(alnum, 24, &rng)
        let discord = "MT" + random(b64url, 24, &rng) + "." + random(b64url, 6, &rng) + "." + random(b64url, 38, &rng)
        let bearer = random(b64url, 40, &rng)
        let basic = random(alnum, 28, &rng) + "=="
        let keyBody = (0..<8).map { _ in random(alnum + "+/", 64, &rng) }.joined(separator: "\n")
        let envValue = random(alnum, 32, &rng)
        let password = random(alnum + "!@#%^*", 18, &rng)
        let jwt = "eyJhbGciOiJIUzI1NiJ9." + random(b64url, 60, &rng) + "." + random(b64url, 43, &rng)
        let urlPassword = random(alnum, 20, &rng)
        let glpat = random(b64url, 20, &rng) + "9"
        let npm = random(alnum, 36, &rng)
        return [
            Secret(kind: "Anthropic", text: "export ANTHROPIC=sk-ant-\(anthropic)", secret: anthropic),
            Secret(kind: "OpenAI", text: "client = OpenAI(api_key=\"sk-\(openai)\")", secret: openai),
            Secret(kind: "GitHub classic", text: "token ghp_\(ghp) expires soon", secret: ghp),
            Secret(kind: "GitHub OAuth", text: "(gho_\(gho))", secret: gho),
            Secret(kind: "GitHub fine-grained", text: "github_pat_\(pat)", secret: pat),
            Secret(kind: "Slack bot", text: "SLACK=xoxb-\(xoxb)", secret: xoxb),
            Secret(kind: "Slack user", text: "use xoxp-\(xoxp) here", secret: xoxp),
            Secret(kind: "AWS access key", text: "aws_access_key_id = AKIA\(akia)", secret: akia),
            Secret(kind: "Google API key", text: "https://maps.googleapis.com/api?key=AIza\(aiza)&q=x", secret: aiza),
            Secret(kind: "Stripe", text: "Stripe.apiKey = 'sk_live_\(stripe)';", secret: stripe),
            Secret(kind: "Discord bot token", text: "DISCORD: \(discord)", secret: discord),
            Secret(kind: "Bearer header", text: "curl -H \"Authorization: Bearer \(bearer)\" https://x", secret: bearer),
            Secret(kind: "Basic header", text: "authorization: Basic \(basic)", secret: basic),
            Secret(kind: "Bot header", text: "\"Authorization\": \"Bot \(discord)\"", secret: discord),
            Secret(
                kind: "Private key", text: "-----BEGIN RSA PRIVATE KEY-----\n\(keyBody)\n-----END RSA PRIVATE KEY-----",
                secret: String(keyBody.prefix(64))),
            Secret(kind: "OpenSSH key, no END", text: "-----BEGIN OPENSSH PRIVATE KEY-----\n\(keyBody)", secret: String(keyBody.suffix(64))),
            Secret(kind: ".env secret", text: "DB_SECRET=\(envValue)", secret: envValue),
            Secret(kind: ".env password", text: "export POSTGRES_PASSWORD='\(password)'", secret: password),
            Secret(kind: "JSON password", text: "{\"password\": \"\(password)\", \"user\": \"me\"}", secret: password),
            Secret(kind: "header api key", text: "-H 'X-Api-Key: \(envValue)'", secret: envValue),
            Secret(kind: "JWT", text: "session=\(jwt);", secret: String(jwt.dropFirst(21))),
            Secret(kind: "URL password", text: "postgres://admin:\(urlPassword)@db.internal:5432/app", secret: urlPassword),
            Secret(kind: "GitLab", text: "glpat-\(glpat)", secret: glpat),
            Secret(kind: "npm", text: "//registry.npmjs.org/:_authToken=npm_\(npm)", secret: npm),
        ]
    }

    @Test func noSecretSurvives() throws {
        let redactor = try Redactor(patterns: [])
        var kinds = Set<String>()
        for seed in UInt64(1)...50 {
            for s in Self.secrets(seed: seed) {
                let out = redactor.redact("before \(s.text) after")
                #expect(!out.contains(s.secret), "\(s.kind) survived: \(out)")
                #expect(out.hasPrefix("before ") && out.hasSuffix(" after") || s.kind.hasPrefix("OpenSSH"), "\(s.kind): \(out)")
                #expect(out.contains("[REDACTED"), "\(s.kind): \(out)")
                kinds.insert(s.kind)
            }
        }
        #expect(kinds.count >= 12)
    }

    @Test func redactionIsIdempotent() throws {
        let redactor = try Redactor(patterns: [])
        for s in Self.secrets(seed: 99) {
            let once = redactor.redact(s.text)
            #expect(redactor.redact(once) == once, "\(s.kind)")
        }
    }

    @Test func ordinaryTextIsLeftAlone() throws {
        let redactor = try Redactor(patterns: [])
        let texts = [
            "Set max_tokens=4096 and keyboard layout.",
            "pip install scikit-learn; see sk-learn docs",
            "task-runner-configuration-file-name-here",
            "let apiKey = ProcessInfo.processInfo.environment[\"API_KEY\"]",
            "token = getToken()",
            "KEY=$SECRET_FROM_VAULT",
            "The primary_key: id column, and \"token\": tokenValue,",
            "Version 1.2.3 of www.example.com/path.html",
            "Authorization header missing",
            "if key == other { return }",
            "https://example.com/a/b?page=2",
        ]
        for t in texts { #expect(redactor.redact(t) == t) }
    }

    @Test func customPatternsApplyLineByLine() throws {
        let redactor = try Redactor(patterns: ["corp-[0-9]{6}", "(?i)internal\\.example\\.com"])
        #expect(redactor.redact("id corp-123456 at Internal.Example.com\nnext") == "id [REDACTED] at [REDACTED]\nnext")
    }

    /// A CR LF ends a line too (it is one `Character`, so splitting on "\n" missed it): no match
    /// reaches across it, and a long text comes out the same through the memo, which reuses
    /// lines cut at each LF, as whole.
    @Test func customPatternsStopAtCRLF() throws {
        let patterns = ["password:\\s*\\S+"]
        let whole = try Redactor(patterns: patterns)
        #expect(whole.redact("password: hunter2\r\nnext") == "[REDACTED]\r\nnext")
        #expect(whole.redact("password:\r\nhunter2") == "password:\r\nhunter2")
        let memo = try Redactor(patterns: patterns, memo: RedactedTexts())
        let prose = String(repeating: "a line of the answer\r\n", count: 60)
        for text in [prose + "password:\r\n", prose + "password:\r\nhunter2 and more\r\n"] {
            #expect(memo.redact(text) == whole.redact(text))
        }
    }

    @Test func badCustomPatternsAreRejected() {
        #expect(throws: RedactionPatternError.self) { try Redactor(patterns: ["(unclosed"]) }
        #expect(throws: RedactionPatternError.self) { try Redactor(patterns: ["a*"]) }
        #expect(throws: FormatterConfigError.self) { try FormatterConfig(json: ["redact": ["[z-a]"]]) }
    }

    /// Every method's output is redacted: final messages and files, live chunks and tail,
    /// notices, thinking when shown, tool lines and table cells.
    @Test func everyMethodRedacts() throws {
        let key = "ghp_" + String(repeating: "a1B2c3D4", count: 5)
        var config = FormatterConfig()
        config.showThinking = true
        let formatter = RelayFormatter(config: config)
        let run = RunFixture.run(
            [
                RunFixture.thinking("I will use \(key) now"),
                RunFixture.text(
                    "Token: \(key)\n\n| name | value |\n|---|---|\n| gh | \(key) |\n" + String(repeating: "filler words here. ", count: 200)),
                RunFixture.tools([RunFixture.call("bash", ["command": .string("GH_TOKEN=\(key) gh pr list")])]),
                RunFixture.notice("error", "auth failed for \(key)"),
            ], stopReason: "error", errorMessage: "bad credentials \(key)")
        let final = try formatter.respond(to: "format.final", params: ["run": run, "limit": 500, "maxChunks": 1])
        let live = try formatter.respond(to: "format.live", params: ["run": run, "limit": 500])
        let notice = try formatter.respond(to: "format.notice", params: ["notice": "error", "text": .string("leaked \(key)")])
        let redacted = try formatter.respond(to: "format.redact", params: ["text": .string("x \(key) y")])
        let secretBody = String(key.dropFirst(4))
        for value in [final, live, notice, redacted] {
            #expect(!value.serialized().contains(secretBody))
            #expect(value.serialized().contains("[REDACTED]"))
        }
        #expect(final["files"]?[0]?["text"]?.stringValue?.contains("[REDACTED]") == true)
    }
}
