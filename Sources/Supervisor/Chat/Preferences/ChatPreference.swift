import FoundationEssentials

/// What one chat chose for itself, kept in `state/chat-preferences.json` by chat key: its
/// progress mode, whether delivery is paused, whether it wants mentions, and in a shared room the
/// machine it picked.
package struct ChatPreference: Codable, Sendable, Equatable {
    package var key: String
    /// Nil: the configured `chat.progress`.
    package var progress: ProgressMode?
    /// Set while `/pause` holds delivery back: when it started, so `/resume` can sum up what
    /// ran meanwhile.
    package var pausedSince: Date?
    /// Nil: the configured `notify.mentions`.
    package var mentions: Bool?
    /// In a shared room, the machine `/use MACHINE SESSION` picked; nil: none yet.
    package var machine: String?

    package init(key: String) {
        self.key = key
    }

    /// Nothing chosen: the record can go.
    package var isDefault: Bool { progress == nil && pausedSince == nil && mentions == nil && machine == nil }
}
