/// A Web API method's rate-limit tier (spec section 8) as the pacer keeps it: a bucket of
/// `burst` calls refilled at `perSecond`, so that in any minute `burst + 60 × perSecond` stays
/// under Slack's allowance (Tier 3 is 50 a minute: 4 + 45).
struct MethodTier: Sendable, Equatable {
    var burst: Double
    var perSecond: Double
    /// Counted per channel (`chat.postMessage`: about one a second in each) instead of per method.
    var perChannel = false
    /// What a live view or a notice leaves of the bucket for questions, finals and closings.
    /// Tier 3's burst is kept whole but for one call: chat.update's budget is the workspace's,
    /// so four chats' answers that end together all go at once. The live views still get the
    /// whole rate between finals; they only wait while the finals' reserve fills again.
    var reserve: Double = 1

    static let tier1 = MethodTier(burst: 3, perSecond: 2.0 / 60)
    static let tier2 = MethodTier(burst: 3, perSecond: 16.0 / 60)
    static let tier3 = MethodTier(burst: 4, perSecond: 45.0 / 60, reserve: 3)
    static let tier4 = MethodTier(burst: 5, perSecond: 90.0 / 60)
    static let posting = MethodTier(burst: 3, perSecond: 0.6, perChannel: true)

    /// The tier of `method`; nil for the special ones paced by Slack in the hundreds a minute.
    static func of(_ method: String) -> MethodTier? {
        switch method {
        case "apps.connections.open": .tier1
        case "chat.postMessage": .posting
        case "chat.update", "chat.delete", "reactions.add", "reactions.remove", "conversations.open": .tier3
        case "chat.postEphemeral", "users.info", "files.getUploadURLExternal", "files.completeUploadExternal": .tier4
        default: nil
        }
    }
}
