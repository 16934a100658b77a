import FoundationEssentials
import PiRelaySDK

/// A local image for `send --image`, as pi image content. The type comes from the bytes.
package enum ImageFile {
    package static func content(path: String) throws -> JSONValue {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw RemoteError.invalidParams("cannot read image \(path)")
        }
        let magic = [UInt8](data.prefix(12))
        let mime: String
        if magic.starts(with: [0x89, 0x50, 0x4E, 0x47]) {
            mime = "image/png"
        } else if magic.starts(with: [0xFF, 0xD8, 0xFF]) {
            mime = "image/jpeg"
        } else if magic.starts(with: Array("GIF8".utf8)) {
            mime = "image/gif"
        } else if magic.count >= 12, magic.starts(with: Array("RIFF".utf8)), Array(magic[8..<12]) == Array("WEBP".utf8) {
            mime = "image/webp"
        } else {
            throw RemoteError.invalidParams("\(path) is not a PNG, JPEG, GIF or WebP image")
        }
        return ["type": "image", "data": .string(data.base64EncodedString()), "mimeType": .string(mime)]
    }
}
