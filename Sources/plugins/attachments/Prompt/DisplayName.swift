/// The file name shown in the prompt and to the user. It comes from the chat, so it is cleaned:
/// a line break or control character in it could otherwise forge prompt structure.
enum DisplayName {
    static let maxLength = 120

    static func clean(_ raw: String?, fallbackFrom address: String) -> String {
        let cleaned = sanitize(raw ?? "")
        if !cleaned.isEmpty { return cleaned }
        let path = address.split(separator: "?", maxSplits: 1).first.map(String.init) ?? address
        let last = sanitize(path.split(separator: "/").last.map(String.init) ?? "")
        return last.isEmpty ? "attachment" : last
    }

    private static func sanitize(_ s: String) -> String {
        var out = ""
        for scalar in s.unicodeScalars {
            switch scalar.properties.generalCategory {
            case .control, .lineSeparator, .paragraphSeparator, .format:
                out.unicodeScalars.append(" ")
            default:
                out.unicodeScalars.append(scalar)
            }
        }
        let trimmed = out.split(separator: " ", omittingEmptySubsequences: true).joined(separator: " ")
        return trimmed.count > maxLength ? String(trimmed.prefix(maxLength)) + "…" : trimmed
    }
}
