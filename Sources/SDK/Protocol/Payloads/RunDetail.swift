/// How much of a run a chat asked to see (`/progress`): `format.live` and `format.final` render
/// tool output previews, and thinking where the formatter's config allows it, for `verbose`.
public enum RunDetail: String, Sendable, Equatable {
    /// Tool lines and the answer: what every chat saw before progress modes.
    case normal
    /// Also the start of each tool's output and, where allowed, the model's thinking.
    case verbose

    /// The detail named on the wire; anything unknown reads as `normal`.
    public init(wireName: String?) {
        self = wireName.flatMap(RunDetail.init(rawValue:)) ?? .normal
    }
}
