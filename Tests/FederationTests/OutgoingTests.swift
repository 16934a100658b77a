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

    /// The request's write was committed but its answer did not come back in time (a trigger
    /// holds the insert past the store's 3 s limit): the machine it is for may take and run it
    /// all the same, so the sender, which knows the request's id from before the write, waits for
    /// its answer instead of telling the chat it was not sent.
    @Test func aRequestWrittenWithoutConfirmationIsFoundAndAnswered() async throws {
        try await StoreHarness.with { h in
            try await h.store.client.query(
                "CREATE FUNCTION slow_insert() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN PERFORM pg_sleep(5); RETURN NULL; END $$")
            try await h.store.client.query("CREATE TRIGGER slow AFTER INSERT ON relay_requests FOR EACH ROW EXECUTE FUNCTION slow_insert()")
            let impatient = FederationStore(client: h.store.client, logger: Logger(label: "impatient"), answerWithin: .seconds(3))
            let forwarded = Self.forwarding(Self.request, through: impatient)
            var taken: Int64?
            let deadline = ContinuousClock.now + .seconds(20)
            while taken == nil, ContinuousClock.now < deadline {
                // Dated when its id was reserved, 5 s before it was written: a machine's own
                // take would find it too old by then, and the sender withdraw it.
                taken = try await h.store.takeRequest(for: "desktop", freshWithin: .seconds(30))?.id
                if taken == nil { try await Task.sleep(for: .milliseconds(100)) }
            }
            let id = try #require(taken, "the request was written")
            try await h.store.answer(request: id, result: #"{"status":"prompted"}"#, error: nil)
            let answer = try await forwarded.value.get()
            #expect(answer["status"] == "prompted", "\(answer)")
        }
    }

    /// The request's write failed: after the time a machine has to take a request, the sender
    /// finds no such request and says nothing was done there.
    @Test func aRequestWhoseWriteFailedIsSaidNotSent() async throws {
        try await StoreHarness.with { h in
            try await h.store.client.query(
                "CREATE FUNCTION refuse_insert() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'no room'; END $$")
            try await h.store.client.query("CREATE TRIGGER refuse BEFORE INSERT ON relay_requests FOR EACH ROW EXECUTE FUNCTION refuse_insert()")
            let result = await Self.forwarding(Self.request, through: h.store).value
            guard case .failure(let error) = result else { return #expect(Bool(false), "answered: \(result)") }
            #expect(error.code == .unavailable && error.message.contains("could not be sent"), "\(error)")
            #expect(error.message.contains("no room") && error.message.contains("nothing was done there"), "\(error)")
        }
    }

    static let request = ForwardedRequest(
        machine: "desktop", messenger: "telegram", method: .chatMessage,
        params: ChatMessageParams(chat: Chat(messenger: "telegram", channel: "1", user: "u1", dm: true), messageID: "m1", text: "hi").json)

    /// `request` forwarded from the laptop through `store`, beside the test.
    static func forwarding(_ request: ForwardedRequest, through store: FederationStore) -> Task<Result<JSONValue, RemoteError>, Never> {
        let joined = JoinedMachine()
        joined.set("laptop")
        let outgoing = Outgoing(store: store, joined: joined, spoolDir: "/nonexistent", logger: Logger(label: "outgoing"))
        return Task {
            do { return .success(try await outgoing.forward(request)) } catch let error as RemoteError { return .failure(error) } catch {
                return .failure(RemoteError(code: .internal, message: "\(error)"))
            }
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
