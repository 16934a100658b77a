/// A credential recognised by its fixed prefix: `ghp_` followed by at least 30 letters and digits,
/// and so on. The prefix is kept ("ghp_[REDACTED]") so the reader still knows what was there.
struct TokenRule: Sendable {
    let prefix: StaticString
    let body: TokenAlphabet
    let minimumLength: Int
    /// Require a digit in the body: random keys have one; words that happen to share the
    /// prefix ("sk-learn-tutorial") do not.
    let needsDigit: Bool

    init(_ prefix: StaticString, _ body: TokenAlphabet, min: Int, needsDigit: Bool = false) {
        self.prefix = prefix
        self.body = body
        self.minimumLength = min
        self.needsDigit = needsDigit
    }

    /// Longer prefixes first, so `sk-ant-` wins over `sk-`.
    static let all: [TokenRule] = [
        TokenRule("sk-ant-", .base64URL, min: 20, needsDigit: true),  // Anthropic
        TokenRule("sk-", .base64URL, min: 20, needsDigit: true),  // OpenAI, OpenRouter, DeepSeek
        TokenRule("sk_live_", .alphanumeric, min: 16),  // Stripe secret keys
        TokenRule("sk_test_", .alphanumeric, min: 16),
        TokenRule("rk_live_", .alphanumeric, min: 16),  // Stripe restricted keys
        TokenRule("rk_test_", .alphanumeric, min: 16),
        TokenRule("whsec_", .alphanumeric, min: 16),  // Stripe webhook secrets
        TokenRule("github_pat_", .word, min: 30),  // GitHub fine-grained tokens
        TokenRule("ghp_", .alphanumeric, min: 30),  // GitHub classic tokens
        TokenRule("gho_", .alphanumeric, min: 30),
        TokenRule("ghu_", .alphanumeric, min: 30),
        TokenRule("ghs_", .alphanumeric, min: 30),
        TokenRule("ghr_", .alphanumeric, min: 30),
        TokenRule("glpat-", .base64URL, min: 20),  // GitLab
        TokenRule("xoxb-", .alphanumericDash, min: 10),  // Slack
        TokenRule("xoxp-", .alphanumericDash, min: 10),
        TokenRule("xoxa-", .alphanumericDash, min: 10),
        TokenRule("xoxr-", .alphanumericDash, min: 10),
        TokenRule("xoxs-", .alphanumericDash, min: 10),
        TokenRule("xapp-", .alphanumericDash, min: 10),
        TokenRule("AKIA", .upperDigit, min: 16),  // AWS access key ids
        TokenRule("ASIA", .upperDigit, min: 16),
        TokenRule("AIza", .base64URL, min: 30),  // Google API keys
        TokenRule("ya29.", .base64URLDot, min: 20),  // Google OAuth access tokens
        TokenRule("GOCSPX-", .base64URL, min: 20),  // Google OAuth client secrets
        TokenRule("npm_", .alphanumeric, min: 30),  // npm
        TokenRule("hf_", .alphanumeric, min: 30),  // Hugging Face
        TokenRule("gsk_", .alphanumeric, min: 30),  // Groq
        TokenRule("xai-", .alphanumeric, min: 30),  // xAI
    ]

    /// First bytes of all prefixes, so most words are rejected with one lookup.
    static let firstBytes: [Bool] = {
        var table = [Bool](repeating: false, count: 256)
        for rule in all { table[Int(rule.prefix.utf8Start[0])] = true }
        return table
    }()
}
