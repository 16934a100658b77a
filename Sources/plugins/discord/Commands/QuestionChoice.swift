import MessengerKit
import PiRelaySDK

/// The custom_id of a question's button or menu option: "pq:<key>:<choice>", where key names
/// the question record (a digest of session and question id, so any id length fits in 100).
struct QuestionChoice: Sendable, Equatable {
    typealias Choice = AnswerChoice

    static let prefix = "pq:"

    var key: String
    var choice: Choice

    static func key(session: String, question: String) -> String {
        String(Digest.hex64(session + "\u{1F}" + question).prefix(12))
    }

    var customID: String {
        let code: String
        switch choice {
        case .yes: code = "y"
        case .no: code = "n"
        case .cancel: code = "c"
        case .option(let index): code = String(index)
        }
        return Self.prefix + key + ":" + code
    }

    /// The menu's own custom_id prefix; its options carry `customID`s as values.
    static func menuPrefix(key: String) -> String { prefix + key + ":m" }

    init(key: String, choice: Choice) {
        self.key = key
        self.choice = choice
    }

    init?(customID: String) {
        guard customID.hasPrefix(Self.prefix) else { return nil }
        let parts = customID.dropFirst(Self.prefix.count).split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 2, !parts[0].isEmpty else { return nil }
        key = String(parts[0])
        switch parts[1] {
        case "y": choice = .yes
        case "n": choice = .no
        case "c": choice = .cancel
        default:
            guard let index = Int(parts[1]), index >= 0 else { return nil }
            choice = .option(index)
        }
    }
}
