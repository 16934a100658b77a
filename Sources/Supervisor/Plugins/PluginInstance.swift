import FoundationEssentials
import PiRelaySDK

/// What the plugin's current instance has shown: its hello, its pid and start, its last lines
/// on stderr, and why it is being killed, if it is. A new instance starts with none of it.
struct PluginInstance {
    static let stderrKept = 20

    var hello: Hello?
    var pid: Int32?
    var startedAt: Date?
    private(set) var stderrTail: [String] = []
    /// Set when the slot kills the instance (no hello in time, hung): its exit is then explained.
    var killReason: String?

    /// A new instance: its hello, stderr and kill reason are the old one's no more. Its pid and
    /// start come when it has spawned.
    mutating func spawning() {
        hello = nil
        killReason = nil
        stderrTail = []
    }

    mutating func heard(stderr line: String) {
        stderrTail.append(line)
        if stderrTail.count > Self.stderrKept { stderrTail.removeFirst(stderrTail.count - Self.stderrKept) }
    }
}
