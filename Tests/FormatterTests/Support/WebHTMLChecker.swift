/// A message in `dialect: html` read as a browser would take it: every `<` opens a tag, so each
/// tag must be one the formatter promises (`TelegramHTMLChecker`'s set and rules, http, https or
/// tg links only), every link must open in a new tab with no opener and no referrer, and no
/// attribute may be anything else (no `on…=` handler, no `style`, no `src`). Returns the visible
/// text.
enum WebHTMLChecker {
    static let linkOpening = "<a rel=\"noopener noreferrer\" target=\"_blank\" href=\""

    @discardableResult
    static func check(_ message: String, limit: Int = Int.max) throws -> String {
        let links = message.ranges(of: "<a ").count
        let safeLinks = message.ranges(of: linkOpening).count
        guard links == safeLinks else { throw TelegramHTMLChecker.Violation("a link without rel and target in \(message)") }
        return try TelegramHTMLChecker.check(message.replacing(linkOpening, with: "<a href=\""), limit: limit)
    }
}
