import PiRelaySDK

/// A button before layout: Discord style number, label, and the custom_id sent back on a click.
struct ButtonSpec: Sendable, Equatable {
    var customID: String
    var label: String
    var style: Int

    init(customID: String, label: String, style: Int) {
        self.customID = customID
        self.label = label
        self.style = style
    }

    /// A Reply action: its id is the custom_id, verbatim.
    init(_ action: Reply.Action) {
        customID = action.id
        label = action.label
        style = Self.style(action.style)
    }

    /// primary=1 secondary=2 success=3 danger=4; anything else is secondary.
    static func style(_ name: String) -> Int {
        switch name {
        case "primary": 1
        case "success": 3
        case "danger": 4
        default: 2
        }
    }
}
