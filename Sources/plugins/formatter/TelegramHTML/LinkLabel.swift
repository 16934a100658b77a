/// A link's shown text, read for the address it seems to name: model text (or a page it read)
/// can write `[https://bank.example](https://evil.example)`, and Telegram, Slack and the web page
/// show only the text.
struct LinkLabel {
    let text: String

    init(_ text: String) {
        self.text = text
    }

    /// The text names a site (`https://…`, `www.…`, `bank.com/login`) other than `url`'s, in
    /// any of its words: `Log in at https://bank.example`, `(bank.example)` and `**bank.ca**`
    /// hide the target as well as the bare address does. A file name such as `README.md` or
    /// `Package.swift` names none, so it stays a plain link.
    func namesAnotherSite(than url: String) -> Bool {
        guard let target = Self.host(of: url) else { return false }
        return shownHosts.contains { !(target == $0 || target.hasSuffix("." + $0)) }
    }

    /// The hosts the text's words read as, lowercased and without `www.`.
    var shownHosts: [String] {
        text.split(whereSeparator: \.isWhitespace).compactMap { Self.shownHost(of: String($0)) }
    }

    /// The host one word reads as; nil when it reads as none. Quotes, brackets, emphasis and
    /// the punctuation that ends a sentence around it are not part of it.
    static func shownHost(of word: String) -> String? {
        let trimmed = word.trimming { Self.around.contains($0) }
        guard !trimmed.isEmpty else { return nil }
        let lower = trimmed.lowercased()
        if lower.hasPrefix("https://") || lower.hasPrefix("http://") { return host(of: trimmed) }
        let host = hostPart(lower)
        let labels = host.split(separator: ".", omittingEmptySubsequences: false)
        guard labels.count >= 2, labels.allSatisfy({ !$0.isEmpty && $0.allSatisfy { $0.isLetter || $0.isNumber || $0 == "-" } }) else {
            return nil
        }
        guard lower.hasPrefix("www.") || webDomains.contains(String(labels[labels.count - 1])) else { return nil }
        return withoutWWW(host)
    }

    /// What may stand around an address in prose or markdown.
    private static let around: Set<Character> = [
        "(", ")", "[", "]", "<", ">", "{", "}", "\"", "'", "`", "*", "_", "~", ",", ";", ":", "!", "?", ".", "«", "»", "“", "”", "‘", "’",
    ]

    /// Endings that read as a web site in prose, not as a file's type (`.md`, `.py`, `.rs`,
    /// `.sh`, `.pl`, `.ts` and `.swift` are both, and stay links).
    private static let webDomains: Set<String> = [
        "com", "net", "org", "io", "dev", "app", "co", "ai", "gov", "edu", "info", "biz", "me", "us", "uk", "de", "fr", "ru", "cn", "jp",
        "xyz", "site", "online", "shop", "bank", "cloud", "tech", "ca", "ch", "nl", "eu", "in", "au", "it", "es", "se", "no", "fi", "dk",
        "pt", "br", "mx", "ar", "nz", "za", "kr", "tw", "hk", "sg", "be", "at", "ie", "il", "gr", "cz", "hu", "ro", "ua", "vn", "tr",
        "pk", "ng", "ke", "cl", "pe", "ph", "th", "my", "tv", "fm", "gg", "page", "link", "live", "pro", "top", "club", "store", "blog",
        "news", "email", "money", "finance", "pay", "secure", "support", "login",
    ]

    /// The host of an `http(s)://` address, lowercased and without `www.`, port or user.
    static func host(of url: String) -> String? {
        let lower = url.lowercased()
        guard let scheme = lower.firstRange(of: "://") else { return nil }
        let host = hostPart(String(lower[scheme.upperBound...]))
        return host.isEmpty ? nil : withoutWWW(host)
    }

    /// What comes before the first `/`, `?` or `#`, after any `user@`, before any `:port`.
    private static func hostPart(_ rest: String) -> String {
        var authority = Substring(rest.prefix { $0 != "/" && $0 != "?" && $0 != "#" && $0 != "\\" })
        if let at = authority.lastIndex(of: "@") { authority = authority[authority.index(after: at)...] }
        if let colon = authority.lastIndex(of: ":"), !authority.hasPrefix("[") { authority = authority[..<colon] }
        return authority.hasSuffix(".") ? String(authority.dropLast()) : String(authority)
    }

    private static func withoutWWW(_ host: String) -> String {
        host.hasPrefix("www.") ? String(host.dropFirst(4)) : host
    }
}
