/// One of the tags Telegram's `parse_mode: HTML` accepts, as the formatter writes it.
///
/// A block tag carries the number of the block it belongs to, so that two code blocks or quotes
/// that follow each other stay two, and so that the splitter can tell where a block starts.
struct HTMLTag: Hashable, Sendable {
    let name: String
    /// The attribute part of the opening tag, escaped, with its leading space (or empty).
    let attributes: String
    /// The code block or quote this tag makes, counted from 1; 0 for an inline tag.
    let block: Int32

    static let bold = HTMLTag(name: "b", attributes: "", block: 0)
    static let italic = HTMLTag(name: "i", attributes: "", block: 0)
    static let code = HTMLTag(name: "code", attributes: "", block: 0)

    static func link(_ url: String) -> HTMLTag {
        HTMLTag(name: "a", attributes: " href=\"" + url.htmlAttributeEscaped + "\"", block: 0)
    }

    static func quote(block: Int32) -> HTMLTag {
        HTMLTag(name: "blockquote", attributes: "", block: block)
    }

    /// `<pre>`, or `<pre><code class="language-x">` for a fence with a language: Telegram
    /// highlights only a `code` that fills its `pre` directly.
    static func codeBlock(language: Substring, block: Int32) -> [HTMLTag] {
        let pre = HTMLTag(name: "pre", attributes: "", block: block)
        // A language name only: a browser splits `class` at any white space, a form feed too,
        // and model text must not give itself the dashboard's own classes (`py\u{0C}waiting`).
        guard !language.isEmpty, language.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "_+#.-".contains($0)) }) else {
            return [pre]
        }
        return [pre, HTMLTag(name: "code", attributes: " class=\"language-" + String(language).htmlAttributeEscaped + "\"", block: block)]
    }

    var opening: String { "<" + name + attributes + ">" }
    var closing: String { "</" + name + ">" }
}
