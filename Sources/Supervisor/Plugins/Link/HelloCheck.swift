import PiRelaySDK

/// The first line of a plugin, judged (docs/PROTOCOL.md §3). Pure; the slot, `render` and
/// `plugin check` all judge it here.
package enum HelloCheck: Sendable, Equatable {
    case accepted(Hello)
    /// A hello in another protocol version: answer `goodbye` with this reason.
    case incompatible(Hello, goodbye: String)
    /// Not a hello at all.
    case rejected(String)

    /// Judges the plugin's first stdout line, as the link decoded it.
    package init(first event: PluginLink.Event) {
        let hello: Hello
        switch event {
        case .message(.hello(let said)): hello = said
        case .message(let other):
            self = .rejected("expected a hello as the first line, got: \(PluginLink.preview(other.json.serialized().utf8))"); return
        case .malformed(let preview, _): self = .rejected("expected a hello as the first line, got: \(preview)"); return
        default: self = .rejected("expected a hello as the first line"); return
        }
        guard hello.protocol == WireMessage.protocolVersion else {
            self = .incompatible(hello, goodbye: "unsupported protocol \(hello.protocol); this pi-relayd speaks \(WireMessage.protocolVersion)")
            return
        }
        self = .accepted(hello)
    }
}
