extension StateFile where Record == SessionRecord {
    /// `state/sessions.json`.
    package static func sessions(path: String) -> StateFile {
        StateFile(path: path, key: "sessions", noun: "session", order: { $0.createdAt < $1.createdAt })
    }
}

extension StateFile where Record == Binding {
    /// `state/bindings.json`.
    package static func bindings(path: String) -> StateFile {
        StateFile(path: path, key: "bindings", noun: "binding", order: { $0.key < $1.key })
    }
}

extension StateFile where Record == ChatPreference {
    /// `state/chat-preferences.json`.
    package static func chatPreferences(path: String) -> StateFile {
        StateFile(path: path, key: "chats", noun: "chat preference", order: { $0.key < $1.key })
    }
}

extension StateFile where Record == EndedSession {
    /// `state/ended-sessions.json`.
    package static func endedSessions(path: String) -> StateFile {
        StateFile(path: path, key: "ended", noun: "ended session", order: { $0.endedAt < $1.endedAt })
    }
}

extension StateFile where Record == Schedule {
    /// `state/schedules.json`.
    package static func schedules(path: String) -> StateFile {
        StateFile(path: path, key: "schedules", noun: "schedule", order: { $0.number < $1.number })
    }
}

extension StateFile where Record == QueuedPromptRecord {
    /// `state/queued-prompts.json`.
    package static func queuedPrompts(path: String) -> StateFile {
        StateFile(path: path, key: "prompts", noun: "queued prompt", order: { ($0.sessionID, $0.messageID) < ($1.sessionID, $1.messageID) })
    }
}
