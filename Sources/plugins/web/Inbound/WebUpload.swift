import FoundationEssentials
import PiRelaySDK

/// An image a page sent with a prompt, written to the spool folder (mode 600) and handed to
/// pi-relayd by path, as a messenger hands over a downloaded file.
struct WebUpload: Codable, Sendable, Equatable {
    static let types: Set<String> = ["image/png", "image/jpeg", "image/gif", "image/webp"]
    /// Base64 makes it a third larger, and the whole request must stay under 8 MiB.
    static let maxBytes = 5 << 20

    var path: String
    var filename: String
    var contentType: String
    var size: Int

    var attachment: AttachmentRef { AttachmentRef(path: path, filename: filename, size: size, contentType: contentType) }

    /// Reads `{name, type, data}` (base64) and writes it to `spoolDir`; throws a message for the
    /// page when it is not an image it takes.
    static func save(_ json: JSONValue, spoolDir: String) throws(RemoteError) -> WebUpload {
        guard let type = json["type"]?.stringValue, types.contains(type) else {
            throw .invalidParams("only PNG, JPEG, GIF and WebP images can be sent")
        }
        guard let encoded = json["data"]?.stringValue, let data = Data(base64Encoded: encoded), !data.isEmpty else {
            throw .invalidParams("the image is not base64")
        }
        guard data.count <= maxBytes else { throw .invalidParams("the image is over \(maxBytes >> 20) MB") }
        let name = String((json["name"]?.stringValue ?? "image").filter { $0.isLetter || $0.isNumber || ".-_".contains($0) }.suffix(80))
        let path = spoolDir + "/web-\(RandomName.hex(bytes: 8))-\(name.isEmpty ? "image" : name)"
        guard FileManager.default.createFile(atPath: path, contents: data, attributes: [.posixPermissions: 0o600]) else {
            throw RemoteError(code: .internal, message: "cannot write the image to the spool folder (disk full?)")
        }
        return WebUpload(path: path, filename: name.isEmpty ? "image" : name, contentType: type, size: data.count)
    }
}
