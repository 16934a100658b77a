import Logging

extension LogEvent {
    /// `LEVEL MESSAGE key=value…`: the handler's metadata with the event's own over it, keys in
    /// order, as both the plugins' and the daemon's logs write an entry.
    package func line(with metadata: Logger.Metadata) -> String {
        var merged = metadata
        if let own = self.metadata { merged.merge(own) { _, new in new } }
        let fields = merged.isEmpty ? "" : " " + merged.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
        return "\(level) \(message)\(fields)"
    }
}
