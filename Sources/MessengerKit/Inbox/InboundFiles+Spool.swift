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
    /// with one).
    public static func spoolPath(_ spoolDir: String, messenger: String, message: String, file: String) -> String {
        spoolDir + "/\(messenger)-\(message.replacing(":", with: "-"))-\(file.replacing("/", with: "_"))"
    }
}
