/// The answer to `messenger.identity`: the bot as the service knows it, checked against the
/// service with the plugin's token and proxy, and what its owner needs to reach it.
public struct MessengerIdentity: Sendable, Equatable {
    /// The bot's user id.
    public var id: String
    /// The bot's display name.
    public var name: String
    /// The bot's handle, where the service has one (Telegram's `@username`, without the `@`).
    public var username: String?
    /// The application the bot belongs to, where the service has one (Discord).
    public var applicationID: String?
    /// Where the owner adds or opens the bot: an invite URL, a `t.me` link.
    public var link: String
    /// A link that opens a chat with the bot with the pairing code already filled in, when the
    /// request carried a code and the service has such links.
    public var pairLink: String?
    /// Opening `pairLink` completes the pairing by itself (the web dashboard signs the browser
    /// in): the code is shorter-lived, nobody confirms it at the terminal, and `pi-relayd pair`
    /// prints the link and returns at once.
    public var pairByLink: Bool
    /// What the owner should know, one line each (what the invite asks for, say).
    public var notes: [String]
    /// What is wrong and must be fixed for the bot to work, one line each with the fix (a
    /// privileged intent switched off, say). `pi-relayd doctor` fails on each.
    public var problems: [String]

    /// An identity.
    public init(
        id: String, name: String, username: String? = nil, applicationID: String? = nil, link: String, pairLink: String? = nil,
        pairByLink: Bool = false, notes: [String] = [], problems: [String] = []
    ) {
        self.pairByLink = pairByLink
        self.id = id
        self.name = name
        self.username = username
        self.applicationID = applicationID
        self.link = link
        self.pairLink = pairLink
        self.notes = notes
        self.problems = problems
    }
}

extension MessengerIdentity: WirePayload {
    /// Reads it; `id`, `name` and `link` are required.
    public init(json: JSONValue) throws(RemoteError) {
        let fields = try PayloadFields(json, "messenger.identity result")
        self.init(
            id: try fields.string("id"), name: try fields.string("name"), username: fields.optionalString("username"),
            applicationID: fields.optionalString("applicationId"), link: try fields.string("link"),
            pairLink: fields.optionalString("pairLink"), pairByLink: fields.bool("pairByLink", default: false), notes: fields.strings("notes"),
            problems: fields.strings("problems"))
    }

    /// The result, optional fields left out when absent.
    public var json: JSONValue {
        var object: JSONValue = ["id": .string(id), "name": .string(name), "link": .string(link), "notes": notes.json]
        if let username { object["username"] = .string(username) }
        if let applicationID { object["applicationId"] = .string(applicationID) }
        if let pairLink { object["pairLink"] = .string(pairLink) }
        if pairByLink { object["pairByLink"] = true }
        if !problems.isEmpty { object["problems"] = problems.json }
        return object
    }
}
