/// Masks secrets in every text the formatter returns: known token shapes, credentials in
/// assignments and headers, private key blocks, and the extra patterns from config `redact`.
///
/// Everything it does stays within one line, except private key blocks, which run from their
/// BEGIN line to their END line (or to the end of the text): the live view depends on a line's
/// redaction not changing when more lines are appended.
///
/// Not `Sendable`: `Regex` is not, so each request builds its own from the pattern strings.
struct Redactor {
    static let mask = "[REDACTED]"

    private let patterns: [Regex<AnyRegexOutput>]
    /// Texts redacted before, for texts that go on from them (a live view's answer so far).
    private let memo: RedactedTexts?

    /// Compiles the config patterns; throws `RedactionPatternError` for one that does not compile
    /// or that matches the empty string (it would mask between every two characters). `memo`
    /// must only ever serve redactors of the same patterns.
    init(patterns: [String], memo: RedactedTexts? = nil) throws(RedactionPatternError) {
        self.memo = memo
        var compiled: [Regex<AnyRegexOutput>] = []
        for (index, source) in patterns.enumerated() {
            let regex: Regex<AnyRegexOutput>
            do { regex = try Regex(source) } catch {
                throw RedactionPatternError(index: index, pattern: source, reason: "\(error)")
            }
            if (try? regex.wholeMatch(in: "")) != nil {
                throw RedactionPatternError(index: index, pattern: source, reason: "it matches the empty string")
            }
            compiled.append(regex)
        }
        self.patterns = compiled
    }

    func redact(_ text: String) -> String {
        guard let memo else { return whole(text[...]) }
        return memo.redact(text, whole: whole)
    }

    /// `text` redacted without the memo.
    private func whole(_ text: Substring) -> String {
        var out = SecretScanner.redact(String(text))
        if !patterns.isEmpty { out = applyPatterns(out) }
        return out
    }

    /// Config patterns run line by line, so that no match can reach across lines. Lines end at
    /// each LF byte, a CR LF's included (it is one `Character`, which a split on "\n" misses), as
    /// `RedactedTexts` cuts them.
    private func applyPatterns(_ text: String) -> String {
        var lines = text.utf8.split(separator: 0x0A, omittingEmptySubsequences: false).map { String(decoding: $0, as: UTF8.self) }
        for index in lines.indices where !lines[index].isEmpty {
            for regex in patterns { lines[index] = lines[index].replacing(regex, with: Self.mask) }
        }
        return lines.joined(separator: "\n")
    }
}
