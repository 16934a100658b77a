import PiRelaySDK

extension SlackRelay {
    /// `messenger.identity`: `auth.test` with the bot token and `apps.connections.open` with the
    /// app-level token (a ticket that is never used), so setup finds either token wrong before
    /// the daemon starts; the link opens the bot's DM in the workspace.
    public func identify(_ params: MessengerIdentityParams) async throws -> MessengerIdentity {
        let me: JSONValue
        do { me = try await api.call("auth.test") } catch let error as SlackAPIError where error.isTokenProblem {
            throw RemoteError(
                code: .notAuthorized,
                message: "Slack refused the bot token (\(error.error)): \(config.botTokenEnv) must hold the xoxb-… token from OAuth & Permissions")
        } catch let error as SlackAPIError where error.status == 0 {
            throw RemoteError(code: .unavailable, message: "could not reach Slack at \(config.settings.apiBase): \(error.error)")
        }
        do { try await api.call("apps.connections.open", token: .app) } catch let error as SlackAPIError where error.isTokenProblem {
            throw RemoteError(
                code: .notAuthorized,
                message:
                    "Slack refused the app-level token (\(error.error)): \(config.appTokenEnv) must hold an xapp-… token with connections:write (Basic Information → App-Level Tokens)"
            )
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
}
