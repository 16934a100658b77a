/// A condition a test waited for never came true.
struct WaitTimeout: Error, CustomStringConvertible {
    let what: String
    let timeout: Duration
    /// The last error the probe threw, if it threw: often the reason the wait failed.
    let lastError: String?
    let lastSeen: String?

    var description: String {
        var text = "timed out after \(timeout) waiting until \(what)"
        if let lastSeen { text += "\nlast seen: \(lastSeen)" }
        if let lastError { text += "\nlast error: \(lastError)" }
        return text
    }
}
