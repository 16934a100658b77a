/// Users' display names from `users.info`, asked once per user, for the supervisor's logs and
/// "who answered" lines (Slack's events carry only ids).
actor UserNames {
    private let api: WebAPI
    private var names: [String: String] = [:]

    init(api: WebAPI) {
        self.api = api
    }

    func name(of user: String) async -> String? {
        if let known = names[user] { return known }
        guard let answer = try? await api.call("users.info", ["user": .string(user)], form: true) else { return nil }
        let profile = answer["user"]?["profile"]?["display_name"]?.stringValue ?? ""
        let name = profile.isEmpty ? answer["user"]?["name"]?.stringValue : profile
        if let name { names[user] = name }
        return name
    }
}
