extension HTMLTag {
    /// A link's address, read back from its escaped `href` attribute.
    var address: String {
        guard name == "a", attributes.hasPrefix(" href=\""), attributes.hasSuffix("\"") else { return "" }
        var escaped = attributes.dropFirst(7).dropLast()[...]
        var out = ""
        while let first = escaped.first {
            if first == "&", let entity = Self.entities.first(where: { escaped.hasPrefix($0.key) }) {
                out += entity.value
                escaped = escaped.dropFirst(entity.key.count)
            } else {
                out.append(first)
                escaped = escaped.dropFirst()
            }
        }
        return out
    }

    /// The entities `htmlAttributeEscaped` writes.
    private static let entities: [String: String] = ["&amp;": "&", "&lt;": "<", "&gt;": ">", "&quot;": "\""]
}
