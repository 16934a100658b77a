import PiRelaySDK

extension Chat {
    /// Chats are bound per messenger and per thread, else per channel.
    package var key: String { "\(messenger):\(thread ?? channel)" }

    /// Who wrote, for notices such as `alice (discord) answered: yes`.
    package var who: String { "\(userName ?? user) (\(messenger))" }

    /// The chat with `plugin` as its messenger: a plugin speaks for itself, whatever it claims.
    package func from(plugin: String) -> Chat {
        var chat = self
        chat.messenger = plugin
        return chat
    }
}
