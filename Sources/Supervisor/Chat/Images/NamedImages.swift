/// Image files an answer names (`outputs/result.png`, `![chart](plots/a.webp)`), found in its
/// text without I/O, so `/images` can offer them beside the tools' images (seed 002's outbound
/// media). Sending one still goes through the attachments plugin's path guard.
package enum NamedImages {
    package static let extensions: Set<String> = ["png", "jpg", "jpeg", "gif", "webp"]
    /// Most paths offered from one answer.
    package static let most = 10

    package static func isImage(_ path: String) -> Bool {
        guard let dot = path.lastIndex(of: "."), !path[path.index(after: dot)...].contains("/") else { return false }
        return extensions.contains(path[path.index(after: dot)...].lowercased())
    }

    /// The paths in `text` that end in an image extension, in order, each once; URLs are not
    /// paths. A path is a run of letters, digits and `/ . _ - ~ +`.
    package static func paths(in text: String) -> [String] {
        var found: [String] = []
        for run in text.split(whereSeparator: { !(Self.pathCharacter($0)) }) {
            var path = String(run)
            while let last = path.last, ".-".contains(last) { path.removeLast() }
            guard isImage(path), !found.contains(path), !isURLTail(path, in: text) else { continue }
            found.append(path)
            if found.count == most { break }
        }
        return found
    }

    private static func pathCharacter(_ c: Character) -> Bool {
        c.isLetter || c.isNumber || "/._-~+".contains(c)
    }

    /// `https://example.com/a.png` splits at the `:`; its tail `//example.com/a.png` is no path.
    private static func isURLTail(_ path: String, in text: String) -> Bool {
        path.hasPrefix("//") || text.contains("://" + path.drop { $0 == "/" })
    }
}
