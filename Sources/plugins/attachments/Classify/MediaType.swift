/// The MIME type announced for an uploaded workspace file: the bytes first (images), then the
/// name, then whether the start of the file reads as UTF-8 text.
enum MediaType {
    static let text = "text/plain; charset=utf-8"
    static let unknown = "application/octet-stream"

    static func of(name: String, head: [UInt8]) -> String {
        if let image = ImageFormat.detect(head) { return image.mimeType }
        let lower = name.lowercased()
        if let dot = lower.lastIndex(of: "."), let known = byExtension[String(lower[lower.index(after: dot)...])] {
            return known
        }
        if TextLanguage.isKnownText(name) || looksLikeText(head) { return text }
        return unknown
    }

    /// `head` may end inside a multi-byte character, so up to three trailing bytes are forgiven.
    private static func looksLikeText(_ head: [UInt8]) -> Bool {
        guard !head.isEmpty, !head.contains(0) else { return false }
        for cut in 0...min(3, head.count - 1) where String(validating: head.dropLast(cut), as: UTF8.self) != nil {
            return true
        }
        return false
    }

    private static let byExtension: [String: String] = [
        "png": "image/png", "jpg": "image/jpeg", "jpeg": "image/jpeg", "gif": "image/gif", "webp": "image/webp",
        "svg": "image/svg+xml", "bmp": "image/bmp", "tif": "image/tiff", "tiff": "image/tiff", "ico": "image/x-icon",
        "heic": "image/heic", "avif": "image/avif", "pdf": "application/pdf", "zip": "application/zip",
        "gz": "application/gzip", "tgz": "application/gzip", "tar": "application/x-tar", "xz": "application/x-xz",
        "zst": "application/zstd", "bz2": "application/x-bzip2", "7z": "application/x-7z-compressed",
        "json": "application/json", "xml": "application/xml", "html": "text/html; charset=utf-8",
        "htm": "text/html; charset=utf-8", "css": "text/css; charset=utf-8", "csv": "text/csv; charset=utf-8",
        "md": "text/markdown; charset=utf-8", "js": "text/javascript; charset=utf-8", "wasm": "application/wasm",
        "mp3": "audio/mpeg", "wav": "audio/wav", "ogg": "audio/ogg", "flac": "audio/flac", "m4a": "audio/mp4",
        "mp4": "video/mp4", "webm": "video/webm", "mov": "video/quicktime", "mkv": "video/x-matroska",
        "docx": "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
        "xlsx": "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
        "pptx": "application/vnd.openxmlformats-officedocument.presentationml.presentation",
        "txt": text, "log": text,
    ]
}
