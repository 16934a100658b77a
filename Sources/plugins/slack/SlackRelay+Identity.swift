import PiRelaySDK

extension SlackRelay {
    /// `messenger.identity`: `auth.test` with the bot token and `apps.connections.open` with the
    /// app-level token (a ticket that is never used), so setup finds either token wrong before
    /// the daemon starts; the link opens the bot's DM in the workspace.
    public func identify(_ params: MessengerIdentityParams) async throws -> MessengerIdentity {
        let me = try await signIn()
        try await SlackAPIError.signingIn(service: "Slack", base: config.settings.apiBase) {
            "Slack refused the app-level token (\($0.error)): \(config.appTokenEnv) must hold an xapp-… token with connections:write (Basic Information → App-Level Tokens)"
        } _: {
            try await api.call("apps.connections.open", token: .app)
        }
        guard let id = me["user_id"]?.stringValue, let name = me["user"]?.stringValue else {
            throw RemoteError(code: .internal, message: "auth.test gave no user_id or user")
        }
        var workspace = me["url"]?.stringValue ?? "https://slack.com/"
        if !workspace.hasSuffix("/") { workspace += "/" }
        let link = workspace + "app_redirect?channel=" + id
        var notes = ["Workspace: \(me["team"]?.stringValue ?? "?"). Invite the bot to a channel with /invite @\(name) to use it there."]
        if let code = params.pairCode { notes.append("To pair, type /pi pair \(code) in the bot's DM.") }
        return MessengerIdentity(id: id, name: name, username: name, link: link, notes: notes)
    }

    /// `auth.test` with the bot token: who the bot is. A refused token and a Slack not reached
    /// are said as `messenger.identity` answers them; the relay's start ends not configured on
    /// the first.
    func signIn() async throws -> JSONValue {
        try await SlackAPIError.signingIn(service: "Slack", base: config.settings.apiBase) {
            "Slack refused the bot token (\($0.error)): \(config.botTokenEnv) must hold the current xoxb-… token from OAuth & Permissions (reinstall the app if it was revoked)"
        } _: {
            try await api.call("auth.test")
        }
    }
}
