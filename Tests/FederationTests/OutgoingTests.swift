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
            let outgoing = Outgoing(store: h.store, joined: joined, spoolDir: "/nonexistent", logger: Logger(label: "outgoing"))
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

    /// A post of this machine's session for another machine's chat: its files' names cross, never
    /// where they are on this machine, and the spool copies made for it are removed once it is
    /// carried (a file elsewhere is not this plugin's to remove).
    @Test func aPostsFilesCrossAsNamesAndTheirSpoolCopiesGo() async throws {
        try await StoreHarness.with { h in
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent("outgoing-" + UUID().uuidString).path
            let spool = folder + "/spool"
            try FileManager.default.createDirectory(atPath: spool, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(atPath: folder) }
            let copy = spool + "/s1-answer.md"
            let kept = folder + "/README.md"
            for path in [copy, kept] { try "words".write(toFile: path, atomically: true, encoding: .utf8) }
            let joined = JoinedMachine()
            joined.set("desktop")
            let outgoing = Outgoing(store: h.store, joined: joined, spoolDir: spool, logger: Logger(label: "outgoing"))
            let channel = RemoteChannel(machine: "laptop", messenger: "telegram", channel: "42").encoded
            let params: JSONValue = [
                "target": ["channel": .string(channel)], "kind": "final", "text": "done",
                "files": [
                    ["path": .string(copy), "filename": "answer.md", "size": 5], ["path": .string(kept), "filename": "README.md"],
                    ["path": .string(spool + "/../README.md"), "filename": "README.md"],
                ],
            ]
            try await outgoing.carry(.chatPost, id: "d1", params: params, retrying: false)
            let bodies = try await h.store.client.query("SELECT body::text FROM relay_outbound")
            let body = try #require(try bodies.first?.string(0))
            #expect(!body.contains(folder) && body.contains("answer.md") && body.contains("README.md"), "\(body)")
            #expect(!FileManager.default.fileExists(atPath: copy), "the spool copy is removed once carried")
            #expect(FileManager.default.fileExists(atPath: kept), "a file outside the spool, however named, is left alone")
        }
    }
}
