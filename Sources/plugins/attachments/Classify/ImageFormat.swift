/// The image formats vision models accept, recognised by their leading bytes.
enum ImageFormat: String, Sendable, CaseIterable {
    case png, jpeg, gif, webp

    var mimeType: String { "image/\(rawValue)" }

    var displayName: String {
        switch self {
        case .png: "PNG"
        case .jpeg: "JPEG"
        case .gif: "GIF"
        case .webp: "WebP"
        }
    }

    static func detect(_ bytes: [UInt8]) -> ImageFormat? {
        if bytes.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) { return .png }
        if bytes.starts(with: [0xFF, 0xD8, 0xFF]) { return .jpeg }
        if bytes.starts(with: Array("GIF87a".utf8)) || bytes.starts(with: Array("GIF89a".utf8)) { return .gif }
        // RIFF container whose form type is WEBP and whose first chunk is one of WebP's three kinds.
        if bytes.count >= 16, bytes.starts(with: Array("RIFF".utf8)), Array(bytes[8..<12]) == Array("WEBP".utf8),
            ["VP8 ", "VP8L", "VP8X"].contains(where: { Array($0.utf8) == Array(bytes[12..<16]) })
        {
            return .webp
        }
        return nil
    }
}
