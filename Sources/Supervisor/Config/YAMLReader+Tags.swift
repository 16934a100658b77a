extension YAMLReader {
    /// A tag as an error may show it: `!!name` for the core prefix, and only when it is short and
    /// plain. A tag is text from the file, so a token pasted into one (`!!<token>`) stays out of
    /// the error, which ends up in logs.
    package static func shown(tag: String) -> String {
        let short = tag.hasPrefix(YAMLNode.coreTagPrefix) ? "!!" + tag.dropFirst(YAMLNode.coreTagPrefix.count) : tag
        let body = short.drop { $0 == "!" }
        let plain = body.count <= 20 && body.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") }
        return plain ? short : "(\(short.count) characters, not shown)"
    }
}
