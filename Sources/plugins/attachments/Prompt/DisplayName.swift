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

    private static let bidiControls: Set<UInt32> = [
        0x061C, 0x200E, 0x200F, 0x202A, 0x202B, 0x202C, 0x202D,
        0x202E, 0x2066, 0x2067, 0x2068, 0x2069,
    ]

    private static func sanitize(_ name: String) -> String {
        var out = ""
        for scalar in name.unicodeScalars {
            switch scalar.properties.generalCategory {
            case .control, .lineSeparator, .paragraphSeparator:
                out.unicodeScalars.append(" ")
            default:
                // Direction overrides make "gnp.exe" display as "exe.png"; joiners stay for emoji.
                out.unicodeScalars.append(bidiControls.contains(scalar.value) ? " " : scalar)
            }
        }
        let trimmed = out.split(separator: " ", omittingEmptySubsequences: true).joined(separator: " ")
        return trimmed.count > maxLength ? String(trimmed.prefix(maxLength)) + "…" : trimmed
    }
}
