import ArgumentParser
import FoundationEssentials
import PiRelaySDK

#if canImport(Glibc)
import Glibc
import Supervisor
import SupervisorIO
#endif

struct PairCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pair",
        abstract: "Print a one-time code that lets a chat user in: they send /pair CODE to the bot in a direct message.",
        discussion: """
            The code has 10 characters, works once, for 10 minutes, and is void after five wrong tries \
            or once posted in a group. For Telegram a t.me link (and its QR code) sends it in one tap. \
            When someone claims it, their name and id are shown and you are asked to confirm (unless \
            --yes); then they are on the messenger's allowlist (state/paired-users.json) at once. \
            For the web dashboard (pi-relayd pair web) it prints a sign-in link, valid once for 5 \
            minutes, and returns at once: opening the link signs that browser in. \
            The daemon must be running. See also: pi-relayd users.
            """)

    @Argument(help: "The messenger plugin, e.g. discord or telegram.") var messenger: String
    @Flag(name: .shortAndLong, help: "Add whoever claims the code without asking.") var yes = false
    @Option(help: "Also make the claiming chat watch this session (a name, id, pid or folder), in the same step.")
    var session: String?
    @Option(help: "With --session: the name that chat gives the session (its /alias).") var label: String?
    @Flag(help: "Do not draw the QR code.") var noQR = false
    /// Test-only: shortens the code's life (the daemon never lengthens it past 10 minutes).
    @Option(name: .customLong("ttl-seconds"), help: .private) var ttlSeconds: Double?
    @OptionGroup var output: OutputOptions

    func run() throws {
        if label != nil && session == nil {
            CLIFailure.exit(RemoteError.invalidParams("--label goes with --session"), json: output.json)
        }
        var params: JSONValue = ["messenger": .string(messenger), "confirm": .bool(!yes)]
        params["session"] = SessionKey.json(session)
        if let label { params["label"] = .string(label) }
        if let ttlSeconds { params["ttlSeconds"] = .number(ttlSeconds) }
        let result: JSONValue
        do {
            result = try Home.resolve().client.converse(.pair, params) { event in
                if output.json { Self.show(event.serialized()) }
                switch event["type"]?.stringValue {
                case "code":
                    if !output.json { showCode(event) }
                    return nil
                case "claimed":
                    return ["confirm": .bool(confirm(event))]
                default:
                    return nil
                }
            }
        } catch {
            CLIFailure.exit(error, json: output.json)
        }
        if result["byLink"]?.boolValue == true {
            if output.json { print(result.serialized()) }
            return
        }
        let who = "\(result["userName"]?.stringValue ?? "") (\(result["user"]?.stringValue ?? ""))"
        output.emit(result) {
            result["paired"]?.boolValue == true
                ? "✓ \(who) can now use \(messenger)." + (result["session"]?.stringValue.map { " Their chat watches \($0)." } ?? "")
                    + (result["warning"]?.stringValue.map { "\n⚠️ but: \($0)" } ?? "")
                : "Not added: \(who)."
        }
        if result["paired"]?.boolValue != true { throw ExitCode(1) }
    }

    private func showCode(_ event: JSONValue) {
        let code = event["code"]?.stringValue ?? ""
        let minutes = max(1, (event["expiresInSeconds"]?.intValue ?? 600) / 60)
        if event["byLink"]?.boolValue == true, let link = event["link"]?.stringValue {
            var lines = ["Open this link in your browser to sign in to \(messenger):", "", "    \(link)"]
            // A QR code is for a phone, which cannot open a link to this machine's loopback.
            if !noQR, !Self.isLoopback(link), let qr = try? QRCode(bytes: Array(link.utf8)) { lines += ["", qr.terminalText()] }
            lines += ["", "It works once, in one browser, and expires in \(minutes) minute\(minutes == 1 ? "" : "s")."]
            Self.show(lines.joined(separator: "\n"))
            return
        }
        var lines = ["Pairing code for \(messenger): \(code)", ""]
        let bot = event["bot"]?.stringValue.map { " to \($0)" } ?? ""
        // Slack takes every message starting with "/" as a slash command: there it is /pi's word.
        let claim = messenger.lowercased() == "slack" ? "/pi pair" : "/pair"
        lines.append("Send this in a direct message\(bot):  \(claim) \(code)")
        if let link = event["link"]?.stringValue {
            lines.append("or open:  \(link)")
            if !noQR, let qr = try? QRCode(bytes: Array(link.utf8)) { lines += ["", qr.terminalText()] }
        }
        lines += ["", "It works once and expires in \(minutes) minute\(minutes == 1 ? "" : "s"). Waiting for it…"]
        Self.show(lines.joined(separator: "\n"))
    }

    /// Whether `link` points at this machine's loopback (127.0.0.1, localhost, [::1]).
    static func isLoopback(_ link: String) -> Bool {
        guard let rest = link.split(separator: "/", maxSplits: 3, omittingEmptySubsequences: false).dropFirst(2).first else { return false }
        let authority = rest.split(separator: "@").last.map(String.init) ?? ""
        let host = authority.hasPrefix("[") ? String(authority.prefix { $0 != "]" }.dropFirst()) : String(authority.prefix { $0 != ":" })
        return LoopbackHost.contains(host)
    }

    /// Written at once, unbuffered: whoever reads the terminal (or its file) needs the code now.
    private static func show(_ text: String) {
        StandardStreams.writeOutput((text + "\n"))
    }

    /// Shows who claimed the code and asks; with --yes the daemon never asks.
    private func confirm(_ event: JSONValue) -> Bool {
        let name = event["userName"]?.stringValue ?? ""
        let id = event["user"]?.stringValue ?? ""
        if !output.json { Self.show("\nClaimed by \(name.isEmpty ? "someone" : name) (id \(id)) on \(messenger).") }
        StandardStreams.writeError("Add \(name.isEmpty ? id : name) to the \(messenger) allowlist? [y/N] ")
        let answer = readLine()?.trimmingInlineSpace().lowercased() ?? ""
        return answer == "y" || answer == "yes"
    }
}
