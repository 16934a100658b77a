import FoundationEssentials

/// Decides, without I/O, what this machine's daemon does with a request in a shared room: a group
/// chat where several machines' bots sit, each with its own daemon. Bots never see each other's
/// messages, so every daemon decides alone from what the user wrote and the machine the room
/// picked (`/use MACHINE SESSION`), which each keeps per chat.
///
/// - `/sessions`: every machine lists its own.
/// - `/use MACHINE SESSION` (or `MACHINE/SESSION`): the room picks MACHINE, which watches SESSION;
///   the others stay silent from then on. A bare `/use NAME` binds nothing: "which machine?".
/// - `/new MACHINE [DIR [NAME]]`: the room picks MACHINE, which starts the session.
/// - `/to MACHINE/SESSION TEXT`: that machine prompts; the pick stays. A bare `/to NAME …` sends
///   nothing: "which machine?".
/// - Buttons: answered by the machine whose bot posted them.
/// - Anything else: the picked machine; with none picked, each says how to pick, at most once per
///   `hintInterval` in a room.
package struct SharedRoomRule: Sendable {
    package static let hintInterval: TimeInterval = 600

    package let machine: String
    /// When each room was last told how to pick, so a chatty room is not told on every message.
    private var hinted: [String: Date] = [:]

    package init(machine: String) {
        self.machine = machine
    }

    /// The room's new pick (nil: unchanged) and what to do. `command` is nil for plain text.
    package mutating func decide(_ command: ChatCommand?, room: String, picked: String?, now: Date) -> (pick: String?, verdict: SharedRoomVerdict) {
        switch command {
        case .sessions?, .action?:
            return (nil, .handle)
        case .use(let key)?:
            guard let (target, session) = Self.split(key, by: " ") ?? Self.split(key, by: "/") else {
                return (nil, .whichMachine(session: key, example: "/use \(machine) \(key)"))
            }
            return (target, target == machine ? .run(.use(session)) : .silent)
        case .new(let first?, let rest)? where !Self.isPath(first):
            guard first == machine else { return (first, .silent) }
            let words = rest?.split(separator: " ", maxSplits: 1).map(String.init) ?? []
            return (first, .run(.new(cwd: words.first, name: words.count > 1 ? words[1] : nil)))
        case .to(let key, let text)?:
            guard let (target, session) = Self.split(key, by: "/") else {
                return (nil, .whichMachine(session: key, example: "/to \(machine)/\(key) …"))
            }
            return (nil, target == machine ? .run(.to(session: session, text: text)) : .silent)
        default:
            if let picked { return (nil, picked == machine ? .handle : .silent) }
            if let last = hinted[room], now.timeIntervalSince(last) < Self.hintInterval { return (nil, .silent) }
            hinted[room] = now
            return (
                nil,
                .hint(
                    "No machine is picked in this room yet. /sessions lists each machine's sessions; "
                        + "/use \(machine) SESSION picks one on \(machine).")
            )
        }
    }

    /// `laptop api` or `laptop/api`: both parts non-empty.
    private static func split(_ key: String, by separator: Character) -> (String, String)? {
        guard let index = key.firstIndex(of: separator) else { return nil }
        let machine = String(key[..<index]), rest = String(key[key.index(after: index)...]).trimmingInlineSpace()
        guard !machine.isEmpty, !rest.isEmpty else { return nil }
        return (machine, rest)
    }

    /// A folder rather than a machine: machine names hold no `/` and start with a letter or digit.
    private static func isPath(_ word: String) -> Bool {
        word.contains("/") || word.hasPrefix("~") || word.hasPrefix(".")
    }
}
