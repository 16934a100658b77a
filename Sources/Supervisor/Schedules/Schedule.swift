import FoundationEssentials

/// A prompt that runs into a session on a schedule (`state/schedules.json`).
package struct Schedule: Codable, Sendable, Equatable {
    /// The number people use (`/schedule cancel 3`): a new schedule takes the one above every
    /// schedule there is.
    package var number: Int
    package var sessionID: String
    package var prompt: String
    /// `ScheduleRule`'s stored form: `every 3600`, `cron 0 9 * * 1-5`, `once`.
    package var rule: String
    /// The words it was made with (`every weekday at 09:00`).
    package var label: String
    /// A named zone (`Europe/Berlin`): a cron rule's times are this zone's wall-clock times.
    package var zone: String
    package var missed: MissedRunPolicy
    /// When it runs next.
    package var next: Date
    package var createdAt: Date
    /// The chat key, or `terminal`.
    package var createdBy: String
    /// The user who made it in a chat: revoked, they take their schedules with them. nil for the
    /// terminal, and for schedules saved before it was kept (a direct message's are still found
    /// by its chat).
    package var createdByUser: String?
    package var lastRun: Date?
    package var runs = 0
    /// Its zone could not be read when its next run was due to be worked out (tzdata changed
    /// under it): it is kept, runs nothing, and is looked at again every `ScheduleTable.zoneRetry`.
    /// nil in what older versions saved.
    package var waitsForZone: Bool?
}

extension Schedule {
    /// Made by `user` of `messenger`: in a chat of theirs, or anywhere on that messenger by them.
    package func isMade(by user: String, on messenger: String, inChats chats: Set<String>) -> Bool {
        chats.contains(createdBy) || (createdByUser == user && createdBy.hasPrefix(messenger + ":"))
    }
}
