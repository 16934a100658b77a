extension InboundFiles {
    /// The most a messenger downloads of one file: Telegram's own limit for bots (getFile), and
    /// the relay's on the others, so a prompt's files cost the same wherever they came from.
    public static let maxDownloadBytes = 20 << 20

    /// A file over `maxDownloadBytes`, by the size the service announced: left out before any
    /// byte is fetched, with `why` naming whose limit it is.
    public static func oversized(_ filename: String, size: Int?, why: (_ megabytes: Int) -> String) -> Fetched? {
        guard let size, size > maxDownloadBytes else { return nil }
        return .notIncluded(filename, why(size / 1_048_576))
    }

    /// Where a message's file is fetched to: named for the messenger, the message and the file,
    /// with no `/` (a name cannot leave the spool folder) and no `:` (message ids join two ids
    /// with one). The file's part is cut to `nameBytes`, its extension kept: a file system takes
    /// 255 bytes a name, which 80 Japanese characters pass. The name shown is the file's own.
    public static func spoolPath(_ spoolDir: String, messenger: String, message: String, file: String) -> String {
        spoolDir + "/\(messenger)-\(message.replacing(":", with: "-"))-\(shortened(file.replacing("/", with: "_")))"
    }

    static let nameBytes = 120

    static func shortened(_ name: String) -> String {
        guard name.utf8.count > nameBytes else { return name }
        let dot = name.lastIndex(of: ".")
        let ext = dot.map { String(name[$0...]) }.flatMap { $0.utf8.count <= 16 ? $0 : nil } ?? ""
        var stem = ""
        for character in name.dropLast(ext.count) {
            guard stem.utf8.count + character.utf8.count + ext.utf8.count <= nameBytes else { break }
            stem.append(character)
        }
        return stem + ext
    }
}
