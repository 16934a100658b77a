import PiRelaySDK

extension Reply {
    /// A reply of text alone.
    init(_ text: String, ephemeral: Bool = false) {
        self.init(text: text, ephemeral: ephemeral)
    }

    static let notAuthorized = Reply("Not authorized.", ephemeral: true)

    /// Discord, the strictest messenger, shows at most 80 characters on a button.
    static let maxLabelLength = 80
}
