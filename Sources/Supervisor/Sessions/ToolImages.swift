import FoundationEssentials
import PiRelaySDK

/// The images tools produced in a session's last run, kept as files in the session's own folder
/// (0700) for `/images` and `pi-relayd images`. A new run forgets the last one's.
package struct ToolImages {
    package let folder: String
    package private(set) var list: [ToolImage] = []

    package init(folder: String) {
        self.folder = folder
    }

    /// Writes a tool's images; one that cannot be decoded or written is left out.
    package mutating func keep(_ images: [PiImage], tool: String) {
        try? FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        for image in images {
            guard let data = Data(base64Encoded: image.base64) else { continue }
            let name = "\(tool)-\(list.count + 1).\(ToolImage.fileExtension(image.mimeType))"
            let path = folder + "/" + name
            // Not flushed: written on the pipe thread every session's output is read on, where
            // an fsync stalls them all; a machine crash costs a screenshot, not state.
            if AtomicFile.write([UInt8](data), to: path, durable: false) {
                list.append(ToolImage(path: path, filename: name, mimeType: image.mimeType, toolName: tool))
            }
        }
    }

    package mutating func forget() {
        for image in list { try? FileManager.default.removeItem(atPath: image.path) }
        list.removeAll()
    }
}
