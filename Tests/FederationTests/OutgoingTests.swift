import Foundation
import Logging
import PiRelaySDK
import Testing

@testable import FederationPlugin

/// A request forwarded to another machine while the database goes away and comes back: the
/// wait goes on through the outage, and a request nobody took is withdrawn, so the chat's
/// "nothing was done there" is true and the request never runs later.
@Suite(.timeLimit(.minutes(3))) struct OutgoingTests {
    @Test func aRequestNobodyTookIsWithdrawnThroughADatabaseBlip() async throws {
        try await StoreHarness.with { h in
            let joined = JoinedMachine()
            joined.set("laptop")
            let outgoing = Outgoing(store: h.store, joined: joined, logger: Logger(label: "outgoing"))
            let request = ForwardedRequest(
                machine: "desktop", messenger: "telegram", method: .chatMessage,
                params: ChatMessageParams(chat: Chat(messenger: "telegram", channel: "1", user: "u1", dm: true), messageID: "m1", text: "hi").json)
            let forwarded = Task { () -> RemoteError? in
                do {
                    _ = try await outgoing.forward(request)
                    return nil
                } catch let error as RemoteError { return error } catch { return RemoteError(code: .internal, message: "\(error)") }
            }
            try await Task.sleep(for: .milliseconds(300))
            try await h.server.stop()
            try await Task.sleep(for: .seconds(1))
            try await h.server.startServer()
            let error = try #require(await forwarded.value, "nobody answered")
            #expect(error.code == .unavailable && error.message.contains("nothing was done there"), "\(error)")
            let rows = try await h.store.client.query("SELECT count(*)::int8 FROM relay_requests")
            #expect(try rows.first?.int64(0) == 0, "withdrawn: it can never be taken and run")
        }
    }
}
