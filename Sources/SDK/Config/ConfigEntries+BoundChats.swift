extension ConfigEntries {
    /// Chats bound to a working directory, `{id, cwd, name}`: Discord's and Slack's `channels`,
    /// Telegram's `chats`. pi-relayd binds each to its session (named `name`, started in `cwd`,
    /// created on first start) when the messenger starts.
    public static func boundChats(what: String, id: ConfigID, keyHint: String, uniqueNoun: String? = nil) -> ConfigEntries {
        ConfigEntries(
            what: what, key: "id", keyHint: keyHint, uniqueNoun: uniqueNoun,
            keys: [
                ConfigKey("id", .id(id)), ConfigKey("cwd", .path, help: "new sessions started from here run in this folder"),
                ConfigKey("name", .string(nonEmpty: true), help: "the session's name, in logs and status"),
            ])
    }
}
