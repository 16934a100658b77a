import PiRelaySDK

/// Chat commands a session's page does not take: a page is one session. `/new` would start a
/// session outside `web.roots` (the page's New session checks them), and `/use`, `/disconnect`
/// and their buttons would move the page's chat to another session, or to none, while the page
/// still shows this one. What the refusal says instead.
enum PageCommand {
    static let refusal = "a page shows one session: open another session's page, or start one with New session (web.roots apply)"

    /// Typed in the prompt box: `/new …`, `/use NAME`, `/disconnect` (as pi-relayd reads them).
    static func refused(text: String) -> Bool {
        guard let command = CommandText(text) else { return false }
        return refused(name: command.name, args: [:])
    }

    /// From the page's controls: the command's name, and for a button its action id.
    static func refused(name: String, args: [String: String]) -> Bool {
        switch name {
        case "new", "use", "disconnect": return true
        case "action":
            // As pi-relayd reads an action: by the part before its first colon (`disconnect:x`
            // disconnects too).
            let head = (args["id"] ?? "").split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
            return head == "disconnect" || head == "use"
        default: return false
        }
    }
}
