/// `chat.allowlist` (supervisor → messenger, acknowledged delivery): the whole list of user ids
/// the supervisor now lets through for this messenger, sent whenever a user is paired or
/// revoked, so the messenger's own check agrees with the supervisor's at once.
public struct AllowlistParams: Sendable, Equatable {
    /// Every allowed user id: the configured ones and the paired ones.
    public var users: [String]

    /// A list.
    public init(users: [String]) { self.users = users }
}

extension AllowlistParams: WirePayload {
    /// Reads it; `users` is required.
    public init(json: JSONValue) throws(RemoteError) {
        let fields = try PayloadFields(json, "chat.allowlist")
        guard fields.json["users"]?.arrayValue != nil else { throw RemoteError.invalidParams("chat.allowlist: users must be a list") }
        self.init(users: fields.strings("users"))
    }

    /// `{users}`.
    public var json: JSONValue { ["users": users.json] }
}
