import Foundation
import PiRelaySDK
import Testing

/// What a machine does with requests another machine forwards (`federation.received`), through
/// one whole daemon in process: only the federation plugin may forward, and the second look at
/// the user lets in whoever this machine or the asking machine lists (for a bot every machine
/// shares, any machine), and no one else. The machine here is a server that lists no messenger
/// in `federation.ingress`: it runs sessions and has no token.
@Suite(.timeLimit(.minutes(3))) struct LinkedFederationTests {
    static let chatID = "5100000001"

    func forwarded(from machine: String, messenger: String, user: String) -> ForwardedRequest {
        let channel = RemoteChannel.isShared(messenger: messenger) ? messenger + "/" + Self.chatID : Self.chatID
        return ForwardedRequest(
            machine: machine, messenger: messenger, method: .chatMessage,
            params: ChatMessageParams(
                chat: Chat(messenger: messenger, channel: channel, user: user, dm: true), messageID: UUID().uuidString, text: "/sessions"
            ).json)
    }

    @Test func onlyUsersAMachinePublishedAreServed() async throws {
        try await LinkedRelay.with(config: ["machine: server"], federation: true) { relay in
            let federation = try #require(await LinkedChats.shared.connection(relay.home.pluginStateDir("federation")))
            let messenger = try #require(await LinkedChats.shared.connection(relay.messengerState))
            let report = FederationReport(machines: [
                MachineSummary(name: "laptop", online: true, lastSeen: "2026-11-26T12:00:00Z", allowed: ["telegram": ["alice"]])
            ])
            await federation.notify(.federationMachines, report)

            // Alice, whom the laptop lists, on the laptop's own bot and on the bot every machine
            // shares: served (the report may take a moment to arrive).
            var served: JSONValue?
            for _ in 0..<100 where served == nil {
                served = try? await federation.request(
                    .federationReceived, forwarded(from: "laptop", messenger: "*/telegram", user: "alice"), timeout: .seconds(10))
                if served == nil { try await Task.sleep(for: .milliseconds(50)) }
            }
            #expect(served?["reply"]?["text"]?.stringValue?.isEmpty == false, "\(String(describing: served))")
            _ = try await federation.request(
                .federationReceived, forwarded(from: "laptop", messenger: "telegram", user: "alice"), timeout: .seconds(10))

            // Mallory, whom nobody lists: refused, on either bot, and the refusal says so.
            for name in ["*/telegram", "telegram"] {
                do {
                    _ = try await federation.request(
                        .federationReceived, forwarded(from: "laptop", messenger: name, user: "mallory"), timeout: .seconds(10))
                    Issue.record("a request for an unlisted user on \(name) was served")
                } catch let error as RemoteError {
                    #expect(error.code == .notAuthorized && error.message.contains("mallory"), "\(error)")
                }
            }
            // Alice on the laptop's bot is not someone the desktop vouched for.
            await #expect(throws: RemoteError.self) {
                _ = try await federation.request(
                    .federationReceived, forwarded(from: "desktop", messenger: "telegram", user: "alice"), timeout: .seconds(10))
            }

            // A plugin without the federation role may not forward at all.
            do {
                _ = try await messenger.request(
                    .federationReceived, forwarded(from: "laptop", messenger: "*/telegram", user: "alice"), timeout: .seconds(10))
                Issue.record("a messenger forwarded a request")
            } catch let error as RemoteError {
                #expect(error.code == .notAuthorized && error.message.contains("only the federation plugin"), "\(error)")
            }
        }
    }

    /// A chat that picked another machine keeps its local binding. While that machine is not
    /// among the federation's (it left, or this daemon has just started and not joined yet), its
    /// prompt is held with a word, never run in the local session it left.
    @Test func aChatThatPickedAMachineThatIsGoneRunsNothingHere() async throws {
        try await LinkedRelay.with(federation: true) { relay in
            let federation = try #require(await LinkedChats.shared.connection(relay.home.pluginStateDir("federation")))
            let desktop = MachineSummary(name: "desktop", online: true, lastSeen: "2026-11-26T12:00:00Z", allowed: ["deskchat": [LinkedRelay.user]])
            await federation.notify(.federationMachines, FederationReport(machines: [desktop]))
            _ = try await relay.say("/new \(relay.workspace) here")
            var picked: ChatMessageResult?
            for _ in 0..<100 {
                picked = try? await relay.say("/use desktop web")
                if picked?.status != .command || picked?.reply?.text.contains("Watching") != true { break }
                try await Task.sleep(for: .milliseconds(50))
            }
            await federation.notify(.federationMachines, FederationReport(machines: []))
            var held: ChatMessageResult?
            for _ in 0..<100 {
                held = try await relay.say("run this")
                if held?.reply?.text.contains("not among the federation's machines") == true { break }
                try await Task.sleep(for: .milliseconds(50))
            }
            #expect(held?.reply?.text.contains("Machine desktop is not among the federation's machines now") == true, "\(String(describing: held))")
            #expect(held?.status != .prompted, "\(String(describing: held))")
            // /new brings the chat back here, where no other session may be left to /use.
            let started = try await relay.say("/new \(relay.workspace) back")
            #expect(started.reply?.text.contains("Started back") == true, "\(started)")
            let prompted = try await relay.say("now here")
            #expect(prompted.status == .prompted, "\(prompted)")
        }
    }
}
