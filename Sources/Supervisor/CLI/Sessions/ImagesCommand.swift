import ArgumentParser
import PiRelaySDK
import Supervisor
import SupervisorIO

struct ImagesCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "images", abstract: "List the images tools produced in the session's last run, or send one to its chats.")
    @Argument(help: .optionalSession, completion: .sessionNames) var session: String?
    @Option(help: "Send image number N to the chats watching the session.") var send: Int?
    @OptionGroup var output: OutputOptions

    func run() {
        var params: JSONValue = SessionKey.params(session)
        if let send { params["send"] = JSONValue(send) }
        SessionCall.run(.images, params, output) { result in
            if let sent = result["sent"]?.stringValue { return "sent \(sent)" }
            let list = result.arrayValue ?? []
            if list.isEmpty { return "no images from tools in the last run" }
            return list.map {
                "\($0["number"]?.intValue ?? 0). \($0["filename"]?.stringValue ?? "?") (from \($0["tool"]?.stringValue ?? "?"))\t\($0["path"]?.stringValue ?? "")"
            }
            .joined(separator: "\n")
        }
    }
}
