/// What an attachment is, judged from its bytes alone: names and declared types are often wrong.
enum Classification: Sendable, Equatable {
    case image(ImageFormat)
    case otherImage(OtherImageFormat)
    case text(String)
    /// `why` is the reason shown in the prompt and to the user.
    case binary(why: String)

    static func of(_ bytes: [UInt8]) -> Classification {
        if let format = ImageFormat.detect(bytes) { return .image(format) }
        if let format = OtherImageFormat.detect(bytes) { return .otherImage(format) }
        // Before the NUL test: UTF-16 holds one in every ASCII character.
        if bytes.starts(with: [0xFF, 0xFE]) || bytes.starts(with: [0xFE, 0xFF]), let text = LegacyText.decode(bytes) { return .text(text) }
        if bytes.contains(0) { return .binary(why: "binary") }
        guard let text = String(validating: bytes, as: UTF8.self) ?? LegacyText.decode(bytes) else {
            return .binary(why: "binary (not valid UTF-8 text)")
        }
        return OtherImageFormat.detectSVG(text) ? .otherImage(.svg) : .text(text)
    }
}
