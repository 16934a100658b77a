import Foundation
import PiRelaySDK

/// A local image for `send --image`, as pi image content. The type comes from the bytes.
enum ImageFile {
    static func content(path: String) throws -> JSONValue {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw RemoteError.invalidParams("cannot read image \(path)")
        }
        let b = [UInt8](data.prefix(12))
        let mime: String
        if b.starts(with: [0x89, 0x50, 0x4E, 0x47]) {
            mime = "image/png"
        } else if b.starts(with: [0xFF, 0xD8, 0xFF]) {
            mime = "image/jpeg"
        } else if b.starts(with: Array("GIF8".utf8)) {
            mime = "image/gif"
        } else if b.count >= 12, b.starts(with: Array("RIFF".utf8)), Array(b[8..<12]) == Array("WEBP".utf8) {
            mime = "image/webp"
        } else {
            throw RemoteError.invalidParams("\(path) is not a PNG, JPEG, GIF or WebP image")
        }
        return ["type": "image", "data": .string(data.base64EncodedString()), "mimeType": .string(mime)]
    }
}
