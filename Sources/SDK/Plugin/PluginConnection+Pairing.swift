extension PluginConnection {
    /// Hands a pairing claim (`/pair CODE`) to the supervisor and returns what to show the user:
    /// the supervisor's reply, or a plain "try again" when it could not be asked.
    public func pair(_ chat: Chat, code: String) async -> Reply {
        do {
            return try await request(.chatPair, ChatPairParams(chat: chat, code: code), timeout: .seconds(30))
        } catch let error as RemoteError {
            return Reply(text: "⚠️ pi-relayd could not check this code (\(error.code)). Try again.")
        } catch {
            return Reply(text: "⚠️ pi-relayd could not check this code. Try again.")
        }
    }
}
