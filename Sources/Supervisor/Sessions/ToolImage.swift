import FoundationEssentials
import PiRelaySDK

/// An image a tool produced in the session's last run, kept on disk until the next run so it
/// can be listed and sent on request.
struct ToolImage: Sendable, Equatable {
    var path: String
    var filename: String
    var mimeType: String
    var toolName: String

    var json: JSONValue {
        ["filename": .string(filename), "mimeType": .string(mimeType), "tool": .string(toolName)]
    }

    static func fileExtension(_ mime: String) -> String {
        switch mime {
        case "image/png": return "png"
        case "image/jpeg": return "jpg"
        case "image/gif": return "gif"
        case "image/webp": return "webp"
        default: return "bin"
        }
    }
}
