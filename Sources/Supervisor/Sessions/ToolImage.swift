import FoundationEssentials
import PiRelaySDK

/// An image a tool produced in the session's last run, kept on disk until the next run so it
/// can be listed and sent on request.
package struct ToolImage: Sendable, Equatable {
    package var path: String
    package var filename: String
    package var mimeType: String
    package var toolName: String

    package var json: JSONValue {
        ["filename": .string(filename), "mimeType": .string(mimeType), "tool": .string(toolName)]
    }

    package static func fileExtension(_ mime: String) -> String {
        switch mime {
        case "image/png": return "png"
        case "image/jpeg": return "jpg"
        case "image/gif": return "gif"
        case "image/webp": return "webp"
        default: return "bin"
        }
    }
}
