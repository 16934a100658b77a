import PiRelaySDK

/// A question's button: yes, no, cancel, or one of its options by index.
public enum AnswerChoice: Sendable, Equatable {
    case yes
    case no
    case cancel
    case option(Int)

    /// `yes`, `no`, `cancel`, or an option's index, as a button's value carries it.
    public init?(value: String) {
        switch value {
        case "yes": self = .yes
        case "no": self = .no
        case "cancel": self = .cancel
        default:
            guard let index = Int(value), index >= 0 else { return nil }
            self = .option(index)
        }
    }

    /// Puts the choice into `params` and returns how to show it ("Yes", an option's text); nil,
    /// with `params` unchanged, for an option the question does not have.
    public func answer(_ params: inout ChatAnswerParams, options: [String]) -> String? {
        switch self {
        case .yes:
            params.confirmed = true
            return "Yes"
        case .no:
            params.confirmed = false
            return "No"
        case .cancel:
            params.cancelled = true
            return "cancelled"
        case .option(let index):
            guard options.indices.contains(index) else { return nil }
            params.value = options[index]
            return options[index]
        }
    }
}
