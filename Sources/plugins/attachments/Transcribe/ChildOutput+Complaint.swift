import SupervisorIO

extension ChildOutput {
    /// What went wrong, for a note: too slow, or how it ended and the last line it wrote to stderr.
    var complaint: String {
        if timedOut { return "it took too long" }
        let last = stderr.split(separator: "\n").last.map(String.init) ?? ""
        return last.isEmpty ? "\(exit)" : "\(exit): \(last.prefix(300))"
    }
}
